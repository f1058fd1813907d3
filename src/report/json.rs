//! The JSON report: `{"run_id", "flows": [...], "summary": {...}}`, the report document itself
//! (see `model`).

use serde_json::Value;

use super::model::Report;

/// The report as JSON.
pub(crate) fn report(r: &Report) -> Value {
    // A document of strings, numbers and values always serializes.
    serde_json::to_value(r).unwrap_or_default()
}
