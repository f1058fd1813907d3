//! A click or a key press that starts a navigation of the flow's tab resolves once the new
//! document has committed (or the navigation ended otherwise), as Playwright's actions do
//! (`waitForSignalsCreatedBy`): the step after it acts on the new page, not on the page being
//! left (a `fill` of the old form, an `expect` reading the old document).
//!
//! A mark taken before the input holds how many navigations runner's session on the tab heard
//! the page request so far (see `dialog_watch::navigations`). After the input, one round trip
//! over that session makes sure every event the browser sent it before has been read; a
//! navigation of the tab's main frame requested since the mark is then waited on until it
//! commits (a failed one commits the browser's error page, which the next step meets as it does
//! after `open`), moves within the document, or the tab stops loading (a download, a `204`), or
//! a dialog opens in the tab (a `beforeunload` holds the navigation until the next step, or
//! agent-browser's next command, answers it), at most until the step's timeout; one that has
//! not started half a second after the page requested it (a `beforeunload` dialog dismissed
//! kept the page) is not waited on further. A click that started none costs that one round trip
//! (well under a millisecond), with no page script. As with Playwright, a navigation the page
//! starts later — from a timer its handler set (`setTimeout(() => location.href = …)`), after a
//! `fetch` — is not waited on: after an input Chromium runs the page's timers only after its
//! next frame, and waiting for that turn made every click (debug build, 50 clicks that each
//! re-render a counter) 35 ms instead of 17. Nor is a frame's own navigation (an iframe's
//! link), nor one into a new tab. Without runner's session on the tab (a browser runner did not
//! start), nothing is waited on, as before.

use std::time::Duration;

use serde_json::json;
use tokio::time::Instant;

use super::Session;
use crate::step::{ErrorKind, StepError};

/// The most the round trip after the input may take (a live browser answers at once).
const ROUND_TRIP: Duration = Duration::from_secs(2);

/// How long a requested navigation that has not started is waited for.
const NOT_STARTED: Duration = Duration::from_millis(500);

/// How often a navigation under way is looked at.
const LOOK: Duration = Duration::from_millis(10);

/// The navigations a tab's page requested before an input (see the module's notes).
#[derive(Debug)]
pub(crate) struct NavigationMark {
    target: String,
    requested: u64,
}

impl Session {
    /// The mark to take before an input that may start a navigation; `None` when runner does
    /// not hear the flow's tab.
    pub(crate) fn navigation_mark(&self) -> Option<NavigationMark> {
        let (_, _, target, tab) = self.watched.as_ref()?.navigations()?;
        Some(NavigationMark {
            target,
            requested: tab.requested,
        })
    }

    /// Waits (until `deadline`) for a navigation of the flow's tab requested since `mark` to
    /// commit or end (see the module's notes); one still under way at `deadline` fails the
    /// step, `what` (`` `click` on css `#go` ``) naming its input.
    pub(crate) async fn await_navigation(
        &mut self,
        mark: Option<NavigationMark>,
        what: &str,
        deadline: Instant,
    ) -> Result<(), StepError> {
        let (Some(mark), Some(flow)) = (mark, self.watched.clone()) else {
            return Ok(());
        };
        let Some((link, session, target, _)) = flow.navigations() else {
            return Ok(());
        };
        if target != mark.target {
            return Ok(());
        }
        let bound = deadline
            .saturating_duration_since(Instant::now())
            .min(ROUND_TRIP);
        // Answered in the browser itself, even while a dialog holds the page.
        let info = link.call_in(Some(&session), "Target.getTargetInfo", json!({}), bound);
        let _ = info.await;
        loop {
            let Some(tab) = flow.navigations_of(&target) else {
                return Ok(());
            };
            let Some(url) = tab.pending.filter(|_| tab.requested != mark.requested) else {
                return Ok(());
            };
            // One the page never started (its `beforeunload` kept it) is not waited for long.
            if !tab.started
                && tab
                    .requested_at
                    .is_none_or(|at| at.elapsed() >= NOT_STARTED)
            {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(self.not_committed(what, &url));
            }
            tokio::time::sleep(LOOK.min(deadline.saturating_duration_since(Instant::now()))).await;
        }
    }

    /// An input's error (`e`) made the step's timeout run out while the navigation it started
    /// (since `mark`) was under way (agent-browser's command after the input waits for it):
    /// the error that says so, else `e` as it is.
    pub(crate) fn navigation_timeout(
        &self,
        mark: Option<&NavigationMark>,
        what: &str,
        e: StepError,
    ) -> StepError {
        let pending = self.watched.as_ref().zip(mark).and_then(|(flow, mark)| {
            let tab = flow.navigations_of(&mark.target)?;
            tab.pending.filter(|_| tab.requested != mark.requested)
        });
        match pending {
            Some(url) if e.kind == ErrorKind::Timeout => self.not_committed(what, &url),
            _ => e,
        }
    }

    /// The error of an input whose navigation (to `url`) had not committed by the step's
    /// timeout.
    fn not_committed(&self, what: &str, url: &str) -> StepError {
        let url = self.masker.mask_cut_line(url, 200);
        StepError::new(
            ErrorKind::Timeout,
            format!(
                "{what} was given, and the navigation it started (to {url}) had not committed by the step's timeout: the page's server did not answer in time"
            ),
        )
    }
}
