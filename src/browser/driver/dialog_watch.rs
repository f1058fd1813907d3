//! Dialogs in a flow's tabs, and the answer a `dialog` step arms for the next one.
//!
//! The flow's own tab: runner watches it too, for two things agent-browser does not do. An answer
//! armed by a `dialog` step written before the action that opens the dialog (as Playwright's
//! `page.once('dialog')`) answers the next dialog there as it opens — so a dialog opened by a
//! timer while a later step reads the page is answered too. And an alert or beforeunload there,
//! which agent-browser accepts as it opens, is recorded, for a `dialog` step after the action
//! that opened it and for `expect: { dialog }`.
//!
//! The other tabs. agent-browser sees the dialogs of the tab it acts on only, and
//! a dialog in a popup of the same site blocks the flow's own tab too (they share a renderer
//! process): the flow's next command would wait out its timeout, and switching to the popup
//! would fail as well. So runner watches, over its own DevTools connection, every tab of a
//! flow's context but the one the flow acts on, and answers a dialog there as it opens: a
//! confirm or prompt with the flow's default (`browser.dialogs`; recorded, for
//! `expect: { dialog }`), an alert or beforeunload by accepting it (as agent-browser does on the
//! flow's tab). A confirm or prompt no default answers is dismissed, so the page goes on, and
//! fails the flow at its next browser step (or at its end), naming the dialog and its tab.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::Notify;

use super::cdp::Link;
use super::recorder::{Recorder, Recording};
use super::request_log::RequestLog;

mod attach;
use attach::attach;
mod navigations;
pub(crate) use navigations::TabNavigations;
mod routes;
mod tab_state;
pub(crate) use tab_state::Open;

/// How long runner's own DevTools calls for a watched tab may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(5);

/// The flows' contexts watched on one browser connection.
#[derive(Default)]
pub(crate) struct Watch {
    /// By context id.
    flows: Mutex<HashMap<String, Arc<FlowDialogs>>>,
    /// runner's DevTools sessions on watched tabs: session id -> (context, tab).
    sessions: Mutex<HashMap<String, (String, String)>>,
    /// The sessions whose requests go into their flow's record (see `request_log`): session
    /// id -> (context, tab or worker, whether a tab).
    logs: Mutex<HashMap<String, (String, String, bool)>>,
    /// Whether the flows' page scripts are evaluated over runner's sessions on their tabs
    /// (`RUNNER_OWN_EVAL`, see `session::own_eval`).
    own_eval: bool,
    /// The flows' settings for the tabs their pages open.
    pub(crate) new_tabs: super::new_tabs::NewTabs,
}

/// The watch on one flow's context.
pub(crate) struct FlowDialogs {
    context: String,
    watch: Weak<Watch>,
    /// The flow's answer to a confirm or prompt (`browser.dialogs`): true accepts.
    default: Option<bool>,
    link: Weak<Link>,
    state: Mutex<State>,
    /// Told when an answer runner sends for an armed dialog has come back.
    came_back: Notify,
    /// Told when a dialog opens in one of the flow's tabs, or runner's answer to one did not
    /// take (a page script evaluated on the tab waits on it: see `blocking`).
    pub(crate) dialog_opened: Notify,
    /// See `Watch::own_eval`.
    own_eval: bool,
    /// What the flow's tabs record for its trace, when it keeps one (see `recorder`).
    pub(crate) recorder: Option<Recorder>,
    /// runner's own record of the requests the flow's tabs make (see `request_log`).
    pub(crate) requests: RequestLog,
    /// The flow's routes, for all its tabs (see `routes`).
    routes: routes::Routes,
}

/// The answer a `dialog` step armed for the next dialog of the flow's tab.
#[derive(Clone, Debug)]
pub(crate) struct Armed {
    pub(crate) accept: bool,
    pub(crate) text: Option<String>,
}

#[derive(Default)]
struct State {
    /// The tab the flow acts on: its dialogs are agent-browser's to see and the flow's to answer.
    current: String,
    /// The tabs runner is attached to (or attaching to).
    attached: HashSet<String>,
    /// The tabs' URLs, as last reported.
    urls: HashMap<String, String>,
    /// Dialogs answered here that the flow has not taken yet: `{type, message, accepted}`.
    answered: Vec<Value>,
    /// Why the flow fails: a confirm or prompt in another tab that no default answered (it was
    /// dismissed), or a beforeunload dialog accepted before an armed dismissal got to it.
    unanswered: Option<String>,
    /// The answer armed for the next dialog of the flow's tab.
    armed: Option<Armed>,
    /// Answers runner sent (to an armed dialog, or one in another tab) and not yet come back.
    answering: usize,
    /// Alerts and beforeunload dialogs of the flow's tab answered as they opened, since the
    /// last browser step began: what a `dialog` step after their step answers.
    as_opened: Vec<Value>,
    /// runner's DevTools session on each tab, once it hears the tab's page events: tab ->
    /// session.
    sessions: HashMap<String, String>,
    /// The dialog open in each tab (from its opening to its closing): tab -> dialog.
    open: HashMap<String, Open>,
    /// The navigations of each tab's main frame (see `navigations`): tab -> them.
    navigations: HashMap<String, TabNavigations>,
}

/// What a flow takes from its watch before a step.
pub(crate) struct Taken {
    pub(crate) answered: Vec<Value>,
    pub(crate) unanswered: Option<String>,
}

impl Watch {
    /// A watch; `own_eval` says whether the flows' page scripts go over runner's sessions on
    /// their tabs (see `Watch::own_eval`).
    pub(crate) fn new(own_eval: bool) -> Watch {
        Watch {
            own_eval,
            ..Watch::default()
        }
    }

    /// Starts watching context `context`, whose flow acts on tab `first`; its tabs record for
    /// the flow's trace when `record` says so.
    pub(crate) fn register(
        self: &Arc<Self>,
        link: &Arc<Link>,
        context: &str,
        (first, default, record): (&str, Option<bool>, Option<Recording>),
    ) -> Arc<FlowDialogs> {
        let flow = Arc::new(FlowDialogs {
            context: context.to_string(),
            watch: Arc::downgrade(self),
            default,
            link: Arc::downgrade(link),
            state: Mutex::new(State {
                current: first.to_string(),
                attached: HashSet::from([first.to_string()]),
                ..State::default()
            }),
            came_back: Notify::new(),
            dialog_opened: Notify::new(),
            own_eval: self.own_eval,
            recorder: record.map(Recorder::new),
            requests: RequestLog::default(),
            routes: routes::Routes::default(),
        });
        if let Ok(mut f) = self.flows.lock() {
            f.insert(context.to_string(), flow.clone());
        }
        tokio::spawn(attach(
            link.clone(),
            self.clone(),
            context.to_string(),
            (first.to_string(), true),
        ));
        flow
    }

    /// Stops watching context `context` (it is being disposed).
    pub(crate) fn unregister(&self, context: &str) {
        if let Ok(mut f) = self.flows.lock() {
            f.remove(context);
        }
        self.new_tabs.forget(context);
        if let Ok(mut s) = self.sessions.lock() {
            s.retain(|_, (c, _)| c != context);
        }
        if let Ok(mut s) = self.logs.lock() {
            s.retain(|_, (c, ..)| c != context);
        }
    }

    fn flow(&self, context: &str) -> Option<Arc<FlowDialogs>> {
        self.flows.lock().ok()?.get(context).cloned()
    }

    /// An event the browser sent (read by the connection's reader: nothing here waits).
    pub(crate) fn on_event(self: &Arc<Self>, link: &Arc<Link>, msg: &Value) {
        let params = &msg["params"];
        match msg["method"].as_str().unwrap_or("") {
            "Target.targetCreated" | "Target.targetInfoChanged" => {
                let info = &params["targetInfo"];
                if info["type"] != "page" {
                    return;
                }
                let (Some(context), Some(target)) =
                    (info["browserContextId"].as_str(), info["targetId"].as_str())
                else {
                    return;
                };
                if let Some(flow) = self.flow(context) {
                    flow.seen(link, target, info["url"].as_str().unwrap_or(""));
                }
            }
            "Target.attachedToTarget" => self.new_tab(link, msg),
            "Inspector.workerScriptLoaded" => self.worker_ran(msg),
            "Target.detachedFromTarget" => {
                let Some(s) = params["sessionId"].as_str() else {
                    return;
                };
                if let Ok(mut logs) = self.logs.lock() {
                    logs.remove(s);
                }
                let gone = self.sessions.lock().ok().and_then(|mut m| m.remove(s));
                if let Some((context, target)) = gone
                    && let Some(flow) = self.flow(&context)
                    && let Ok(mut state) = flow.state.lock()
                {
                    state.sessions.remove(&target);
                }
            }
            "Page.javascriptDialogOpening" | "Page.javascriptDialogClosed" => {
                let Some(session) = msg["sessionId"].as_str() else {
                    return;
                };
                let Some((flow, target)) = self.flow_of_session(session) else {
                    return;
                };
                if msg["method"] == "Page.javascriptDialogClosed" {
                    flow.closed(&target);
                } else {
                    flow.opened(link, session, &target, params);
                }
            }
            m if navigations::hears(m) => self.navigation_event(msg),
            // A route may answer it (see `routes`).
            "Fetch.requestPaused" => self.paused(link, msg),
            m if Recorder::hears(m) => {
                let Some(session) = msg["sessionId"].as_str() else {
                    return;
                };
                if m.starts_with("Network.") {
                    self.logged(session, m, params);
                }
                let known = self
                    .sessions
                    .lock()
                    .ok()
                    .and_then(|s| s.get(session).cloned());
                if let Some((context, target)) = known
                    && let Some(flow) = self.flow(&context)
                    && let Some(r) = &flow.recorder
                {
                    r.on_event(link, (session, &target), m, params);
                }
            }
            _ => {}
        }
    }
}

impl FlowDialogs {
    /// The flow now acts on tab `target`: the tab it leaves is watched from now on.
    pub(crate) fn set_current(&self, target: &str) {
        let (Some(link), Some(watch)) = (self.link.upgrade(), self.watch.upgrade()) else {
            return;
        };
        let Ok(mut s) = self.state.lock() else { return };
        s.current = target.to_string();
        if s.attached.insert(target.to_string()) {
            tokio::spawn(attach(
                link,
                watch,
                self.context.clone(),
                (target.to_string(), false),
            ));
        }
    }

    /// Arms `answer` for the next dialog of the flow's tab; `Err` with the answer armed before,
    /// which no dialog has taken yet and which stays armed (one `dialog` step answers one
    /// dialog: a second answer must not replace the first unseen).
    pub(crate) fn arm(&self, answer: Armed) -> Result<(), Armed> {
        let Ok(mut s) = self.state.lock() else {
            return Ok(());
        };
        if let Some(first) = &s.armed {
            return Err(first.clone());
        }
        s.armed = Some(answer);
        Ok(())
    }

    /// The armed answer, taken (a dialog open now that the watch has not answered gets it).
    pub(crate) fn take_armed(&self) -> Option<Armed> {
        self.state.lock().ok()?.armed.take()
    }

    /// The alerts and beforeunload dialogs of the flow's tab answered as they opened since the
    /// last call.
    pub(crate) fn take_as_opened(&self) -> Vec<Value> {
        self.state
            .lock()
            .map(|mut s| std::mem::take(&mut s.as_opened))
            .unwrap_or_default()
    }

    /// Waits (at most a few seconds) until the answers runner sent have come back, so
    /// what the flow takes next holds them.
    pub(crate) async fn settled(&self) {
        loop {
            let told = self.came_back.notified();
            let busy = self.state.lock().is_ok_and(|s| s.answering > 0);
            if !busy || tokio::time::timeout(CALL_TIMEOUT, told).await.is_err() {
                return;
            }
        }
    }

    /// What the flow has not taken yet: the dialogs answered here, and why it fails (once).
    pub(crate) fn take(&self) -> Taken {
        match self.state.lock() {
            Ok(mut s) => Taken {
                answered: std::mem::take(&mut s.answered),
                unanswered: s.unanswered.take(),
            },
            Err(_) => Taken {
                answered: Vec::new(),
                unanswered: None,
            },
        }
    }

    /// A tab of the flow's context was made or changed: a tab the flow does not act on is
    /// watched.
    fn seen(&self, link: &Arc<Link>, target: &str, url: &str) {
        let Some(watch) = self.watch.upgrade() else {
            return;
        };
        let Ok(mut s) = self.state.lock() else { return };
        s.urls.insert(target.to_string(), url.to_string());
        if s.attached.insert(target.to_string()) {
            tokio::spawn(attach(
                link.clone(),
                watch,
                self.context.clone(),
                (target.to_string(), false),
            ));
        }
    }

    /// A dialog closed in watched tab `target`.
    pub(crate) fn closed(&self, target: &str) {
        if let Ok(mut s) = self.state.lock() {
            s.open.remove(target);
        }
    }

    /// runner's session on tab `target` hears its page events.
    fn listening(&self, target: &str, session: &str) {
        if let Ok(mut s) = self.state.lock() {
            s.sessions.insert(target.to_string(), session.to_string());
        }
    }

    /// A dialog opened in watched tab `target` (runner's session `session` on it).
    fn opened(self: &Arc<Self>, link: &Arc<Link>, session: &str, target: &str, params: &Value) {
        {
            let Ok(mut s) = self.state.lock() else { return };
            self.answer_opened(&mut s, link, session, target, params);
        }
        self.dialog_opened.notify_waiters();
    }

    /// What `opened` does with the state locked: records the dialog and starts its answer when
    /// runner gives one.
    fn answer_opened(
        self: &Arc<Self>,
        s: &mut State,
        link: &Arc<Link>,
        session: &str,
        target: &str,
        params: &Value,
    ) {
        let kind = params["type"].as_str().unwrap_or("").to_string();
        let message = params["message"].clone();
        let flows = s.current == target && matches!(kind.as_str(), "confirm" | "prompt");
        s.open.insert(
            target.to_string(),
            Open {
                kind: kind.clone(),
                message: message.as_str().unwrap_or_default().to_string(),
                answered_for_the_flow: !flows || s.armed.is_some(),
            },
        );
        if s.current == target {
            let seen = json!({ "type": kind, "message": message });
            let armed = match s.armed.take() {
                Some(armed) => armed,
                // agent-browser accepts these as they open; recorded here. A confirm or prompt
                // waits for the flow (a `dialog` step, or its default before the next step).
                None if !matches!(kind.as_str(), "confirm" | "prompt") => {
                    let mut seen = seen;
                    seen["accepted"] = Value::Bool(true);
                    s.answered.push(seen.clone());
                    s.as_opened.push(seen);
                    return;
                }
                None => return,
            };
            s.answering += 1;
            tokio::spawn(answer_armed(
                self.clone(),
                link.clone(),
                (session.to_string(), target.to_string()),
                seen,
                armed,
            ));
            return;
        }
        let url = s.urls.get(target).cloned().unwrap_or_default();
        let (accept, record) = match (kind.as_str(), self.default) {
            // An alert or beforeunload: accepted, as agent-browser does on the flow's tab.
            (k, _) if !matches!(k, "confirm" | "prompt") => (true, false),
            (_, Some(a)) => (a, true),
            (_, None) => {
                if s.unanswered.is_none() {
                    s.unanswered = Some(format!(
                        "a {kind} dialog ({message}) opened in another tab of the flow ({url}) and blocked the page; runner dismissed it. Give the flow a default answer with `browser: {{ dialogs: accept }}` (or dismiss), or switch to that tab (`tab: {{ switch: ... }}`) before it opens the dialog and answer it with a `dialog` step"
                    ));
                }
                (false, false)
            }
        };
        let mut answer = json!({ "accept": accept });
        if accept && kind == "prompt" {
            answer["promptText"] = params["defaultPrompt"].clone();
        }
        s.answering += 1;
        let seen = json!({ "type": kind, "message": message, "accepted": accept, "url": url });
        tokio::spawn(answer_other(
            self.clone(),
            link.clone(),
            session.to_string(),
            answer,
            (seen, record),
        ));
    }
}

/// Answers a dialog in a tab the flow does not act on (`seen`, with the answer it is given)
/// and, once the answer took, records it when `record` says the flow's default gave it (for
/// `expect: { dialog }`). An answer to a confirm or prompt that did not take is never recorded
/// as given: it fails the flow at its next step, as a dialog nothing answers does.
async fn answer_other(
    flow: Arc<FlowDialogs>,
    link: Arc<Link>,
    session: String,
    answer: Value,
    (mut seen, record): (Value, bool),
) {
    let took = link
        .call_in(
            Some(&session),
            "Page.handleJavaScriptDialog",
            answer,
            CALL_TIMEOUT,
        )
        .await;
    let url = seen
        .as_object_mut()
        .and_then(|o| o.remove("url"))
        .unwrap_or_default();
    if let Ok(mut s) = flow.state.lock() {
        match took {
            Ok(_) if record => s.answered.push(seen),
            Ok(_) => {}
            // agent-browser accepts an alert or beforeunload itself, also in a tab it is
            // attached to but not acting on: one already gone was accepted.
            Err(_) if matches!(seen["type"].as_str(), Some("alert" | "beforeunload")) => {}
            Err(e) => {
                if s.unanswered.is_none() {
                    s.unanswered = Some(format!(
                        "runner could not answer the {} dialog ({}) in another tab of the flow ({}): {}",
                        seen["type"].as_str().unwrap_or("?"),
                        seen["message"],
                        url.as_str().unwrap_or(""),
                        e
                    ));
                }
            }
        }
        s.answering -= 1;
    }
    flow.came_back.notify_waiters();
}

/// `Page.handleJavaScriptDialog`'s parameters: accept or dismiss, with a prompt's text.
fn answer_params(accept: bool, text: Option<&str>) -> Value {
    let mut answer = json!({ "accept": accept });
    if let Some(t) = text {
        answer["promptText"] = Value::String(t.to_string());
    }
    answer
}

/// Answers the flow tab's dialog `seen` with `armed` and records it. An answer that does not
/// take is one agent-browser gave first (it accepts an alert or beforeunload dialog as it
/// opens): recorded as accepted, what the page got; a dismissal that did not take fails the flow
/// at its next step rather than pass for done.
async fn answer_armed(
    flow: Arc<FlowDialogs>,
    link: Arc<Link>,
    (session, target): (String, String),
    seen: Value,
    armed: Armed,
) {
    let answer = answer_params(armed.accept, armed.text.as_deref());
    let took = link
        .call_in(
            Some(&session),
            "Page.handleJavaScriptDialog",
            answer,
            CALL_TIMEOUT,
        )
        .await
        .is_ok();
    let mut seen = seen;
    // Only an alert or a beforeunload is answered by agent-browser itself (accepted) when
    // runner's answer does not take; a confirm or prompt runner could not answer is not
    // recorded as answered at all: it fails the flow, never passes as accepted.
    let self_accepted = matches!(seen["type"].as_str(), Some("alert" | "beforeunload"));
    seen["accepted"] = Value::Bool(if took { armed.accept } else { true });
    if let Ok(mut s) = flow.state.lock() {
        if !took && !self_accepted {
            // Still open, and the flow's to answer: a page script on the tab waits no more.
            if let Some(o) = s.open.get_mut(&target) {
                o.answered_for_the_flow = false;
            }
            if s.unanswered.is_none() {
                s.unanswered = Some(format!(
                    "runner could not give the {} dialog ({}) the answer a `dialog` step armed for it",
                    seen["type"].as_str().unwrap_or("?"),
                    seen["message"]
                ));
            }
            s.answering -= 1;
            drop(s);
            flow.came_back.notify_waiters();
            flow.dialog_opened.notify_waiters();
            return;
        }
        if !took && !armed.accept && seen["type"] == "beforeunload" && s.unanswered.is_none() {
            s.unanswered = Some(format!(
                "the {} dialog ({}) was accepted as it opened, before runner could dismiss it as a `dialog: dismiss` step asked: agent-browser accepts alerts and beforeunload dialogs itself, so runner cannot keep a page from leaving",
                seen["type"].as_str().unwrap_or("?"),
                seen["message"]
            ));
        }
        s.answered.push(seen);
        s.answering -= 1;
    }
    flow.came_back.notify_waiters();
}
