//! Browser assertions (`expect`): web-first, re-checked until they hold or the step times out;
//! a failure says what was expected and what the page had.

use serde_json::{Value, json};
use tokio::time::Instant;

use super::checks::element::{
    attribute_outcome, count_outcome, read_outcomes, script_outcomes, state_outcomes,
    visibility_outcomes,
};
use super::checks::outcome::Outcome;
use super::checks::page::{dialog_outcome, page_outcomes, request_outcome, tabs_outcome};
use super::checks::{class, js, lists};
use crate::browser::driver::session::Session;
use crate::browser::page::selector::Poll;
use crate::config::model::ExpectAction;
use crate::step::{ErrorKind, StepError};

/// Checks every browser assertion of `e` until all hold or `deadline` passes.
pub(crate) async fn expect(
    session: &mut Session,
    e: &ExpectAction,
    deadline: Instant,
) -> Result<Value, StepError> {
    let mut poll = Poll::new();
    let mut failures = Vec::new();
    loop {
        let round = failed(session, e, deadline).await;
        // A round the step's end cut short (a read still under way when its time ran out, on a
        // busy machine): the step's verdict is what the last whole round found, as Playwright
        // reports what it last saw, not the cut read's timeout.
        if let Err(err) = &round
            && err.kind == ErrorKind::Timeout
            && !failures.is_empty()
            && Instant::now() >= deadline
        {
            return Err(assertion(&failures));
        }
        match poll.settle(round)? {
            Some(f) if f.is_empty() => return Ok(json!({})),
            Some(f) => failures = f,
            None => {}
        }
        if !poll.wait(deadline).await {
            return Err(match poll.still_navigating() {
                Some(e) if failures.is_empty() => e,
                _ => assertion(&failures),
            });
        }
    }
}

/// The assertion error of a round's `failures`, located at the first failing check's own line.
fn assertion(failures: &[(Option<String>, String)]) -> StepError {
    let messages: Vec<&str> = failures.iter().map(|(_, m)| m.as_str()).collect();
    let error = StepError::new(ErrorKind::Assertion, messages.join("; "));
    match failures.first().and_then(|(k, _)| k.clone()) {
        Some(part) => error.in_part(part),
        None => error,
    }
}

/// The keys of `e`'s checks, in the order `check_all` checks them (one outcome each).
fn check_keys(e: &ExpectAction) -> Vec<&'static str> {
    let present = [
        ("url", e.url.is_some()),
        ("title", e.title.is_some()),
        ("visible", e.visible.is_some()),
        ("hidden", e.hidden.is_some()),
        ("checked", e.checked.is_some()),
        ("unchecked", e.unchecked.is_some()),
        ("enabled", e.enabled.is_some()),
        ("disabled", e.disabled.is_some()),
        ("editable", e.editable.is_some()),
        ("focused", e.focused.is_some()),
        ("text", e.text.is_some()),
        ("value", e.value.is_some()),
        ("attribute", e.attribute.is_some()),
        ("texts", e.texts.is_some()),
        ("class", e.class.is_some()),
        ("classes", e.classes.is_some()),
        ("js", e.js.is_some()),
        ("dialog", e.dialog.is_some()),
        ("request", e.request.is_some()),
        ("tabs", e.tabs.is_some()),
        ("count", e.count.is_some()),
    ];
    present
        .into_iter()
        .filter(|(_, p)| *p)
        .map(|(k, _)| k)
        .collect()
}

/// Each outcome of `check_all(e)` with its check's key (none when the counts disagree: the
/// step's own line is then shown).
fn keyed(e: &ExpectAction, outcomes: Vec<Outcome>) -> Vec<(Option<&'static str>, Outcome)> {
    let keys = check_keys(e);
    if keys.len() == outcomes.len() {
        keys.into_iter().map(Some).zip(outcomes).collect()
    } else {
        outcomes.into_iter().map(|o| (None, o)).collect()
    }
}

/// The failures of one round of checks: the checks that do not hold, and the `not` checks
/// that do; each with the pointer to its check below `expect` (`text`, `not/visible`) when known.
async fn failed(
    session: &mut Session,
    e: &ExpectAction,
    deadline: Instant,
) -> Result<Vec<(Option<String>, String)>, StepError> {
    let mut out: Vec<(Option<String>, String)> = keyed(e, check_all(session, e, deadline).await?)
        .into_iter()
        .filter_map(|(k, o)| Some((k.map(str::to_string), o.failure?)))
        .collect();
    // (A dialog the round's check met is spent once every check holds: see `dialog_outcome`.)
    let meeting = session.dialogs_meeting.take();
    if let Some(n) = &e.not {
        for (k, o) in keyed(n, check_all(session, n, deadline).await?) {
            let k = k.map(|k| format!("not/{k}"));
            if let Some(why) = o.unfit {
                out.push((k, format!("expected not: {}, but {why}", o.what)));
            } else if o.failure.is_none() {
                out.push((k, format!("expected not: {}, but it is so", o.what)));
            }
        }
    }
    session.dialogs_meeting = None;
    if out.is_empty()
        && let Some(n) = meeting
    {
        session.dialogs_spent = n;
    }
    Ok(out)
}

/// Every check of `e`, in the order the schema lists them.
async fn check_all(
    session: &mut Session,
    e: &ExpectAction,
    deadline: Instant,
) -> Result<Vec<Outcome>, StepError> {
    let mut out = page_outcomes(session, e).await?;
    out.extend(visibility_outcomes(session, e).await?);
    out.extend(state_outcomes(session, e).await?);
    out.extend(script_outcomes(session, e).await?);
    out.extend(read_outcomes(session, e).await?);
    if let Some(a) = &e.attribute {
        out.push(attribute_outcome(session, a).await?);
    }
    if let Some(t) = &e.texts {
        out.push(lists::texts_outcome(session, t).await?);
    }
    if let Some(c) = &e.class {
        out.push(class::class_outcome(session, c).await?);
    }
    if let Some(c) = &e.classes {
        out.push(lists::classes_outcome(session, c).await?);
    }
    if let Some(j) = &e.js {
        out.push(js::js_outcome(session, j, deadline).await?);
    }
    if let Some(d) = &e.dialog {
        out.push(dialog_outcome(session, d).await?);
    }
    if let Some(rm) = &e.request {
        out.push(request_outcome(session, rm).await?);
    }
    if let Some(tm) = &e.tabs {
        out.push(tabs_outcome(session, tm, deadline).await?);
    }
    if let Some(c) = &e.count {
        out.push(count_outcome(session, c).await?);
    }
    Ok(out)
}
