//! The page: locating elements (selectors, refs, suggestions on a miss), what kind of element a
//! target is and whether it can take an action now (actionability), acting on one element, and
//! reads (`inspect`, what the page offers to `act`). Built on `driver`.
//!
//! Page scripts: the JavaScript this layer runs in the page lives in `scripts/*.js`, one function
//! expression per file, listed (with what each takes and gives) in `scripts.rs` and called with
//! JSON arguments through `driver::script`. The frame-document helper and the element-state
//! checks (disabled, read-only, has the focus) are files of their own, given to the scripts that
//! use them (`script::bind`); `steps` uses them too.

pub(crate) mod described;
pub(crate) mod element_action;
pub(crate) mod element_kind;
pub(crate) mod fits;
pub(crate) mod inspect;
pub(crate) mod intent;
pub(crate) mod label;
mod plain_fill;
pub(crate) mod pointer_action;
mod read_back;
pub(crate) mod scripts;
pub(crate) mod selector;
