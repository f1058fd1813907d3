//! Browser assertions (`expect`): web-first, re-checked until they hold or the step times out;
//! a failure says what was expected and what the page had.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;

use super::selector::{Alt, Poll, alternatives, resolve_now};
use super::session::Session;
use crate::config::model::{
    CountMatcher, ExpectAction, IntOrTemplate, Matcher, Selector, TargetMatcher,
};
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
        match poll.settle(check_all(session, e).await)? {
            Some(f) if f.is_empty() => return Ok(json!({})),
            Some(f) => failures = f,
            None => {}
        }
        if !poll.wait(deadline).await {
            return Err(match poll.still_navigating() {
                Some(e) if failures.is_empty() => e,
                _ => StepError::new(ErrorKind::Assertion, failures.join("; ")),
            });
        }
    }
}

async fn check_all(session: &mut Session, e: &ExpectAction) -> Result<Vec<String>, StepError> {
    let t = Duration::from_secs(5);
    let mut out = Vec::new();
    if let Some(m) = &e.url {
        let data = session.cmd("get", &["url".into()], t).await?;
        let got = data
            .get("url")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        if let Some(f) = matcher(&m.clone().into(), &got, "url")? {
            out.push(f);
        }
    }
    if let Some(m) = &e.title {
        let data = session.cmd("get", &["title".into()], t).await?;
        let got = data
            .get("title")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        if let Some(f) = matcher(&m.clone().into(), &got, "title")? {
            out.push(f);
        }
    }
    if let Some(sel) = &e.visible {
        match resolve_now(session, sel).await? {
            None => out.push(format!(
                "expected {} to be visible, but it is not on the page",
                describe(sel)
            )),
            Some(r) if !session.is("visible", &r.target).await? => out.push(format!(
                "expected {} to be visible, but it is hidden",
                describe(sel)
            )),
            Some(_) => {}
        }
    }
    if let Some(sel) = &e.hidden
        && let Some(r) = resolve_now(session, sel).await?
        && session.is("visible", &r.target).await?
    {
        out.push(format!(
            "expected {} to be hidden, but it is visible",
            describe(sel)
        ));
    }
    if let Some(sel) = &e.checked {
        match resolve_now(session, sel).await? {
            None => out.push(format!(
                "expected {} to be checked, but it is not on the page",
                describe(sel)
            )),
            Some(r) if !session.is("checked", &r.target).await? => out.push(format!(
                "expected {} to be checked, but it is not checked",
                describe(sel)
            )),
            Some(_) => {}
        }
    }
    for (key, tm) in [("text", &e.text), ("value", &e.value)] {
        let Some(tm) = tm else { continue };
        match resolve_now(session, &tm.target).await? {
            None => out.push(format!(
                "expected {} to have a {key}, but it is not on the page",
                describe(&tm.target)
            )),
            Some(r) => {
                let data = session.cmd("get", &[key.to_string(), r.target], t).await?;
                let got = data
                    .get(key)
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .trim()
                    .to_string();
                let what = format!("{key} of {}", describe(&tm.target));
                if let Some(f) = matcher(&target_matcher(tm), &got, &what)? {
                    out.push(f);
                }
            }
        }
    }
    if let Some(c) = &e.count {
        let n = count(session, &c.target).await?;
        if let Some(f) = count_failure(c, n)? {
            out.push(f);
        }
    }
    Ok(out)
}

/// A matcher in one shape.
pub(crate) struct Match {
    equals: Option<String>,
    contains: Option<String>,
    matches: Option<String>,
}

impl From<Matcher> for Match {
    fn from(m: Matcher) -> Match {
        match m {
            Matcher::Equals(s) => Match {
                equals: Some(s),
                contains: None,
                matches: None,
            },
            Matcher::Full(o) => Match {
                equals: o.equals,
                contains: o.contains,
                matches: o.matches,
            },
        }
    }
}

fn target_matcher(t: &TargetMatcher) -> Match {
    Match {
        equals: t.equals.clone(),
        contains: t.contains.clone(),
        matches: t.matches.clone(),
    }
}

/// `None` when `got` satisfies `m`, else the "expected X, got Y" message.
fn matcher(m: &Match, got: &str, what: &str) -> Result<Option<String>, StepError> {
    if let Some(want) = &m.equals
        && got != want
    {
        return Ok(Some(format!(
            "expected {what} to equal \"{want}\", got \"{got}\""
        )));
    }
    if let Some(want) = &m.contains
        && !got.contains(want.as_str())
    {
        return Ok(Some(format!(
            "expected {what} to contain \"{want}\", got \"{got}\""
        )));
    }
    if let Some(re) = &m.matches {
        let r = regex::Regex::new(re).map_err(|e| {
            StepError::new(
                ErrorKind::Assertion,
                format!("invalid regular expression `{re}`: {e}"),
            )
        })?;
        if !r.is_match(got) {
            return Ok(Some(format!(
                "expected {what} to match /{re}/, got \"{got}\""
            )));
        }
    }
    Ok(None)
}

fn describe(sel: &Selector) -> String {
    alternatives(sel)
        .iter()
        .map(Alt::describe)
        .collect::<Vec<_>>()
        .join(" or ")
}

/// How many elements match the first alternative of a selector (one or none with `nth`).
pub(crate) async fn count(session: &mut Session, sel: &Selector) -> Result<i64, StepError> {
    let n = super::selector::count(session, sel).await?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matcher_messages() {
        let m = Match {
            equals: None,
            contains: Some("/dash".into()),
            matches: None,
        };
        assert_eq!(
            matcher(&m, "http://x/login", "url").unwrap().unwrap(),
            "expected url to contain \"/dash\", got \"http://x/login\""
        );
        let m = Match {
            equals: None,
            contains: None,
            matches: Some("^a+$".into()),
        };
        assert!(matcher(&m, "aaa", "t").unwrap().is_none());
    }
}
