//! The results of steps and flows, as reports show them.

use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

use super::StepError;

/// passed | failed | skipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Passed,
    Failed,
    Skipped,
}

impl Outcome {
    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Passed => "passed",
            Outcome::Failed => "failed",
            Outcome::Skipped => "skipped",
        }
    }
}

/// One step's result. `outcome` is what happened; `conclusion` is what it means for the flow
/// (a failed step with `continue_on_error` concludes `passed`).
#[derive(Debug, Clone, Serialize)]
pub struct StepResult {
    pub index: usize,
    pub id: Option<String>,
    pub name: String,
    pub action: &'static str,
    pub outcome: Outcome,
    pub conclusion: Outcome,
    pub attempts: u32,
    pub flaky: bool,
    #[serde(serialize_with = "millis", rename = "duration_ms")]
    pub duration: Duration,
    pub error: Option<StepError>,
    pub outputs: Value,
    /// `file:line:col` of the step.
    pub location: String,
    /// Whether it is a `finally` step.
    pub finally: bool,
    /// Steps of a `run_flow` sub-flow.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<StepResult>,
}

/// passed | failed | error (environment) | interrupted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FlowStatus {
    Passed,
    Failed,
    /// The environment is missing something (exit code 3).
    Error,
    Interrupted,
}

impl FlowStatus {
    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            FlowStatus::Passed => "passed",
            FlowStatus::Failed => "failed",
            FlowStatus::Error => "error",
            FlowStatus::Interrupted => "interrupted",
        }
    }
}

/// One flow's result.
#[derive(Debug, Clone, Serialize)]
pub struct FlowResult {
    pub name: String,
    pub file: PathBuf,
    pub status: FlowStatus,
    #[serde(serialize_with = "millis", rename = "duration_ms")]
    pub duration: Duration,
    pub steps: Vec<StepResult>,
    /// A failure outside any step (a missing secret, a server that did not start).
    pub error: Option<StepError>,
    /// Whether a step passed only after a retry.
    pub flaky: bool,
}

fn millis<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(d.as_millis() as u64)
}
