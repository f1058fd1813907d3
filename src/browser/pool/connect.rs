//! Connecting a worker to its browser: the worker's agent-browser session (`--cdp`) and
//! runner's own DevTools connection. A browser runner (or agent-browser) has just launched gets
//! what a cold start needs; a running browser elsewhere (`browser.cdp`, `--browser-cdp`) gets
//! the flow's `browser.timeout` for all of it, so an endpoint that accepts the connection and
//! never answers costs one browser timeout, not agent-browser's own waits, and the error says
//! which browser did not answer.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::browser::driver::adapter::Cause;
use crate::browser::driver::cdp::{Cdp, CdpError, Link};
use crate::browser::driver::command::Command;
use crate::browser::driver::dialog_watch::Watch;
use crate::browser::driver::session::Session;
use crate::step::url_secrets::{hide_url_secrets, shown_url};
use crate::step::{ErrorKind, StepError};

/// How long a DevTools call may take before its browser counts as wedged.
pub(super) const CDP_TIMEOUT: Duration = Duration::from_secs(5);

/// How long runner waits for agent-browser to connect to a browser runner (or agent-browser)
/// has just launched.
const LAUNCHED_CONNECT: Duration = Duration::from_secs(30);

/// Connects to a browser this run launched.
pub(super) async fn launched(session: &mut Session, watch: &Arc<Watch>) -> Result<Cdp, StepError> {
    connect(session, watch, LAUNCHED_CONNECT, true).await
}

/// Connects to the running browser at `url` within `timeout` (the flow's `browser.timeout`);
/// its messages name `url` as [`shown_url`] shows it (no token, no password). Also returns the
/// page agent-browser opened in it for the session (see [`own_page`]), for runner to close when
/// the session disconnects.
pub(super) async fn remote(
    session: &mut Session,
    watch: &Arc<Watch>,
    url: &str,
    timeout: Duration,
) -> Result<(Cdp, Option<String>), StepError> {
    // One deadline for all of it: the read of /json/version, the connection, the first call.
    let deadline = tokio::time::Instant::now() + timeout;
    let left = || deadline.saturating_duration_since(tokio::time::Instant::now());
    match version_read(url, timeout).await {
        Version::Refused(why) => {
            return Err(StepError::new(
                ErrorKind::Environment,
                format!("the browser at {} {why}", shown_url(url)),
            ));
        }
        Version::Unanswered => {
            let e = StepError::new(ErrorKind::Timeout, "");
            return Err(unconnected(url, timeout, &e));
        }
        Version::Taken => {}
    }
    let cdp = tokio::time::timeout_at(deadline, connect(session, watch, left(), false))
        .await
        .unwrap_or_else(|_| Err(StepError::new(ErrorKind::Timeout, "")))
        .map_err(|e| unconnected(url, timeout, &e))?;
    cdp.remote(&shown_url(url));
    let page = own_page(session, left().min(CDP_TIMEOUT)).await;
    Ok((cdp, page))
}

/// What runner's own read of a browser address's `/json/version` found.
enum Version {
    /// Not read (a ws:// address), or answered, or refused at once (no one listens): the
    /// connection goes on, and says why it fails if it does.
    Taken,
    /// Its answer is refused: why.
    Refused(String),
    /// No whole answer within the browser's timeout (a silent or trickling endpoint): the
    /// timeout is spent, and waiting for the connection would spend another.
    Unanswered,
}

/// The most of an http(s) browser address's `/json/version` answer runner reads: a browser's is
/// a few hundred bytes.
const MAX_VERSION_ANSWER: usize = 64 * 1024;

/// Reads the `/json/version` answer of `url` (an http(s) address, which agent-browser resolves
/// so) within `timeout`: refused when more than [`MAX_VERSION_ANSWER`] (agent-browser reads it
/// without a cap: an endpoint that never ends its answer grew it to ~1 GB within the browser's
/// timeout); an address that refuses the connection or answers no HTTP is left to the
/// connection, which says why; one that does not answer in time is [`Version::Unanswered`].
async fn version_read(url: &str, timeout: Duration) -> Version {
    let lower = url.to_ascii_lowercase();
    if !(lower.starts_with("http://") || lower.starts_with("https://")) {
        return Version::Taken;
    }
    let version = format!("{}/json/version", url.trim_end_matches('/'));
    let read = async {
        let mut answer = reqwest::get(&version).await.ok()?;
        let mut size = 0;
        while let Ok(Some(chunk)) = answer.chunk().await {
            size += chunk.len();
            if size > MAX_VERSION_ANSWER {
                return Some(format!(
                    "answered /json/version with more than {} KiB (a browser's answer is a few hundred bytes): not connected to",
                    MAX_VERSION_ANSWER / 1024
                ));
            }
        }
        None
    };
    match tokio::time::timeout(timeout, read).await {
        Ok(Some(why)) => Version::Refused(why),
        Ok(None) => Version::Taken,
        Err(_) => Version::Unanswered,
    }
}

/// The page agent-browser opened for the session as it connected to a running browser. With the
/// session's tab pinned (as every command of runner's asks), agent-browser (0.41.2) takes none
/// of the pages the browser has: it opens a blank one of its own in the browser's default
/// context and binds the session to it (checked by watching the browser's targets: it opens
/// one even where blank pages are there to take). So the session's one active tab right after
/// it connected, before runner switched it to a flow's tab, is that page, known by its target
/// id (not guessed among blank pages another client may have opened). None when agent-browser
/// does not say so plainly (the page is then left in the browser).
async fn own_page(session: &mut Session, timeout: Duration) -> Option<String> {
    let data = session.send(Command::TabList, timeout).await.ok()?;
    let mut active = data
        .get("tabs")?
        .as_array()?
        .iter()
        .filter(|t| t.get("active").and_then(Value::as_bool) == Some(true));
    let (Some(tab), None) = (active.next(), active.next()) else {
        return None;
    };
    if tab.get("url").and_then(Value::as_str) != Some("about:blank") {
        return None;
    }
    tab.get("targetId")
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// Closes `page`, the blank page agent-browser opened for a session that has now disconnected
/// (see [`own_page`]), if it still is a blank page: one a client navigated is left to it.
pub(super) async fn close_own_page(cdp: &Cdp, page: &str) {
    let target = serde_json::json!({ "targetId": page });
    let Ok(info) = cdp
        .call("Target.getTargetInfo", target.clone(), CDP_TIMEOUT)
        .await
    else {
        return;
    };
    let info = &info["targetInfo"];
    if info["type"] == "page" && info["url"] == "about:blank" {
        let _ = cdp.call("Target.closeTarget", target, CDP_TIMEOUT).await;
    }
}

/// Starts the session's daemon, connected to the browser (`--cdp`) within `timeout`, and opens
/// a DevTools connection of runner's own to it. A browser that does not answer in time is a
/// `Timeout` error. With `hold_new_tabs` (a browser this run launched) the browser holds each
/// new tab until runner has given it its flow's settings (see [`hold`]).
async fn connect(
    session: &mut Session,
    watch: &Arc<Watch>,
    timeout: Duration,
    hold_new_tabs: bool,
) -> Result<Cdp, StepError> {
    let data = session.send(Command::CdpUrl, timeout).await?;
    let w = watch.clone();
    let on_event = Box::new(move |link: &Arc<Link>, msg: &Value| w.on_event(link, msg));
    let calls = timeout.min(CDP_TIMEOUT);
    let unanswered = |e: CdpError| match e {
        CdpError::ConnectTimeout(_) | CdpError::NoAnswer { .. } => {
            StepError::new(ErrorKind::Timeout, e.to_string())
        }
        e => e.into_step_error(true),
    };
    let cdp = Cdp::connect(cdp_url(&data)?, calls, on_event)
        .await
        .map_err(unanswered)?;
    // Tabs made and changed, for the watch on dialogs in a flow's other tabs.
    cdp.call(
        "Target.setDiscoverTargets",
        serde_json::json!({ "discover": true }),
        calls,
    )
    .await
    .map_err(unanswered)?;
    if hold_new_tabs {
        hold(&cdp, calls).await.map_err(unanswered)?;
    }
    Ok(cdp)
}

/// Asks the browser to hold each new tab before it runs, until runner has given it its flow's
/// settings and let it run (see `new_tabs`): pages only; a browser that does not know the
/// filter (before Chrome 106) holds its workers too, and `new_tabs` lets them run at once.
///
/// Only on a browser the run launched. The browser holds every new tab of every client for
/// runner, and Chromium (156) does not let a held tab run when the connection that holds it
/// ends or detaches from it: had runner been stopped (Ctrl-Z) or killed as a tab opened, a
/// `window.open` of another client of a shared browser would stay blank and its opener's page
/// frozen for good. A browser runner launched has no other clients and ends with the run.
async fn hold(cdp: &Cdp, calls: Duration) -> Result<(), CdpError> {
    let mut auto_attach = serde_json::json!({
        "autoAttach": true,
        "waitForDebuggerOnStart": true,
        "flatten": true,
        "filter": [{ "type": "page", "exclude": false }, { "exclude": true }],
    });
    match cdp
        .call("Target.setAutoAttach", auto_attach.clone(), calls)
        .await
    {
        Err(CdpError::Refused { .. }) => {
            if let Some(o) = auto_attach.as_object_mut() {
                o.remove("filter");
            }
            cdp.call("Target.setAutoAttach", auto_attach, calls).await?;
            Ok(())
        }
        r => r.map(|_| ()),
    }
}

/// The error of a running browser at `url` runner could not connect to: it did not answer
/// within `timeout`, or why agent-browser could not connect (an environment failure: exit 3).
fn unconnected(url: &str, timeout: Duration, e: &StepError) -> StepError {
    let shown = shown_url(url);
    let message = if e.kind == ErrorKind::Timeout || Cause::timed_out(&e.message) {
        format!(
            "the browser at {shown} did not answer in {} (connecting to it; `browser.timeout` bounds the wait)",
            humantime::format_duration(timeout)
        )
    } else {
        let why = e.message.trim_start_matches("the browser cannot launch: ");
        format!(
            "cannot connect to the browser at {shown}: {}",
            hide_url_secrets(url, why)
        )
    };
    StepError::new(ErrorKind::Environment, message)
}

/// The DevTools URL in agent-browser's answer to `get cdp-url`.
pub(super) fn cdp_url(data: &Value) -> Result<&str, StepError> {
    data.get("cdpUrl").and_then(Value::as_str).ok_or_else(|| {
        StepError::new(
            ErrorKind::Environment,
            format!("agent-browser named no DevTools URL for its browser: {data}"),
        )
    })
}
