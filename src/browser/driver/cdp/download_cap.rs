//! A flow's downloads are bounded: at most [`MAX_DOWNLOADS`] files and [`MAX_DOWNLOAD_BYTES`]
//! in all. A page may start downloads by the hundred (a script, a wall of iframes), and
//! runner keeps them in the run's artifacts, which CI uploads: Playwright sets no bound, but it
//! does not keep them. The connection's reader sees each download event as it comes (a flow
//! may never look: only a `download` step and the flow's end read them), and cancels a
//! download that would go past the bound at once (`Browser.cancelDownload`, in a task of its
//! own: the reader does not wait); the flow's end removes what such a download left (one that
//! finished before the cancel came) and notes how many.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use super::{Cdp, Link};

/// The most downloads a flow keeps.
pub(crate) const MAX_DOWNLOADS: usize = 100;

/// The most bytes a flow's downloads keep in all (1 GiB).
pub(crate) const MAX_DOWNLOAD_BYTES: u64 = 1 << 30;

/// The downloads of one flow's context, counted against the bound.
#[derive(Debug)]
pub(super) struct Cap {
    context: String,
    max_count: usize,
    max_bytes: u64,
    begun: usize,
    /// The bytes each download within the bound has received so far.
    kept: HashMap<String, u64>,
    /// The downloads past the bound, in the order they went past it.
    over: Vec<String>,
}

impl Cap {
    fn new(context: &str, max_count: usize, max_bytes: u64) -> Cap {
        Cap {
            context: context.to_string(),
            max_count,
            max_bytes,
            begun: 0,
            kept: HashMap::new(),
            over: Vec::new(),
        }
    }

    /// The download a `Browser.download*` event puts past the bound (to cancel), if any: the
    /// one that begins past [`MAX_DOWNLOADS`], or when the bytes kept are at the bound already;
    /// the one whose bytes take the total past it.
    fn sees(&mut self, event: &Value) -> Option<String> {
        let p = event.get("params")?;
        let guid = p.get("guid")?.as_str()?;
        if self.over.iter().any(|g| g == guid) {
            return None;
        }
        match event.get("method")?.as_str()? {
            "Browser.downloadWillBegin" => {
                self.begun += 1;
                if self.begun <= self.max_count && self.total() < self.max_bytes {
                    self.kept.insert(guid.to_string(), 0);
                    return None;
                }
            }
            "Browser.downloadProgress" => {
                if p.get("state").and_then(Value::as_str) == Some("canceled") {
                    self.kept.remove(guid);
                    return None;
                }
                let received = p.get("receivedBytes").and_then(Value::as_f64)?;
                // (Bytes as DevTools counts them: a whole number in a double.)
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                let received = received.max(0.0) as u64;
                *self.kept.get_mut(guid)? = received;
                if self.total() <= self.max_bytes {
                    return None;
                }
                self.kept.remove(guid);
            }
            _ => return None,
        }
        self.over.push(guid.to_string());
        Some(guid.to_string())
    }

    fn total(&self) -> u64 {
        self.kept.values().sum()
    }
}

impl Link {
    /// Counts a download event against the flow's bound; cancels, without waiting, the
    /// download it puts past it.
    pub(super) fn watch_download(self: &Arc<Self>, event: &Value) {
        let Some((guid, context)) = self.cap.lock().ok().and_then(|mut c| {
            let c = c.as_mut()?;
            Some((c.sees(event)?, c.context.clone()))
        }) else {
            return;
        };
        let link = self.clone();
        tokio::spawn(async move {
            // (One that finished already cannot be: the flow's end removes its file.)
            let _ = link
                .call_in(
                    None,
                    "Browser.cancelDownload",
                    json!({ "guid": guid, "browserContextId": context }),
                    Duration::from_secs(5),
                )
                .await;
        });
    }
}

impl Cdp {
    /// Bounds the downloads of context `ctx` from now on (a flow's, as it starts).
    pub(crate) fn cap_downloads(&self, ctx: &str) {
        if let Ok(mut c) = self.link.cap.lock() {
            *c = Some(Cap::new(ctx, MAX_DOWNLOADS, MAX_DOWNLOAD_BYTES));
        }
    }

    /// The downloads past the bound so far (cancelled, or to remove), in order.
    pub(crate) fn downloads_over_cap(&self) -> Vec<String> {
        self.link
            .cap
            .lock()
            .ok()
            .and_then(|c| c.as_ref().map(|c| c.over.clone()))
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::Cap;

    fn begin(guid: &str) -> serde_json::Value {
        json!({ "method": "Browser.downloadWillBegin", "params": { "guid": guid } })
    }

    fn progress(guid: &str, bytes: u64, state: &str) -> serde_json::Value {
        json!({ "method": "Browser.downloadProgress",
            "params": { "guid": guid, "receivedBytes": bytes, "totalBytes": bytes, "state": state } })
    }

    #[test]
    fn downloads_past_the_count_are_cancelled_in_order() {
        let mut c = Cap::new("ctx", 2, 1000);
        assert_eq!(c.sees(&begin("a")), None);
        assert_eq!(c.sees(&begin("b")), None);
        assert_eq!(c.sees(&begin("c")), Some("c".into()));
        assert_eq!(c.sees(&progress("c", 10, "completed")), None, "once");
        assert_eq!(c.sees(&begin("d")), Some("d".into()));
        assert_eq!(c.over, ["c", "d"]);
    }

    #[test]
    fn the_download_that_takes_the_bytes_past_the_bound_is_cancelled() {
        let mut c = Cap::new("ctx", 10, 100);
        c.sees(&begin("a"));
        c.sees(&begin("b"));
        assert_eq!(c.sees(&progress("a", 60, "completed")), None);
        assert_eq!(c.sees(&progress("b", 30, "inProgress")), None);
        assert_eq!(c.sees(&progress("b", 50, "inProgress")), Some("b".into()));
        // What is kept stays within the bound; one cancelled by the page counts nothing.
        c.sees(&begin("e"));
        assert_eq!(c.sees(&progress("e", 30, "inProgress")), None);
        c.sees(&progress("e", 30, "canceled"));
        assert_eq!(c.total(), 60);
        // At the bound, the next one is cancelled as it begins.
        c.sees(&begin("f"));
        assert_eq!(c.sees(&progress("f", 40, "completed")), None);
        assert_eq!(c.sees(&begin("g")), Some("g".into()));
        assert_eq!(c.over, ["b", "g"]);
    }
}
