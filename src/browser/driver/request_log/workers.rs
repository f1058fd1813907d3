//! Whether runner held each dedicated worker before it ran, told from runner's session on the
//! worker alone (the events of one session come in the order the browser sent them).
//!
//! runner holds a worker as it starts (`Target.setAutoAttach` with `waitForDebuggerOnStart`)
//! until its requests are recorded, then lets it go. agent-browser's session on the flow's
//! tab holds the tab's workers too and lets each go at once; Chromium runs a worker once the
//! sessions holding it have let it go, but a session whose attachment reaches the worker after
//! another let it go does not hold it. Then the worker runs before runner's `Network.enable`
//! reaches it, and what its first task requested is not in the record (about 1 worker
//! started with its page in 30 on a loaded machine; never one started later, nor one in a tab
//! agent-browser has not acted on). runner knows it happened when, on its session on the
//! worker:
//! - the worker's script ran (`Inspector.workerScriptLoaded`) before runner sent its go-ahead;
//! - or a request's later event (its response, its end) came for a request whose
//!   `Network.requestWillBeSent` never did (the worker's own script aside: its request is its
//!   page's, with the worker's target id for its id).
//!
//! A held worker shows neither: it cannot run before runner lets it go, and its requests are
//! announced before anything else of theirs once `Network.enable` is on.

use std::collections::HashSet;

use serde_json::Value;

use super::{RequestLog, now_ms};

/// A worker runner holds.
#[derive(Default)]
pub(super) struct Held {
    /// Its script's URL.
    url: String,
    /// Whether runner has begun to let it go.
    going: bool,
    /// The requests announced on runner's session on it and not yet ended.
    open: HashSet<String>,
}

impl RequestLog {
    /// runner holds worker `target` of the flow, whose script is at `url`, over the session
    /// the flow's record is kept on.
    pub(crate) fn worker_held(&self, target: &str, url: &str) {
        if let Ok(mut s) = self.state.lock() {
            let held = Held {
                url: url.to_string(),
                ..Held::default()
            };
            s.workers.insert(target.to_string(), held);
        }
    }

    /// runner is about to send worker `target` its calls and the go-ahead.
    pub(crate) fn worker_going(&self, target: &str) {
        if let Ok(mut s) = self.state.lock()
            && let Some(w) = s.workers.get_mut(target)
        {
            w.going = true;
        }
    }

    /// An event (`method`, `params`) heard on runner's session on worker `target`.
    pub(crate) fn worker_event(&self, target: &str, method: &str, params: &Value) {
        let Ok(mut s) = self.state.lock() else { return };
        let Some(w) = s.workers.get_mut(target) else {
            return;
        };
        let id = params["requestId"].as_str().unwrap_or_default();
        let ran = match method {
            "Inspector.workerScriptLoaded" => !w.going,
            "Network.requestWillBeSent" => {
                w.open.insert(id.to_string());
                false
            }
            "Network.responseReceived" => id != target && !w.open.contains(id),
            "Network.loadingFinished" | "Network.loadingFailed" => {
                id != target && !w.open.remove(id)
            }
            _ => false,
        };
        if ran {
            let url = w.url.clone();
            s.unheld = Some((now_ms(), url));
        }
    }

    /// The URL of a worker of the flow found, at or after `since_ms` (ms since the epoch), to
    /// have run before runner held it: the record may lack what it requested as it started.
    pub(crate) fn unheld_since(&self, since_ms: u128) -> Option<String> {
        let s = self.state.lock().ok()?;
        let (at, url) = s.unheld.as_ref()?;
        (*at >= since_ms).then(|| url.clone())
    }
}
