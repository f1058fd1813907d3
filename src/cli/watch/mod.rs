//! `run --watch`: the flows run, then again on every save of a flow, a sub-flow or a var file
//! they use, in the same browsers and servers, until an interrupt.

mod affected;
mod changes;
mod session;

pub(crate) use session::run;
