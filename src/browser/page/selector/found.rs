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
