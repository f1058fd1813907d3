//! What one alternative of a selector found on the page: the lower half of resolving, shared by
//! the look-ups (`lookup`, `refs`) and `resolve`, which turns it into a `Resolved`.

use serde_json::{Value, json};

use crate::browser::page::element_kind::ElementKind;

/// What one alternative found on the page.
pub(super) struct Found {
    pub(super) target: String,
    pub(super) count: usize,
    pub(super) matches: Vec<String>,
    pub(super) kind: ElementKind,
    /// What the look-up read of the element when asked (`Read`): its text or value (a
    /// string), whether it is visible (a boolean), an attribute (a string, or null when absent).
    pub(super) read: Option<Value>,
}

/// What a look-up reads of the element it finds, in the same page call, so a check of an
/// element a page replaces every few milliseconds never reads a different (or detached) one:
/// what agent-browser's `get text` (`innerText`, else `textContent`) or `get value` would read,
/// whether it is visible (as Playwright's `isVisible`), or one attribute; or the texts or class
/// attributes of every match (the one `nth` picks, when it says), for the list checks.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Read {
    Text,
    Value,
    Visible,
    Attribute(String),
    Texts,
    Classes,
    /// Nothing of the elements: how many match, for `count`, which must not take a number
    /// from a look-up that cannot see everything; no handle is made reachable for later.
    Count,
    /// Nothing of the element: whether one is there, for a `within` level of a check, which
    /// must not take "not found" from a look-up that cannot see everything (its handle is
    /// made reachable: the levels inside look below it).
    Present,
}

impl Read {
    /// The page script's argument for it.
    pub(crate) fn arg(&self) -> Value {
        match self {
            Read::Text => json!("text"),
            Read::Value => json!("value"),
            Read::Visible => json!("visible"),
            Read::Attribute(name) => json!({ "attribute": name }),
            Read::Texts => json!("texts"),
            Read::Classes => json!("classes"),
            Read::Count => json!("count"),
            Read::Present => Value::Null,
        }
    }
}
