//! Navigation and waiting: `open` (with the page's HTTP status) and `wait` (a duration, an
//! element's state, a text on the page, a URL), re-checked until it holds or the step times out.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;

use crate::browser::driver::command::Command;
use crate::browser::driver::script::call;
use crate::browser::driver::session::Session;
use crate::browser::page::selector::{
    Alt, Poll, Read, alternatives, is_visible, resolve_now_one_reading,
};
use crate::config::duration::parse_duration;
use crate::config::model::{OpenAction, VisibleState, WaitAction, WaitOptions};
use crate::step::{ErrorKind, StepError};

/// `() => status`: the HTTP status of the page's document.
const HTTP_STATUS_JS: &str = include_str!("scripts/http_status.js");

/// `(text) => bool`: whether the page's text holds `text`.
const PAGE_SHOWS_TEXT_JS: &str = include_str!("scripts/page_shows_text.js");

/// `open`: navigates, then checks the page's HTTP status (agent-browser reports success for a
/// 404 page): the one `status` expects, else any but a 4xx or 5xx. A failed `open` keeps its
/// outputs (the URL, and the title and status when a page came).
pub(crate) async fn open(
    session: &mut Session,
    o: &OpenAction,
    timeout: Duration,
) -> Result<Value, StepError> {
    let url = o.url();
    let data = session.send(Command::Navigate { url: url.to_string() }, timeout).await.map_err(|mut e| {
        if e.message.contains("ERR_HTTP_RESPONSE_CODE_FAILURE") {
            // Chromium shows no page for an error status with an empty body, so no status can
            // be read from it: an expected status cannot be confirmed either.
            let hint = if o.status().is_some() { "; its status cannot be read from an empty page: check it with a `request` step" } else { "" };
            e.message = format!("HTTP error response for {url} (the server answered with an error status and an empty page){hint}");
        } else {
            e.message = format!("cannot open {url}: {}", e.message);
        }
        e.with_outputs(json!({ "url": url, "title": "", "status": null }))
    })?;
    // agent-browser reports success for a 404 page: ask the page for its HTTP status.
    let status = session
        .eval(&call(HTTP_STATUS_JS, &[]), timeout)
        .await
        .ok()
        .and_then(|v| v.as_i64())
        .unwrap_or(0);
    let final_url = data
        .get("url")
        .cloned()
        .unwrap_or(Value::String(url.to_string()));
    let shown_url = final_url.as_str().unwrap_or(url).to_string();
    let outputs = json!({
        "url": final_url,
        "title": data.get("title").cloned().unwrap_or(Value::String(String::new())),
        "status": status,
    });
    match o.status() {
        Some(want) if i64::from(want) != status => Err(StepError::new(
            ErrorKind::Assertion,
            format!("expected HTTP status {want} for {shown_url}, got {status}"),
        )
        .in_part("status")
        .with_outputs(outputs)),
        None if status >= 400 => Err(StepError::new(
            ErrorKind::CommandFailed,
            format!(
                "HTTP {status} for {shown_url} (to expect it, write `open: {{ url, status: {status} }}`)"
            ),
        )
        .with_outputs(outputs)),
        _ => Ok(outputs),
    }
}

/// `wait`: a duration, or a condition re-checked until it holds or the step times out.
pub(crate) async fn wait(
    session: &mut Session,
    w: WaitAction,
    deadline: Instant,
) -> Result<Value, StepError> {
    match w {
        WaitAction::Duration(d) => {
            let d = parse_duration(&d).map_err(|e| StepError::new(ErrorKind::CommandFailed, e))?;
            tokio::time::sleep(d).await;
            Ok(json!({}))
        }
        WaitAction::For(o) => {
            let mut poll = Poll::new();
            loop {
                if poll.settle(holds(session, &o).await)?.unwrap_or(false) {
                    return Ok(json!({}));
                }
                if !poll.wait(deadline).await {
                    return Err(timed_out(&o, &mut poll));
                }
            }
        }
    }
}

/// Whether a `wait`'s condition holds now: its target visible (or hidden), its text on the
/// page, its URL the page's.
async fn holds(session: &mut Session, o: &WaitOptions) -> Result<bool, StepError> {
    let t = Duration::from_secs(5);
    Ok(if let Some(sel) = &o.target {
        // Found and read in one page call (an element found by CSS or text).
        let visible = match resolve_now_one_reading(session, sel, Read::Visible).await? {
            Some(r) => is_visible(session, &r).await?,
            None => false,
        };
        match o.state.unwrap_or(VisibleState::Visible) {
            VisibleState::Visible => visible,
            VisibleState::Hidden => !visible,
        }
    } else if let Some(text) = &o.text {
        let js = call(PAGE_SHOWS_TEXT_JS, &[json!(text)]);
        session.eval(&js, t).await?.as_bool().unwrap_or(false)
    } else if let Some(u) = &o.url {
        session.url(t).await?.contains(u.as_str())
    } else {
        true
    })
}

/// The error of a `wait` whose condition did not hold by the step's timeout.
fn timed_out(o: &WaitOptions, poll: &mut Poll) -> StepError {
    let what = if let Some(sel) = &o.target {
        let state = match o.state.unwrap_or(VisibleState::Visible) {
            VisibleState::Visible => "visible",
            VisibleState::Hidden => "hidden",
        };
        format!(
            "{} to be {state}",
            alternatives(sel)
                .iter()
                .map(Alt::describe)
                .collect::<Vec<_>>()
                .join(" or ")
        )
    } else if let Some(t) = &o.text {
        format!("the page to show \"{t}\"")
    } else {
        format!(
            "the URL to contain \"{}\"",
            o.url.clone().unwrap_or_default()
        )
    };
    match poll.still_navigating() {
        Some(e) => StepError::new(
            ErrorKind::Timeout,
            format!(
                "timed out waiting for {what}; {}",
                e.message.trim_start_matches("timed out: ")
            ),
        ),
        None => StepError::new(ErrorKind::Timeout, format!("timed out waiting for {what}")),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use tokio::time::Instant;

    use super::*;
    use crate::browser::page::selector::resolve;
    use crate::config::model::Selector;

    /// A session on a fake daemon whose first `navigating` answers are Chromium's "the document
    /// was replaced while reading it"; then a page at `/done` with one `#ok` element.
    fn session_on_a_navigating_page(dir: &std::path::Path, navigating: usize) -> Session {
        crate::browser::driver::session::on_fake_daemon(dir, move |n, v| {
            if n < navigating {
                return Err(
                    "CDP error (Runtime.evaluate): Inspected target navigated or closed".into(),
                );
            }
            Ok(match v["action"].as_str().unwrap() {
                "url" => json!({"url":"http://site/done"}),
                // A selector's look-up script: one match, of a div.
                "evaluate" => json!({"result":{"count":1,"matches":["div#ok"],"id":"k1",
                    "kind":{"tag":"div","input_type":"","editable":false}}}),
                other => panic!("unexpected {other}"),
            })
        })
    }

    fn soon() -> Instant {
        Instant::now() + Duration::from_secs(3)
    }

    /// A check that meets a navigation committing (CI saw `wait: { url }` fail on it right after
    /// a form's submit) is checked again on the new document, by every re-checking step.
    #[tokio::test]
    async fn a_navigation_in_flight_is_checked_again_not_failed() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = session_on_a_navigating_page(dir.path(), 2);
        let w: WaitAction = serde_json::from_value(json!({"url":"done"})).unwrap();
        wait(&mut s, w, soon()).await.unwrap();

        let dir = tempfile::tempdir().unwrap();
        let mut s = session_on_a_navigating_page(dir.path(), 2);
        let e: crate::config::model::ExpectAction =
            serde_json::from_value(json!({"url":{"contains":"done"}})).unwrap();
        crate::browser::steps::expect::expect(&mut s, &e, soon())
            .await
            .unwrap();

        let dir = tempfile::tempdir().unwrap();
        let mut s = session_on_a_navigating_page(dir.path(), 2);
        let sel: Selector = serde_json::from_value(json!("#ok")).unwrap();
        let r = resolve(&mut s, &sel, soon()).await.unwrap();
        assert_eq!(r.count, 1);

        // A page that never stops navigating is a timeout that says so.
        let dir = tempfile::tempdir().unwrap();
        let mut s = session_on_a_navigating_page(dir.path(), usize::MAX);
        let w: WaitAction = serde_json::from_value(json!({"url":"done"})).unwrap();
        let deadline = Instant::now() + Duration::from_millis(400);
        let err = wait(&mut s, w, deadline).await.unwrap_err();
        assert_eq!(err.kind, ErrorKind::Timeout);
        assert!(err.message.contains("still navigating"), "{}", err.message);
    }

    /// Any other failure of a check is the step's, at once.
    #[tokio::test]
    async fn other_failures_of_a_check_are_not_retried() {
        assert!(
            !crate::browser::driver::adapter::Cause::of(
                "CDP error (Runtime.evaluate): Target crashed"
            )
            .navigated
        );
        assert!(
            crate::browser::driver::adapter::Cause::of(
                "Execution context was destroyed, most likely because of a navigation."
            )
            .navigated
        );
    }
}
