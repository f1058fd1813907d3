//! ElementSelector resolution (SPEC §3.2): a selector becomes something agent-browser accepts
//! (`@e5` or CSS). Role and name mean what the accessibility snapshot shows; refs from before a
//! navigation are refused; a miss lists up to 5 similar things that do exist.
//!
//! `alternative` is the selector model; `resolve` tries the alternatives (re-checked as `poll`
//! paces it, strict about one element); `refs` answers refs and roles from the snapshot,
//! `lookup` CSS and text from the DOM; `handle` marks elements so scripts and commands reach
//! exactly them (`handle_messages`: what an error naming a handle means, and the scrub that
//! keeps handles out of messages); `miss` is the error with suggestions.

mod alternative;
mod found;
mod handle;
mod handle_messages;
mod lookup;
mod miss;
mod poll;
mod refs;
mod resolve;
mod text;

pub(crate) use alternative::{Alt, alternatives, describe_selector};
pub(crate) use found::Read;
pub(crate) use handle::{element_args, element_eval, is_visible, mark, on_element, read_now};
pub(crate) use handle_messages::scrub;
pub(crate) use poll::Poll;
pub(crate) use resolve::{
    Resolved, count, left, resolve, resolve_now, resolve_now_one, resolve_now_one_reading,
    resolve_now_reading, resolve_one,
};
pub(crate) use text::normalize;
