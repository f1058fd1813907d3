//! A flow's trace (`--trace`): the timeline of its steps, written at its end to
//! `<flow artifacts>/trace/trace.json` beside the pictures of its browser steps. Per step, in
//! the order the report lists them (each step, then the steps it holds): its start (from the
//! flow's) and duration, its outcome, error and outputs, the console messages and failed
//! requests of the flow's tabs during it, the picture of the page after it (the failure
//! screenshot of one that failed) and, at the failure, the page's snapshot. Every text goes
//! through the flow's masker.
//!
//! What is recorded comes from runner's own DevTools session on the flow's tabs (see
//! `browser::driver::recorder`): the picture after a step is the latest screencast frame of the
//! flow's tab at the step's end. With `on` each picture is written as its step ends; with
//! `retain-on-failure` they are held in memory (the latest `HELD_PICTURES` of a flow) and
//! written only when the flow did not pass, so a passing run writes nothing.

use std::path::Path;
use std::time::Instant;

use serde_json::{Value, json};

use super::runtime::Frame;
use crate::browser::HeldPictures;
use crate::config::model::Step;
use crate::config::trace_mode::TraceMode;
use crate::step::{FlowResult, FlowStatus, Masker, StepResult};

/// The directory of a flow's trace, in its artifacts directory (a sub-flow's pictures are in
/// its own directory's).
pub(crate) const DIR: &str = "trace";

/// The trace file's name.
const FILE: &str = "trace.json";

/// After a step (the `index`-th of its frame, `passed` or not): what the trace keeps of it
/// beyond its result. Its picture (a browser step's: one that failed has its failure
/// screenshot, when one could be taken), at `<frame's dir>/trace/NNN-<id>.jpg`: written now
/// with `on`, held until the flow's end with `retain-on-failure`. What the flow's tabs logged
/// during it.
pub(crate) async fn record(
    mode: TraceMode,
    frame: &Frame<'_>,
    (step, index, passed): (&Step, usize, bool),
    result: &mut StepResult,
) {
    let (picture, logged) = frame.browser.recorded(step.action.needs_browser()).await;
    result.trace.console = logged.console;
    result.trace.network = logged.network;
    // A failed step's picture is its failure screenshot, when it has one.
    let shot = |a: &Value| a["screenshot"].is_string();
    let has_shot = !passed && result.failure_artifacts.as_ref().is_some_and(shot);
    let Some(jpeg) = picture.filter(|_| !has_shot) else {
        return;
    };
    let base = super::artifacts::step_base(&frame.prefix, index, step, step.action.key());
    let path = frame.dir.join(DIR).join(format!("{base}.jpg"));
    if mode == TraceMode::On {
        if write(&path, &jpeg) {
            result.trace.picture = Some(path);
        }
    } else {
        frame.browser.hold_picture(path.clone(), jpeg);
        result.trace.picture = Some(path);
    }
}

/// Writes `bytes` to `path`, its directory made; false when it cannot be (the trace goes
/// without it: the run goes on).
fn write(path: &Path, bytes: &[u8]) -> bool {
    path.parent()
        .is_some_and(|d| std::fs::create_dir_all(d).is_ok())
        && std::fs::write(path, bytes).is_ok()
}

/// At a flow's end: writes its trace into `dir` (its artifacts directory), with the pictures
/// `held` for it, and names it in `result`, when `mode` keeps it. `started`: the flow's start.
pub(crate) fn finish(
    mode: TraceMode,
    (dir, started): (&Path, Instant),
    result: &mut FlowResult,
    masker: &Masker,
    (held, let_go): HeldPictures,
) {
    if !mode.records() || !mode.keeps(result.status == FlowStatus::Passed) {
        return;
    }
    for (path, jpeg) in &held {
        write(path, jpeg);
    }
    let mut steps = Vec::new();
    entries(&result.steps, 0, started, &mut steps);
    let mut trace = json!({
        "flow": result.name,
        "status": result.status.as_str(),
        "duration_ms": millis(result.duration),
        "steps": steps,
    });
    if let_go > 0 {
        trace["pictures_left_out"] = json!(format!(
            "the pictures of the first {let_go} browser steps: a flow's trace holds its latest {} until the flow ends",
            crate::browser::HELD_PICTURES
        ));
    }
    let trace = masker.mask_value(&trace);
    let path = dir.join(DIR).join(FILE);
    // A trace that cannot be written leaves the report without it; the run goes on.
    let written = std::fs::create_dir_all(dir.join(DIR)).is_ok()
        && crate::fs::write_atomic(&path, trace.to_string().as_bytes()).is_ok();
    if written {
        result.trace = Some(path.display().to_string());
    }
}

/// The entries of `steps` and of the steps they hold, depth first (the report's order).
fn entries(steps: &[StepResult], depth: usize, started: Instant, out: &mut Vec<Value>) {
    for s in steps {
        let arts = s.failure_artifacts.as_ref();
        // A picture let go (see `HELD_PICTURES`) or not written is none.
        let picture = s
            .trace
            .picture
            .as_ref()
            .filter(|p| p.is_file())
            .map(|p| p.display().to_string())
            .or_else(|| {
                arts.and_then(|a| a["screenshot"].as_str())
                    .map(String::from)
            });
        let start = s
            .trace
            .started
            .map(|t| millis(t.saturating_duration_since(started)));
        out.push(json!({
            "name": s.name,
            "action": s.action,
            "depth": depth,
            "start_ms": start,
            "duration_ms": millis(s.duration),
            "outcome": s.outcome,
            "error": s.error.as_ref().map(|e| json!({"kind": e.kind.as_str(), "message": e.message})),
            "outputs": s.outputs,
            "console": s.trace.console,
            "network": s.trace.network,
            "picture": picture,
            "snapshot": arts.and_then(|a| a["snapshot"].as_str()),
            "dialog": arts.map(|a| a["dialog"].clone()).filter(|d| !d.is_null()),
        }));
        entries(&s.steps, depth + 1, started, out);
    }
}

fn millis(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    use serde_json::{Value, json};

    use super::finish;
    use crate::config::trace_mode::TraceMode;
    use crate::source::SourceFile;
    use crate::step::{FlowResult, FlowStatus, Location, Masker, Outcome, StepResult, StepTrace};

    /// A flow of one passed browser step whose picture goes to `picture`, logging `text`.
    fn flow(status: FlowStatus, picture: PathBuf, text: &str) -> FlowResult {
        let file = SourceFile::new(std::path::Path::new("f.yaml"), "steps: []\n".into());
        let step = StepResult {
            index: 0,
            id: None,
            name: "click".into(),
            action: "click",
            outcome: Outcome::Passed,
            conclusion: Outcome::Passed,
            attempts: 1,
            flaky: false,
            duration: Duration::from_millis(5),
            error: None,
            attempt_errors: Vec::new(),
            outputs: json!({}),
            failure_artifacts: None,
            location: Location::new(file, 0..5),
            finally: false,
            steps: Vec::new(),
            trace: StepTrace {
                started: Some(Instant::now()),
                picture: Some(picture),
                console: vec![json!({"level": "log", "text": text})],
                network: Vec::new(),
            },
        };
        FlowResult {
            name: "f".into(),
            file: PathBuf::from("f.yaml"),
            status,
            duration: Duration::from_millis(9),
            steps: vec![step],
            error: None,
            flaky: false,
            retry_errors: Vec::new(),
            setup: Duration::ZERO,
            server_log: None,
            trace: None,
            state: None,
        }
    }

    /// `retain-on-failure`: a passed flow's held pictures are never written, nor its trace; a
    /// failed flow's are, its trace masked and saying how many pictures it let go.
    #[test]
    fn held_pictures_are_written_only_for_a_kept_trace() {
        let d = tempfile::tempdir().unwrap();
        let pic = d.path().join("trace/001-click.jpg");
        let masker = Masker::default();
        masker.add("hunter22");
        let held = || (vec![(pic.clone(), Arc::new(vec![0xFF, 0xD8, 0xFF]))], 3);
        let mut passed = flow(FlowStatus::Passed, pic.clone(), "pw hunter22");
        let at = (d.path(), Instant::now());
        finish(TraceMode::RetainOnFailure, at, &mut passed, &masker, held());
        assert!(passed.trace.is_none());
        assert!(!d.path().join("trace").exists());
        let mut failed = flow(FlowStatus::Failed, pic.clone(), "pw hunter22");
        finish(TraceMode::RetainOnFailure, at, &mut failed, &masker, held());
        let text = std::fs::read_to_string(failed.trace.unwrap()).unwrap();
        let trace: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(trace["steps"][0]["picture"], pic.display().to_string());
        assert_eq!(std::fs::read(&pic).unwrap(), [0xFF, 0xD8, 0xFF]);
        assert_eq!(trace["steps"][0]["console"][0]["text"], "pw ***");
        assert!(
            trace["pictures_left_out"]
                .as_str()
                .unwrap()
                .starts_with("the pictures of the first 3 browser steps")
        );
    }
}
