//! What runner's session on each of a flow's tabs knows of the tab beyond its dialogs' answers:
//! that it hears the tab's events (so the flow's page scripts can go over it: see
//! `session::own_eval`), the dialog open in it now, and what it recorded for the flow's trace
//! (see `recorder`).

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;

use super::FlowDialogs;
use crate::browser::driver::cdp::Link;

/// A dialog open in one of the flow's tabs, as runner's session on the tab last heard.
#[derive(Clone, Debug)]
pub(crate) struct Open {
    pub(crate) kind: String,
    pub(crate) message: String,
    /// Someone answers it without the flow: runner (an armed answer, another tab's dialog) or
    /// agent-browser (an alert or beforeunload, accepted as it opens).
    pub(super) answered_for_the_flow: bool,
}

impl Open {
    /// agent-browser's message for a command this dialog blocks (runner turns it into its own
    /// advice: `AdapterError::into_step_error`).
    pub(crate) fn refusal(&self) -> String {
        format!(
            "A JavaScript {} dialog is blocking the page: \"{}\". Resolve it with `dialog accept` or `dialog dismiss`, then retry `eval`.",
            self.kind, self.message
        )
    }
}

impl FlowDialogs {
    /// Fails the flow at its next browser step (or at its end) with `why`, unless it fails
    /// already.
    pub(crate) fn fails(&self, why: String) {
        if let Ok(mut s) = self.state.lock()
            && s.unanswered.is_none()
        {
            s.unanswered = Some(why);
        }
    }

    /// Waits until a dialog only the flow answers (see `blocking`) is open in tab `target`, and
    /// gives it.
    pub(crate) async fn until_blocked(&self, target: &str) -> Open {
        loop {
            let opened = self.dialog_opened.notified();
            tokio::pin!(opened);
            opened.as_mut().enable();
            if let Some(open) = self.blocking(target) {
                return open;
            }
            opened.await;
        }
    }

    /// The tab the flow acts on.
    pub(crate) fn current(&self) -> Option<String> {
        self.state.lock().ok().map(|s| s.current.clone())
    }

    /// The dialog open in the tab the flow acts on, as runner's session there heard it.
    pub(crate) fn open_current(&self) -> Option<Open> {
        let s = self.state.lock().ok()?;
        s.open.get(&s.current).cloned()
    }

    /// Answers the dialog open in the tab the flow acts on over runner's own session on the tab
    /// (agent-browser is busy with the command the dialog holds: see `Session::held_by_dialog`).
    pub(crate) async fn answer_current(
        &self,
        accept: bool,
        text: Option<&str>,
    ) -> Result<(), String> {
        let (link, session) = {
            let s = self
                .state
                .lock()
                .map_err(|_| "the dialog watch failed".to_string())?;
            let session = s.sessions.get(&s.current).cloned();
            (self.link.upgrade(), session)
        };
        let (Some(link), Some(session)) = (link, session) else {
            return Err("runner does not hear the flow's tab".to_string());
        };
        let answer = super::answer_params(accept, text);
        link.call_in(
            Some(&session),
            "Page.handleJavaScriptDialog",
            answer,
            super::CALL_TIMEOUT,
        )
        .await
        .map_err(|e| e.to_string())?;
        self.answered_current();
        Ok(())
    }

    /// runner's session on the flow's tab, to evaluate its page scripts in (see
    /// `session::own_eval`): (connection, session, tab); `None` when they go through
    /// agent-browser — `RUNNER_OWN_EVAL=off`, or runner's session on the tab does not hear the
    /// tab's events yet.
    pub(crate) fn own_page(&self) -> Option<(Arc<Link>, String, String)> {
        if !self.own_eval {
            return None;
        }
        let link = self.link.upgrade()?;
        let s = self.state.lock().ok()?;
        let session = s.sessions.get(&s.current)?.clone();
        Some((link, session, s.current.clone()))
    }

    /// The dialog open in tab `target` that blocks its page until the flow answers it: a
    /// confirm or prompt no armed answer is answering.
    pub(crate) fn blocking(&self, target: &str) -> Option<Open> {
        let s = self.state.lock().ok()?;
        s.open
            .get(target)
            .filter(|o| !o.answered_for_the_flow)
            .cloned()
    }

    /// The flow answered the dialog of its tab (through agent-browser).
    pub(crate) fn answered_current(&self) {
        if let Ok(mut s) = self.state.lock() {
            let current = s.current.clone();
            s.open.remove(&current);
        }
    }

    /// Whether no dialog the flow answers (a confirm or prompt) is open in its tab, as runner's
    /// session on the tab has heard up to now: `None` when runner cannot tell
    /// (`RUNNER_OWN_EVAL=off`, its session on the tab not hearing the tab's events yet, no
    /// answer): agent-browser is to be asked.
    ///
    /// "Up to now" holds: a call on runner's connection is answered after every event the
    /// browser sent on it before, and the browser sends a dialog's opening to every session
    /// on the tab at once — to agent-browser's, which may have heard of it already (the
    /// previous step's click opened it), and to runner's. So a dialog agent-browser knows of
    /// is known here once that call has come back.
    pub(crate) async fn none_open(&self, timeout: Duration) -> Option<bool> {
        if !self.own_eval {
            return None;
        }
        let link = self.link.upgrade()?;
        {
            let s = self.state.lock().ok()?;
            s.sessions.get(&s.current)?;
        }
        link.call_in(None, "Browser.getVersion", json!({}), timeout)
            .await
            .ok()?;
        let s = self.state.lock().ok()?;
        let open = s.open.get(&s.current);
        Some(!open.is_some_and(|o| matches!(o.kind.as_str(), "confirm" | "prompt")))
    }
}

impl FlowDialogs {
    /// Waits (at most `timeout`) until the flow's tab records for its trace (at once when the
    /// flow keeps none).
    pub(crate) async fn recording(&self, timeout: Duration) {
        let Some(r) = &self.recorder else { return };
        let current = match self.state.lock() {
            Ok(s) => s.current.clone(),
            Err(_) => return,
        };
        r.recording(&current, timeout).await;
    }

    /// After a browser step that began at `start` and ended at `end` (ms since the epoch), for
    /// the trace: whether it `acts` on the page (see `recorder`), and when `picture`, the
    /// picture of the flow's tab is wanted: its id, to take it by once chosen. (`secrets`: the
    /// flow has some.)
    pub(crate) async fn stepped(
        &self,
        (start, end): (f64, f64),
        (acts, picture, secrets): (bool, bool, bool),
    ) -> Option<u64> {
        let r = self.recorder.as_ref()?;
        let (current, session) = {
            let s = self.state.lock().ok()?;
            (s.current.clone(), s.sessions.get(&s.current).cloned())
        };
        let page = self
            .link
            .upgrade()
            .zip(session)
            .map(|(link, session)| (link, session, current.clone()));
        r.stepped((&current, page), (start, end), (acts, picture, secrets))
            .await
    }

    /// With snapshots (see `recorder`), at the flow's end: the pictures `ids`, drawn (waiting
    /// at most `timeout` for the snapshots to come) masked with `masker`, and what was left
    /// out of them.
    pub(crate) async fn drawn(
        &self,
        ids: &[u64],
        timeout: Duration,
        masker: &crate::step::Masker,
    ) -> crate::browser::driver::recorder::Drawn {
        match (&self.recorder, self.link.upgrade()) {
            (Some(r), Some(link)) => r.drawn(&link, ids, timeout, masker).await,
            _ => crate::browser::driver::recorder::Drawn::default(),
        }
    }

    /// Waits (at most `timeout`) until runner's connection has read every event the browser
    /// sent before (a call on it is answered after them: see `none_open`).
    pub(crate) async fn caught_up(&self, timeout: Duration) {
        if let Some(link) = self.link.upgrade() {
            let _ = link
                .call_in(None, "Browser.getVersion", json!({}), timeout)
                .await;
        }
    }
}
