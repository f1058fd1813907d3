//! The errors a command ends with when it cannot do its work, and how they are shown
//! (`exit::code` turns them into exit codes).

use crate::atlas::AtlasError;
use crate::report::{DiagnosticFormat, Reporter};
use crate::source::Diagnostic;

/// Why a subcommand could not do its work. (A run whose flows fail is not an error: it ends
/// with the code its results give.)
#[derive(Debug, thiserror::Error)]
pub(crate) enum CliError {
    /// A command line clap refused (printed by clap, with the usage).
    #[error("{0}")]
    Arguments(clap::Error),
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
    /// Shows the error: clap's own rendering, diagnostics with their note, else one line.
    pub(crate) fn report(&self, reporter: &Reporter) {
        match self {
            CliError::Arguments(e) => {
                let _ = e.print();
            }
            CliError::Invalid { diagnostics, note } => {
                reporter.diagnostics(diagnostics, DiagnosticFormat::Human);
                if let Some(n) = note {
                    reporter.error(n);
                }
            }
            other => reporter.error(&other.to_string()),
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
