//! Semantic checks beyond the schema: ids, durations, regexes, templates and the names they read,
//! agent profiles and the steps that `follow_up` / `stop_agent` name.

mod actions;
mod agents;
mod context;
mod control;
mod flow;
mod request;
mod templates;
mod wide;

pub(crate) use context::Ctx;
pub(crate) use flow::{check_flow, server_urls};
pub(crate) use templates::server_templates;
pub(crate) use wide::wide_literals;
