//! ElementSelector resolution (SPEC §3.2): a selector becomes something agent-browser accepts
//! (`@e5` or CSS). Role and name mean what the browser's accessibility tree says; refs from
//! before a navigation are refused; a miss lists up to 5 similar things that do exist.
//!
//! `alternative` is the selector model; `resolve` tries the alternatives (re-checked as `poll`
//! paces it, strict about one element); `scope` finds one alternative level by level (its
//! `within`s, strict at each); `ax_roles` answers roles from the browser's accessibility tree,
//! `refs` refs from the snapshot, `lookup` CSS,
//! text, labels and attributes from the DOM; `handle` runs scripts and commands on exactly the
//! elements runner's handle marks (`mark`: the handle put on a ref's element by its box;
//! `handle_messages`: what an error naming a handle means, and the scrub that keeps handles out
//! of messages); `miss` is the error with suggestions.

mod alternative;
mod ax_roles;
mod found;
mod handle;
mod handle_messages;
mod lookup;
mod mark;
mod miss;
mod poll;
mod refs;
mod resolve;
mod scope;

/// How the look-ups, the suggestions and the checks compare a text or name (the masker looks
/// for each secret so too).
pub(crate) use crate::step::shown::normalize;
pub(crate) use alternative::{Alt, alternatives, describe_selector};
pub(crate) use found::Read;
pub(crate) use handle::{element_args, element_eval, is_visible, on_element, read_now};
pub(crate) use handle_messages::scrub;
pub(crate) use mark::mark;
pub(crate) use poll::Poll;
pub(crate) use refs::contexts as ref_contexts;
#[cfg(test)]
pub(crate) use resolve::resolve;
pub(crate) use resolve::{
    Resolved, count, left, resolve_now, resolve_now_one, resolve_now_one_reading,
    resolve_now_reading, resolve_one,
};
pub(crate) use scope::within_handle;
