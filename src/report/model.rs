//! The report document every report file is written from: what the JSON report holds, read
//! back as types. A run builds it from its results; `merge-reports` reads it from the JSON
//! reports of several shards; JUnit and HTML are written from it either way, so a merged report
//! is the same as a run's.

use std::time::Duration;

use serde::{Deserialize, Serialize, Serializer};
use serde_json::value::RawValue;

use super::Summary;
use super::reads::Reads;
use crate::step::{FlowResult, ServerInfo};

/// `{"run_id", "shard", "flows", "summary", "web_servers"}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Report {
    pub(crate) run_id: String,
    /// Which shard of a run this report is (`run --shard I/N`): what `merge-reports` tells a
    /// whole set of shards by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) shard: Option<Shard>,
    pub(crate) flows: Vec<Flow>,
    pub(crate) summary: Counts,
    /// The run's servers (runner.toml's `[[web_server]]`): URL, start time, log.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) web_servers: Vec<Server>,
}

/// `run --shard INDEX/TOTAL`, and what the run selected before it took its shard.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Shard {
    pub(crate) index: usize,
    pub(crate) total: usize,
    /// The same in every shard of one run: `merge-reports` refuses shards whose selections
    /// differ (another `--grep`, another commit), and checks that the shards list every flow
    /// selected. `None` in a shard an older runner wrote.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) selection: Option<Selection>,
}

/// The flows a sharded run selected, every shard's together (the filters applied, before the
/// shard was taken).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Selection {
    /// How many (each `--repeat-each` run one).
    pub(crate) flows: usize,
    /// Their [`Selection::fingerprint`]: shards with the same count and other flows differ.
    pub(crate) fingerprint: String,
    /// The filters that selected them (``--grep `f[1-4]` ``, each tag once, sorted); none: every
    /// flow found. Shown, not compared: the fingerprint says what they selected.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) filters: Vec<String>,
}

impl Selection {
    /// The SHA-256 (hex) of `flows` (file relative to the project's root, see
    /// `run_reports::selection_root`, and name as reports give it), in any order: the same on
    /// every machine of a CI matrix, whatever folder each job starts in.
    pub(crate) fn fingerprint<'a>(flows: impl Iterator<Item = (&'a str, &'a str)>) -> String {
        use sha2::Digest;
        let mut sorted: Vec<(&str, &str)> = flows.collect();
        sorted.sort_unstable();
        let text = serde_json::to_string(&sorted).unwrap_or_default();
        sha2::Sha256::digest(text.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// In words: `4 flows selected by --grep `f[1-4]``, or `5 flows selected with no filter`.
    pub(crate) fn described(&self) -> String {
        if self.filters.is_empty() {
            format!("{} flows selected with no filter", self.flows)
        } else {
            format!(
                "{} flows selected by {}",
                self.flows,
                self.filters.join(" ")
            )
        }
    }
}

/// A run-level server, and which files its log may be read from.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Server {
    #[serde(flatten)]
    pub(crate) info: crate::step::ServerInfo,
    #[serde(skip)]
    pub(crate) reads: Reads,
}

/// The counts of a report.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Counts {
    pub(crate) total: usize,
    pub(crate) passed: usize,
    pub(crate) failed: usize,
    pub(crate) errors: usize,
    pub(crate) interrupted: usize,
    pub(crate) flaky: usize,
    pub(crate) skipped: usize,
    pub(crate) duration_ms: u64,
}

/// One flow.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Flow {
    pub(crate) name: String,
    pub(crate) file: String,
    /// passed | failed | error | interrupted | skipped (never started).
    pub(crate) status: String,
    pub(crate) duration_ms: u64,
    pub(crate) steps: Vec<Step>,
    pub(crate) error: Option<Error>,
    pub(crate) flaky: bool,
    /// Why each earlier run failed, when `--retries` ran the flow again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) retry_errors: Vec<Error>,
    /// From the flow's start to its first step (web server, vars, browser context).
    #[serde(default)]
    pub(crate) setup_ms: u64,
    /// Its own web server's log (absolute).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) web_server_log: Option<String>,
    /// Its trace file (absolute), when one was kept (`--trace`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) trace: Option<String>,
    /// The run (1 the first) whose trace `trace` is, when not the run the flow's result tells
    /// of (a flaky flow's failed run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) trace_attempt: Option<u32>,
    /// Why its web server's command has no log (a symlink stood in its place).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) web_server_log_not_kept: Option<String>,
    /// Downloads past the flow's bound, cancelled and not kept: how many.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) downloads_not_kept: Option<String>,
    /// An atlas replay's check of the state it arrived at, when it differs from the recorded
    /// one: what was expected and what was found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) state: Option<crate::atlas::StateDiff>,
    /// Which files the paths of this flow may be read from (not part of the document: a run
    /// or `merge-reports` says).
    #[serde(skip)]
    pub(crate) reads: Reads,
}

/// One step.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Step {
    pub(crate) index: usize,
    pub(crate) id: Option<String>,
    pub(crate) name: String,
    pub(crate) action: String,
    /// passed | failed | skipped: what happened.
    pub(crate) outcome: String,
    /// What it means for the flow (a failure with `continue_on_error` concludes `passed`).
    pub(crate) conclusion: String,
    pub(crate) attempts: u32,
    pub(crate) flaky: bool,
    pub(crate) duration_ms: u64,
    pub(crate) error: Option<Error>,
    /// Why each failed attempt failed, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) attempt_errors: Vec<Error>,
    #[serde(default)]
    pub(crate) outputs: Outputs,
    /// The files a failed browser step left (`screenshot`, `snapshot`) or the `dialog` open:
    /// runner's record, the only place reports take such paths from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) failure_artifacts: Option<FailureArtifacts>,
    /// `file:line:col`.
    pub(crate) location: String,
    pub(crate) finally: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) steps: Vec<Step>,
}

/// A step's outputs as the JSON text they are. A report only passes them on and shows a few
/// strings of them; as a tree they would cost up to 16 times their text (32 bytes a number:
/// a shard's 13 MB list of numbers took 1.5 GB), and `merge-reports` reads them from outside.
#[derive(Debug, Clone, Deserialize)]
#[serde(transparent)]
pub(crate) struct Outputs(Box<RawValue>);

impl Default for Outputs {
    fn default() -> Self {
        Outputs(RawValue::from_string("null".into()).expect("`null` is JSON"))
    }
}

/// Written through (not as one string of text), so a pretty report stays pretty inside them;
/// outputs that hold integers wider than 64 bits (a `request`'s `json`) are written as their
/// text is, which reading them through would round to floats.
impl Serialize for Outputs {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if !crate::template::json_size::wide_integer_spans(self.0.get()).is_empty() {
            return self.0.serialize(s);
        }
        let mut de = serde_json::Deserializer::from_str(self.0.get());
        serde_transcode::Transcoder::new(&mut de).serialize(s)
    }
}

impl Outputs {
    /// The string at `key` (a step's `message`, `stdout`, `stderr`), when the outputs are an
    /// object holding one there; the rest of the text is only scanned.
    pub(crate) fn text(&self, key: &str) -> Option<String> {
        #[derive(Deserialize)]
        struct Shown {
            message: Option<serde_json::Value>,
            stdout: Option<serde_json::Value>,
            stderr: Option<serde_json::Value>,
        }
        let shown: Shown = serde_json::from_str(self.0.get()).ok()?;
        let v = match key {
            "message" => shown.message,
            "stdout" => shown.stdout,
            "stderr" => shown.stderr,
            _ => None,
        }?;
        v.as_str().map(str::to_string)
    }
}

/// What a failed browser step left: runner's record of its files, and the dialog then open.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct FailureArtifacts {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) screenshot: Option<String>,
    /// Why no screenshot was taken (the page showed a secret, which pixels would show).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) screenshot_left_out: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) snapshot: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) dialog: Option<Box<RawValue>>,
}

/// A failure.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Error {
    pub(crate) kind: String,
    pub(crate) message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) location: Option<String>,
}

/// A path as reports show it: relative to where runner runs, when inside it.
pub(crate) fn shown_path(path: &str) -> String {
    std::env::current_dir()
        .ok()
        .and_then(|cwd| {
            std::path::Path::new(path)
                .strip_prefix(cwd)
                .ok()
                .map(|p| p.display().to_string())
        })
        .unwrap_or_else(|| path.to_string())
}

/// A report's `file:line:col` place as its parts (the file may hold colons itself); of a call
/// chain (`suite.yaml:12:5 > _helper.yaml:4:5`), the last place: where it failed.
pub(crate) fn place(location: &str) -> Option<(&str, usize, usize)> {
    let last = location.rsplit(" > ").next()?;
    let mut parts = last.rsplitn(3, ':');
    let col = parts.next()?.parse().ok()?;
    let line = parts.next()?.parse().ok()?;
    Some((parts.next()?, line, col))
}

impl Flow {
    pub(crate) fn duration(&self) -> Duration {
        Duration::from_millis(self.duration_ms)
    }

    /// The step that failed the flow (the first whose conclusion is `failed`).
    pub(crate) fn failed_step(&self) -> Option<&Step> {
        self.steps.iter().find(|s| s.conclusion == "failed")
    }
}

impl Report {
    /// The report of a run's results.
    pub(crate) fn of(results: &[FlowResult], s: &Summary) -> Report {
        // Through text: the report keeps outputs as the JSON text they are.
        let mut flows: Vec<Flow> = serde_json::to_string(results)
            .and_then(|t| serde_json::from_str(&t))
            .expect("the result types serialize to the report's fields (unit-tested)");
        for f in &mut flows {
            f.reads = Reads::Own;
        }
        Report {
            run_id: s.run_id.clone(),
            shard: None,
            flows,
            summary: Counts {
                total: s.total,
                passed: s.passed,
                failed: s.failed,
                errors: s.errors,
                interrupted: s.interrupted,
                flaky: s.flaky,
                skipped: s.skipped,
                duration_ms: u64::try_from(s.elapsed.as_millis()).unwrap_or(u64::MAX),
            },
            web_servers: Vec::new(),
        }
    }

    pub(crate) fn duration(&self) -> Duration {
        Duration::from_millis(self.summary.duration_ms)
    }

    /// Adds the flows the run selected but never started, as `skipped` (with `why` as their
    /// error), so a report lists every flow of the run (a JUnit dashboard counts them).
    pub(crate) fn with_unstarted(
        mut self,
        unstarted: &[(String, std::path::PathBuf)],
        why: &str,
    ) -> Report {
        self.flows.extend(unstarted.iter().map(|(name, file)| Flow {
            name: name.clone(),
            file: file.display().to_string(),
            status: "skipped".to_string(),
            duration_ms: 0,
            steps: Vec::new(),
            error: Some(Error {
                kind: "not_run".to_string(),
                message: why.to_string(),
                location: None,
            }),
            flaky: false,
            retry_errors: Vec::new(),
            setup_ms: 0,
            web_server_log: None,
            trace: None,
            trace_attempt: None,
            web_server_log_not_kept: None,
            downloads_not_kept: None,
            state: None,
            reads: Reads::Own,
        }));
        self
    }

    /// Sets the run's own servers (their logs are files of this run).
    pub(crate) fn with_servers(mut self, servers: Vec<ServerInfo>) -> Report {
        self.web_servers = servers
            .into_iter()
            .map(|info| Server {
                info,
                reads: Reads::Own,
            })
            .collect();
        self
    }

    /// Says that this report is a shard's, read from a file: its paths are read as `reads`.
    pub(crate) fn reading(&mut self, reads: &Reads) {
        for f in &mut self.flows {
            f.reads = reads.clone();
        }
        for s in &mut self.web_servers {
            s.reads = reads.clone();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::time::Duration;

    use serde_json::json;

    use super::Report;
    use crate::report::Summary;
    use crate::step::{
        ErrorKind, FlowResult, FlowStatus, Location, Outcome, StepError, StepResult,
    };

    /// Every field of the result types (nested steps, errors with and without a place) comes
    /// through the report document.
    #[test]
    fn results_make_a_report() {
        let file = crate::source::SourceFile::new(
            std::path::Path::new("f.yaml"),
            "name: x\nsteps:\n  - exec: a\n".into(),
        );
        let at = Location::new(file, 19..23);
        let step = |steps: Vec<StepResult>, error: Option<StepError>| StepResult {
            index: 0,
            id: Some("a".into()),
            name: "exec a".into(),
            action: "exec",
            outcome: Outcome::Failed,
            conclusion: Outcome::Failed,
            attempts: 2,
            flaky: false,
            duration: Duration::from_millis(12),
            attempt_errors: error.iter().cloned().collect(),
            error,
            outputs: json!({"exit_code": 1}),
            failure_artifacts: None,
            location: at.clone(),
            finally: false,
            steps,
            trace: crate::step::StepTrace::default(),
        };
        let mut e = StepError::new(ErrorKind::Assertion, "expected 1");
        e.location = Some(at.clone());
        let r = FlowResult {
            duration: Duration::from_millis(40),
            steps: vec![step(vec![step(vec![], None)], Some(e))],
            error: Some(StepError::new(ErrorKind::Environment, "no sh")),
            flaky: true,
            setup: Duration::from_millis(3),
            ..FlowResult::new("x".into(), PathBuf::from("f.yaml"), FlowStatus::Failed)
        };
        let s = Summary::of(
            std::slice::from_ref(&r),
            1,
            Duration::from_millis(50),
            "run1",
        );
        let rep = Report::of(&[r], &s);
        let f = &rep.flows[0];
        assert_eq!(
            (f.status.as_str(), f.duration_ms, f.flaky),
            ("failed", 40, true)
        );
        assert_eq!(
            f.steps[0].error.as_ref().unwrap().location.as_deref(),
            Some("f.yaml:3:5")
        );
        assert_eq!(f.steps[0].steps.len(), 1);
        assert_eq!(f.steps[0].attempt_errors[0].message, "expected 1");
        assert_eq!(f.error.as_ref().unwrap().kind, "environment");
        assert_eq!(
            (rep.summary.total, rep.summary.failed, rep.summary.skipped),
            (2, 1, 1)
        );
    }
}
