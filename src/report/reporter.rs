//! Terminal settings and the one-shot outputs (diagnostics, plain text, summaries).

use std::io::{IsTerminal, Write};

use crate::source::Diagnostic;

/// How diagnostics are printed (`--format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum DiagnosticFormat {
    /// miette-rendered, with source excerpts, to stderr.
    Human,
    /// A JSON array to stdout.
    Json,
    /// GitHub Actions `::error` annotations to stdout.
    Github,
}

/// How and where output goes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Reporter {
    /// Live output (a terminal, not CI).
    pub(crate) interactive: bool,
    /// Colours allowed.
    pub(crate) color: bool,
}

impl Reporter {
    /// Settings from the environment: `CI`, `NO_COLOR`, whether stderr is a terminal.
    pub(crate) fn from_env() -> Reporter {
        let tty = std::io::stderr().is_terminal();
        let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0");
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Reporter {
            interactive: tty && !ci,
            // Colour in a terminal, never in CI logs (NO_COLOR also turns it off).
            color: tty && !no_color && !ci,
        }
    }

    /// Prints diagnostics in the chosen format (human and github to stderr, json to stdout).
    pub(crate) fn diagnostics(&self, diags: &[Diagnostic], format: DiagnosticFormat) {
        match format {
            DiagnosticFormat::Json => {
                let text = super::diagnostics::json(diags);
                self.out(&format!("{text}\n"));
            }
            DiagnosticFormat::Github => {
                let mut s = String::new();
                for d in diags {
                    s.push_str(&super::diagnostics::github(d));
                    s.push('\n');
                }
                self.out(&s);
            }
            DiagnosticFormat::Human => {
                let mut s = String::new();
                for d in diags {
                    s.push_str(&super::diagnostics::human(d, self.color));
                }
                self.err(&s);
            }
        }
    }

    /// The last line of `validate`.
    pub(crate) fn validate_summary(&self, files: usize, problems: usize, format: DiagnosticFormat) {
        if format != DiagnosticFormat::Human {
            return;
        }
        let f = if files == 1 { "file" } else { "files" };
        if problems == 0 {
            self.err(&format!("ok: {files} {f} valid\n"));
        } else {
            let p = if problems == 1 { "problem" } else { "problems" };
            self.err(&format!("error: {problems} {p} in {files} {f}\n"));
        }
    }

    /// Writes to stdout; a closed pipe is not an error worth reporting.
    pub(crate) fn out(&self, text: &str) {
        let mut o = std::io::stdout().lock();
        let _ = o.write_all(text.as_bytes());
        let _ = o.flush();
    }

    /// Writes to stderr.
    pub(crate) fn err(&self, text: &str) {
        let mut e = std::io::stderr().lock();
        let _ = e.write_all(text.as_bytes());
        let _ = e.flush();
    }

    /// A warning line (`warning: ...`): something suspicious that does not stop the run.
    pub(crate) fn warn(&self, message: &str) {
        self.err(&format!("warning: {message}\n"));
    }

    /// An error line (`error: ...`).
    pub(crate) fn error(&self, message: &str) {
        self.err(&format!("error: {message}\n"));
    }
}
