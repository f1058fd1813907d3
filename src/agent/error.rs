//! What can go wrong with an agent step, converted once into the step error the engine reports.

use std::time::Duration;

use crate::step::{ErrorKind, StepError};

/// An agent step's failure.
#[derive(Debug, thiserror::Error)]
pub(crate) enum AgentError {
    #[error("Profile config not found for {0}")]
    UnknownProfile(String),
    #[error("unknown variant `{variant}` of profile `{profile}`")]
    UnknownVariant { profile: String, variant: String },
    #[error("Profile command not found for {0}")]
    NoCommand(String),
    #[error("agent binary `{binary}` of profile `{profile}` not found; see `runner doctor`")]
    BinaryNotFound { binary: String, profile: String },
    #[error("cannot start `{binary}`: {message}")]
    Spawn { binary: String, message: String },
    #[error("Workspace path does not exist: {0}")]
    NoWorkspace(String),
    #[error("step `{0}` has no session id to follow up")]
    NoSession(String),
    #[error("session {0} is still running; stop it or wait for it before following up")]
    StillRunning(String),
    #[error("`{0}` is not a session id (EXECUTOR:PROJECT:ID)")]
    NotASessionId(String),
    #[error("profile `{0}` (kind generic) cannot follow up a session")]
    CannotFollowUp(String),
    #[error("agent task failed: {0}")]
    Task(String),
    #[error("agent timed out after {}", humantime::format_duration(*.0))]
    Timeout(Duration),
    #[error("agent printed nothing for longer than idle_timeout")]
    Idle,
    #[error("interrupted")]
    Interrupted,
    #[error("agent was stopped")]
    Stopped,
    #[error("agent exited with code {code}; see {log}")]
    Exited { code: String, log: String },
    #[error("agent reported an error: {0}")]
    Reported(String),
    #[error(
        "agent `{profile}` printed a line longer than {mib} MiB on stdout, the most runner reads of an event (or a generic agent's answer) line; it was stopped"
    )]
    Overlong { profile: String, mib: usize },
    /// The agent's own id, as it printed it: shown escaped, used nowhere.
    #[error(
        "the agent printed an invalid session id: {}: a session id is 1 to 256 letters, digits, `.`, `_`, `:` or `-` (as Claude's, Codex's, Gemini's and opencode's are)",
        crate::agent::session_id::shown(.0)
    )]
    InvalidSessionId(String),
}

impl From<AgentError> for StepError {
    fn from(e: AgentError) -> StepError {
        let kind = match &e {
            // What the machine or the profiles lack: exit code 3.
            AgentError::UnknownProfile(_)
            | AgentError::UnknownVariant { .. }
            | AgentError::NoCommand(_)
            | AgentError::BinaryNotFound { .. }
            | AgentError::Spawn { .. } => ErrorKind::Environment,
            AgentError::Timeout(_) | AgentError::Idle => ErrorKind::Timeout,
            AgentError::Interrupted => ErrorKind::Interrupted,
            AgentError::NoWorkspace(_)
            | AgentError::NoSession(_)
            | AgentError::StillRunning(_)
            | AgentError::NotASessionId(_)
            | AgentError::CannotFollowUp(_)
            | AgentError::Task(_)
            | AgentError::Stopped
            | AgentError::Exited { .. }
            | AgentError::Reported(_)
            | AgentError::Overlong { .. }
            | AgentError::InvalidSessionId(_) => ErrorKind::CommandFailed,
        };
        StepError::new(kind, e.to_string())
    }
}
