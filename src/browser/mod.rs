//! The browser half of runner, in layers (imports point down):
//!
//! - `driver`: agent-browser (CLI and daemon protocol), the DevTools connection, Chromium, a
//!   flow's session, downloads and dialogs;
//! - `pool` (workers, a context per flow) and `page` (locating elements, actionability, reads):
//!   both on `driver`, neither on the other;
//! - `steps`: one file per step family, on `page` and `driver`.

pub(crate) mod driver;
pub(crate) mod page;
pub(crate) mod pool;
pub(crate) mod steps;

pub(crate) use driver::command::{Command, SnapshotOptions};
pub(crate) use driver::recorder::{Logged, Recording};
pub(crate) use driver::session::Session;
#[cfg(test)]
pub(crate) use driver::session::on_fake_daemon as session_on_fake_daemon;
pub(crate) use page::selector::{Poll, describe_selector};
pub(crate) use pool::flow_session::{ContextSetup, FlowBrowser, HELD_PICTURES, Recorded};
pub(crate) use pool::host::{BrowserHost, cleanup_run, launch_check};
pub(crate) use pool::worker::{BrowserSpec, Emulation};
pub(crate) use steps::dispatch::run_step;
pub(crate) use steps::files::{SavedStates, StepFiles};
