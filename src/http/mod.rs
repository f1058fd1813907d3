//! HTTP requests: the `request` step sends one request (reqwest, rustls) and checks its
//! response in the manner of Hurl's asserts (status, headers, JSONPath queries, body,
//! duration), each failure at its check's line in the flow file.

mod check;
mod redirect;
mod send;
mod step;

pub(crate) use step::{HttpCtx, run_step};
