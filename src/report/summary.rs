//! The counts of a run, computed once and shown by the console and every report.

use std::time::Duration;

use crate::step::{FlowResult, FlowStatus};

/// What a run amounted to.
#[derive(Debug, Clone)]
pub(crate) struct Summary {
    pub(crate) run_id: String,
    /// Flows selected, run or not.
    pub(crate) total: usize,
    pub(crate) passed: usize,
    pub(crate) failed: usize,
    /// Flows that met an environment problem or an internal error.
    pub(crate) errors: usize,
    pub(crate) interrupted: usize,
    pub(crate) flaky: usize,
    /// Flows not run (filtered out, or never started after a failure or an interrupt).
    pub(crate) skipped: usize,
    pub(crate) elapsed: Duration,
}

impl Summary {
    /// Counts `results`; `not_run` flows were selected but never ran.
    pub(crate) fn of(
        results: &[FlowResult],
        not_run: usize,
        elapsed: Duration,
        run_id: &str,
    ) -> Summary {
        let count = |st: FlowStatus| results.iter().filter(|r| r.status == st).count();
        Summary {
            run_id: run_id.to_string(),
            total: results.len() + not_run,
            passed: count(FlowStatus::Passed),
            failed: count(FlowStatus::Failed),
            errors: count(FlowStatus::Error),
            interrupted: count(FlowStatus::Interrupted),
            flaky: results.iter().filter(|r| r.flaky).count(),
            skipped: not_run,
            elapsed,
        }
    }
}
