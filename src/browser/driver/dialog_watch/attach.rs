//! runner's session on each tab of a flow: attached, its page events on (the dialogs among
//! them), and on the flow's first tab, its requests and its dedicated workers' recorded (see
//! `request_log`).

use std::sync::Arc;

use serde_json::{Value, json};

use super::super::cdp::{Link, worker_auto_attach};
use super::super::request_log::network_enable;
use super::{CALL_TIMEOUT, Watch};

impl Watch {
    /// The flow's record is kept over session `session` on tab or worker `target` of
    /// `context` (`page`: a tab).
    pub(super) fn keep_log(&self, session: &str, (context, target, page): (&str, &str, bool)) {
        if let Ok(mut logs) = self.logs.lock() {
            let kept = (context.to_string(), target.to_string(), page);
            logs.insert(session.to_string(), kept);
        }
    }

    /// A request a tab is about to make, or a response it got (`method`), heard on runner's
    /// session `session`: into its flow's record when the session is one the record is kept
    /// over (one per tab). On a worker's, its events also tell whether runner held it before
    /// it ran (`request_log::workers`).
    pub(super) fn logged(&self, session: &str, method: &str, params: &Value) {
        let known = self.logs.lock().ok().and_then(|l| l.get(session).cloned());
        let Some((context, target, page)) = known else {
            return;
        };
        let Some(flow) = self.flow(&context) else {
            return;
        };
        match method {
            "Network.requestWillBeSent" => flow.requests.heard(&target, params),
            "Network.responseReceived" => flow.requests.answered(&target, params),
            _ => {}
        }
        if !page {
            flow.requests.worker_event(&target, method, params);
        }
    }

    /// A worker's script ran (`Inspector.workerScriptLoaded` of runner's session on it): for its
    /// flow's record to tell whether runner held it (see `request_log::workers`).
    pub(super) fn worker_ran(&self, msg: &Value) {
        if let Some(session) = msg["sessionId"].as_str() {
            self.logged(session, "Inspector.workerScriptLoaded", &msg["params"]);
        }
    }

    /// A new tab, held (see `new_tabs`): one its flow's settings do not reach fails the flow.
    pub(super) fn new_tab(&self, link: &Arc<Link>, msg: &Value) {
        let context = msg["params"]["targetInfo"]["browserContextId"].as_str();
        let flow = context.and_then(|c| self.flow(c));
        // A tab of a flow held until it has the flow's settings: its requests are recorded
        // over this session, turned on before it runs (see `request_log`). So are a dedicated
        // worker's, held by runner's one session on its tab (or worker) that holds workers.
        let held = &msg["params"];
        let kind = match msg.get("sessionId") {
            None => "page",
            Some(_) => "worker",
        };
        let mut worker = None;
        if let (Some(c), Some(s), Some(t), true, true) = (
            context.filter(|_| flow.is_some()),
            held["sessionId"].as_str(),
            held["targetInfo"]["targetId"].as_str(),
            held["waitingForDebugger"] == Value::Bool(true),
            held["targetInfo"]["type"] == kind,
        ) {
            self.keep_log(s, (c, t, kind == "page"));
            if kind == "worker"
                && let Some(f) = &flow
            {
                let url = held["targetInfo"]["url"].as_str().unwrap_or_default();
                f.requests.worker_held(t, url);
                worker = Some((f.clone(), t.to_string()));
            }
        }
        // Told just before runner lets the worker go (see `request_log::workers`).
        let going = move || {
            if let Some((f, t)) = worker {
                f.requests.worker_going(&t);
            }
        };
        // A new tab gets the flow's routes before it runs (see `routes`).
        let routes = flow.as_ref().filter(|_| kind == "page");
        let routes = routes.and_then(|f| f.routes.new_tab_call());
        let fails = move |why: String| flow.iter().for_each(|f| f.fails(why.clone()));
        self.new_tabs.attached(link, msg, routes, (going, fails));
    }
}

/// Attaches runner's connection to tab `target` of `context` and turns on its page events (the
/// dialogs among them); on the flow's `first` tab, its requests too (the tabs its pages open
/// are recorded over the session that holds them: see `new_tabs`).
pub(super) async fn attach(
    link: Arc<Link>,
    watch: Arc<Watch>,
    context: String,
    (target, first): (String, bool),
) {
    let session = link.attach(&target, CALL_TIMEOUT).await;
    let flow = watch.flow(&context);
    let recorder = flow.as_ref().and_then(|f| f.recorder.as_ref());
    let session = match session {
        Ok(s) => s,
        Err(e) => {
            // Nothing to wait for: the tab's trace goes without what it would have recorded.
            if let Some(r) = recorder {
                r.settle(&target);
            }
            if let Some(f) = flow.as_ref().filter(|_| first) {
                f.requests.started(Err(format!(
                    "runner could not attach to the flow's tab: {e}"
                )));
            }
            return;
        }
    };
    if let Ok(mut s) = watch.sessions.lock() {
        s.insert(session.clone(), (context.clone(), target.clone()));
    }
    if first && let Ok(mut l) = watch.logs.lock() {
        l.insert(session.clone(), (context.clone(), target.clone(), true));
    }
    let page = link.call_in(Some(&session), "Page.enable", json!({}), CALL_TIMEOUT);
    let network = async {
        if first {
            let on = link.call_in(
                Some(&session),
                "Network.enable",
                network_enable(),
                CALL_TIMEOUT,
            );
            // The dedicated workers the tab starts are held until their requests are recorded
            // (and they have the flow's language: see `new_tabs`), over this session alone.
            let workers = link.call_in(
                Some(&session),
                "Target.setAutoAttach",
                worker_auto_attach(),
                CALL_TIMEOUT,
            );
            let (on, workers) = tokio::join!(on, workers);
            Some(on.and(workers).map(|_| ()).map_err(|e| e.to_string()))
        } else {
            None
        }
    };
    // The trace's recording starts beside it (one round trip, not two, before the flow's
    // first step: see `FlowBrowser::lease`).
    let record = async {
        if let Some(r) = recorder {
            r.start(&link, &session).await;
        }
    };
    let (enabled, network, ()) = tokio::join!(page, network, record);
    if let (Some(f), Some(on)) = (&flow, network) {
        f.requests.started(
            on.map_err(|e| format!("runner could not record the requests of the flow's tab: {e}")),
        );
    }
    if enabled.is_ok()
        && let Some(flow) = &flow
    {
        flow.listening(&target, &session);
    }
    // Recording, and its session known to the flow (a snapshot after the first step goes over
    // it: see `recorder`).
    if let Some(r) = recorder {
        r.settle(&target);
    }
}
