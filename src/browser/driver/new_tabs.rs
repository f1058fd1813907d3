//! A flow's browser settings in the tabs its pages open (a `window.open` popup, a
//! `target=_blank` link), as Playwright's context options reach every page of the context.
//!
//! The settings agent-browser's `set` and runner's locale override apply hold for the tab they
//! were applied to. So runner's DevTools connection asks the browser to attach it to every new
//! tab and to hold the tab before its first script runs (`Target.setAutoAttach` with
//! `waitForDebuggerOnStart`, set when runner connects); a tab of a flow's context gets the
//! flow's settings over that session (which lasts as long as the connection or the tab) and
//! then runs, so its first document is loaded with them. Any other tab runs at once.
//!
//! A dedicated Web Worker's `navigator.language` is the worker's own (Chromium's locale
//! override reaches a worker's `Intl` and time zone, not its language), and its requests are
//! its page's (`request_log`): runner's session that records each tab's requests asks the
//! browser to attach runner to each dedicated worker the tab starts and to hold it
//! (`cdp::worker_auto_attach`), and a worker of a flow's context gets, over that session and
//! before it runs, the flow's language (`Network.setUserAgentOverride`), its requests recorded
//! (`Network.enable`) and the same hold of the workers it starts.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

use super::cdp::Link;

/// How long each of runner's calls that prepare a new tab may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(5);

/// The DevTools calls (method, parameters) that give a new tab a flow's settings.
type Calls = Arc<Vec<(String, Value)>>;

/// The calls for each flow's new tabs, and for the workers its pages start, by the flow's
/// context id.
#[derive(Default)]
pub(crate) struct NewTabs {
    by_context: Mutex<HashMap<String, Calls>>,
    workers: Mutex<HashMap<String, Calls>>,
}

impl NewTabs {
    /// New tabs of context `context` get `calls` before they run.
    pub(crate) fn set(&self, context: &str, calls: Vec<(String, Value)>) {
        if let Ok(mut m) = self.by_context.lock() {
            m.insert(context.to_string(), Arc::new(calls));
        }
    }

    /// Workers started in context `context` get `calls` before they run.
    pub(crate) fn set_workers(&self, context: &str, calls: Vec<(String, Value)>) {
        if let Ok(mut m) = self.workers.lock() {
            m.insert(context.to_string(), Arc::new(calls));
        }
    }

    /// Context `context` is being disposed.
    pub(crate) fn forget(&self, context: &str) {
        if let Ok(mut m) = self.by_context.lock() {
            m.remove(context);
        }
        if let Ok(mut m) = self.workers.lock() {
            m.remove(context);
        }
    }

    /// `Target.attachedToTarget` of the browser's session: a tab runner was attached to as it
    /// opened. Its flow's settings are applied (nothing waits here: a task does it), then it
    /// runs; runner leaves a tab of no flow with settings. When the tab does not get them (and
    /// is still open), `fails` is told why (the watch on the tab's context fails its flow at
    /// its next browser step: a popup without the flow's settings would test the page under
    /// others). `going` is told just before runner sends its calls and the go-ahead.
    pub(crate) fn attached(
        &self,
        link: &Arc<Link>,
        msg: &Value,
        extra: Option<(String, Value)>,
        (going, fails): (
            impl FnOnce() + Send + 'static,
            impl FnOnce(String) + Send + 'static,
        ),
    ) {
        let params = &msg["params"];
        // runner's own `Target.attachToTarget` (the dialog watch's) is told the same way, of a
        // tab that does not wait: that session is the watch's.
        if params["waitingForDebugger"] != Value::Bool(true) {
            return;
        }
        let Some(session) = params["sessionId"].as_str() else {
            return;
        };
        let info = &params["targetInfo"];
        // A tab's own attachment (`sessionId` is the tab's session): a worker it started.
        let (map, kind, what) = match msg.get("sessionId") {
            None => (&self.by_context, "page", "tab"),
            Some(_) => (&self.workers, "worker", "worker"),
        };
        let calls = info["browserContextId"]
            .as_str()
            .and_then(|c| map.lock().ok()?.get(c).cloned())
            .filter(|_| info["type"] == kind);
        // And `extra` (the flow's routes), before the tab runs.
        let calls = match (calls, extra) {
            (Some(c), Some(x)) => Some(Arc::new(c.iter().cloned().chain([x]).collect())),
            (c, _) => c,
        };
        let tab = Tab {
            what,
            session: session.to_string(),
            target: info["targetId"].as_str().unwrap_or("").to_string(),
            url: info["url"].as_str().unwrap_or("").to_string(),
        };
        let link = link.clone();
        tokio::spawn(async move {
            going();
            if let Some(why) = prepare(&link, &tab, calls).await {
                fails(why);
            }
        });
    }
}

/// A new tab (or a worker) runner was attached to, held.
struct Tab {
    /// `tab` or `worker`, as its failure names it.
    what: &'static str,
    /// runner's session on it.
    session: String,
    target: String,
    url: String,
}

/// Applies `calls` in runner's session on a new tab, then lets the tab run; detaches from a tab
/// that gets no settings. The calls and the go-ahead are sent together, in order (as Playwright
/// prepares a page): some answer only once the tab runs. Returns why the tab did not get the
/// settings or did not run, unless it was closed meanwhile (a tab closed at once needs none).
async fn prepare(link: &Link, tab: &Tab, calls: Option<Calls>) -> Option<String> {
    let run = ("Runtime.runIfWaitingForDebugger".to_string(), json!({}));
    let all: Vec<&(String, Value)> = calls
        .iter()
        .flat_map(|c| c.iter())
        .chain(std::iter::once(&run))
        .collect();
    let sent = all.iter().map(|(method, params)| {
        link.call_in(Some(&tab.session), method, params.clone(), CALL_TIMEOUT)
    });
    // A tokio mutex hands the connection's writer out in the order asked: the calls go in order.
    let answers = futures_util::future::join_all(sent).await;
    if calls.is_none() {
        let _ = link
            .call_in(
                None,
                "Target.detachFromTarget",
                json!({ "sessionId": tab.session }),
                CALL_TIMEOUT,
            )
            .await;
    }
    let (method, e) = all
        .iter()
        .zip(&answers)
        .filter_map(|((m, _), a)| a.as_ref().err().map(|e| (m, e)))
        .find(|(m, e)| !in_effect_already(m, &e.to_string()))?;
    let target = json!({ "targetId": tab.target });
    let open = link
        .call_in(None, "Target.getTargetInfo", target, CALL_TIMEOUT)
        .await
        .is_ok();
    let url = Some(tab.url.as_str()).filter(|u| !u.is_empty() && *u != "about:blank");
    let (what, opened) = (
        tab.what,
        if tab.what == "tab" {
            "opened"
        } else {
            "started"
        },
    );
    let tab = url.map_or(format!("a {what}"), |u| format!("a {what} ({u})"));
    open.then(|| {
        format!(
            "{tab} the flow's page {opened} did not get the flow's browser settings, so it would run under the browser's defaults: {method} failed ({e})"
        )
    })
}

/// Whether a refused call refused only because the setting is in effect already: a tab a page
/// opened with `window.open` (its opener kept: OAuth and payment popups) runs in its opener's
/// renderer, where Chromium takes one locale override, and refuses a second with "Another
/// locale override is already in effect". The override in effect there is the flow's own: a
/// renderer serves one browser context, the flow's, whose tabs all got its settings.
fn in_effect_already(method: &str, error: &str) -> bool {
    method == "Emulation.setLocaleOverride"
        && error.contains("Another locale override is already in effect")
}

#[cfg(test)]
mod tests;
