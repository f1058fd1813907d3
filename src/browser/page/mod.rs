//! The page: locating elements (selectors, refs, suggestions on a miss), what kind of element a
//! target is and whether it can take an action now (actionability), acting on one element, and
//! reads (`inspect`, what the page offers to `act`). Built on `driver`.

pub(crate) mod element_action;
pub(crate) mod element_kind;
pub(crate) mod inspect;
pub(crate) mod intent;
pub(crate) mod selector;
