//! What went wrong in a step.

use serde::Serialize;

/// Error kinds; `retry.on` selects among the first four.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    Timeout,
    NotFound,
    Assertion,
    CommandFailed,
    /// A template failed to render (an undefined name at run time).
    Template,
    /// Something the machine lacks or the step family not built yet: exit code 3.
    Environment,
    /// Stopped by SIGINT/SIGTERM.
    Interrupted,
}

impl ErrorKind {
    /// The name used in `retry.on` and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Timeout => "timeout",
            ErrorKind::NotFound => "not_found",
            ErrorKind::Assertion => "assertion",
            ErrorKind::CommandFailed => "command_failed",
            ErrorKind::Template => "template",
            ErrorKind::Environment => "environment",
            ErrorKind::Interrupted => "interrupted",
        }
    }
}

/// A step's failure: its kind, a message, and where in the flow file it comes from.
#[derive(Debug, Clone, Serialize, thiserror::Error)]
#[error("{message}")]
pub struct StepError {
    pub kind: ErrorKind,
    pub message: String,
    /// `file:line:col` of the step or of the template that failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
}

impl StepError {
    /// An error of `kind`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> StepError {
        StepError {
            kind,
            message: message.into(),
            location: None,
        }
    }
}
