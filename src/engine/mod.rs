//! The interpreter: runs flows step by step with conditions, retries, timeouts, outputs,
//! `finally`, cancellation, and reports progress through the [`Listener`](crate::step::Listener)
//! trait (no UI here). It dispatches each step to its family (`browser`, `agent`, `atlas`, or
//! its own built-ins); no family depends on it.

mod artifacts;
mod attempts;
mod browser_settings;
mod builtins;
mod context;
mod control;
mod cut;
mod dispatch;
mod exec;
mod families;
mod finishing;
mod job;
mod lifecycle;
mod plan;
mod render;
mod replay;
mod retry;
mod run;
mod runtime;
mod server;
mod start;
mod subflow;
mod trace;
mod trail;

pub(crate) use artifacts::{MARKER, MARKER_TEXT, Output, is_replay_file, output_kind};
pub(crate) use attempts::{BROWSER_TIMEOUT, browser_timeout};
pub(crate) use browser_settings::project_setup;
pub(crate) use dispatch::RuntimeSettings;
pub(crate) use plan::plan;
pub(crate) use replay::InProcess;
#[cfg(test)]
pub(crate) use run::run_flows;
pub(crate) use run::{Ran, RunOptions, Warm, run_flows_closing, start_servers, state_groups};
pub(crate) use runtime::Runtime;
pub(crate) use start::RunSecrets;
pub(crate) use trace::is_file as is_trace_file;

#[cfg(test)]
mod render_tests;
#[cfg(test)]
mod tests;
