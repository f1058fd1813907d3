//! Browser assertions (`expect`): web-first, re-checked until they hold or the step times out;
//! a failure says what was expected and what the page had.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;

use super::matcher::{Match, matcher, target_matcher};
use crate::browser::driver::command::Command;
use crate::browser::driver::script::bind;
use crate::browser::driver::session::Session;
use crate::browser::page::scripts;
use crate::browser::page::selector::{
    Alt, Poll, Read, Resolved, alternatives, element_eval, is_visible, normalize, read_now,
    resolve_now_one, resolve_now_one_reading,
};
use crate::config::model::{CountMatcher, ExpectAction, IntOrTemplate, Selector};
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
        match poll.settle(failed(session, e).await)? {
            Some(f) if f.is_empty() => return Ok(json!({})),
            Some(f) => failures = f,
            None => {}
        }
        if !poll.wait(deadline).await {
            return Err(match poll.still_navigating() {
                Some(e) if failures.is_empty() => e,
                // Located at the first failing check's own line.
                _ => {
                    let messages: Vec<&str> = failures.iter().map(|(_, m)| m.as_str()).collect();
                    let error = StepError::new(ErrorKind::Assertion, messages.join("; "));
                    match failures.first().and_then(|(k, _)| k.clone()) {
                        Some(part) => error.in_part(part),
                        None => error,
                    }
                }
            });
        }
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

/// What one check found: what it asserts, and why it does not hold (`None`: it holds).
struct Outcome {
    what: String,
    failure: Option<String>,
    /// Why the check cannot be asked of its element at all (it is not on the page; it is not a
    /// checkbox): the check fails, and so does its `not` (`not: { enabled: X }` does not pass
    /// for an X that is missing; `not: { visible: X }` does, as absent is one way of not being
    /// visible).
    unfit: Option<String>,
}

impl Outcome {
    fn new(what: impl Into<String>, failure: Option<String>) -> Outcome {
        Outcome {
            what: what.into(),
            failure,
            unfit: None,
        }
    }

    /// The check of an element (`target`, described) that is not on the page.
    fn missing(what: String, target: String) -> Outcome {
        Outcome::unfit(what, format!("{target} is not on the page"))
    }

    /// A check its element cannot answer, and `why`.
    fn unfit(what: String, why: String) -> Outcome {
        Outcome {
            failure: Some(format!("expected {what}, but {why}")),
            unfit: Some(why),
            what,
        }
    }
}

/// The failures of one round of checks: the checks that do not hold, and the `not` checks
/// that do; each with the pointer to its check below `expect` (`text`, `not/visible`) when known.
async fn failed(
    session: &mut Session,
    e: &ExpectAction,
) -> Result<Vec<(Option<String>, String)>, StepError> {
    let mut out: Vec<(Option<String>, String)> = keyed(e, check_all(session, e).await?)
        .into_iter()
        .filter_map(|(k, o)| Some((k.map(str::to_string), o.failure?)))
        .collect();
    if let Some(n) = &e.not {
        for (k, o) in keyed(n, check_all(session, n).await?) {
            let k = k.map(|k| format!("not/{k}"));
            if let Some(why) = o.unfit {
                out.push((k, format!("expected not: {}, but {why}", o.what)));
            } else if o.failure.is_none() {
                out.push((k, format!("expected not: {}, but it is so", o.what)));
            }
        }
    }
    Ok(out)
}

/// Every check of `e`, in the order the schema lists them.
async fn check_all(session: &mut Session, e: &ExpectAction) -> Result<Vec<Outcome>, StepError> {
    let mut out = page_outcomes(session, e).await?;
    out.extend(visibility_outcomes(session, e).await?);
    out.extend(state_outcomes(session, e).await?);
    out.extend(script_outcomes(session, e).await?);
    out.extend(read_outcomes(session, e).await?);
    if let Some(a) = &e.attribute {
        out.push(attribute_outcome(session, a).await?);
    }
    if let Some(d) = &e.dialog {
        out.push(dialog_outcome(session, d).await?);
    }
    if let Some(rm) = &e.request {
        out.push(request_outcome(session, rm).await?);
    }
    if let Some(tm) = &e.tabs {
        out.push(tabs_outcome(session, tm).await?);
    }
    if let Some(c) = &e.count {
        let n = count(session, &c.target).await?;
        out.push(Outcome::new(
            format!("the count of {}", describe(&c.target)),
            count_failure(c, n)?,
        ));
    }
    Ok(out)
}

/// `url` and `title`: the page's.
async fn page_outcomes(session: &mut Session, e: &ExpectAction) -> Result<Vec<Outcome>, StepError> {
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
            matcher(&m, &got, key)?,
        ));
    }
    Ok(out)
}

/// `visible` and `hidden` (absent counts as hidden).
async fn visibility_outcomes(
    session: &mut Session,
    e: &ExpectAction,
) -> Result<Vec<Outcome>, StepError> {
    let mut out = Vec::new();
    if let Some(sel) = &e.visible {
        let what = format!("{} to be visible", describe(sel));
        let failure = match resolve_now_one_reading(session, sel, Read::Visible).await? {
            None => Some(format!("expected {what}, but it is not on the page")),
            Some(r) if !is_visible(session, &r).await? => {
                Some(format!("expected {what}, but it is hidden"))
            }
            Some(_) => None,
        };
        out.push(Outcome::new(what, failure));
    }
    if let Some(sel) = &e.hidden {
        let what = format!("{} to be hidden", describe(sel));
        let failure = match resolve_now_one_reading(session, sel, Read::Visible).await? {
            Some(r) if is_visible(session, &r).await? => {
                Some(format!("expected {what}, but it is visible"))
            }
            _ => None,
        };
        out.push(Outcome::new(what, failure));
    }
    Ok(out)
}

/// `checked`, `unchecked`, `enabled` and `disabled`: what agent-browser's `is` says.
async fn state_outcomes(
    session: &mut Session,
    e: &ExpectAction,
) -> Result<Vec<Outcome>, StepError> {
    let mut out = Vec::new();
    for (state, sel, query, want) in [
        ("checked", &e.checked, "checked", true),
        ("unchecked", &e.unchecked, "checked", false),
        ("enabled", &e.enabled, "enabled", true),
        ("disabled", &e.disabled, "enabled", false),
    ] {
        let Some(sel) = sel else { continue };
        let what = format!("{} to be {state}", describe(sel));
        out.push(match resolve_now_one(session, sel).await? {
            None => Outcome::missing(what, describe(sel)),
            // As Playwright's toBeChecked: a <div> is neither checked nor unchecked.
            Some(r) if query == "checked" && !(r.kind.is_checkbox() || r.kind.is_radio()) => {
                Outcome::unfit(
                    what,
                    format!(
                        "it is {}, not a checkbox or radio button",
                        r.kind.describe()
                    ),
                )
            }
            Some(r) => {
                let failure = (session.is(query, &r.target).await? != want)
                    .then(|| format!("expected {what}, but it is not"));
                Outcome::new(what, failure)
            }
        });
    }
    Ok(out)
}

/// `editable` and `focused`: page scripts on the element, `true` or why not.
async fn script_outcomes(
    session: &mut Session,
    e: &ExpectAction,
) -> Result<Vec<Outcome>, StepError> {
    let editable = bind(EDITABLE_JS, &[scripts::DISABLED, scripts::READ_ONLY]);
    let mut out = Vec::new();
    for (state, sel, js) in [
        ("editable", &e.editable, editable.as_str()),
        ("focused", &e.focused, FOCUSED_JS),
    ] {
        let Some(sel) = sel else { continue };
        let what = format!("{} to be {state}", describe(sel));
        out.push(match resolve_now_one(session, sel).await? {
            None => Outcome::missing(what, describe(sel)),
            Some(r) => {
                let failure = match element_eval(session, &r, js, &[]).await? {
                    Some(Value::Bool(true)) => None,
                    Some(Value::String(why)) => Some(format!("expected {what}, but {why}")),
                    _ => Some(format!("expected {what}, but it is gone from the page")),
                };
                Outcome::new(what, failure)
            }
        });
    }
    Ok(out)
}

/// `text` and `value` of an element, matched.
async fn read_outcomes(session: &mut Session, e: &ExpectAction) -> Result<Vec<Outcome>, StepError> {
    let t = Duration::from_secs(5);
    let mut out = Vec::new();
    for (key, tm) in [("text", &e.text), ("value", &e.value)] {
        let Some(tm) = tm else { continue };
        let m = if key == "text" {
            target_matcher(tm).of_text()
        } else {
            target_matcher(tm)
        };
        let of = format!("{key} of {}", describe(&tm.target));
        let what = format!("{of} {}", m.describe());
        let read = if key == "text" {
            Read::Text
        } else {
            Read::Value
        };
        // Found and read in one page call where it can (not a ref: read on its own below).
        out.push(
            match resolve_now_one_reading(session, &tm.target, read.clone()).await? {
                None => Outcome::missing(what, describe(&tm.target)),
                // As Playwright's toHaveValue: only a field has a value to compare.
                Some(r) if key == "value" && !r.kind.has_value() => Outcome::unfit(
                    what,
                    format!(
                        "it is {}, which has no value (an input, a textarea or a select has one)",
                        r.kind.describe()
                    ),
                ),
                Some(r) => {
                    let got = read_now(session, r, read, t).await?;
                    let got = got.as_str();
                    let got = if key == "text" {
                        normalize(got)
                    } else {
                        got.trim().to_string()
                    };
                    Outcome::new(what, matcher(&m, &got, &of)?)
                }
            },
        );
    }
    Ok(out)
}

/// `attribute`: present, or matched.
async fn attribute_outcome(
    session: &mut Session,
    a: &crate::config::model::AttributeMatcher,
) -> Result<Outcome, StepError> {
    let t = Duration::from_secs(5);
    let m = Match::of(a.equals.as_ref(), a.contains.as_ref(), a.matches.as_ref());
    let of = format!("attribute `{}` of {}", a.name, describe(&a.target));
    let what = if m.is_empty() {
        format!("{of} to be present")
    } else {
        format!("{of} {}", m.describe())
    };
    let read = Read::Attribute(a.name.clone());
    Ok(
        match resolve_now_one_reading(session, &a.target, read).await? {
            None => Outcome::missing(what, describe(&a.target)),
            // Read in the look-up's own page call (an element found by CSS or text).
            Some(Resolved {
                read: Some(got), ..
            }) => {
                let failure = match got.as_str() {
                    None => Some(format!("expected {what}, but it has no `{}`", a.name)),
                    Some(got) => matcher(&m, got, &of)?,
                };
                Outcome::new(what, failure)
            }
            Some(r) => {
                let data = session
                    .send(
                        Command::GetAttribute {
                            selector: r.target,
                            attribute: a.name.clone(),
                        },
                        t,
                    )
                    .await?;
                let failure = match data.get("value").and_then(Value::as_str) {
                    None => Some(format!("expected {what}, but it has no `{}`", a.name)),
                    Some(got) => matcher(&m, got, &of)?,
                };
                Outcome::new(what, failure)
            }
        },
    )
}

/// `tabs`: how many tabs the flow's context has open.
async fn tabs_outcome(
    session: &mut Session,
    tm: &crate::config::model::TabsMatcher,
) -> Result<Outcome, StepError> {
    let want = int(&tm.count)?;
    let what = format!("{want} tab(s) open");
    let failure = match session.tabs.as_mut() {
        None => Some("`tabs` needs the flow's own browser context".to_string()),
        Some(tabs) => {
            let list = tabs.list().await?;
            let n = i64::try_from(list.len()).unwrap_or(i64::MAX);
            (n != want).then(|| {
                let urls: Vec<&str> = list.iter().map(|(_, u)| u.as_str()).collect();
                format!("expected {what}, got {n}: {}", urls.join(", "))
            })
        }
    };
    Ok(Outcome::new(what, failure))
}

/// `dialog`: the dialog open now (answered first when the flow has a default answer, else read
/// as it is and left for a `dialog` step), else the last one the flow answered.
async fn dialog_outcome(
    session: &mut Session,
    d: &crate::config::model::DialogMatcher,
) -> Result<Outcome, StepError> {
    let mut parts = Vec::new();
    if let Some(k) = d.kind {
        parts.push(format!("a {}", k.as_str()));
    }
    let message: Option<Match> = d.message.clone().map(Into::into);
    if let Some(m) = &message {
        parts.push(format!("with a message {}", m.describe()));
    }
    if let Some(a) = d.accepted {
        parts.push(if a { "accepted" } else { "dismissed" }.to_string());
    }
    let what = format!("the last dialog to be {}", parts.join(", "));
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
        (None, _) => (session.dialogs.last().cloned(), false),
    };
    let Some(seen) = seen else {
        return Ok(Outcome::new(
            what.clone(),
            Some(format!("expected {what}, but no dialog has opened")),
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
        failure = matcher(m, text, &format!("the {kind} dialog's message"))?;
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
    Ok(Outcome::new(what, failure))
}

/// `request`: the requests the flow's pages made (agent-browser's request log since the flow's
/// context opened) whose URL matches, and method when given: exactly `count`, else at least one.
async fn request_outcome(
    session: &mut Session,
    rm: &crate::config::model::RequestMatcher,
) -> Result<Outcome, StepError> {
    let bad = |e: String| StepError::new(ErrorKind::Assertion, e);
    let matches: Box<dyn Fn(&str) -> bool + Send + Sync> = if rm.url.contains('*') {
        let glob = globset::GlobBuilder::new(&rm.url)
            .literal_separator(true)
            .build()
            .map_err(|e| bad(format!("`request.url` `{}`: {e}", rm.url)))?
            .compile_matcher();
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
    let (what, ok) = match &rm.count {
        Some(c) => {
            let want = int(c)?;
            (
                format!("{want} {method}request(s) to `{}`", rm.url),
                n == want,
            )
        }
        None => (format!("a {method}request to `{}`", rm.url), n > 0),
    };
    let failure = (!ok).then(|| format!("expected {what}, got {n}"));
    Ok(Outcome::new(what, failure))
}

/// `(isDisabled, isReadOnly) => (el) => true | why not`: whether an element can be typed into.
const EDITABLE_JS: &str = include_str!("scripts/editable.js");

/// `(el) => true | what has the focus`: whether the element has the focus.
const FOCUSED_JS: &str = include_str!("scripts/focused.js");

fn describe(sel: &Selector) -> String {
    alternatives(sel)
        .iter()
        .map(Alt::describe)
        .collect::<Vec<_>>()
        .join(" or ")
}

/// How many elements match the first alternative of a selector (one or none with `nth`).
pub(crate) async fn count(session: &mut Session, sel: &Selector) -> Result<i64, StepError> {
    let n = crate::browser::page::selector::count(session, sel).await?;
    Ok(i64::try_from(n).unwrap_or(i64::MAX))
}

fn int(v: &IntOrTemplate) -> Result<i64, StepError> {
    match v {
        IntOrTemplate::Int(n) => Ok(*n),
        IntOrTemplate::Template(s) => s.trim().parse().map_err(|_| {
            StepError::new(
                ErrorKind::Assertion,
                format!("count bound `{s}` is not a number"),
            )
        }),
    }
}

fn count_failure(c: &CountMatcher, n: i64) -> Result<Option<String>, StepError> {
    let what = describe(&c.target);
    if let Some(eq) = &c.equals {
        let want = int(eq)?;
        if n != want {
            return Ok(Some(format!(
                "expected {want} elements matching {what}, got {n}"
            )));
        }
    }
    if let Some(min) = &c.min {
        let want = int(min)?;
        if n < want {
            return Ok(Some(format!(
                "expected at least {want} elements matching {what}, got {n}"
            )));
        }
    }
    if let Some(max) = &c.max {
        let want = int(max)?;
        if n > want {
            return Ok(Some(format!(
                "expected at most {want} elements matching {what}, got {n}"
            )));
        }
    }
    Ok(None)
}
