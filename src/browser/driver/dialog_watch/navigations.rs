//! The navigations of each of a flow's tabs' main frames, as runner's session on the tab hears
//! them (its Page domain is on: see `attach`): one the page requested (a link, a form's submit,
//! `location.href = …` in a handler: `Page.frameRequestedNavigation`, in the tab itself), its
//! start (`Page.frameStartedNavigating`, after the page's `beforeunload`), and its end — the
//! new document committed (`Page.frameNavigated`; an error page for one that failed), a move
//! within the document (`Page.navigatedWithinDocument`), or the tab stopped loading without
//! either (a download, a `204`: `Page.frameStoppedLoading`). A click or a key press waits on it
//! (see `session::navigation`), as Playwright's actions wait for the navigations they start to
//! commit.

use std::sync::Arc;
use std::time::Instant;

use serde_json::Value;

use super::{FlowDialogs, Watch};
use crate::browser::driver::cdp::Link;

/// The Page events read here.
const HEARD: [&str; 6] = [
    "Page.frameRequestedNavigation",
    "Page.frameStartedNavigating",
    "Page.frameStartedLoading",
    "Page.frameNavigated",
    "Page.navigatedWithinDocument",
    "Page.frameStoppedLoading",
];

/// The navigations of one tab's main frame.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct TabNavigations {
    /// How many navigations the page requested in the tab itself.
    pub(crate) requested: u64,
    /// The URL of the last one, while it has not ended.
    pub(crate) pending: Option<String>,
    /// When the last one was requested.
    pub(crate) requested_at: Option<Instant>,
    /// Whether the last one has started (its request is under way): one the page's
    /// `beforeunload` kept (a dialog dismissed) never does.
    pub(crate) started: bool,
}

impl TabNavigations {
    /// Event `method` (`params`) about tab `target`'s frames.
    fn heard(&mut self, target: &str, method: &str, params: &Value) {
        let frame = match method {
            "Page.frameNavigated" => &params["frame"]["id"],
            _ => &params["frameId"],
        };
        if frame.as_str() != Some(target) {
            return;
        }
        match method {
            "Page.frameRequestedNavigation" => {
                // A new tab or a download (`<a download>`) is no navigation of this tab.
                if params["disposition"] == "currentTab" {
                    self.requested += 1;
                    self.pending = Some(params["url"].as_str().unwrap_or_default().to_string());
                    self.requested_at = Some(Instant::now());
                    self.started = false;
                }
            }
            "Page.frameStartedNavigating" | "Page.frameStartedLoading" => self.started = true,
            _ => self.pending = None,
        }
    }
}

/// Whether event `method` is one read here.
pub(super) fn hears(method: &str) -> bool {
    HEARD.contains(&method)
}

impl Watch {
    /// The flow and the tab of runner's session `session`.
    pub(super) fn flow_of_session(&self, session: &str) -> Option<(Arc<FlowDialogs>, String)> {
        let (context, target) = self.sessions.lock().ok()?.get(session).cloned()?;
        Some((self.flow(&context)?, target))
    }

    /// A navigation event (see the module's notes) heard on runner's session on a tab.
    pub(super) fn navigation_event(&self, msg: &Value) {
        let Some(session) = msg["sessionId"].as_str() else {
            return;
        };
        let Some((flow, target)) = self.flow_of_session(session) else {
            return;
        };
        let method = msg["method"].as_str().unwrap_or_default();
        if let Ok(mut s) = flow.state.lock() {
            let tab = s.navigations.entry(target.clone()).or_default();
            tab.heard(&target, method, &msg["params"]);
        }
    }
}

impl FlowDialogs {
    /// The tab the flow acts on, runner's connection and its session there (once it hears the
    /// tab's page events), and what the session heard of the tab's navigations so far.
    pub(crate) fn navigations(&self) -> Option<(Arc<Link>, String, String, TabNavigations)> {
        let link = self.link.upgrade()?;
        let s = self.state.lock().ok()?;
        let session = s.sessions.get(&s.current)?.clone();
        let tab = s.navigations.get(&s.current).cloned().unwrap_or_default();
        Some((link, session, s.current.clone(), tab))
    }

    /// What runner's session heard of tab `target`'s navigations so far; `None` once it no
    /// longer hears the tab (closed, or its session gone), or while a dialog is open there (a
    /// `beforeunload` holds the navigation until it is answered: by agent-browser at its next
    /// command, or by the flow's next step).
    pub(crate) fn navigations_of(&self, target: &str) -> Option<TabNavigations> {
        let s = self.state.lock().ok()?;
        s.sessions.get(target)?;
        if s.open.contains_key(target) {
            return None;
        }
        Some(s.navigations.get(target).cloned().unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::TabNavigations;

    /// A navigation the tab's main frame requested is pending until it commits, moves within
    /// the document or the tab stops loading; a subframe's, a new tab's and a download's are
    /// not the tab's.
    #[test]
    fn a_requested_navigation_is_pending_until_it_ends() {
        let mut t = TabNavigations::default();
        let asked = |frame: &str, disposition: &str| {
            let url = "http://x/2";
            json!({ "frameId": frame, "url": url, "disposition": disposition })
        };
        let requested = "Page.frameRequestedNavigation";
        t.heard("T", requested, &asked("F", "currentTab"));
        t.heard("T", requested, &asked("T", "newTab"));
        t.heard("T", requested, &asked("T", "download"));
        assert_eq!(t, TabNavigations::default());
        t.heard("T", requested, &asked("T", "currentTab"));
        assert!(!t.started && t.requested_at.is_some());
        let started = json!({ "frameId": "T" });
        t.heard("T", "Page.frameStartedNavigating", &started);
        assert!(t.started && t.pending.is_some());
        t.heard("T", requested, &asked("T", "currentTab"));
        assert!(!t.started, "a new one has not started");
        for (method, params) in [
            ("Page.frameNavigated", json!({ "frame": { "id": "T" } })),
            ("Page.navigatedWithinDocument", json!({ "frameId": "T" })),
            ("Page.frameStoppedLoading", json!({ "frameId": "T" })),
        ] {
            t.heard("T", requested, &asked("T", "currentTab"));
            assert_eq!(t.pending.as_deref(), Some("http://x/2"));
            t.heard(
                "T",
                method,
                &json!({ "frameId": "F", "frame": { "id": "F" } }),
            );
            assert!(t.pending.is_some(), "{method} of a subframe");
            t.heard("T", method, &params);
            assert_eq!(t.pending, None, "{method}");
        }
        assert_eq!(t.requested, 5);
    }
}
