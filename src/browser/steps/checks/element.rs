//! The checks of one element: `visible`/`hidden`, `checked`/`enabled` and their opposites,
//! `editable`/`focused`, `text`/`value`, `attribute`, and the count of a selector's matches.

use std::time::Duration;

use serde_json::Value;

use super::outcome::{Outcome, describe, int};
use crate::browser::driver::command::Command;
use crate::browser::driver::script::bind;
use crate::browser::driver::session::Session;
use crate::browser::page::scripts;
use crate::browser::page::selector::{
    Read, Resolved, element_eval, is_visible, normalize, read_now, resolve_now_one,
    resolve_now_one_reading,
};
use crate::browser::steps::matcher::{Match, matcher, target_matcher};
use crate::config::model::{AttributeMatcher, CountMatcher, ExpectAction, Selector};
use crate::step::StepError;

/// `visible` and `hidden` (absent counts as hidden).
pub(crate) async fn visibility_outcomes(
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

/// `checked` and `unchecked` (runner's `scripts::CHECKED`: a mixed box is neither), `enabled` and `disabled` (the
/// actions' rule).
pub(crate) async fn state_outcomes(
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
            // As Playwright's getChecked, read by runner's page script (agent-browser's `is
            // checked` is yes or no): an indeterminate or `aria-checked="mixed"` box is neither.
            Some(r) if query == "checked" => {
                match element_eval(session, &r, scripts::CHECKED, &[]).await? {
                    Some(Value::String(got)) => {
                        let failure = match (got.as_str(), want) {
                            ("checked", true) | ("unchecked", false) => None,
                            ("mixed", _) => Some(format!(
                                "expected {what}, but it is mixed (indeterminate: neither checked nor unchecked)"
                            )),
                            _ => Some(format!("expected {what}, but it is {got}")),
                        };
                        Outcome::new(what, failure)
                    }
                    Some(_) => Outcome::unfit(what, "it is not a checkbox or radio button".into()),
                    None => Outcome::new(
                        what.clone(),
                        Some(format!("expected {what}, but it is gone from the page")),
                    ),
                }
            }
            // Enabled: by the rule actions wait on (`scripts::DISABLED`: Playwright's
            // `getAriaDisabled`, natively or by the nearest `aria-disabled`), not
            // agent-browser's `is enabled`, which reads the native state alone.
            Some(r) => match element_eval(session, &r, scripts::DISABLED, &[]).await? {
                Some(Value::Bool(disabled)) => {
                    let enabled = !disabled;
                    Outcome::new(
                        what.clone(),
                        (enabled != want).then(|| format!("expected {what}, but it is not")),
                    )
                }
                _ => Outcome::new(
                    what.clone(),
                    Some(format!("expected {what}, but it is gone from the page")),
                ),
            },
        });
    }
    Ok(out)
}

/// `editable` and `focused`: page scripts on the element, `true` or why not.
pub(crate) async fn script_outcomes(
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
pub(crate) async fn read_outcomes(
    session: &mut Session,
    e: &ExpectAction,
) -> Result<Vec<Outcome>, StepError> {
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
                    Outcome::new(what, matcher(&m, &got, &of, &session.masker)?)
                }
            },
        );
    }
    Ok(out)
}

/// `attribute`: present, or matched.
pub(crate) async fn attribute_outcome(
    session: &mut Session,
    a: &AttributeMatcher,
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
                    Some(got) => matcher(&m, got, &of, &session.masker)?,
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
                    Some(got) => matcher(&m, got, &of, &session.masker)?,
                };
                Outcome::new(what, failure)
            }
        },
    )
}

/// `(isDisabled, isReadOnly) => (el) => true | why not`: whether an element can be typed into.
const EDITABLE_JS: &str = include_str!("../scripts/editable.js");

/// `(el) => true | what has the focus`: whether the element has the focus.
const FOCUSED_JS: &str = include_str!("../scripts/focused.js");

/// How many elements match the first alternative of a selector (one or none with `nth`).
pub(crate) async fn count(session: &mut Session, sel: &Selector) -> Result<i64, StepError> {
    let n = crate::browser::page::selector::count(session, sel).await?;
    Ok(i64::try_from(n).unwrap_or(i64::MAX))
}

/// `count`: how many elements match, against its bounds.
pub(crate) async fn count_outcome(
    session: &mut Session,
    c: &CountMatcher,
) -> Result<Outcome, StepError> {
    let n = count(session, &c.target).await?;
    Ok(Outcome::new(
        format!("the count of {}", describe(&c.target)),
        count_failure(c, n)?,
    ))
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
