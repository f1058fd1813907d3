//! What can go wrong with an atlas, and what that is to a step.

use crate::step::{ErrorKind, StepError};

/// What can go wrong with an atlas.
#[derive(Debug, thiserror::Error)]
pub(crate) enum AtlasError {
    #[error("{path}: {message}")]
    Io { path: String, message: String },
    #[error("link `{action}` of node {from} already leads to {existing}, not {target}")]
    LinkExists {
        from: String,
        action: String,
        existing: String,
        target: String,
    },
    #[error("the atlas is broken at {path}: {message}")]
    Broken { path: String, message: String },
    /// A step the atlas holds that runner does not run (see `config::stored`): the message
    /// names the file and the step.
    #[error("{0}")]
    Refused(String),
    /// A step the atlas holds reads a secret the project's `[atlas] secrets` does not name:
    /// the project's configuration (exit code 2), no verdict on the app; the message names
    /// the file, the step and the setting that lets it.
    #[error("{0}")]
    Unconfigured(String),
    /// Steps the atlas holds would hand a secret to code the page runs or put one into a URL,
    /// or read one without naming it (see `Reach::admit_all`): refused before anything runs,
    /// the atlas's problem (exit code 2), no verdict on the app; the message names the file,
    /// the step and why.
    #[error("{0}")]
    Exposed(String),
    #[error("no node `{0}` in the atlas")]
    NotFound(String),
    #[error(
        "the atlas at {path} tells states apart by `{has}` (its atlas.json), not by `{wanted}`: record into another atlas directory, or drop the setting to use this one as it is"
    )]
    Fingerprint {
        path: String,
        has: &'static str,
        wanted: &'static str,
    },
    #[error(
        "{a} tells states apart by `{a_mode}` and {b} by `{b_mode}` (see their atlas.json): their states cannot be matched; explore into a new atlas with `--fingerprint {a_mode}` to compare it with {a}"
    )]
    Incomparable {
        a: String,
        b: String,
        a_mode: &'static str,
        b_mode: &'static str,
    },
    /// The browser a replay ran in failed it (it exited, or did not answer): the environment's
    /// failure, no verdict on the app (exit code 3). `node` is the node whose path was
    /// replayed (`<id> (<label>)`), `message` what happened to the browser.
    #[error("the browser failed while replaying the path to {node}: {message}")]
    Browser { node: String, message: String },
}

impl From<AtlasError> for StepError {
    /// An atlas that cannot be read or written, or a replay's browser that failed, is the
    /// environment's problem (exit code 3); a conflicting or broken atlas fails the step.
    fn from(e: AtlasError) -> StepError {
        let kind = match e {
            AtlasError::Browser { .. } => {
                return StepError::new(ErrorKind::Environment, e.to_string());
            }
            AtlasError::Io { .. } => ErrorKind::Environment,
            AtlasError::LinkExists { .. }
            | AtlasError::Broken { .. }
            | AtlasError::Refused(_)
            | AtlasError::Unconfigured(_)
            | AtlasError::Exposed(_)
            | AtlasError::NotFound(_)
            | AtlasError::Fingerprint { .. }
            | AtlasError::Incomparable { .. } => ErrorKind::CommandFailed,
        };
        StepError::new(kind, format!("atlas: {e}"))
    }
}
