//! The browser half of runner: the agent-browser adapter, sessions, selectors, the HTML
//! inspector, and the browser steps and assertions built on them.

pub(crate) mod adapter;
mod cdp;
mod chromium;
mod daemon;
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

pub(crate) use flow_session::FlowBrowser;
pub(crate) use host::{BrowserHost, cleanup_run, launch_check};
pub(crate) use pool::BrowserSpec;
pub(crate) use selector::describe_selector;
pub(crate) use session::{Session, eval_args};
pub(crate) use steps::{StepFiles, run_step};
