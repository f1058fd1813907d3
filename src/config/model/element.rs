//! Actions on one element of the page: `fill`/`type`, `press`, `scroll`, `select`, `upload`,
//! `dispatch`.

use serde::Deserialize;
use serde_json::Value;

use super::selector::Selector;
use super::value::{OneOrMany, Scalar};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FillAction {
    pub(crate) target: Selector,
    pub(crate) value: Scalar,
}

/// `press`: a key or chord (`Enter`, `Control+a`) for the focused element, or for a target
/// (focused first).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum PressAction {
    Key(String),
    On(PressOn),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PressOn {
    pub(crate) key: String,
    pub(crate) target: Option<Selector>,
}

impl PressAction {
    pub(crate) fn key(&self) -> &str {
        match self {
            PressAction::Key(k) => k,
            PressAction::On(p) => &p.key,
        }
    }

    pub(crate) fn target(&self) -> Option<&Selector> {
        match self {
            PressAction::Key(_) => None,
            PressAction::On(p) => p.target.as_ref(),
        }
    }

    pub(crate) fn check(&self) -> Result<(), String> {
        if self.key().is_empty() {
            return Err("`press` needs a key".into());
        }
        self.target().map_or(Ok(()), Selector::check)
    }
}

/// `scroll`: to an element (scrolled into view), to the `top` or `bottom` of the page, or `by`
/// a number of pixels (negative: up).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ScrollAction {
    pub(crate) to: Option<Selector>,
    pub(crate) by: Option<i64>,
}

/// Where `scroll: { to }` goes.
pub(crate) enum ScrollTo<'a> {
    Top,
    Bottom,
    Element(&'a Selector),
}

impl ScrollAction {
    /// `to`, with the words `top` and `bottom` (never taken for CSS) read as page ends.
    pub(crate) fn to(&self) -> Option<ScrollTo<'_>> {
        self.to.as_ref().map(|s| match s {
            Selector::String(w) if w == "top" => ScrollTo::Top,
            Selector::String(w) if w == "bottom" => ScrollTo::Bottom,
            other => ScrollTo::Element(other),
        })
    }

    pub(crate) fn check(&self) -> Result<(), String> {
        match (&self.to, self.by) {
            (Some(_), Some(_)) => Err("`scroll` takes `to` or `by`, not both".into()),
            (None, None) => Err("`scroll` needs `to` or `by`".into()),
            (Some(t), None) => t.check(),
            (None, Some(_)) => Ok(()),
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SelectAction {
    pub(crate) target: Selector,
    pub(crate) value: OneOrMany,
}

/// `upload`: files for a file input, paths relative to the flow's directory.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct UploadAction {
    pub(crate) target: Selector,
    pub(crate) files: OneOrMany,
}

impl UploadAction {
    pub(crate) fn check(&self) -> Result<(), String> {
        match &self.files {
            OneOrMany::Many(v) if v.is_empty() => Err("`upload` needs at least one file".into()),
            _ => self.target.check(),
        }
    }
}

/// `dispatch: { target, event, init }`: a DOM event of type `event` dispatched on the element
/// (Playwright's `dispatchEvent`), of the constructor its type calls for.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DispatchAction {
    pub(crate) target: Selector,
    pub(crate) event: String,
    /// The event's init dictionary (`{ bubbles, cancelable, composed }` default to true).
    pub(crate) init: Option<Value>,
}

impl DispatchAction {
    pub(crate) fn check(&self) -> Result<(), String> {
        if self.event.trim().is_empty() {
            return Err("`dispatch` needs an `event` type (`blur`, `click`, `input`)".into());
        }
        if self.init.as_ref().is_some_and(|i| !i.is_object()) {
            return Err("`dispatch.init` is an object (the event's init dictionary)".into());
        }
        self.target.check()
    }
}
