//! The interpreter: runs flows step by step with conditions, retries, timeouts, outputs,
//! `finally`, cancellation, and reports progress through the [`Listener`] trait (no UI here).

pub mod context;
pub mod error;
pub mod events;
pub mod exec;
pub mod flow;
pub mod link_state;
pub mod processes;
pub mod result;
pub mod retry;
pub mod run;
pub mod secrets;
pub mod web_server;

pub use error::{ErrorKind, StepError};
pub use events::Listener;
pub use result::{FlowResult, FlowStatus, Outcome, StepResult};
pub use run::{RunOptions, run_flows};
