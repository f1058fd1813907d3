//! The atlas: an on-disk graph of browser states (nodes) linked by the actions between them
//! (edges), recorded by `link_state` steps.

pub mod explore;
pub mod fingerprint;
pub mod store;
