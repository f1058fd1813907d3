//! The checks of the page and the flow: `url` and `title`, the last `dialog`, the open `tabs`,
//! the `request`s the flow's pages made.

use std::time::Duration;

use serde_json::Value;
use tokio::time::Instant;

use super::outcome::{Outcome, int};
use crate::browser::driver::session::Session;
use crate::browser::driver::url_glob::UrlGlob;
use crate::browser::steps::matcher::{Match, matcher};
use crate::config::model::{DialogMatcher, ExpectAction, RequestMatcher, TabsMatcher};
use crate::step::{ErrorKind, StepError};

/// `url` and `title`: the page's.
pub(crate) async fn page_outcomes(
    session: &mut Session,
    e: &ExpectAction,
) -> Result<Vec<Outcome>, StepError> {
    let t = Duration::from_secs(5);
    let mut out = Vec::new();
    for (key, m) in [("url", &e.url), ("title", &e.title)] {
        let Some(m) = m else { continue };
        let got = if key == "url" {
            session.url(t).await?
        } else {
            session.title(t).await?
        };
        let m: Match = m.clone().into();
        out.push(Outcome::new(
            format!("{key} {}", m.describe()),
            matcher(&m, &got, key, &session.masker)?,
        ));
    }
    Ok(out)
}

/// `tabs`: how many tabs the flow's context has open.
pub(crate) async fn tabs_outcome(
    session: &mut Session,
    tm: &TabsMatcher,
    deadline: Instant,
) -> Result<Outcome, StepError> {
    let want = int(&tm.count)?;
    let what = format!("{want} tab(s) open");
    let failure = if session.tabs.is_none() {
        Some("`tabs` needs the flow's own browser context".to_string())
    } else {
        // (The tabs downloads emptied are closed first: they show nothing.)
        let list = session.tab_list(deadline).await?;
        let n = i64::try_from(list.len()).unwrap_or(i64::MAX);
        (n != want).then(|| {
            let urls: Vec<&str> = list.iter().map(|(_, u)| u.as_str()).collect();
            format!("expected {what}, got {n}: {}", urls.join(", "))
        })
    };
    Ok(Outcome::new(what, failure))
}

/// `the last dialog to be a confirm, with a message …, accepted`: what `expect: { dialog }` wants.
fn dialog_wanted(d: &DialogMatcher, message: Option<&Match>) -> String {
    let mut parts = Vec::new();
    if let Some(k) = d.kind {
        parts.push(format!("a {}", k.as_str()));
    }
    if let Some(m) = message {
        parts.push(format!("with a message {}", m.describe()));
    }
    if let Some(a) = d.accepted {
        parts.push(if a { "accepted" } else { "dismissed" }.to_string());
    }
    format!("the last dialog to be {}", parts.join(", "))
}

/// `dialog`: the dialog open now (answered first when the flow has a default answer, else read
/// as it is and left for a `dialog` step), else the last one the flow answered since the last
/// step that acts on the page began and not met by an earlier `expect: { dialog }` (one
/// answered before is an earlier step's: attack 26, C7).
pub(crate) async fn dialog_outcome(
    session: &mut Session,
    d: &DialogMatcher,
) -> Result<Outcome, StepError> {
    let message: Option<Match> = d.message.clone().map(Into::into);
    let what = dialog_wanted(d, message.as_ref());
    crate::browser::driver::dialog::take_watched(session).await?;
    // An answer a `dialog` step armed comes before the flow's default.
    let (open, armed) =
        match crate::browser::driver::dialog::open_unanswered(session, Duration::from_secs(5))
            .await?
        {
            Some((o, a)) => (Some(o), a),
            None => (None, None),
        };
    let text = armed.as_ref().and_then(|a| a.text.clone());
    let answer = armed.map(|a| a.accept).or(session.dialog_default);
    let (seen, still_open) = match (open, answer) {
        (Some(o), Some(accept)) => (
            Some(
                crate::browser::driver::dialog::answer(session, o, accept, text.as_deref()).await?,
            ),
            false,
        ),
        (Some(o), None) => (Some(o), true),
        (None, _) => (unspent(session), false),
    };
    let Some(seen) = seen else {
        let why = none_since(session);
        return Ok(Outcome::new(
            what.clone(),
            Some(format!("expected {what}, but {why}")),
        ));
    };
    let kind = seen["type"].as_str().unwrap_or_default();
    let text = seen["message"].as_str().unwrap_or_default();
    let mut failure = None;
    if let Some(k) = d.kind
        && k.as_str() != kind
    {
        failure = Some(format!("expected {what}, but it is a {kind} (\"{text}\")"));
    }
    if failure.is_none()
        && let Some(m) = &message
    {
        failure = matcher(
            m,
            text,
            &format!("the {kind} dialog's message"),
            &session.masker,
        )?;
    }
    if failure.is_none()
        && let Some(want) = d.accepted
    {
        if still_open {
            failure = Some(format!(
                "expected {what}, but the {kind} dialog (\"{text}\") is still open: answer it with a `dialog` step first"
            ));
        } else if seen["accepted"].as_bool() != Some(want) {
            failure = Some(format!(
                "expected {what}, but it was {}",
                if want { "dismissed" } else { "accepted" }
            ));
        }
    }
    // One dialog meets one check: the next `expect: { dialog }` needs a dialog of its own. Spent
    // once the whole step holds (`expect::failed`): a round whose other checks fail is tried
    // again, and the dialog must meet it then too.
    if failure.is_none() {
        session.dialogs_meeting = Some(session.dialogs.len());
    }
    Ok(Outcome::new(what, failure))
}

/// The last dialog answered that an `expect: { dialog }` may still meet (see
/// `Session::dialogs_spent`).
fn unspent(session: &Session) -> Option<serde_json::Value> {
    let from = session.dialogs_spent.min(session.dialogs.len());
    session.dialogs[from..].last().cloned()
}

/// Why no dialog meets an `expect: { dialog }`.
fn none_since(session: &Session) -> String {
    match session.dialogs.last() {
        None => "no dialog has opened".to_string(),
        Some(old) => format!(
            "no dialog opened since the step before it (the last step that acts on the page) began, nor since the last `expect: {{ dialog }}`; the last one, a {} (\"{}\"), was answered before that",
            old["type"].as_str().unwrap_or_default(),
            old["message"].as_str().unwrap_or_default()
        ),
    }
}

/// `request`: the requests the flow's pages made (runner's own record of them since the flow's
/// context opened, see `driver::request_log`) whose URL matches, and method when given: exactly
/// `count`, else at least one.
pub(crate) async fn request_outcome(
    session: &mut Session,
    rm: &RequestMatcher,
) -> Result<Outcome, StepError> {
    let bad = |e: String| StepError::new(ErrorKind::Assertion, e);
    let matches: Box<dyn Fn(&str) -> bool + Send + Sync> = if rm.url.contains('*') {
        let glob =
            UrlGlob::new(&rm.url).map_err(|e| bad(format!("`request.url` `{}`: {e}", rm.url)))?;
        Box::new(move |u: &str| glob.is_match(u))
    } else {
        let part = rm.url.clone();
        Box::new(move |u: &str| u.contains(&part))
    };
    let since = session.since_ms;
    let log = session.requests_since(since).await?;
    let seen = log
        .iter()
        .filter(|r| {
            rm.method.as_deref().is_none_or(|m| {
                r.get("method")
                    .and_then(Value::as_str)
                    .is_some_and(|got| got.eq_ignore_ascii_case(m))
            })
        })
        .filter_map(|r| r.get("url").and_then(Value::as_str))
        .filter(|u| matches(u))
        .count();
    let n = i64::try_from(seen).unwrap_or(i64::MAX);
    let method = rm
        .method
        .as_deref()
        .map(|m| format!("{m} "))
        .unwrap_or_default();
    let want = rm.count.as_ref().map(int).transpose()?;
    let (what, ok) = match want {
        Some(want) => (
            format!("{want} {method}request(s) to `{}`", rm.url),
            n == want,
        ),
        None => (format!("a {method}request to `{}`", rm.url), n > 0),
    };
    // Requests runner's record lacks could only add to the count: past the count it is wrong
    // whatever they were, and one is enough for `at least one`; else runner cannot tell.
    let sure = want.map_or(ok, |want| n > want);
    if !sure && let Some(worker) = session.unheld_worker() {
        let failure = format!(
            "cannot tell: a worker ran before runner held it ({worker}), so requests it made as it started may be missing from runner's record (expected {what}, got {n} recorded)"
        );
        return Ok(Outcome::new(what, Some(failure)));
    }
    let failure = (!ok).then(|| format!("expected {what}, got {n}"));
    Ok(Outcome::new(what, failure))
}
