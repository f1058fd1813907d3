//! The browser half of runner: the agent-browser adapter, sessions, selectors, the HTML
//! inspector, and the browser steps and assertions built on them.

pub(crate) mod adapter;
mod cdp;
mod chromium;
mod daemon;
mod dialog;
mod dialog_watch;
mod download;
mod downloads;
mod element_action;
mod element_kind;
mod expect;
mod flow_session;
mod host;
mod inspect;
pub(crate) mod intent;
mod pool;
mod selector;
mod session;
mod steps;

pub(crate) use flow_session::{ContextSetup, FlowBrowser};
pub(crate) use host::{BrowserHost, cleanup_run, launch_check};
pub(crate) use pool::{BrowserSpec, Emulation};
pub(crate) use selector::{Poll, describe_selector};
#[cfg(test)]
pub(crate) use session::on_fake_daemon as session_on_fake_daemon;
pub(crate) use session::{Session, eval_args};
pub(crate) use steps::{StepFiles, run_step};
