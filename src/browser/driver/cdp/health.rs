//! Whether the browser behind a DevTools connection still serves. After a command that did not
//! finish, or that failed on its connection, one call every live browser answers at once
//! (`Browser.getVersion`: the browser process answers it also while a page's script loops)
//! tells a slow page from a browser that is stopped, wedged or out of reach, and from one that
//! exited. The verdict sticks: every later call on the connection fails at once, so a flow
//! (and its `finally`, and the flows after it) does not wait out one timeout per command for a
//! browser that will not answer, and the steps say what happened to the browser rather than
//! what the command last waited for.

use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::json;

use super::{Cdp, CdpError, Link, Unanswered};
use crate::step::{ErrorKind, StepError};

/// How long the browser gets to answer the probe: a live one answers in milliseconds, also
/// while a page is busy, so this is waited for in full only when the browser is gone.
pub(crate) const PROBE: Duration = Duration::from_secs(2);

/// What happened to a browser that no longer serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Gone {
    /// It closed its DevTools connection: it exited (or the connection broke).
    Exited,
    /// It did not answer the probe.
    Silent,
}

impl Cdp {
    /// Names the DevTools endpoint a user gave for this browser (`browser.cdp`,
    /// `--browser-cdp`): the messages about it say which browser it is.
    pub(crate) fn remote(&self, endpoint: &str) {
        let _ = self.link.endpoint.set(endpoint.to_string());
    }

    /// What is known to have happened to the browser, without asking it.
    pub(crate) fn gone(&self) -> Option<Gone> {
        self.link.gone()
    }

    /// Asks the browser whether it still answers (for up to `PROBE`); a browser that does not
    /// is taken for gone from then on.
    pub(crate) async fn health(&self) -> Option<Gone> {
        if let Some(g) = self.gone() {
            return Some(g);
        }
        match self.call("Browser.getVersion", json!({}), PROBE).await {
            // An error is an answer too.
            Ok(_) | Err(CdpError::Refused { .. }) => None,
            Err(CdpError::NoAnswer { .. } | CdpError::Silent { .. }) => {
                self.link.silenced();
                Some(Gone::Silent)
            }
            // The connection broke (closed, or a send failed on it).
            Err(_) => {
                self.link.closed.store(true, Ordering::SeqCst);
                Some(Gone::Exited)
            }
        }
    }

    /// The flow's error for a browser known to be gone: what happened to it (an environment
    /// failure: exit code 3).
    pub(crate) fn gone_error(&self) -> Option<StepError> {
        let gone = self.gone()?;
        let browser = match self.link.endpoint.get() {
            Some(url) => format!("the browser at {url}"),
            None => "the browser".to_string(),
        };
        let message = match gone {
            Gone::Exited => match self.link.broke.get() {
                Some(why) => format!(
                    "runner's DevTools connection to {browser} failed ({why}); the browser may still run"
                ),
                None => format!("{browser} exited: it closed its DevTools connection"),
            },
            Gone::Silent => format!(
                "{browser} did not answer (a call every live browser answers at once got no answer in {}): it is stopped, wedged or out of reach",
                humantime::format_duration(PROBE)
            ),
        };
        Some(StepError::new(ErrorKind::Environment, message))
    }
}

impl Link {
    /// What is known to have happened to the browser.
    fn gone(&self) -> Option<Gone> {
        if self.closed.load(Ordering::SeqCst) {
            Some(Gone::Exited)
        } else if self.silent.load(Ordering::SeqCst) {
            Some(Gone::Silent)
        } else {
            None
        }
    }

    /// Takes the browser for silent: the calls waiting for an answer fail now, later ones at
    /// once.
    fn silenced(&self) {
        self.silent.store(true, Ordering::SeqCst);
        self.fail_waiting(&Unanswered::Silent);
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{browser, connected};
    use super::*;

    #[tokio::test]
    async fn a_browser_that_does_not_answer_is_taken_for_silent_and_not_asked_again() {
        // Answers nothing: every call waits.
        let (url, _h) = browser(|_| (Vec::new(), false)).await;
        let cdp = connected(&url).await;
        cdp.remote("ws://remote.example:9222");
        assert_eq!(cdp.gone(), None);
        let started = std::time::Instant::now();
        assert_eq!(cdp.health().await, Some(Gone::Silent));
        assert!(started.elapsed() >= PROBE);
        // Later calls fail at once, saying so.
        let started = std::time::Instant::now();
        let e = cdp
            .call("Target.getTargets", json!({}), Duration::from_secs(30))
            .await
            .unwrap_err();
        assert!(started.elapsed() < Duration::from_millis(100));
        assert!(matches!(e, CdpError::Silent { .. }), "{e}");
        let e = cdp.gone_error().unwrap();
        assert_eq!(e.kind, ErrorKind::Environment);
        assert!(
            e.message
                .starts_with("the browser at ws://remote.example:9222 did not answer"),
            "{}",
            e.message
        );
    }

    #[tokio::test]
    async fn a_browser_that_answers_is_not_gone_and_one_that_closed_exited() {
        let (url, _h) = browser(|req| {
            let id = req["id"].as_u64().unwrap();
            // It answers the probe, then closes on the next call.
            let close = req["method"] != "Browser.getVersion";
            (vec![json!({ "id": id, "result": {} })], close)
        })
        .await;
        let cdp = connected(&url).await;
        assert_eq!(cdp.health().await, None);
        let _ = cdp
            .call("Target.getTargets", json!({}), Duration::from_secs(5))
            .await;
        // The reader saw the end: no call needed to know.
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while cdp.gone().is_none() && std::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert_eq!(cdp.health().await, Some(Gone::Exited));
        assert_eq!(
            cdp.gone_error().unwrap().message,
            "the browser exited: it closed its DevTools connection"
        );
    }

    /// A message past what runner's connection takes ends it on runner's side: the browser
    /// did not exit, and the error says so (not "the browser exited").
    #[tokio::test]
    async fn a_message_too_big_for_runner_is_not_a_browser_that_exited() {
        let (url, _h) = browser(|req| {
            let id = req["id"].as_u64().unwrap();
            let big = "x".repeat(super::super::reader::MAX_MESSAGE + 1);
            (vec![json!({ "id": id, "result": { "value": big } })], false)
        })
        .await;
        let cdp = connected(&url).await;
        let e = cdp
            .call("Runtime.evaluate", json!({}), Duration::from_secs(20))
            .await
            .unwrap_err();
        assert!(matches!(e, CdpError::Broke { .. }), "{e}");
        assert!(
            e.to_string().starts_with(
                "Runtime.evaluate: runner's DevTools connection to the browser failed ("
            ),
            "{e}"
        );
        assert_eq!(cdp.gone(), Some(Gone::Exited));
        let e = cdp.gone_error().unwrap().message;
        assert!(
            e.starts_with("runner's DevTools connection to the browser failed (")
                && e.ends_with("); the browser may still run"),
            "{e}"
        );
    }
}
