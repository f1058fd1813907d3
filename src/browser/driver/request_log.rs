//! runner's own record of the requests a flow's pages make, which `expect: { request }` counts
//! (and a `download` step reads for a download's redirects).
//!
//! agent-browser's request log is not a whole record: its daemon reads the browser's events
//! from a bounded queue only while it runs a command, and lets the oldest go when the queue
//! fills (a page making a few thousand requests between two commands), so its log can lack any
//! request, the first ones too (attack 28, E2: `count: 0` held on a page that made the request).
//! So runner records them over its own DevTools connection, whose reader reads every event:
//! `Network.requestWillBeSent` on runner's session on the flow's first tab (turned on before
//! the flow's first step, see `FlowBrowser::lease`) and on the session runner holds each tab the
//! flow's pages open in until it has the flow's settings (`new_tabs`: turned on before the tab
//! runs). One session per tab, so no request is heard twice. The dedicated workers a tab (or a
//! worker) starts are held by that same session (`Target.setAutoAttach`, `cdp::worker_auto_attach`)
//! and recorded over runner's session on each, turned on before it runs (`new_tabs`; attack 29,
//! A3). Only that session of runner's holds them (Chromium runs a worker once every session
//! that holds it has let it go; two of runner's, the locale's and the record's, tried before,
//! left a worker unrecorded or without the flow's language in some runs). Still, in about 1
//! run in 10 to 20 under load the browser tells runner of a worker only once it has run (its
//! `Inspector.workerScriptLoaded` comes with runner's `Target.attachedToTarget`), and what its
//! first task requested is not in the record (docs/browser.md).
//!
//! So `expect: { request }` does not count on such a record: runner tells, from its session on
//! each worker alone, when the worker ran before runner let it go (`workers`), and a count the
//! worker's missing requests could change says it cannot tell.
//!
//! A record that may lack requests is never read as whole: when the first tab's recording could
//! not be turned on, or the record outgrew its bound (`MAX_URL_BYTES` of URLs), reading it is an
//! error that says so.

use std::sync::Mutex;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::Notify;

/// The most URL text a flow's record holds (bytes); past it the record is cut, and a check
/// that reads it fails saying so rather than count what is left.
const MAX_URL_BYTES: usize = 64 * 1024 * 1024;

/// `Network.enable`'s parameters for runner's sessions: no bodies kept (runner reads none).
pub(crate) fn network_enable() -> Value {
    json!({ "maxTotalBufferSize": 1024, "maxResourceBufferSize": 0, "maxPostDataSize": 0 })
}

/// One flow's record.
#[derive(Default)]
pub(crate) struct RequestLog {
    state: Mutex<Recorded>,
    /// Told when the first tab's recording is on (or is found not to be).
    told: Notify,
}

#[derive(Default)]
struct Recorded {
    /// Each request: when runner heard of it (ms since the epoch), its method, URL and
    /// DevTools request id (kept across its redirects), oldest first.
    list: Vec<(u128, String, String, String)>,
    bytes: usize,
    /// Whether the first tab records: None until known.
    on: Option<Result<(), String>>,
    /// Why the record lacks requests, once it does.
    cut: Option<String>,
    /// The documents the tabs' main frames asked for, oldest first (at most `MAX_DOCUMENTS`):
    /// what `open` reads its status from.
    documents: Vec<Document>,
    /// The dedicated workers runner holds, by target id (see `workers`).
    workers: std::collections::HashMap<String, workers::Held>,
    /// The last worker found to have run before runner held it: when found (ms since the
    /// epoch), its URL.
    unheld: Option<(u128, String)>,
}

/// The most main-frame documents a flow's record keeps (the oldest go first).
const MAX_DOCUMENTS: usize = 256;

/// A document a tab's main frame asked for (a navigation), and the answer it got.
#[derive(Clone, Debug)]
pub(crate) struct Document {
    /// When runner heard of the request (ms since the epoch).
    pub(crate) at: u128,
    /// The tab.
    target: String,
    /// DevTools' request id (kept across its HTTP redirects).
    id: String,
    /// The URL first asked for.
    pub(crate) url: String,
    /// The status of its final response (after its HTTP redirects), once heard.
    pub(crate) status: Option<i64>,
}

impl RequestLog {
    /// A request tab `target` of the flow is about to make (`Network.requestWillBeSent`'s
    /// `params`).
    pub(crate) fn heard(&self, target: &str, params: &Value) {
        let request = &params["request"];
        let url = request["url"].as_str().unwrap_or_default();
        let Ok(mut s) = self.state.lock() else { return };
        if is_main_document(target, params) {
            s.document_asked(target, params, url);
        }
        // A CORS preflight is the browser's, not the page's: not counted, as Playwright's
        // requests do not hold it (review 27, F3).
        let preflight = params["type"] == "Preflight" || params["initiator"]["type"] == "preflight";
        if s.cut.is_some() || preflight {
            return;
        }
        if s.bytes + url.len() > MAX_URL_BYTES {
            s.cut = Some(format!(
                "the flow's pages made more requests than runner records (their URLs past {} MiB)",
                MAX_URL_BYTES / (1024 * 1024)
            ));
            s.list = Vec::new();
            return;
        }
        s.bytes += url.len();
        let method = request["method"].as_str().unwrap_or("GET").to_string();
        let id = params["requestId"].as_str().unwrap_or_default().to_string();
        s.list.push((now_ms(), method, url.to_string(), id));
    }

    /// A response tab `target` of the flow got (`Network.responseReceived`'s `params`): the
    /// status of a document its main frame asked for.
    pub(crate) fn answered(&self, target: &str, params: &Value) {
        if !is_main_document(target, params) {
            return;
        }
        let id = params["requestId"].as_str().unwrap_or_default();
        let Ok(mut s) = self.state.lock() else { return };
        if let Some(d) = s
            .documents
            .iter_mut()
            .rev()
            .find(|d| d.id == id && d.target == target)
        {
            d.status = params["response"]["status"].as_i64();
        }
    }

    /// The documents tab `target`'s main frame asked for at or after `since_ms`, oldest first,
    /// and the last one it asked for before (the document a navigation within the page keeps).
    pub(crate) fn documents(
        &self,
        target: &str,
        since_ms: u128,
    ) -> (Vec<Document>, Option<Document>) {
        let Ok(s) = self.state.lock() else {
            return (Vec::new(), None);
        };
        let tab = s.documents.iter().filter(|d| d.target == target);
        let before = tab.clone().rfind(|d| d.at < since_ms).cloned();
        (tab.filter(|d| d.at >= since_ms).cloned().collect(), before)
    }

    /// The document tab `target`'s main frame asked for as request `id` (a document's loader id
    /// is its request's id), if the record still holds it.
    pub(crate) fn document(&self, target: &str, id: &str) -> Option<Document> {
        let s = self.state.lock().ok()?;
        s.documents
            .iter()
            .rfind(|d| d.id == id && d.target == target)
            .cloned()
    }

    /// The first tab's recording is on (`Ok`), or could not be turned on (why).
    pub(crate) fn started(&self, outcome: Result<(), String>) {
        if let Ok(mut s) = self.state.lock() {
            s.on.get_or_insert(outcome);
        }
        self.told.notify_waiters();
    }

    /// Whether the first tab records (and holds the workers it starts for that): None until
    /// known.
    pub(crate) fn outcome(&self) -> Option<Result<(), String>> {
        self.state.lock().ok()?.on.clone()
    }

    /// Waits (at most `timeout`) until the first tab records; past it, the record is known
    /// not to hold the flow's first requests.
    pub(crate) async fn recording(&self, timeout: Duration) {
        let wait = async {
            loop {
                let told = self.told.notified();
                if self.state.lock().map_or(true, |s| s.on.is_some()) {
                    return;
                }
                told.await;
            }
        };
        if tokio::time::timeout(timeout, wait).await.is_err() {
            self.started(Err(format!(
                "runner's DevTools session on the flow's tab did not start recording in {}s",
                timeout.as_secs()
            )));
        }
    }

    /// The requests heard at or after `since_ms` (ms since the epoch), each as
    /// `{url, method, requestId, timestamp}`, oldest first; `Err` (why) when the record may
    /// lack some.
    pub(crate) fn since(&self, since_ms: u128) -> Result<Vec<Value>, String> {
        let s = self
            .state
            .lock()
            .map_err(|_| "runner's record of the flow's requests is unreadable".to_string())?;
        let lacks = |why: &str| {
            format!(
                "runner cannot tell which requests the flow's pages made, so no count of them is given: {why}"
            )
        };
        match &s.on {
            Some(Ok(())) => {}
            Some(Err(why)) => return Err(lacks(why)),
            None => return Err(lacks("its recording on the flow's tab has not started")),
        }
        if let Some(why) = &s.cut {
            return Err(lacks(why));
        }
        Ok(s.list
            .iter()
            .filter(|(at, ..)| *at >= since_ms)
            .map(|(at, method, url, id)| {
                json!({ "url": url, "method": method, "requestId": id, "timestamp": at })
            })
            .collect())
    }
}

impl Recorded {
    /// A document tab `target`'s main frame asks for: a new one, or the next hop of one
    /// redirected (the same request id).
    fn document_asked(&mut self, target: &str, params: &Value, url: &str) {
        let id = params["requestId"].as_str().unwrap_or_default();
        if params.get("redirectResponse").is_some()
            && self
                .documents
                .iter()
                .any(|d| d.id == id && d.target == target)
        {
            return;
        }
        if self.documents.len() >= MAX_DOCUMENTS {
            self.documents.remove(0);
        }
        self.documents.push(Document {
            at: now_ms(),
            target: target.to_string(),
            id: id.to_string(),
            url: url.to_string(),
            status: None,
        });
    }
}

/// Whether an event of tab `target` is about a document of its main frame (whose frame id is
/// the tab's target id).
fn is_main_document(target: &str, params: &Value) -> bool {
    params["type"] == "Document" && params["frameId"].as_str() == Some(target)
}

/// Now, in ms since the epoch (the time `since` and `documents` compare with).
pub(crate) fn now_ms() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis())
}

mod workers;

#[cfg(test)]
mod tests;
