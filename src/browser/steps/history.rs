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

use super::navigation::moved_status;
use crate::browser::driver::request_log::now_ms;
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
    let since = now_ms();
    let tab = Tab::attach(session, m, left(deadline)).await?;
    let moved = match tab.go(m, left(deadline)).await {
        Ok(to) => arrive(session, m, &before, deadline).await.map(|()| to),
        Err(e) => Err(e),
    };
    // The loader id of the document the tab shows now (see `moved_status`).
    let loader = match &moved {
        Ok(_) => tab.loader(left(deadline)).await,
        Err(_) => None,
    };
    tab.detach().await;
    let to = moved?;
    outputs(session, (to.as_deref(), loader.as_deref()), since, deadline).await
}

/// Waits until the page is another document or history entry than `before`, loaded.
async fn arrive(
    session: &mut Session,
    m: Move,
    before: &str,
    deadline: Instant,
) -> Result<(), StepError> {
    let mut poll = Poll::new();
    loop {
        if let Some((id, ready)) = poll.settle(page_state(session, deadline).await)?
            && id != before
            && ready
        {
            return Ok(());
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

/// The page's `url`, `title` and `status`: the status of the move's own navigation (see
/// `moved_status`; null for a page that is not HTTP). `to` is the history entry moved to, and
/// `loader` the loader id of the document the tab shows.
async fn outputs(
    session: &mut Session,
    (to, loader): (Option<&str>, Option<&str>),
    since: u128,
    deadline: Instant,
) -> Result<Value, StepError> {
    let t = left(deadline);
    let url = session.url(t).await?;
    let title = session.title(t).await?;
    let status = moved_status(session, (to, loader, &url), since, t)
        .await
        .map_err(|why| {
            StepError::new(
                ErrorKind::CommandFailed,
                format!("cannot tell the HTTP status of {url}: {why}"),
            )
            .with_outputs(json!({ "url": url, "title": title, "status": null }))
        })?;
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
    /// there is the step's failure. The URL of the entry moved to (none for a reload).
    async fn go(&self, m: Move, t: Duration) -> Result<Option<String>, StepError> {
        if m == Move::Reload {
            self.call("Page.reload", json!({}), t).await?;
            return Ok(None);
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
        Ok(entry.get("url").and_then(Value::as_str).map(str::to_string))
    }

    /// The loader id of the document the tab's main frame shows (none when it cannot be read).
    async fn loader(&self, t: Duration) -> Option<String> {
        let tree = self.call("Page.getFrameTree", json!({}), t).await.ok()?;
        let id = tree["frameTree"]["frame"]["loaderId"].as_str()?;
        Some(id.to_string())
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
