//! The pictures of a trace kept only when its flow fails (`retain-on-failure`): no screencast
//! (its capture delays the animation frames the steps' actionability waits use), but after each
//! step that acts on the page a snapshot of its document — HTML with the live state of its
//! fields written in, its scripts out, its stylesheets inlined (`scripts/snapshot.js`): one
//! `Runtime.evaluate` sent after the step (before the next step's commands: it is of the page
//! after this step), its answer taken as it comes, so the flow waits for no answer. A step that only reads the page shares the snapshot of the last that acted.
//!
//! A flow that passed drops them. One that failed has them drawn, at its end, in a tab of a
//! fresh context of the same browser that runs no script (`Emulation.setScriptExecutionDisabled`,
//! `Page.setDocumentContent`), at the flow's viewport, and taken as the screencast's JPEGs were
//! (`render`).

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use serde_json::{Value, json};
use tokio::sync::Notify;

use super::super::cdp::Link;
use super::super::script;

/// The page-side capture.
const SNAPSHOT_JS: &str = include_str!("../scripts/snapshot.js");

/// The most snapshots a flow holds: its latest (a failure is at the end).
const HELD: usize = 200;

/// How long one snapshot's evaluation may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(10);

/// One snapshot: the page's HTML (its `<link>` stylesheets standing as
/// `<style data-runner-sheet>`), its viewport in CSS pixels.
#[derive(Clone, Debug)]
pub(crate) struct Shot {
    pub(crate) html: String,
    pub(crate) size: (u32, u32),
}

/// A flow's snapshots.
#[derive(Default)]
pub(crate) struct Snapshots {
    state: Arc<Mutex<Held>>,
    /// Told when a snapshot's answer has come (or none will).
    told: Arc<Notify>,
}

#[derive(Default)]
struct Held {
    /// The snapshots taken so far: number -> shot (none when the page gave none).
    shots: BTreeMap<u64, Option<Shot>>,
    /// The snapshot each picture shows: picture id -> snapshot number.
    pictures: HashMap<u64, u64>,
    /// The latest snapshot's number.
    last: Option<u64>,
    next: u64,
    /// Snapshots asked for whose answer has not come.
    pending: usize,
    /// The stylesheets' texts, by address: each read once a flow.
    sheets: HashMap<String, String>,
}

impl Snapshots {
    /// After a step on tab `session` of `link`: when it `acts`, a snapshot of the page is asked
    /// for (sent, its answer not waited for). The picture's id when `picture` is wanted (the last snapshot's:
    /// none yet, none; none when runner's session on the tab could not be had after a step that
    /// acted, never the page before it).
    pub(crate) async fn stepped(
        &self,
        page: Option<(Arc<Link>, String)>,
        (acts, picture): (bool, bool),
    ) -> Option<u64> {
        let asked = match (acts, page) {
            (true, Some((link, session))) => {
                let (n, expression) = {
                    let mut h = self.state.lock().ok()?;
                    let n = h.next;
                    h.next += 1;
                    h.last = Some(n);
                    h.pending += 1;
                    let known: Vec<&String> = h.sheets.keys().collect();
                    (n, script::call(SNAPSHOT_JS, &[json!(known)]))
                };
                let params = json!({ "expression": expression, "returnByValue": true });
                let sent = link
                    .sent_in(Some(&session), "Runtime.evaluate", params, CALL_TIMEOUT)
                    .await;
                Some((n, sent))
            }
            (true, None) => {
                self.state.lock().ok()?.last = None;
                None
            }
            (false, _) => None,
        };
        if let Some((n, sent)) = asked {
            let (state, told) = (self.state.clone(), self.told.clone());
            tokio::spawn(async move {
                let value = match sent {
                    Ok(answer) => answer.await.ok().map(|a| a["result"]["value"].clone()),
                    Err(_) => None,
                };
                if let Ok(mut h) = state.lock() {
                    h.took(n, value);
                }
                told.notify_waiters();
            });
        }
        let mut h = self.state.lock().ok()?;
        if !picture {
            return None;
        }
        let id = h.next;
        h.next += 1;
        if let Some(last) = h.last {
            h.pictures.insert(id, last);
        }
        Some(id)
    }

    /// Waits (at most `timeout`) for the snapshots asked for; then the snapshots `pictures`
    /// (by id) show, each with the flow's stylesheets put in and the pictures that show it.
    pub(crate) async fn shots(&self, pictures: &[u64], timeout: Duration) -> Vec<(Vec<u64>, Shot)> {
        let until = tokio::time::Instant::now() + timeout;
        loop {
            let told = self.told.notified();
            let done = self.state.lock().map_or(true, |h| h.pending == 0);
            if done || tokio::time::timeout_at(until, told).await.is_err() {
                break;
            }
        }
        let Ok(h) = self.state.lock() else {
            return Vec::new();
        };
        let mut by_shot: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
        for id in pictures {
            if let Some(n) = h.pictures.get(id) {
                by_shot.entry(*n).or_default().push(*id);
            }
        }
        by_shot
            .into_iter()
            .filter_map(|(n, ids)| {
                let shot = h.shots.get(&n)?.as_ref()?;
                Some((ids, with_sheets(shot, &h.sheets)))
            })
            .collect()
    }
}

impl Held {
    /// Snapshot `n`'s answer: the page's `value` (none when it gave none).
    fn took(&mut self, n: u64, value: Option<Value>) {
        self.pending = self.pending.saturating_sub(1);
        let shot = value.and_then(|v| {
            for (href, text) in v["sheets"].as_object()? {
                if let Some(t) = text.as_str() {
                    self.sheets.insert(href.clone(), t.to_string());
                }
            }
            let html = v["html"].as_str().filter(|h| !h.is_empty())?;
            let px = |k: &str| u32::try_from(v[k].as_u64()?).ok().filter(|p| *p > 0);
            let size = (px("width")?, px("height")?);
            Some(Shot {
                html: html.to_string(),
                size,
            })
        });
        self.shots.insert(n, shot);
        while self.shots.len() > HELD {
            self.shots.pop_first();
        }
    }
}

/// `shot` with each `<style data-runner-sheet="ADDRESS">` given the text of that stylesheet.
fn with_sheets(shot: &Shot, sheets: &HashMap<String, String>) -> Shot {
    const OPEN: &str = "<style data-runner-sheet=\"";
    let mut html = String::with_capacity(shot.html.len());
    let mut rest = shot.html.as_str();
    while let Some(at) = rest.find(OPEN) {
        let after = &rest[at + OPEN.len()..];
        let Some(quote) = after.find('"') else { break };
        let Some(close) = after[quote..].find('>') else {
            break;
        };
        let end = quote + close + 1;
        html.push_str(&rest[..at + OPEN.len() + end]);
        let href = unescape(&after[..quote]);
        if let Some(text) = sheets.get(&href) {
            // A stylesheet's text cannot end the element early.
            html.push_str(&text.replace("</style", "<\\/style"));
        }
        rest = &after[end..];
    }
    html.push_str(rest);
    Shot {
        html,
        size: shot.size,
    }
}

/// An attribute's value as the browser serialized it.
fn unescape(value: &str) -> String {
    value
        .replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&nbsp;", "\u{a0}")
        .replace("&amp;", "&")
}

/// Draws each of `shots` (and the pictures that show it) in a tab of a fresh context of the
/// browser on `link` that runs no script, at its viewport, and takes it as a JPEG of quality
/// `quality` at most `max` pixels wide and high; what could not be drawn is missing.
pub(crate) async fn render(
    link: &Link,
    shots: &[(Vec<u64>, Shot)],
    (quality, max): (u32, f64),
) -> HashMap<u64, Arc<Vec<u8>>> {
    let mut out = HashMap::new();
    if shots.is_empty() {
        return out;
    }
    let Ok(context) = call(link, None, "Target.createBrowserContext", json!({})).await else {
        return out;
    };
    let context = context["browserContextId"].clone();
    let params = json!({ "url": "about:blank", "browserContextId": context });
    let target = call(link, None, "Target.createTarget", params).await;
    let target = target
        .ok()
        .and_then(|t| t["targetId"].as_str().map(String::from));
    let session = match &target {
        Some(t) => link.attach(t, CALL_TIMEOUT).await.ok(),
        None => None,
    };
    if let (Some(target), Some(session)) = (&target, session) {
        let tab = (link, session.as_str(), target.as_str());
        let off = json!({ "value": true });
        if call(
            link,
            Some(&session),
            "Emulation.setScriptExecutionDisabled",
            off,
        )
        .await
        .is_ok()
        {
            for (ids, shot) in shots {
                if let Some(jpeg) = draw(tab, shot, (quality, max)).await {
                    out.extend(ids.iter().map(|id| (*id, jpeg.clone())));
                }
            }
        }
    }
    let params = json!({ "browserContextId": context });
    let _ = call(link, None, "Target.disposeBrowserContext", params).await;
    out
}

/// Draws `shot` in tab `target` (runner's session `session` on it, scripts off): its JPEG.
async fn draw(
    (link, session, target): (&Link, &str, &str),
    shot: &Shot,
    (quality, max): (u32, f64),
) -> Option<Arc<Vec<u8>>> {
    let s = Some(session);
    let (width, height) = shot.size;
    let metrics = json!({
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": false,
    });
    call(link, s, "Emulation.setDeviceMetricsOverride", metrics)
        .await
        .ok()?;
    let content = json!({ "frameId": target, "html": shot.html });
    call(link, s, "Page.setDocumentContent", content)
        .await
        .ok()?;
    let (w, h) = (f64::from(width), f64::from(height));
    let scale = (max / w).min(max / h).min(1.0);
    let clip = json!({ "x": 0, "y": 0, "width": w, "height": h, "scale": scale });
    let params = json!({ "format": "jpeg", "quality": quality, "clip": clip });
    let taken = call(link, s, "Page.captureScreenshot", params).await.ok()?;
    base64::engine::general_purpose::STANDARD
        .decode(taken["data"].as_str()?)
        .ok()
        .map(Arc::new)
}

async fn call(
    link: &Link,
    session: Option<&str>,
    method: &str,
    params: Value,
) -> Result<Value, super::super::cdp::CdpError> {
    link.call_in(session, method, params, CALL_TIMEOUT).await
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::{Shot, with_sheets};

    /// Each stylesheet a snapshot names is put in its place, by its address as the browser
    /// serialized it (`&amp;`); one runner does not hold stays empty; a text that holds
    /// `</style` cannot end its element.
    #[test]
    fn a_snapshots_stylesheets_are_put_in_by_address() {
        let shot = Shot {
            html: concat!(
                r#"<head><style data-runner-sheet="http://x/a.css?v=1&amp;w=2"></style>"#,
                r#"<style data-runner-sheet="http://x/b.css" media="print"></style></head>"#,
                r#"<body><style data-runner-sheet="http://x/gone.css"></style></body>"#
            )
            .into(),
            size: (800, 600),
        };
        let sheets = HashMap::from([
            (
                "http://x/a.css?v=1&w=2".to_string(),
                "p { color: red }".to_string(),
            ),
            (
                "http://x/b.css".to_string(),
                "p::after { content: '</style>' }".to_string(),
            ),
        ]);
        let put = with_sheets(&shot, &sheets);
        assert_eq!(
            put.html,
            concat!(
                r#"<head><style data-runner-sheet="http://x/a.css?v=1&amp;w=2">p { color: red }</style>"#,
                r#"<style data-runner-sheet="http://x/b.css" media="print">p::after { content: '<\/style>' }</style></head>"#,
                r#"<body><style data-runner-sheet="http://x/gone.css"></style></body>"#
            )
        );
        assert_eq!(put.size, (800, 600));
    }
}
