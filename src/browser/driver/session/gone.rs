//! A flow's commands when its browser is gone (stopped, wedged, out of reach, or exited: see
//! `cdp::health`). A browser step that did not finish in time, or that failed on the
//! connection, has the browser asked whether it still answers (`why_failed`, called by the
//! browser steps' dispatch); when it does not, the step's error says what happened to the
//! browser (an environment failure, exit code 3) instead of what its command last waited for
//! (agent-browser's "the page may still be loading"), and every later command of the flow fails
//! at once with that error (`browser_gone`).

use super::super::adapter::Cause;
use super::Session;
use crate::step::{ErrorKind, StepError};

impl Session {
    /// What happened to the flow's browser, when it is known to be gone (nothing is sent).
    pub(crate) fn browser_gone(&self) -> Option<StepError> {
        self.tabs.as_ref()?.cdp.gone_error()
    }

    /// `e`, or, when `e` may mean the browser is gone and the browser does not answer, what
    /// happened to the browser.
    pub(crate) async fn why_failed(&self, e: StepError) -> StepError {
        let worth_asking = match e.kind {
            ErrorKind::Timeout => true,
            ErrorKind::CommandFailed => Cause::unanswered(&e.message),
            _ => false,
        };
        let Some(tabs) = self.tabs.as_ref().filter(|_| worth_asking) else {
            return e;
        };
        match tabs.cdp.health().await {
            Some(_) => tabs.cdp.gone_error().unwrap_or(e),
            None => e,
        }
    }
}
