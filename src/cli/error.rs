//! The errors a subcommand ends with, and the one place they become exit codes.

use super::exit;
use crate::atlas::AtlasError;
use crate::source::Diagnostic;

/// Why a subcommand could not do its work. (A run whose flows fail is not an error: it ends
/// with the code its results give.)
#[derive(Debug, thiserror::Error)]
pub(crate) enum CliError {
    /// Bad command-line input.
    #[error("{0}")]
    Usage(String),
    /// Problems in files: printed as diagnostics.
    #[error("{} problem(s) found", .diagnostics.len())]
    Invalid {
        diagnostics: Vec<Diagnostic>,
        /// A last line after the diagnostics (`nothing was run`).
        note: Option<String>,
    },
    /// Something the machine lacks or cannot do.
    #[error("{0}")]
    Environment(String),
    /// Stopped by Ctrl-C, SIGTERM or SIGHUP before the work was done.
    #[error("{0}")]
    Interrupted(String),
    /// The atlas could not be read or written, or lacks what was asked for.
    #[error("{0}")]
    Atlas(#[from] AtlasError),
}

impl CliError {
    /// The exit code (SPEC §2).
    pub(crate) fn exit_code(&self) -> i32 {
        match self {
            CliError::Usage(_) | CliError::Invalid { .. } => exit::INVALID_INPUT,
            CliError::Environment(_) => exit::ENVIRONMENT,
            CliError::Interrupted(_) => exit::INTERRUPTED,
            CliError::Atlas(e) => match e {
                // Asked for a node that is not there, or an atlas that is not one: the input.
                AtlasError::NotFound(_)
                | AtlasError::Broken { .. }
                | AtlasError::LinkExists { .. } => exit::INVALID_INPUT,
                AtlasError::Io { .. } => exit::ENVIRONMENT,
            },
        }
    }

    /// File problems, with no note.
    pub(crate) fn invalid(diagnostics: Vec<Diagnostic>) -> CliError {
        CliError::Invalid {
            diagnostics,
            note: None,
        }
    }
}
