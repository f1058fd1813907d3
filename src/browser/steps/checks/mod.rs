//! The checks of `expect` (and the page predicate `wait: { js }` shares), one file per kind of
//! thing checked; `Outcome` is what each found.

pub(crate) mod class;
pub(crate) mod element;
pub(crate) mod js;
pub(crate) mod lists;
pub(crate) mod outcome;
pub(crate) mod page;
