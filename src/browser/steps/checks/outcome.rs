//! What one check of an `expect` found, and the helpers the checks share: how a selector is
//! named in messages, and a count that may come from a template.

use crate::browser::page::selector::{Alt, alternatives};
use crate::config::model::{IntOrTemplate, Selector};
use crate::step::{ErrorKind, StepError};

/// What one check found: what it asserts, and why it does not hold (`None`: it holds).
pub(crate) struct Outcome {
    pub(crate) what: String,
    pub(crate) failure: Option<String>,
    /// Why the check cannot be asked of its element at all (it is not on the page; it is not a
    /// checkbox): the check fails, and so does its `not` (`not: { enabled: X }` does not pass
    /// for an X that is missing; `not: { visible: X }` does, as absent is one way of not being
    /// visible).
    pub(crate) unfit: Option<String>,
}

impl Outcome {
    pub(crate) fn new(what: impl Into<String>, failure: Option<String>) -> Outcome {
        Outcome {
            what: what.into(),
            failure,
            unfit: None,
        }
    }

    /// The check of an element (`target`, described) that is not on the page.
    pub(crate) fn missing(what: String, target: String) -> Outcome {
        Outcome::unfit(what, format!("{target} is not on the page"))
    }

    /// A check its element cannot answer, and `why`.
    pub(crate) fn unfit(what: String, why: String) -> Outcome {
        Outcome {
            failure: Some(format!("expected {what}, but {why}")),
            unfit: Some(why),
            what,
        }
    }
}

/// A selector as messages name it: its alternatives joined with `or`.
pub(crate) fn describe(sel: &Selector) -> String {
    alternatives(sel)
        .iter()
        .map(Alt::describe)
        .collect::<Vec<_>>()
        .join(" or ")
}

/// A count (a number, or a template that rendered to one).
pub(crate) fn int(v: &IntOrTemplate) -> Result<i64, StepError> {
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
