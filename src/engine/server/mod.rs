//! Web servers: a flow's own (`web_server:`) and the run's (`[[web_server]]` in runner.toml).
//! A command is started in its own process group with `$PORT`, its output kept in a log, and
//! counted ready only while it is alive and its URL (or port) answers; a folder is served on a
//! free port.

mod flow_server;
mod launch;
mod output;
mod ports;
mod probe;
mod process;
mod shared;
mod static_site;
mod watch;

pub(crate) use flow_server::start_for_flow;
pub(crate) use process::Server;
pub(crate) use shared::{RunContext, RunServers};
pub(crate) use watch::Watch;
