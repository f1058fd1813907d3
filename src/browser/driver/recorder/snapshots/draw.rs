//! A failed flow's snapshots drawn into pictures, at its end: one at a time, in a tab of a
//! fresh context of the same browser that runs no script (`Emulation.setScriptExecutionDisabled`)
//! and asks for no URL (`Fetch.enable` for every address: each request is refused as it is
//! paused, see `dialog_watch`; a snapshot holds the stylesheets the page could read, inlined,
//! and nothing else loads: another origin's stylesheet, pictures and fonts, frames are not
//! drawn), each shot with its stylesheets put in (each once) and masked with the flow's masker
//! (`Page.setDocumentContent`), at the flow's viewport (the tab's own, never a size the page
//! names; at most `MAX_SIDE` pixels a side), and taken as the screencast's JPEGs were. The
//! whole drawing takes at most `BOUNDS.all`, and stops at the first call the browser does not
//! answer in time (`BOUNDS.call`): the pictures not drawn are said in the trace. The drawing
//! context's disposal is sent, its answer not waited for (a browser that stalls would hold the
//! run past the bound).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use serde_json::{Value, json};
use tokio::time::Instant;

use super::super::super::cdp::{CdpError, Link};
use super::{CALL_TIMEOUT, Shots};
use crate::step::Masker;

/// The longest side of a drawing, in CSS pixels.
pub(crate) const MAX_SIDE: u32 = 4096;

/// How long drawing a flow's pictures may take: all together, and one call.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bounds {
    pub(crate) all: Duration,
    pub(crate) call: Duration,
}

/// The bounds of a flow's drawing.
pub(crate) const BOUNDS: Bounds = Bounds {
    all: Duration::from_secs(15),
    call: CALL_TIMEOUT,
};

/// The pictures drawn (by id) and what was left out, and why.
#[derive(Debug, Default)]
pub(crate) struct Drawn {
    pub(crate) pictures: HashMap<u64, Arc<Vec<u8>>>,
    pub(crate) left_out: Vec<String>,
}

/// A tab to draw in: runner's connection, its session on the tab, the tab, and when the
/// drawing must end and how long one call may wait.
struct Tab<'a> {
    link: &'a Link,
    session: String,
    target: String,
    until: (Instant, Duration),
}

impl Tab<'_> {
    /// Calls `method` in the tab, waiting at most one call's bound and no later than the
    /// drawing's end.
    async fn call(&self, method: &str, params: Value) -> Result<Value, CdpError> {
        self.link
            .call_in(Some(&self.session), method, params, left(self.until))
            .await
    }
}

/// Draws each of `shots` (and the pictures that show it) in a tab of a fresh context of the
/// browser on `link` that runs no script and asks for no URL, masked with `masker`, and takes
/// it as a JPEG of quality `quality` at most `max` pixels wide and high, within `bounds` (see
/// `BOUNDS`); what could not be drawn is missing, and said when the drawing stopped.
pub(crate) async fn render(
    link: &Arc<Link>,
    mut shots: Shots,
    (quality, max): (u32, f64),
    masker: &Masker,
    bounds: Bounds,
) -> Drawn {
    let mut out = Drawn {
        left_out: std::mem::take(&mut shots.left_out),
        ..Drawn::default()
    };
    if shots.each.is_empty() {
        return out;
    }
    let until = (Instant::now() + bounds.all, bounds.call);
    let Ok(context) = call(link, "Target.createBrowserContext", json!({}), until).await else {
        out.left_out.push(unreachable(shots.each.len(), bounds));
        return out;
    };
    let context = context["browserContextId"].clone();
    let params = json!({ "url": "about:blank", "browserContextId": context });
    let target = call(link, "Target.createTarget", params, until).await;
    let target = target
        .ok()
        .and_then(|t| t["targetId"].as_str().map(String::from));
    let session = match &target {
        Some(t) => link.attach(t, left(until)).await.ok(),
        None => None,
    };
    let mut missed = shots.each.len();
    if let (Some(target), Some(session)) = (target, session) {
        let tab = Tab {
            link,
            session,
            target,
            until,
        };
        if offline(&tab).await {
            let drawn;
            (drawn, missed) = draw_all(&tab, &shots, (quality, max), masker).await;
            out.pictures = drawn;
        }
    }
    if missed > 0 {
        out.left_out.push(unreachable(missed, bounds));
    }
    // Whatever the time left: the context goes (sent; its answer is not waited for).
    let params = json!({ "browserContextId": context });
    let _ = link
        .sent_in(None, "Target.disposeBrowserContext", params, bounds.call)
        .await;
    out
}

/// What is said of the pictures of `missed` steps not drawn.
fn unreachable(missed: usize, bounds: Bounds) -> String {
    format!(
        "the pictures of {missed} steps: drawing a failed flow's pictures (offline, in a tab of its own) stops after {}, at a call the browser does not answer in time, or when such a tab cannot be had",
        humantime::format_duration(bounds.all)
    )
}

/// How long a call may wait: at most one call's bound, and no later than the drawing's end.
fn left((until, call): (Instant, Duration)) -> Duration {
    call.min(until.saturating_duration_since(Instant::now()))
}

/// Turns `tab`'s scripts off and refuses each of its requests: whether both hold (else
/// nothing is drawn).
async fn offline(tab: &Tab<'_>) -> bool {
    let off = json!({ "value": true });
    let every = json!({ "patterns": [{ "urlPattern": "*" }] });
    tab.call("Emulation.setScriptExecutionDisabled", off)
        .await
        .is_ok()
        && tab.call("Fetch.enable", every).await.is_ok()
}

/// Draws `shots` one at a time until the drawing's end or a call that is not answered in
/// time: the pictures drawn, and how many shots were not.
async fn draw_all(
    tab: &Tab<'_>,
    shots: &Shots,
    (quality, max): (u32, f64),
    masker: &Masker,
) -> (HashMap<u64, Arc<Vec<u8>>>, usize) {
    let mut out = HashMap::new();
    for (i, (ids, shot)) in shots.each.iter().enumerate() {
        if Instant::now() >= tab.until.0 {
            return (out, shots.each.len() - i);
        }
        let html = prepared(&shot.html, &shots.sheets, masker);
        match draw(tab, &html, shot.size, (quality, max)).await {
            Ok(Some(jpeg)) => out.extend(ids.iter().map(|id| (*id, jpeg.clone()))),
            Ok(None) => {}
            Err(_) => return (out, shots.each.len() - i),
        }
    }
    (out, 0)
}

/// Draws `html` in `tab` (scripts off, offline) at `size` (CSS pixels): its JPEG; an error
/// when a call was not answered in time (the drawing stops).
async fn draw(
    tab: &Tab<'_>,
    html: &str,
    (width, height): (u32, u32),
    (quality, max): (u32, f64),
) -> Result<Option<Arc<Vec<u8>>>, CdpError> {
    let answered = |r: Result<Value, CdpError>| match r {
        Ok(v) => Ok(Some(v)),
        // The browser refused this drawing: the next may be drawn.
        Err(CdpError::Refused { .. }) => Ok(None),
        Err(e) => Err(e),
    };
    let metrics = json!({
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": false,
    });
    let set = tab
        .call("Emulation.setDeviceMetricsOverride", metrics)
        .await;
    if answered(set)?.is_none() {
        return Ok(None);
    }
    let content = json!({ "frameId": tab.target, "html": html });
    if answered(tab.call("Page.setDocumentContent", content).await)?.is_none() {
        return Ok(None);
    }
    let (w, h) = (f64::from(width), f64::from(height));
    let scale = (max / w).min(max / h).min(1.0);
    let clip = json!({ "x": 0, "y": 0, "width": w, "height": h, "scale": scale });
    let params = json!({ "format": "jpeg", "quality": quality, "clip": clip });
    let Some(taken) = answered(tab.call("Page.captureScreenshot", params).await)? else {
        return Ok(None);
    };
    Ok(base64::engine::general_purpose::STANDARD
        .decode(taken["data"].as_str().unwrap_or_default())
        .ok()
        .map(Arc::new))
}

/// A request of the drawing tab paused (`Fetch.requestPaused`, event `msg`): refused, in a
/// task of its own (the connection's reader must not wait).
pub(crate) fn refuse(link: &Arc<Link>, msg: &Value) {
    let (Some(session), Some(id)) = (
        msg["sessionId"].as_str(),
        msg["params"]["requestId"].as_str(),
    ) else {
        return;
    };
    let (link, session) = (link.clone(), session.to_string());
    let refused = json!({ "requestId": id, "errorReason": "BlockedByClient" });
    tokio::spawn(async move {
        let _ = link
            .call_in(Some(&session), "Fetch.failRequest", refused, CALL_TIMEOUT)
            .await;
    });
}

/// Calls `method` on the browser, waiting no longer than `until` allows (see `left`).
async fn call(
    link: &Link,
    method: &str,
    params: Value,
    until: (Instant, Duration),
) -> Result<Value, CdpError> {
    link.call_in(None, method, params, left(until)).await
}

/// A snapshot's `html` as it is drawn: its stylesheets put in (see `with_sheets`), masked with
/// the flow's `masker` (a secret typed into a field, or in the page or a stylesheet, is `***`).
pub(super) fn prepared(html: &str, sheets: &HashMap<String, Arc<str>>, masker: &Masker) -> String {
    masker.mask_markup(&with_sheets(html, sheets))
}

/// `html` with the first `<style data-runner-sheet="ADDRESS">` of each address given the text
/// of that stylesheet (a later one of the same address stays empty: a sheet is put in once).
pub(super) fn with_sheets(html: &str, sheets: &HashMap<String, Arc<str>>) -> String {
    const OPEN: &str = "<style data-runner-sheet=\"";
    let mut out = String::with_capacity(html.len());
    let mut put = std::collections::HashSet::new();
    let mut rest = html;
    while let Some(at) = rest.find(OPEN) {
        let after = &rest[at + OPEN.len()..];
        let Some(quote) = after.find('"') else { break };
        let Some(close) = after[quote..].find('>') else {
            break;
        };
        let end = quote + close + 1;
        out.push_str(&rest[..at + OPEN.len() + end]);
        let href = unescape(&after[..quote]);
        if let Some(text) = sheets.get(&href)
            && put.insert(href)
        {
            // A stylesheet's text cannot end the element early.
            out.push_str(&text.replace("</style", "<\\/style"));
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    out
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
