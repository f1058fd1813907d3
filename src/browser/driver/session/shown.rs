//! The page's text as it is rendered (`SHOWN_TEXT`): what a picture of it would show, read to
//! tell whether a screenshot, a screencast frame or an atlas node's screenshot would show a
//! secret in pixels, which no masker reads.
//!
//! What no page script reads and the accessibility tree (agent-browser's snapshot, the second
//! look) leaves out too — under `aria-hidden="true"` or `inert`, or behind a modal dialog — is
//! read over runner's own DevTools session where it can be (a closed shadow root: the text of
//! every closed root of the page, `DOM.getDocument` with `pierce`), and is "cannot tell" where
//! it cannot (a frame of another origin; a closed root when runner has no session of its own on
//! the tab), as a page too large to read is.

use std::time::Duration;

use serde_json::{Value, json};

use super::Session;
use crate::browser::driver::script::{SHOWN_TEXT, call};

/// The most characters of a page's rendered text read to look for secrets in: a page with more
/// is taken for one that cannot be read to tell (no answer may come near the DevTools
/// connection's message limit).
const MAX_SHOWN: usize = 4 * 1024 * 1024;

/// The most elements that may show a closed shadow root (see `closed_roots_text`) read: a page
/// with more is taken for one that cannot be read to tell.
const MAX_HOSTS: usize = 200;

/// The object group of the elements `closed_roots_text` reads, released after.
const GROUP: &str = "runner-closed-roots";

/// Why the page's rendered text cannot be read to tell whether it shows a secret.
pub(crate) const UNREAD: &str = "the page could not be read to tell whether it showed a secret";

/// A frame of another origin that the accessibility tree leaves out (see the module's notes).
pub(crate) const FOREIGN_FRAME: &str = "the page could not be read to tell whether it showed a \
     secret: it shows a frame of another origin, which runner cannot read, under `aria-hidden`, \
     `inert` or a modal dialog";

/// A closed shadow root that the accessibility tree leaves out, and runner cannot read.
const CLOSED_ROOT: &str = "the page could not be read to tell whether it showed a secret: an \
     element under `aria-hidden`, `inert` or a modal dialog may show a closed shadow root, which \
     runner could not read";

impl Session {
    /// The texts of the page's shown text nodes, in order, to be joined with nothing between
    /// them; or why they cannot be read to tell: not within `t` (the page's own work bounded by
    /// `budget` too), more than `MAX_SHOWN` characters, or a part of the page no page script
    /// reads and the accessibility tree leaves out (see the module's notes).
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
        if count("foreign") > 0 {
            return Err(FOREIGN_FRAME);
        }
        if count("closed") > 0 {
            texts.push(self.closed_roots_text(t, ms).await.ok_or(CLOSED_ROOT)?);
        }
        Ok(texts)
    }

    /// The text of the closed shadow roots of the elements that may show one where the
    /// accessibility tree does not look (see `SHOWN_TEXT`'s `hosts`), over runner's own
    /// DevTools session (`DOM.describeNode` with `pierce` on each); none without a session of
    /// its own on the tab, in no time, or past `MAX_HOSTS` such elements.
    async fn closed_roots_text(&mut self, t: Duration, ms: u64) -> Option<String> {
        let js = call(
            SHOWN_TEXT,
            &[Value::from(MAX_SHOWN), Value::from(ms), Value::from(true)],
        );
        let params = json!({ "expression": js, "objectGroup": GROUP, "returnByValue": false });
        let text = match self.call_own("Runtime.evaluate", params, t).await? {
            Ok(list) => self.closed_roots_of(&list, t).await,
            Err(_) => None,
        };
        let release = json!({ "objectGroup": GROUP });
        let _ = self
            .call_own("Runtime.releaseObjectGroup", release, t)
            .await;
        text
    }

    /// [`Session::closed_roots_text`] of the elements of `list` (a `Runtime.evaluate` answer).
    async fn closed_roots_of(&mut self, list: &Value, t: Duration) -> Option<String> {
        let id = list.get("result")?.get("objectId")?.as_str()?;
        let params = json!({ "objectId": id, "ownProperties": true });
        let props = self
            .call_own("Runtime.getProperties", params, t)
            .await?
            .ok()?;
        let hosts: Vec<String> = props
            .get("result")?
            .as_array()?
            .iter()
            .filter(|p| {
                p.get("name")
                    .and_then(Value::as_str)
                    .is_some_and(|n| n.parse::<u32>().is_ok())
            })
            .filter_map(|p| {
                p.get("value")?
                    .get("objectId")?
                    .as_str()
                    .map(str::to_string)
            })
            .collect();
        if hosts.len() > MAX_HOSTS {
            return None;
        }
        let mut text = String::new();
        for host in hosts {
            let params = json!({ "objectId": host, "depth": -1, "pierce": true });
            let node = self.call_own("DOM.describeNode", params, t).await?.ok()?;
            closed_text(node.get("node")?, false, &mut text);
        }
        Some(text)
    }
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
    let list = |k: &str| {
        node.get(k)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    for root in list("shadowRoots") {
        let is_closed = root.get("shadowRootType").and_then(Value::as_str) == Some("closed");
        closed_text(&root, closed || is_closed, out);
    }
    if let Some(inner) = node.get("contentDocument") {
        closed_text(inner, closed, out);
    }
    for kid in list("children") {
        closed_text(&kid, closed, out);
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
