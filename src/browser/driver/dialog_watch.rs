//! Dialogs in a flow's other tabs. agent-browser sees the dialogs of the tab it acts on only, and
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

use super::cdp::Link;

/// How long runner's own DevTools calls for a watched tab may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(5);

/// The flows' contexts watched on one browser connection.
#[derive(Default)]
pub(crate) struct Watch {
    /// By context id.
    flows: Mutex<HashMap<String, Arc<FlowDialogs>>>,
    /// runner's DevTools sessions on watched tabs: session id -> (context, tab).
    sessions: Mutex<HashMap<String, (String, String)>>,
}

/// The watch on one flow's context.
pub(crate) struct FlowDialogs {
    context: String,
    watch: Weak<Watch>,
    /// The flow's answer to a confirm or prompt (`browser.dialogs`): true accepts.
    default: Option<bool>,
    link: Weak<Link>,
    state: Mutex<State>,
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
    /// Why the flow fails: a confirm or prompt that no default answered (it was dismissed).
    unanswered: Option<String>,
}

/// What a flow takes from its watch before a step.
pub(crate) struct Taken {
    pub(crate) answered: Vec<Value>,
    pub(crate) unanswered: Option<String>,
}

impl Watch {
    /// Starts watching context `context`, whose flow acts on tab `first`.
    pub(crate) fn register(
        self: &Arc<Self>,
        link: &Arc<Link>,
        context: &str,
        first: &str,
        default: Option<bool>,
    ) -> Arc<FlowDialogs> {
        let flow = Arc::new(FlowDialogs {
            context: context.to_string(),
            watch: Arc::downgrade(self),
            default,
            link: Arc::downgrade(link),
            state: Mutex::new(State {
                current: first.to_string(),
                ..State::default()
            }),
        });
        if let Ok(mut f) = self.flows.lock() {
            f.insert(context.to_string(), flow.clone());
        }
        flow
    }

    /// Stops watching context `context` (it is being disposed).
    pub(crate) fn unregister(&self, context: &str) {
        if let Ok(mut f) = self.flows.lock() {
            f.remove(context);
        }
        if let Ok(mut s) = self.sessions.lock() {
            s.retain(|_, (c, _)| c != context);
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
            "Target.detachedFromTarget" => {
                if let (Some(s), Ok(mut sessions)) =
                    (params["sessionId"].as_str(), self.sessions.lock())
                {
                    sessions.remove(s);
                }
            }
            "Page.javascriptDialogOpening" => {
                let Some(session) = msg["sessionId"].as_str() else {
                    return;
                };
                let Some((context, target)) = self
                    .sessions
                    .lock()
                    .ok()
                    .and_then(|s| s.get(session).cloned())
                else {
                    return;
                };
                if let Some(flow) = self.flow(&context) {
                    flow.opened(link, session, &target, params);
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
        let left = std::mem::replace(&mut s.current, target.to_string());
        if left != target && s.attached.insert(left.clone()) {
            tokio::spawn(attach(link, watch, self.context.clone(), left));
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
        if s.current != target && s.attached.insert(target.to_string()) {
            tokio::spawn(attach(
                link.clone(),
                watch,
                self.context.clone(),
                target.to_string(),
            ));
        }
    }

    /// A dialog opened in watched tab `target` (runner's session `session` on it).
    fn opened(&self, link: &Arc<Link>, session: &str, target: &str, params: &Value) {
        let Ok(mut s) = self.state.lock() else { return };
        if s.current == target {
            return;
        }
        let kind = params["type"].as_str().unwrap_or("").to_string();
        let message = params["message"].clone();
        let accept = match (kind.as_str(), self.default) {
            // An alert or beforeunload: accepted, as agent-browser does on the flow's tab.
            (k, _) if !matches!(k, "confirm" | "prompt") => true,
            (_, Some(a)) => {
                s.answered
                    .push(json!({ "type": kind, "message": message, "accepted": a }));
                a
            }
            (_, None) => {
                if s.unanswered.is_none() {
                    let url = s.urls.get(target).cloned().unwrap_or_default();
                    s.unanswered = Some(format!(
                        "a {kind} dialog ({message}) opened in another tab of the flow ({url}) and blocked the page; runner dismissed it. Give the flow a default answer with `browser: {{ dialogs: accept }}` (or dismiss), or switch to that tab (`tab: {{ switch: ... }}`) before it opens the dialog and answer it with a `dialog` step"
                    ));
                }
                false
            }
        };
        let mut answer = json!({ "accept": accept });
        if accept && kind == "prompt" {
            answer["promptText"] = params["defaultPrompt"].clone();
        }
        let link = link.clone();
        let session = session.to_string();
        tokio::spawn(async move {
            let _ = link
                .call_in(
                    Some(&session),
                    "Page.handleJavaScriptDialog",
                    answer,
                    CALL_TIMEOUT,
                )
                .await;
        });
    }
}

/// Attaches runner's connection to tab `target` of `context` and turns on its page events (the
/// dialogs among them).
async fn attach(link: Arc<Link>, watch: Arc<Watch>, context: String, target: String) {
    let Ok(session) = link.attach(&target, CALL_TIMEOUT).await else {
        return;
    };
    if let Ok(mut s) = watch.sessions.lock() {
        s.insert(session.clone(), (context, target));
    }
    let _ = link
        .call_in(Some(&session), "Page.enable", json!({}), CALL_TIMEOUT)
        .await;
}
