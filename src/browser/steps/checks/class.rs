//! `class`: one element's class attribute, as Playwright's `toHaveClass` reads it — an element
//! without one has class `""` (where `attribute: { name: class }` says it has none): `has` the
//! class names given, `equals` the whole attribute, `matches` a regular expression; both sides
//! whitespace-normalised.

use std::time::Duration;

use serde_json::Value;

use super::outcome::{Outcome, describe};
use crate::browser::driver::command::Command;
use crate::browser::driver::session::Session;
use crate::browser::page::selector::{Read, normalize, resolve_now_one_reading};
use crate::config::model::ClassMatcher;
use crate::step::{ErrorKind, StepError};

/// `class: { target, has | equals | matches }`.
pub(crate) async fn class_outcome(
    session: &mut Session,
    c: &ClassMatcher,
) -> Result<Outcome, StepError> {
    let of = format!("the class of {}", describe(&c.target));
    let what = format!("{of} {}", wanted(c));
    let read = Read::Attribute("class".into());
    let Some(r) = resolve_now_one_reading(session, &c.target, read).await? else {
        return Ok(Outcome::missing(what, describe(&c.target)));
    };
    // Read in the look-up's own page call (an element found by CSS or text), else asked of
    // agent-browser (a ref, a role).
    let got = if let Some(v) = r.read {
        v.as_str().unwrap_or_default().to_string()
    } else {
        let get = Command::GetAttribute {
            selector: r.target,
            attribute: "class".into(),
        };
        let data = session.send(get, Duration::from_secs(5)).await?;
        let got = data.get("value").and_then(Value::as_str);
        got.unwrap_or_default().to_string()
    };
    let failure = failure(c, &normalize(&got))?.map(|why| format!("expected {what}, {why}"));
    Ok(Outcome::new(what, failure))
}

/// `to have "completed"`, `to equal ""`, `to match /x/`.
fn wanted(c: &ClassMatcher) -> String {
    let mut parts = Vec::new();
    if let Some(h) = &c.has {
        parts.push(format!("to have \"{}\"", normalize(h)));
    }
    if let Some(e) = &c.equals {
        parts.push(format!("to equal \"{}\"", normalize(e)));
    }
    if let Some(m) = &c.matches {
        parts.push(format!("to match /{m}/"));
    }
    parts.join(" and ")
}

/// Why the class attribute `got` (normalised) does not do what `c` says; `None` when it does.
fn failure(c: &ClassMatcher, got: &str) -> Result<Option<String>, StepError> {
    let shown = if got.is_empty() {
        "it has no class".to_string()
    } else {
        format!("its class is \"{got}\"")
    };
    if let Some(h) = &c.has {
        let have: Vec<&str> = got.split_whitespace().collect();
        let missing: Vec<&str> = h.split_whitespace().filter(|n| !have.contains(n)).collect();
        if h.trim().is_empty() {
            return Err(StepError::new(
                ErrorKind::Template,
                "`class.has` renders empty: name at least one class",
            ));
        }
        if !missing.is_empty() {
            return Ok(Some(format!("but {shown} (no `{}`)", missing.join("`, `"))));
        }
    }
    if let Some(e) = &c.equals
        && normalize(e) != got
    {
        return Ok(Some(format!("but {shown}")));
    }
    if let Some(m) = &c.matches {
        let re = regex::Regex::new(m).map_err(|e| {
            StepError::new(
                ErrorKind::Assertion,
                format!("invalid regular expression `{m}`: {e}"),
            )
        })?;
        if !re.is_match(got) {
            return Ok(Some(format!("but {shown}")));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn class(v: serde_json::Value) -> ClassMatcher {
        serde_json::from_value(v).unwrap()
    }

    /// `has` is about class names (not substrings), `equals` the whole attribute normalised,
    /// and no class attribute is `""`.
    #[test]
    fn class_names_and_the_whole_attribute() {
        let has = class(json!({"target": "li", "has": "completed"}));
        assert!(failure(&has, "todo completed").unwrap().is_none());
        assert_eq!(
            failure(&has, "todo completed-not").unwrap().unwrap(),
            "but its class is \"todo completed-not\" (no `completed`)"
        );
        assert_eq!(
            failure(&has, "").unwrap().unwrap(),
            "but it has no class (no `completed`)"
        );
        let both = class(json!({"target": "li", "has": "b a"}));
        assert!(failure(&both, "a b c").unwrap().is_none());
        let none = class(json!({"target": "li", "equals": ""}));
        assert!(failure(&none, "").unwrap().is_none());
        assert!(failure(&none, "x").unwrap().is_some());
        let whole = class(json!({"target": "li", "equals": " a  b "}));
        assert!(failure(&whole, "a b").unwrap().is_none());
        assert!(failure(&whole, "b a").unwrap().is_some());
        let re = class(json!({"target": "li", "matches": "^todo( |$)"}));
        assert!(failure(&re, "todo done").unwrap().is_none());
        assert!(failure(&re, "todos").unwrap().is_some());
    }
}
