//! The rhythm of re-checking the page until it shows what a step waits for, and what a check
//! that met a navigation in flight means.

use std::time::Duration;

use tokio::time::Instant;

use crate::browser::driver::adapter::Cause;
use crate::step::{ErrorKind, StepError};

/// The waits between re-checks of what the page has yet to show (an element, an assertion, a
/// `wait`): short at first, as a re-render after a click or a route change takes a frame or
/// two, then every 100 ms (Playwright retries after 0, 20, 50, 100, 100, 500 ms).
pub(crate) struct Poll {
    checks: usize,
    /// The last check that met a navigation in flight (see `settle`).
    navigated: Option<StepError>,
}

impl Poll {
    const STEPS_MS: [u64; 5] = [10, 20, 30, 50, 100];

    pub(crate) fn new() -> Poll {
        Poll {
            checks: 0,
            navigated: None,
        }
    }

    /// What one check of the page gave. A check that met a navigation committing while it read
    /// the page (`Cause::navigated`), or found its element gone or replaced between resolving
    /// it and reading it (`handle_messages::is_gone`: a re-render, or the old page's element
    /// after a navigation), or found the iframe its selector names not (yet) on the page
    /// (`lookup::is_missing_frame`: a widget inserts its iframe late), or a `within` that
    /// matches nothing (`scope::is_missing_within`, likewise), or a role look-up's tree
    /// that left out an inert or skipped part of the page (`ax_roles::is_inert`: a modal
    /// dialog about to close, a `content-visibility: auto` section scrolled to), has no answer yet: `None`, and the next check resolves the user's selector again
    /// on the page as it is then; when the time runs out, the missing frame or the inert part
    /// is the error. Any other failure is the check's.
    pub(crate) fn settle<T>(&mut self, r: Result<T, StepError>) -> Result<Option<T>, StepError> {
        match r {
            Err(e)
                if Cause::of(&e.message).navigated
                    || super::handle_messages::is_gone(&e.message)
                    || super::lookup::is_missing_frame(&e.message)
                    || super::scope::is_missing_within(&e.message)
                    || super::ax_roles::is_inert(&e) =>
            {
                self.navigated = Some(e);
                Ok(None)
            }
            Err(e) => Err(e),
            Ok(v) => {
                self.navigated = None;
                Ok(Some(v))
            }
        }
    }

    /// The error of a wait that ran out while the last check still met a navigation (or its
    /// element gone, or its frame missing or part of the page inert: then that error as it is).
    pub(crate) fn still_navigating(&mut self) -> Option<StepError> {
        self.navigated.take().map(|e| {
            // A missing frame, or a role check the tree could not answer while part of the
            // page was inert, says so.
            if super::lookup::is_missing_frame(&e.message)
                || super::scope::is_missing_within(&e.message)
                || super::ax_roles::is_inert(&e)
            {
                return e;
            }
            let what = if super::handle_messages::is_gone(&e.message) {
                "the element found was gone (replaced or removed) when read"
            } else {
                "the page was still navigating"
            };
            StepError::new(
                ErrorKind::Timeout,
                format!(
                    "timed out: {what} at the last check ({})",
                    super::handle_messages::scrub(&e.message)
                ),
            )
        })
    }

    /// Sleeps until the next check; false (without sleeping) when that check would come at or
    /// after `deadline`.
    pub(crate) async fn wait(&mut self, deadline: Instant) -> bool {
        let d = Duration::from_millis(Self::STEPS_MS[self.checks.min(Self::STEPS_MS.len() - 1)]);
        self.checks += 1;
        if Instant::now() + d >= deadline {
            return false;
        }
        tokio::time::sleep(d).await;
        true
    }
}
