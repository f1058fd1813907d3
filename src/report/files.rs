//! The report files a run (or `atlas verify`) writes: `--report junit=PATH`, `json=PATH`,
//! `html=DIR`. Written whole or not at all (write, then rename).

use std::path::{Path, PathBuf};

use super::Summary;
use crate::step::FlowResult;

/// A report to write at the end.
#[derive(Debug, Clone)]
pub(crate) enum ReportTarget {
    Junit(PathBuf),
    Json(PathBuf),
    Html(PathBuf),
}

impl ReportTarget {
    /// Parses `--report KIND=PATH` values.
    pub(crate) fn parse_all(specs: &[String]) -> Result<Vec<ReportTarget>, String> {
        specs
            .iter()
            .map(|s| match s.split_once('=') {
                Some(("junit", p)) if !p.is_empty() => Ok(ReportTarget::Junit(PathBuf::from(p))),
                Some(("json", p)) if !p.is_empty() => Ok(ReportTarget::Json(PathBuf::from(p))),
                Some(("html", p)) if !p.is_empty() => Ok(ReportTarget::Html(PathBuf::from(p))),
                _ => Err(format!(
                    "invalid --report `{s}`: expected junit=PATH, json=PATH or html=DIR"
                )),
            })
            .collect()
    }

    /// Writes this report.
    pub(crate) fn write(&self, results: &[FlowResult], summary: &Summary) -> Result<(), String> {
        match self {
            ReportTarget::Json(p) => write_json(p, results, summary),
            ReportTarget::Junit(p) => write(p, &super::junit::report(results, summary)),
            ReportTarget::Html(dir) => write(
                &dir.join("index.html"),
                &super::html::report(results, summary),
            ),
        }
    }
}

/// Writes the JSON report to `path`.
pub(crate) fn write_json(
    path: &Path,
    results: &[FlowResult],
    summary: &Summary,
) -> Result<(), String> {
    let v = super::json::report(results, summary);
    let text = serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?;
    write(path, &text)
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    // Write then rename, so a reader never sees half a report.
    let tmp = path.with_extension("tmp~");
    std::fs::write(&tmp, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("cannot write {}: {e}", path.display()))
}
