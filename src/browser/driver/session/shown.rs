//! The page's text as it is rendered (`SHOWN_TEXT`): what a picture of it would show, read to
//! tell whether a screenshot, a screencast frame or an atlas node's screenshot would show a
//! secret in pixels, which no masker reads.
//!
//! What no page script reads is asked of the browser over runner's own DevTools session on the
//! tab: whether the accessibility tree (agent-browser's snapshot, the second look) leaves out a
//! shown frame of another origin (under `aria-hidden="true"` or `inert`, or behind a modal
//! dialog: `Session::left_out`), which makes the page one that cannot be read to tell; and the
//! text of the closed shadow roots the tree may leave out (`DOM.describeNode` with `pierce`,
//! same-origin frames included): of every one of the page while a modal dialog is open in one
//! of its documents (as the tree says: one in a closed shadow root too), else of those under
//! `aria-hidden` or `inert` (whatever element holds one: a plain `<div>`, one with `display:
//! contents`). Not read: `aria-hidden` or `inert` inside a closed root, with no such part or
//! modal dialog outside any. Without such a session (`RUNNER_OWN_EVAL=off`) what the page's
//! scripts see must do: the page cannot be read to tell when it shows a frame of another origin
//! under `aria-hidden` or `inert` (or while a modal dialog they see is open), or a defined
//! custom element with no open shadow root there; nor can a page too large to describe, or to
//! read.

use std::time::Duration;

use serde_json::{Value, json};

use super::Session;
use crate::browser::driver::script::{SHOWN_TEXT, call};

/// The most characters of a page's rendered text read to look for secrets in: a page with more
/// is taken for one that cannot be read to tell (no answer may come near the DevTools
/// connection's message limit).
const MAX_SHOWN: usize = 4 * 1024 * 1024;

/// About the most bytes DevTools' description of the page (`closed_roots_text`) may take: a
/// page weighing more (`SHOWN_TEXT`'s `weight`) is taken for one that cannot be read to tell
/// (an answer near the connection's message limit would break it).
const MAX_WEIGHT: u64 = 16 * 1024 * 1024;

/// The most `tops` (see `SHOWN_TEXT`) described one by one: past them, the whole page is.
const MAX_TOPS: usize = 100;

/// The object group of the elements asked about, released after.
const GROUP: &str = "runner-shown";

/// Why the page's rendered text cannot be read to tell whether it shows a secret.
pub(crate) const UNREAD: &str = "the page could not be read to tell whether it showed a secret";

/// A frame of another origin that the accessibility tree leaves out (see the module's notes).
pub(crate) const FOREIGN_FRAME: &str = "the page could not be read to tell whether it showed a \
     secret: it shows a frame of another origin, which runner cannot read, under `aria-hidden`, \
     `inert` or a modal dialog";

/// Closed shadow roots that the accessibility tree may leave out, and runner cannot read.
const CLOSED_ROOT: &str = "the page could not be read to tell whether it showed a secret: an \
     element under `aria-hidden`, `inert` or a modal dialog may show a closed shadow root, which \
     runner could not read";

impl Session {
    /// The texts of the page's shown text nodes, in order, to be joined with nothing between
    /// them, and the text of its closed shadow roots; or why they cannot be read to tell: not
    /// within `t` (the page's own work bounded by `budget` too), more than `MAX_SHOWN`
    /// characters, or a part of the page no page script reads and the accessibility tree
    /// leaves out (see the module's notes).
    pub(crate) async fn shown_texts(
        &mut self,
        t: Duration,
        budget: Duration,
    ) -> Result<Vec<String>, &'static str> {
        let ms = u64::try_from(budget.min(t).as_millis()).unwrap_or(u64::MAX);
        let js = call(SHOWN_TEXT, &[Value::from(MAX_SHOWN), Value::from(ms)]);
        let answer = self.eval(&js, t).await.map_err(|_| UNREAD)?;
        let texts = answer
            .get("texts")
            .and_then(Value::as_array)
            .ok_or(UNREAD)?;
        let mut texts: Vec<String> = texts
            .iter()
            .map(|t| t.as_str().unwrap_or_default().to_string())
            .collect();
        let count = |k: &str| answer.get(k).and_then(Value::as_u64).unwrap_or(0);
        let seen_modal = answer.get("modal").and_then(Value::as_bool) == Some(true);
        if !self.own_page() {
            // Nothing can be asked of the browser: what the page's scripts see must do.
            if count("foreignHidden") > 0 || (seen_modal && count("foreign") > 0) {
                return Err(FOREIGN_FRAME);
            }
            if count("customLeft") > 0 {
                return Err(CLOSED_ROOT);
            }
            return Ok(texts);
        }
        let more = count("foreign") + count("tops") > 0;
        let text = match self.asked(ms, more, t).await {
            Err(why) => Err(why),
            Ok(a) if a.frames => Err(FOREIGN_FRAME),
            Ok(a) if !(a.modal || seen_modal) && a.tops.is_empty() => Ok(None),
            Ok(a) if !(a.modal || seen_modal) && a.tops.len() <= MAX_TOPS => {
                self.closed_roots_text(&a.tops, t).await.map(Some)
            }
            Ok(_) if count("weight") > MAX_WEIGHT => Err(CLOSED_ROOT),
            Ok(a) => self.closed_roots_text(&[a.root], t).await.map(Some),
        };
        let release = json!({ "objectGroup": GROUP });
        let _ = self
            .call_own("Runtime.releaseObjectGroup", release, t)
            .await;
        if let Some(closed) = text? {
            texts.push(closed);
        }
        Ok(texts)
    }

    /// What the browser's accessibility tree says of the page's documents and of its shown
    /// frames of another origin, each asked of its element (`Session::left_out`), and runner's
    /// handles (in `GROUP`) on the page's root element and on the `tops` of `SHOWN_TEXT` (read
    /// again when it counted any frame or top: `more`).
    async fn asked(&mut self, ms: u64, more: bool, t: Duration) -> Result<Asked, &'static str> {
        let hosts = if more {
            Value::from(true)
        } else {
            Value::from("docs")
        };
        let js = call(
            SHOWN_TEXT,
            &[Value::from(MAX_SHOWN), Value::from(ms), hosts],
        );
        let params = json!({ "expression": js, "objectGroup": GROUP, "returnByValue": false });
        let list = self
            .call_own("Runtime.evaluate", params, t)
            .await
            .ok_or(UNREAD)?
            .map_err(|_| UNREAD)?;
        let items = self.elements_of(&list, t).await.ok_or(UNREAD)?;
        // The documents' root elements, the frames, the tops: between two other values.
        let groups: Vec<Vec<String>> = items
            .split(Option::is_none)
            .map(|g| g.iter().flatten().cloned().collect())
            .collect();
        let [docs, foreign, tops] = <[Vec<String>; 3]>::try_from(groups).map_err(|_| UNREAD)?;
        if docs.is_empty() {
            return Err(UNREAD);
        }
        let root = docs[0].clone();
        let n = docs.len();
        let ids = [docs, foreign].concat();
        let left = self
            .left_out(&ids, t)
            .await
            .ok_or(UNREAD)?
            .map_err(|_| UNREAD)?;
        Ok(Asked {
            modal: left.iter().take(n).any(Option::is_some),
            frames: left.iter().skip(n).any(Option::is_some),
            root,
            tops,
        })
    }

    /// The remote objects of the elements of the array `list` (a `Runtime.evaluate` answer), in
    /// order; `None` for each other value.
    async fn elements_of(&mut self, list: &Value, t: Duration) -> Option<Vec<Option<String>>> {
        let id = list.get("result")?.get("objectId")?.as_str()?;
        let params = json!({ "objectId": id, "ownProperties": true });
        let props = self
            .call_own("Runtime.getProperties", params, t)
            .await?
            .ok()?;
        let mut items: Vec<(u32, Option<String>)> = props
            .get("result")?
            .as_array()?
            .iter()
            .filter_map(|p| {
                let at = p.get("name")?.as_str()?.parse::<u32>().ok()?;
                let id = p.get("value")?.get("objectId").and_then(Value::as_str);
                Some((at, id.map(str::to_string)))
            })
            .collect();
        items.sort_by_key(|(at, _)| *at);
        Some(items.into_iter().map(|(_, id)| id).collect())
    }

    /// The text of every closed shadow root under the elements of `ids` (remote objects: the
    /// page's root element, or the `tops`), same-origin frames included, over runner's own
    /// DevTools session (`DOM.describeNode` with `pierce`, all asked at once: the browser reads
    /// what no page script can); or why not.
    async fn closed_roots_text(
        &mut self,
        ids: &[String],
        t: Duration,
    ) -> Result<String, &'static str> {
        let params = ids
            .iter()
            .map(|id| json!({ "objectId": id, "depth": -1, "pierce": true }))
            .collect();
        let nodes = self
            .call_own_all("DOM.describeNode", params, t)
            .await
            .ok_or(CLOSED_ROOT)?;
        let mut text = String::new();
        for node in nodes {
            let node = node.map_err(|_| CLOSED_ROOT)?;
            closed_text(node.get("node").ok_or(CLOSED_ROOT)?, false, &mut text);
        }
        Ok(text)
    }
}

/// What the browser's accessibility tree says of the page (`Session::asked`).
struct Asked {
    /// A document of the page's is left out of the tree (a modal dialog is open in it).
    modal: bool,
    /// A shown frame of another origin is left out of it.
    frames: bool,
    /// runner's handle on the page's root element.
    root: String,
    /// runner's handles on `SHOWN_TEXT`'s `tops`.
    tops: Vec<String>,
}

/// The text of the nodes under `node` (a `DOM.Node`) inside a closed shadow root (`closed`:
/// `node` is), in document order, a newline between nodes (a secret is not made of two).
fn closed_text(node: &Value, closed: bool, out: &mut String) {
    if closed
        && node.get("nodeType").and_then(Value::as_u64) == Some(3)
        && let Some(v) = node.get("nodeValue").and_then(Value::as_str)
    {
        out.push_str(v);
        out.push('\n');
    }
    // (By reference: a page's description is megabytes, copied at every level it was slow.)
    let list = |k: &str| {
        node.get(k)
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default()
    };
    for root in list("shadowRoots") {
        let is_closed = root.get("shadowRootType").and_then(Value::as_str) == Some("closed");
        closed_text(root, closed || is_closed, out);
    }
    if let Some(inner) = node.get("contentDocument") {
        closed_text(inner, closed, out);
    }
    for kid in list("children") {
        closed_text(kid, closed, out);
    }
}

#[cfg(test)]
mod tests {
    use super::closed_text;
    use serde_json::json;

    #[test]
    fn only_the_text_of_closed_roots_is_taken() {
        let host = json!({ "nodeType": 1, "children": [{ "nodeType": 3, "nodeValue": "light" }],
            "shadowRoots": [
                { "shadowRootType": "open", "children": [{ "nodeType": 3, "nodeValue": "open" }] },
                { "shadowRootType": "closed", "children": [
                    { "nodeType": 1, "children": [{ "nodeType": 3, "nodeValue": "KEY" }] },
                    { "nodeType": 1, "contentDocument": { "nodeType": 9, "children": [
                        { "nodeType": 3, "nodeValue": "FRAMED" }] } }] }] });
        let mut out = String::new();
        closed_text(&host, false, &mut out);
        assert_eq!(out, "KEY\nFRAMED\n");
    }
}
