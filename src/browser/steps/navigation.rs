//! Navigation and waiting: `open` (with the page's HTTP status) and `wait` (a duration, or an
//! element's state, a text the page shows visibly, a URL, a page predicate `js`: re-checked
//! until all it names hold or the step times out).

use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;

use super::checks::js;
use crate::browser::driver::command::Command;
use crate::browser::driver::script::{bind, call};
use crate::browser::driver::session::Session;
use crate::browser::page::scripts;
use crate::browser::page::selector::{
    Alt, Poll, Read, alternatives, is_visible, resolve_now_one_reading,
};
use crate::config::duration::parse_duration;
use crate::config::model::{OpenAction, VisibleState, WaitAction, WaitOptions};
use crate::step::{ErrorKind, StepError};

mod status;
pub(crate) use status::moved_status;

/// `() => status`: the HTTP status of the page's document.
pub(crate) const HTTP_STATUS_JS: &str = include_str!("scripts/http_status.js");

/// `(text) => 'shown' | 'hidden' | 'absent'`: whether a visible element of the page shows
/// `text`, else whether an invisible one has it.
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
    let since = crate::browser::driver::request_log::now_ms();
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
    // agent-browser reports success for a 404 page: the status is the answer to this
    // navigation, as runner heard it (see `status`).
    let status = status::navigation_status(session, url, since, timeout).await;
    let final_url = data
        .get("url")
        .cloned()
        .unwrap_or(Value::String(url.to_string()));
    // The URL opened; and where the tab is now, when the page went on from it.
    let shown_url = match final_url.as_str() {
        Some(now) if now != url => format!("{url} (the tab is now at {now})"),
        _ => url.to_string(),
    };
    let mut outputs = json!({
        "url": final_url,
        "title": data.get("title").cloned().unwrap_or(Value::String(String::new())),
        "status": null,
    });
    let status = match status {
        Ok(Some(s)) => s,
        // No HTTP answer (`about:blank`): nothing to fail on, nothing to confirm.
        Ok(None) => {
            return match o.status() {
                Some(want) => Err(StepError::new(
                    ErrorKind::Assertion,
                    format!("expected HTTP status {want} for {shown_url}, but it is no HTTP page"),
                )
                .in_part("status")
                .with_outputs(outputs)),
                None => Ok(outputs),
            };
        }
        Err(why) => {
            return Err(StepError::new(
                ErrorKind::CommandFailed,
                format!("cannot tell the HTTP status of {shown_url}: {why}"),
            )
            .with_outputs(outputs));
        }
    };
    outputs["status"] = json!(status);
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

/// `wait`: a duration, or conditions re-checked until all hold or the step times out.
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
            let mut last = None;
            loop {
                match poll.settle(unmet(session, &o, deadline).await)? {
                    Some(None) => return Ok(json!({})),
                    Some(Some(why)) => last = Some(why),
                    None => {}
                }
                if !poll.wait(deadline).await {
                    return Err(timed_out(&o, last, &mut poll, &session.masker));
                }
            }
        }
    }
}

/// The first condition of a `wait` that does not hold now (its target visible or hidden, its
/// text visible on the page, its URL the page's, its `js` truthy), described; `None` when all
/// hold.
async fn unmet(
    session: &mut Session,
    o: &WaitOptions,
    deadline: Instant,
) -> Result<Option<String>, StepError> {
    let t = Duration::from_secs(5);
    if let Some(sel) = &o.target {
        // Found and read in one page call (an element found by CSS or text).
        let visible = match resolve_now_one_reading(session, sel, Read::Visible).await? {
            Some(r) => is_visible(session, &r).await?,
            None => false,
        };
        let want = matches!(
            o.state.unwrap_or(VisibleState::Visible),
            VisibleState::Visible
        );
        if visible != want {
            return Ok(Some(target_wanted(o)));
        }
    }
    if let Some(text) = &o.text {
        // Seen, as `expect: { visible }` reads it: text in a 0x0 box is in the page's
        // `innerText` but shows nothing.
        let shows = bind(
            PAGE_SHOWS_TEXT_JS,
            &[&scripts::element_text(), scripts::IS_VISIBLE],
        );
        let js = call(&shows, &[json!(text)]);
        match session.eval(&js, t).await?.as_str() {
            Some("shown") => {}
            Some("hidden") => {
                return Ok(Some(format!(
                    "the page to show \"{text}\" (the page has it, but not visible)"
                )));
            }
            _ => return Ok(Some(format!("the page to show \"{text}\""))),
        }
    }
    if let Some(u) = &o.url
        && !url_has(&session.url(t).await?, u)
    {
        return Ok(Some(format!("the URL to contain \"{u}\"")));
    }
    if let Some(j) = &o.js {
        let v = js::evaluate(session, j, deadline).await?;
        if !v.truthy {
            let expr = js::short(&session.masker, j.expr());
            return Ok(Some(format!(
                "js `{expr}` to be truthy (it gave {})",
                v.value
            )));
        }
    }
    Ok(None)
}

/// Whether `url` holds `part` (`wait: { url }`, `tab: { switch: { url } }`): in the URL before
/// its query and fragment, unless `part` is written for them (holds a `?`, `#`, `=` or `&`). A
/// sign-in page that carries where it goes back to (`/login?next=/dashboard`) is not
/// `/dashboard`.
pub(crate) fn url_has(url: &str, part: &str) -> bool {
    if part.contains(['?', '#', '=', '&']) {
        return url.contains(part);
    }
    let end = url.find(['?', '#']).unwrap_or(url.len());
    url[..end].contains(part)
}

/// `css \`#x\` to be visible`: what a `wait: { for }` waits for.
fn target_wanted(o: &WaitOptions) -> String {
    let state = match o.state.unwrap_or(VisibleState::Visible) {
        VisibleState::Visible => "visible",
        VisibleState::Hidden => "hidden",
    };
    let sel = o.target.as_ref().map(|sel| {
        alternatives(sel)
            .iter()
            .map(Alt::describe)
            .collect::<Vec<_>>()
            .join(" or ")
    });
    format!("{} to be {state}", sel.unwrap_or_default())
}

/// The error of a `wait` whose conditions did not all hold by the step's timeout: the one that
/// did not at the last check (`last`).
fn timed_out(
    o: &WaitOptions,
    last: Option<String>,
    poll: &mut Poll,
    masker: &crate::step::Masker,
) -> StepError {
    let what = last.unwrap_or_else(|| {
        let mut all = Vec::new();
        if o.target.is_some() {
            all.push(target_wanted(o));
        }
        if let Some(t) = &o.text {
            all.push(format!("the page to show \"{t}\""));
        }
        if let Some(u) = &o.url {
            all.push(format!("the URL to contain \"{u}\""));
        }
        if let Some(j) = &o.js {
            all.push(format!("js `{}` to be truthy", js::short(masker, j.expr())));
        }
        all.join(" and ")
    });
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
    /// A part of a URL is looked for before its query and fragment, unless it names one.
    #[test]
    fn a_url_part_is_not_found_in_the_query_unless_it_names_one() {
        let login = "http://127.0.0.1:8000/login.html?next=/dashboard";
        assert!(!super::url_has(login, "/dashboard"));
        assert!(super::url_has(login, "/login"));
        assert!(super::url_has(login, "next=/dashboard"));
        assert!(super::url_has(login, "?next="));
        assert!(super::url_has("http://h/dashboard#top", "/dashboard"));
        assert!(!super::url_has("http://h/a#/dashboard", "/dashboard"));
        assert!(super::url_has("http://h/a#/dashboard", "#/dashboard"));
    }

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
