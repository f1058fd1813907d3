//! The history steps `back`, `forward` and `reload` (Playwright's `goBack`, `goForward`,
//! `reload`). The tab's own session history is read over DevTools, so a `back` on the first
//! page of the tab (or a `forward` on the last) fails at once saying so, instead of waiting for
//! a navigation that never comes (the blank page a new tab starts on is not one of the flow's
//! pages). Each then waits for its navigation — a document or history entry that is not the one
//! before, loaded (`document.readyState` complete) — and outputs the page's `url`, `title` and
//! `status` as `open` does (a 4xx or 5xx page is not a failure here: the page was opened once
//! already).

use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;

use super::navigation::HTTP_STATUS_JS;
use crate::browser::driver::script::call;
use crate::browser::driver::session::Session;
use crate::browser::page::selector::{Poll, left};
use crate::step::{ErrorKind, StepError};

/// Which way the step goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Move {
    Back,
    Forward,
    Reload,
}

impl Move {
    fn key(self) -> &'static str {
        match self {
            Move::Back => "back",
            Move::Forward => "forward",
            Move::Reload => "reload",
        }
    }
}

/// `() => { id, ready }`: which document and history entry the page shows, and whether it has
/// loaded.
const PAGE_STATE_JS: &str = include_str!("scripts/page_state.js");

/// `back`, `forward` or `reload`: the move, then its navigation waited for.
pub(crate) async fn history(
    session: &mut Session,
    m: Move,
    deadline: Instant,
) -> Result<Value, StepError> {
    let before = page_state(session, deadline).await?.0;
    let tab = Tab::attach(session, m, left(deadline)).await?;
    let moved = tab.go(m, left(deadline)).await;
    tab.detach().await;
    moved?;
    let mut poll = Poll::new();
    loop {
        if let Some((id, ready)) = poll.settle(page_state(session, deadline).await)?
            && id != before
            && ready
        {
            break;
        }
        if !poll.wait(deadline).await {
            let still = poll.still_navigating().map(|e| format!(" ({})", e.message));
            return Err(StepError::new(
                ErrorKind::Timeout,
                format!(
                    "`{}`: the page did not finish navigating by the step's timeout{}",
                    m.key(),
                    still.unwrap_or_default()
                ),
            ));
        }
    }
    outputs(session, deadline).await
}

/// Which document and entry the page shows (`id`), and whether it has loaded.
async fn page_state(session: &mut Session, deadline: Instant) -> Result<(String, bool), StepError> {
    let v = session
        .eval(&call(PAGE_STATE_JS, &[]), left(deadline))
        .await?;
    let id = v.get("id").and_then(Value::as_str).unwrap_or_default();
    let ready = v.get("ready").and_then(Value::as_str) == Some("complete");
    Ok((id.to_string(), ready))
}

/// The page's `url`, `title` and `status` (0 when the browser does not say).
async fn outputs(session: &mut Session, deadline: Instant) -> Result<Value, StepError> {
    let t = left(deadline);
    let url = session.url(t).await?;
    let title = session.title(t).await?;
    let status = session
        .eval(&call(HTTP_STATUS_JS, &[]), t)
        .await
        .ok()
        .and_then(|v| v.as_i64())
        .unwrap_or(0);
    Ok(json!({ "url": url, "title": title, "status": status }))
}

/// A DevTools session on the flow's current tab, for the duration of one move.
struct Tab {
    link: std::sync::Arc<crate::browser::driver::cdp::Link>,
    session: String,
}

impl Tab {
    async fn attach(session: &Session, m: Move, t: Duration) -> Result<Tab, StepError> {
        let Some(tabs) = session.tabs.as_ref() else {
            return Err(StepError::new(
                ErrorKind::Environment,
                format!("`{}` needs the flow's own browser context", m.key()),
            ));
        };
        let link = tabs.cdp.link().clone();
        let session = link.attach(&tabs.current, t).await?;
        Ok(Tab { link, session })
    }

    async fn call(&self, method: &str, params: Value, t: Duration) -> Result<Value, StepError> {
        Ok(self
            .link
            .call_in(Some(&self.session), method, params, t)
            .await?)
    }

    /// Starts the move: a reload, or the history entry before (after) the current one; none
    /// there is the step's failure.
    async fn go(&self, m: Move, t: Duration) -> Result<(), StepError> {
        if m == Move::Reload {
            self.call("Page.reload", json!({}), t).await?;
            return Ok(());
        }
        let h = self.call("Page.getNavigationHistory", json!({}), t).await?;
        let entries = h.get("entries").and_then(Value::as_array);
        let entries = entries.map(Vec::as_slice).unwrap_or_default();
        let current = h.get("currentIndex").and_then(Value::as_u64);
        let current = current.and_then(|i| usize::try_from(i).ok()).unwrap_or(0);
        let url = |i: usize| {
            entries
                .get(i)
                .and_then(|e| e.get("url"))
                .and_then(Value::as_str)
        };
        // The blank page a new tab starts on is no page of the flow's.
        let start = usize::from(url(0) == Some("about:blank"));
        let to = match m {
            Move::Back => current.checked_sub(1).filter(|i| *i >= start),
            _ => Some(current + 1).filter(|i| *i < entries.len()),
        };
        let Some(entry) = to.and_then(|i| entries.get(i)) else {
            let (way, end) = match m {
                Move::Back => ("earlier", "the first"),
                _ => ("later", "the last"),
            };
            return Err(StepError::new(
                ErrorKind::CommandFailed,
                format!(
                    "`{}`: the tab has no {way} page in its history (it shows {end}, {})",
                    m.key(),
                    url(current).unwrap_or("?")
                ),
            ));
        };
        let id = entry.get("id").cloned().unwrap_or(Value::Null);
        self.call("Page.navigateToHistoryEntry", json!({ "entryId": id }), t)
            .await?;
        Ok(())
    }

    /// Ends the DevTools session (the tab stays); a failure to is of no consequence to the step.
    async fn detach(self) {
        let _ = self
            .link
            .call_in(
                None,
                "Target.detachFromTarget",
                json!({ "sessionId": self.session }),
                Duration::from_secs(2),
            )
            .await;
    }
}
