//! What every step family shares with the engine and the reports: the error a step fails with,
//! the results of steps and flows, the progress events, and the secret masker. Lives below the
//! engine and the families so that none of them depends on another through these types.

pub(crate) mod error;
pub(crate) mod events;
pub(crate) mod interrupt;
pub(crate) mod masked_stream;
pub(crate) mod masker;
pub(crate) mod result;
mod secret_forms;
pub(crate) mod shown;
pub(crate) mod url_secrets;

pub(crate) use error::{ErrorKind, Location, StepError};
pub(crate) use events::{FlowInfo, Listener};
pub(crate) use masker::Masker;
pub(crate) use result::{FlowResult, FlowStatus, Outcome, ServerInfo, StepResult, StepTrace};
