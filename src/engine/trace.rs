//! A flow's trace (`--trace`): the timeline of its steps, written at its end to
//! `<flow artifacts>/trace/trace.json` beside the pictures its browser steps left there. Per
//! step, in the order the report lists them (each step, then the steps it holds): its start
//! (from the flow's) and duration, its outcome, error and outputs, the picture of the page
//! after it (the failure screenshot of one that failed) and, at the failure, the page's
//! snapshot. Every text goes through the flow's masker. A trace the mode does not keep (a
//! passed flow's under `retain-on-failure`) is removed, pictures and all.

use std::path::Path;
use std::time::Instant;

use serde_json::{Value, json};

use crate::config::trace_mode::TraceMode;
use crate::step::{FlowResult, FlowStatus, Masker, StepResult};

/// The directory of a flow's trace, in its artifacts directory (a sub-flow's pictures are in
/// its own directory's).
pub(crate) const DIR: &str = "trace";

/// The trace file's name.
const FILE: &str = "trace.json";

/// At a flow's end: writes its trace into `dir` (its artifacts directory) and names it in
/// `result`, or removes it when `mode` does not keep it. `started`: the flow's start.
pub(crate) fn finish(
    mode: TraceMode,
    dir: &Path,
    started: Instant,
    result: &mut FlowResult,
    masker: &Masker,
) {
    if !mode.records() {
        return;
    }
    if !mode.keeps(result.status == FlowStatus::Passed) {
        remove(dir, &result.steps);
        return;
    }
    let mut steps = Vec::new();
    entries(&result.steps, 0, started, &mut steps);
    let trace = json!({
        "flow": result.name,
        "status": result.status.as_str(),
        "duration_ms": millis(result.duration),
        "steps": steps,
    });
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
        let picture = s
            .trace
            .picture
            .as_ref()
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
            "picture": picture,
            "snapshot": arts.and_then(|a| a["snapshot"].as_str()),
            "dialog": arts.map(|a| a["dialog"].clone()).filter(|d| !d.is_null()),
        }));
        entries(&s.steps, depth + 1, started, out);
    }
}

/// Removes a trace: the flow's trace directory and the pictures of its sub-flows' steps.
fn remove(dir: &Path, steps: &[StepResult]) {
    let _ = std::fs::remove_dir_all(dir.join(DIR));
    remove_pictures(steps);
}

/// Removes the pictures of `steps` and of the steps they hold, and a directory they leave
/// empty (a sub-flow's trace directory).
fn remove_pictures(steps: &[StepResult]) {
    for s in steps {
        if let Some(p) = &s.trace.picture {
            let _ = std::fs::remove_file(p);
            if let Some(d) = p.parent() {
                let _ = std::fs::remove_dir(d);
            }
        }
        remove_pictures(&s.steps);
    }
}

fn millis(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
