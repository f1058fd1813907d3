//! The results of steps and flows, as reports show them.

use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

use super::{ErrorKind, Location, StepError};

/// passed | failed | skipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Outcome {
    Passed,
    Failed,
    Skipped,
}

/// One step's result. `outcome` is what happened; `conclusion` is what it means for the flow
/// (a failed step with `continue_on_error` concludes `passed`).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct StepResult {
    pub(crate) index: usize,
    pub(crate) id: Option<String>,
    pub(crate) name: String,
    pub(crate) action: &'static str,
    pub(crate) outcome: Outcome,
    pub(crate) conclusion: Outcome,
    pub(crate) attempts: u32,
    pub(crate) flaky: bool,
    #[serde(serialize_with = "millis", rename = "duration_ms")]
    pub(crate) duration: Duration,
    pub(crate) error: Option<StepError>,
    /// Why each attempt that failed failed, in order (a retried step's history; the last one of
    /// a step that failed is `error`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) attempt_errors: Vec<StepError>,
    #[serde(serialize_with = "exact_outputs")]
    pub(crate) outputs: Value,
    /// What the browser showed when the step failed (`screenshot`, `snapshot`: files runner
    /// wrote; or the `dialog` that blocked the page): runner's own record, apart from the
    /// outputs, which are data a flow makes (a sub-flow's `outputs` say what they like) and are
    /// never taken for paths to read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) failure_artifacts: Option<Value>,
    /// Where the step is in its flow file.
    pub(crate) location: Location,
    /// Whether it is a `finally` step.
    pub(crate) finally: bool,
    /// Steps of a `run_flow` sub-flow.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) steps: Vec<StepResult>,
    /// What the flow's trace shows of the step (the trace file says it, not the reports).
    #[serde(skip)]
    pub(crate) trace: StepTrace,
}

/// What a flow's trace shows of one step beyond its result: when it started, the picture of
/// the page after it, what the page logged and the requests that failed during it.
#[derive(Debug, Clone, Default)]
pub(crate) struct StepTrace {
    pub(crate) started: Option<std::time::Instant>,
    /// When it started, on the clock the browser stamps its events with.
    pub(crate) wall: Option<std::time::SystemTime>,
    /// A small JPEG of the page after a browser step that passed (one that failed has its
    /// failure screenshot): written there once the trace is kept.
    pub(crate) picture: Option<PathBuf>,
    /// Why the step has no picture with `trace: on` (its page showed a secret).
    pub(crate) picture_left_out: Option<&'static str>,
    /// The console messages of the flow's tabs during the step (unmasked: the trace file is),
    /// put there at the flow's end.
    pub(crate) console: Vec<serde_json::Value>,
    /// The requests of the flow's tabs that failed during the step (unmasked), as `console`.
    pub(crate) network: Vec<serde_json::Value>,
}

impl StepTrace {
    /// The trace of a step that starts now (`started`).
    pub(crate) fn starting(started: std::time::Instant) -> StepTrace {
        StepTrace {
            started: Some(started),
            wall: Some(std::time::SystemTime::now()),
            ..StepTrace::default()
        }
    }
}

/// The `action` of the result of one iteration of an `each` step (its steps are that
/// iteration's).
pub(crate) const ITERATION: &str = "iteration";

impl StepResult {
    /// Whether the step holds steps the engine ran as steps of their own: a `group`, an `each`,
    /// one iteration of an `each` (a `run_flow`'s steps are another flow's).
    pub(crate) fn holds_steps(&self) -> bool {
        matches!(self.action, "group" | "each" | ITERATION)
    }
}

/// The step among `steps` whose failure fails them (the first that concludes `failed`) and,
/// when it holds steps, the one inside it, down to a step that holds none: the names on the way
/// (`each item in vars.items`, `item[2]`, `fill .new-todo`) and that last step.
pub(crate) fn failed_among(steps: &[StepResult]) -> Option<(Vec<&str>, &StepResult)> {
    let failed = steps.iter().find(|s| s.conclusion == Outcome::Failed)?;
    let below = failed
        .holds_steps()
        .then(|| failed_among(&failed.steps))
        .flatten();
    let (mut names, leaf) = below.unwrap_or((Vec::new(), failed));
    names.insert(0, failed.name.as_str());
    Some((names, leaf))
}

/// passed | failed | error (environment) | interrupted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum FlowStatus {
    Passed,
    Failed,
    /// The environment is missing something (exit code 3).
    Error,
    Interrupted,
}

impl FlowStatus {
    /// The status of a flow that failed with an error of `kind`.
    pub(crate) fn of(kind: ErrorKind) -> FlowStatus {
        match kind {
            ErrorKind::Environment | ErrorKind::Internal => FlowStatus::Error,
            ErrorKind::Interrupted => FlowStatus::Interrupted,
            ErrorKind::Timeout
            | ErrorKind::NotFound
            | ErrorKind::Assertion
            | ErrorKind::CommandFailed
            | ErrorKind::Skill
            | ErrorKind::Template => FlowStatus::Failed,
        }
    }

    /// The lowercase name.
    pub(crate) fn as_str(self) -> &'static str {
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
pub(crate) struct FlowResult {
    pub(crate) name: String,
    pub(crate) file: PathBuf,
    pub(crate) status: FlowStatus,
    #[serde(serialize_with = "millis", rename = "duration_ms")]
    pub(crate) duration: Duration,
    pub(crate) steps: Vec<StepResult>,
    /// A failure outside any step (a missing secret, a server that did not start).
    pub(crate) error: Option<StepError>,
    /// Whether a step passed only after a retry (or the flow, after `--retries`).
    pub(crate) flaky: bool,
    /// Why each earlier run of the flow failed, when `--retries` ran it again (in order).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) retry_errors: Vec<StepError>,
    /// From the flow's start to its first step: its web server's start, its vars, its browser
    /// context.
    #[serde(serialize_with = "millis", rename = "setup_ms")]
    pub(crate) setup: Duration,
    /// Its own web server's log (absolute), when it started a command.
    #[serde(skip_serializing_if = "Option::is_none", rename = "web_server_log")]
    pub(crate) server_log: Option<String>,
    /// Its trace file (absolute), when one was kept (`--trace`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) trace: Option<String>,
    /// The run (1 the first) whose trace `trace` is, when it is not the run the result tells
    /// of: a flaky flow's failed run (`--retries`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) trace_attempt: Option<u32>,
    /// Why its web server's command has no log (a symlink stood in its place).
    #[serde(
        skip_serializing_if = "Option::is_none",
        rename = "web_server_log_not_kept"
    )]
    pub(crate) server_log_not_kept: Option<String>,
    /// Downloads past the flow's bound, cancelled and not kept: how many (see
    /// `browser::driver::cdp::download_cap`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) downloads_not_kept: Option<String>,
    /// An atlas replay's check of the state it arrived at, when it differs from the one
    /// recorded (`atlas::StateDiff` as JSON: the route, elements added, removed or renamed,
    /// data drift).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) state: Option<serde_json::Value>,
}

impl FlowResult {
    /// A flow's result with nothing in it yet: no steps, no time, no error, nothing kept.
    pub(crate) fn new(name: String, file: PathBuf, status: FlowStatus) -> FlowResult {
        FlowResult {
            name,
            file,
            status,
            duration: Duration::ZERO,
            steps: Vec::new(),
            error: None,
            flaky: false,
            retry_errors: Vec::new(),
            setup: Duration::ZERO,
            server_log: None,
            trace: None,
            trace_attempt: None,
            server_log_not_kept: None,
            downloads_not_kept: None,
            state: None,
        }
    }

    /// A flow that ended (`status`) before its steps, for `error`.
    pub(crate) fn not_run(
        name: String,
        file: PathBuf,
        status: FlowStatus,
        error: StepError,
    ) -> FlowResult {
        FlowResult {
            error: Some(error),
            ..FlowResult::new(name, file, status)
        }
    }
}

/// A run-level web server as reports show it.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub(crate) struct ServerInfo {
    pub(crate) name: String,
    pub(crate) url: String,
    /// Its log (absolute; none when runner started nothing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) log: Option<String>,
    /// Why runner started its command but kept no log (a symlink stood in its place).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) log_not_kept: Option<String>,
    /// How long its start took, readiness included.
    pub(crate) start_ms: u64,
    /// Found answering before the start (`reuse_existing`): runner started nothing.
    pub(crate) reused: bool,
    /// Why it was not there for the whole run: it did not start, or exited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<String>,
}

fn millis<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// A step's outputs as the reports write them: a `request`'s `json` whose body holds integers
/// wider than 64 bits is written as the body spells it, the numbers templates compare (the
/// parsed one holds them as the nearest floats: a user reading why `steps.r.json.id != ...`
/// failed saw another number; review 26, F10). Any other outputs are written as they are.
fn exact_outputs<S: serde::Serializer>(outputs: &Value, s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let map = outputs.as_object();
    let exact = map
        .filter(|o| o.get("json").is_some_and(|j| !j.is_null()))
        .and_then(|o| o.get("body")?.as_str())
        .filter(|b| !crate::template::json_size::wide_integer_spans(b).is_empty())
        .and_then(|b| serde_json::value::RawValue::from_string(b.trim().to_string()).ok());
    let (Some(exact), Some(map)) = (exact, map) else {
        return outputs.serialize(s);
    };
    let mut m = s.serialize_map(Some(map.len()))?;
    for (k, v) in map {
        if k == "json" {
            m.serialize_entry(k, &exact)?;
        } else {
            m.serialize_entry(k, v)?;
        }
    }
    m.end()
}
