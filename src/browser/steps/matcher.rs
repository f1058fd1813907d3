//! What an assertion compares a text with (`equals`, `contains`, `matches`), and the message
//! when the text does not match.

use crate::browser::page::selector::normalize;
use crate::config::model::{Matcher, TargetMatcher};
use crate::step::{ErrorKind, Masker, StepError};

/// A matcher in one shape.
pub(super) struct Match {
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

impl Match {
    /// The matcher of an object's `equals`, `contains` and `matches` keys.
    pub(super) fn of(
        equals: Option<&String>,
        contains: Option<&String>,
        matches: Option<&String>,
    ) -> Match {
        Match {
            equals: equals.cloned(),
            contains: contains.cloned(),
            matches: matches.cloned(),
        }
    }

    /// The matcher of a text as Playwright's `toHaveText` compares it: `equals` and `contains`
    /// whitespace-normalised (NBSP, newlines and runs of spaces are one space), as the text
    /// they are compared with is (`normalize`).
    pub(super) fn of_text(self) -> Match {
        Match {
            equals: self.equals.as_deref().map(normalize),
            contains: self.contains.as_deref().map(normalize),
            matches: self.matches,
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.equals.is_none() && self.contains.is_none() && self.matches.is_none()
    }

    /// `to equal "x"`, `to contain "x"`, `to match /x/`.
    pub(super) fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(s) = &self.equals {
            parts.push(format!("to equal \"{s}\""));
        }
        if let Some(s) = &self.contains {
            parts.push(format!("to contain \"{s}\""));
        }
        if let Some(s) = &self.matches {
            parts.push(format!("to match /{s}/"));
        }
        parts.join(" and ")
    }
}

pub(super) fn target_matcher(t: &TargetMatcher) -> Match {
    Match::of(t.equals.as_ref(), t.contains.as_ref(), t.matches.as_ref())
}

/// `None` when `got` satisfies `m`, else the "expected X, got Y" message. When what is expected
/// reads a secret (`masker` finds one in it), `got` is not quoted, only its length: a field a
/// page cut (`maxlength`) or formatted holds most of the secret, in a form that may not be
/// masked.
pub(super) fn matcher(
    m: &Match,
    got: &str,
    what: &str,
    masker: &Masker,
) -> Result<Option<String>, StepError> {
    let secret = [&m.equals, &m.contains, &m.matches]
        .into_iter()
        .flatten()
        .any(|w| masker.holds_secret(w));
    let shown = if secret {
        format!(
            "{} characters (not shown, as what is expected is made of a secret)",
            got.chars().count()
        )
    } else {
        format!("\"{got}\"")
    };
    if let Some(want) = &m.equals
        && got != want
    {
        return Ok(Some(format!(
            "expected {what} to equal \"{want}\", got {shown}"
        )));
    }
    if let Some(want) = &m.contains
        && !got.contains(want.as_str())
    {
        return Ok(Some(format!(
            "expected {what} to contain \"{want}\", got {shown}"
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
                "expected {what} to match /{re}/, got {shown}"
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
            matcher(&m, "http://x/login", "url", &Masker::default())
                .unwrap()
                .unwrap(),
            "expected url to contain \"/dash\", got \"http://x/login\""
        );
        let m = Match {
            equals: None,
            contains: None,
            matches: Some("^a+$".into()),
        };
        assert!(
            matcher(&m, "aaa", "t", &Masker::default())
                .unwrap()
                .is_none()
        );
    }

    /// A value expected that reads a secret: what the field holds is not quoted (a field that
    /// cut the secret at 12 characters holds 12 of its 16 raw).
    #[test]
    fn a_value_expected_that_is_a_secret_is_not_quoted() {
        let masker = Masker::default();
        masker.add("Kx7Wq2Rn8Lp5Vb3M");
        let m = Match {
            equals: Some("Kx7Wq2Rn8Lp5Vb3M".into()),
            contains: None,
            matches: None,
        };
        let said = matcher(&m, "Kx7Wq2Rn8Lp5", "value", &masker)
            .unwrap()
            .unwrap();
        assert!(!said.contains("Kx7Wq2Rn8Lp5\""), "{said}");
        assert!(said.contains("got 12 characters"), "{said}");
        let m = Match {
            equals: None,
            contains: Some("Kx7Wq2Rn8Lp5Vb3M".into()),
            matches: None,
        };
        let said = matcher(&m, "Kx7W", "value", &masker).unwrap().unwrap();
        assert!(
            said.ends_with("got 4 characters (not shown, as what is expected is made of a secret)"),
            "{said}"
        );
    }
}
