//! What one alternative of a selector found on the page: the lower half of resolving, shared by
//! the look-ups (`lookup`, `refs`) and `resolve`, which turns it into a `Resolved`.

use crate::browser::page::element_kind::ElementKind;

/// What one alternative found on the page.
pub(super) struct Found {
    pub(super) target: String,
    pub(super) count: usize,
    pub(super) matches: Vec<String>,
    pub(super) kind: ElementKind,
    /// What the look-up read of the element when asked (`Read`): its text or value.
    pub(super) read: Option<String>,
}

/// What a look-up reads of the element it finds, in the same page call: what agent-browser's
/// `get text` (`innerText`, else `textContent`) or `get value` would read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Read {
    Text,
    Value,
}

impl Read {
    /// The page script's word for it.
    pub(crate) fn word(self) -> &'static str {
        match self {
            Read::Text => "text",
            Read::Value => "value",
        }
    }
}
