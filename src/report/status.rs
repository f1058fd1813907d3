//! One live status line for long commands (`explore`): a spinner in a terminal, plain lines in CI.

use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

use super::Reporter;

/// A status line.
pub(crate) struct Status {
    reporter: Reporter,
    bar: Option<ProgressBar>,
}

impl Status {
    /// A spinner when the output is live, else nothing until the first update.
    pub(crate) fn new(reporter: Reporter) -> Status {
        let bar = reporter.interactive.then(|| {
            let b = ProgressBar::new_spinner();
            b.set_style(
                ProgressStyle::with_template("{spinner} {wide_msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            b.enable_steady_tick(Duration::from_millis(100));
            b
        });
        Status { reporter, bar }
    }

    /// Replaces the status: one line, without escape sequences (it names a page's links).
    pub(crate) fn update(&self, line: &str) {
        let line = crate::step::shown::one_line(line);
        match &self.bar {
            Some(b) => b.set_message(line),
            None => self.reporter.err(&format!("{line}\n")),
        }
    }

    /// A warning line, above the status while it is live.
    pub(crate) fn warn(&self, message: &str) {
        match &self.bar {
            Some(b) => b.suspend(|| self.reporter.warn(message)),
            None => self.reporter.warn(message),
        }
    }

    /// Clears the line.
    pub(crate) fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}
