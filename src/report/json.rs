//! The JSON report: `{"run_id", "flows": [...], "summary": {...}}`, serialized from the result
//! types themselves.

use serde_json::{Value, json};

use super::Summary;
use crate::step::FlowResult;

/// The report as JSON.
pub(crate) fn report(results: &[FlowResult], s: &Summary) -> Value {
    json!({
        "run_id": s.run_id,
        "flows": results,
        "summary": {
            "total": s.total,
            "passed": s.passed,
            "failed": s.failed,
            "errors": s.errors,
            "interrupted": s.interrupted,
            "flaky": s.flaky,
            "skipped": s.skipped,
            "duration_ms": u64::try_from(s.elapsed.as_millis()).unwrap_or(u64::MAX),
        }
    })
}
