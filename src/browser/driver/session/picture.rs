//! The trace's picture of the page after a step: a small JPEG of the flow's tab, taken over
//! runner's own DevTools session on it (`Page.captureScreenshot`, a few milliseconds), never
//! through agent-browser (a PNG of the full viewport, many times that): the trace of a run
//! that passes must cost next to nothing.

use std::time::Duration;

use base64::Engine;
use serde_json::{Value, json};

use super::Session;

/// The widest a picture is (CSS pixels of the page are scaled down to it).
const WIDTH: f64 = 480.0;

/// How long a picture may take: past it, the trace goes without.
const LIMIT: Duration = Duration::from_secs(1);

impl Session {
    /// A small JPEG of what the flow's tab shows now; `None` when runner has no session of its
    /// own on the tab, a dialog blocks the page, or the daemon may still be busy with a command
    /// that did not finish (the trace then has no picture of this step).
    pub(crate) async fn picture(&mut self) -> Option<Vec<u8>> {
        if self.unsettled() {
            return None;
        }
        let flow = self.watched.clone()?;
        let (link, session, target) = flow.own_page()?;
        if flow.blocking(&target).is_some() {
            return None;
        }
        let on = Some(session.as_str());
        let metrics = link
            .call_in(on, "Page.getLayoutMetrics", json!({}), LIMIT)
            .await
            .ok()?;
        let viewport = &metrics["cssLayoutViewport"];
        let (width, height) = (
            viewport["clientWidth"].as_f64().filter(|w| *w > 0.0)?,
            viewport["clientHeight"].as_f64().filter(|h| *h > 0.0)?,
        );
        let params = json!({
            "format": "jpeg",
            "quality": 50,
            "optimizeForSpeed": true,
            "clip": {
                "x": viewport["pageX"].as_f64().unwrap_or(0.0),
                "y": viewport["pageY"].as_f64().unwrap_or(0.0),
                "width": width,
                "height": height,
                "scale": (WIDTH / width).min(1.0),
            },
        });
        let shot = link
            .call_in(on, "Page.captureScreenshot", params, LIMIT)
            .await
            .ok()?;
        shot.get("data")
            .and_then(Value::as_str)
            .and_then(|b| base64::engine::general_purpose::STANDARD.decode(b).ok())
    }
}
