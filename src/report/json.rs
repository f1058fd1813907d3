//! The JSON report: `{"flows": [...], "summary": {...}}`.

use std::time::Duration;

use serde_json::{Value, json};

use crate::engine::{FlowResult, FlowStatus, StepResult};

/// The report as JSON.
pub fn report(results: &[FlowResult], not_run: usize, elapsed: Duration, run_id: &str) -> Value {
    let count = |st: FlowStatus| results.iter().filter(|r| r.status == st).count();
    json!({
        "run_id": run_id,
        "flows": results.iter().map(flow).collect::<Vec<_>>(),
        "summary": {
            "total": results.len() + not_run,
            "passed": count(FlowStatus::Passed),
            "failed": count(FlowStatus::Failed),
            "errors": count(FlowStatus::Error),
            "interrupted": count(FlowStatus::Interrupted),
            "flaky": results.iter().filter(|r| r.flaky).count(),
            "skipped": not_run,
            "duration_ms": elapsed.as_millis() as u64,
        }
    })
}

fn flow(r: &FlowResult) -> Value {
    json!({
        "name": r.name,
        "file": r.file.display().to_string(),
        "status": r.status.as_str(),
        "duration_ms": r.duration.as_millis() as u64,
        "flaky": r.flaky,
        "error": r.error,
        "steps": r.steps.iter().map(step).collect::<Vec<_>>(),
    })
}

fn step(s: &StepResult) -> Value {
    let mut v = json!({
        "id": s.id,
        "name": s.name,
        "action": s.action,
        "outcome": s.outcome.as_str(),
        "conclusion": s.conclusion.as_str(),
        "attempts": s.attempts,
        "flaky": s.flaky,
        "duration_ms": s.duration.as_millis() as u64,
        "error": s.error,
        "outputs": s.outputs,
        "location": s.location,
        "finally": s.finally,
    });
    if !s.steps.is_empty()
        && let Some(o) = v.as_object_mut()
    {
        o.insert("steps".into(), s.steps.iter().map(step).collect());
    }
    v
}
