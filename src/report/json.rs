//! The JSON report: `{"run_id", "flows": [...], "summary": {...}}`, the report document itself
//! (see `model`).

use super::model::Report;

/// Writes the report as pretty JSON to `w` as it goes: never whole in memory (a merged report
/// may be as large as its shards together).
pub(crate) fn write(w: &mut dyn std::io::Write, r: &Report) -> std::io::Result<()> {
    serde_json::to_writer_pretty(w, r).map_err(std::io::Error::from)
}
