//! The DevTools connection's errors, and the one conversion into a step error.

use std::time::Duration;

use serde_json::Value;

use crate::step::{ErrorKind, StepError};

/// What can go wrong on the DevTools connection. The messages name the DevTools method that
/// failed; `into_step_error` turns one into the step error it means, once.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CdpError {
    #[error("the browser's DevTools endpoint did not answer in {0:?}")]
    ConnectTimeout(Duration),
    #[error("cannot reach the browser's DevTools endpoint: {0}")]
    Unreachable(#[source] tokio_tungstenite::tungstenite::Error),
    /// The browser closed its end of the connection (a browser that exits, also when killed,
    /// resets it): it is gone.
    #[error("{method}: the browser exited: it closed its DevTools connection")]
    Closed { method: String },
    /// runner's end of the connection failed (see `Link::broke`): the browser may still run.
    #[error("{method}: runner's DevTools connection to the browser failed ({why})")]
    Broke { method: String, why: String },
    /// runner let go of the connection (its browser was closed): nothing reads it any more.
    #[error("{method}: runner closed its DevTools connection to the browser")]
    LetGo { method: String },
    #[error("{method}: {source}")]
    Send {
        method: String,
        source: tokio_tungstenite::tungstenite::Error,
    },
    /// The browser answered the call with an error.
    #[error("{method}: {message}")]
    Refused { method: String, message: String },
    #[error("{method}: no answer in {timeout:?}")]
    NoAnswer { method: String, timeout: Duration },
    /// The browser was found not to answer at all (see `Cdp::health`): not asked.
    #[error("{method}: the browser does not answer")]
    Silent { method: String },
    #[error("the browser's answer has no {field}: {answer}")]
    NoField { field: &'static str, answer: Value },
    #[error("locale `{locale}`: {source}")]
    Locale {
        locale: String,
        source: Box<CdpError>,
    },
    #[error("timezone `{timezone}`: {source}")]
    Timezone {
        timezone: String,
        source: Box<CdpError>,
    },
}

impl CdpError {
    /// The step error this means; `connecting` says whether a browser was being connected to
    /// (then a DevTools failure is the environment's), else the command failed.
    pub(crate) fn into_step_error(self, connecting: bool) -> StepError {
        let kind = if connecting {
            ErrorKind::Environment
        } else {
            ErrorKind::CommandFailed
        };
        StepError::new(kind, self.to_string())
    }
}

impl From<CdpError> for StepError {
    /// A DevTools call of a flow that runs (not of a browser being connected).
    fn from(e: CdpError) -> StepError {
        e.into_step_error(false)
    }
}
