//! `runner merge-reports`: the JSON reports of a suite's shards (`runner run --shard I/N
//! --report json=...` on each machine of a CI matrix) made into one set of reports, as if one
//! run had run them all.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::error::CliError;
use super::exit::Outcome;
use crate::report::{Reads, Report, ReportTarget, Reporter};

/// A JSON file to merge, and the directory argument it was found under (`None`: named).
struct Found {
    path: PathBuf,
    under: Option<usize>,
}

/// The JSON files named, a directory standing for the regular `*.json` files under it (any
/// depth: CI downloads each shard's artifact into a directory of its own), the shallowest
/// first, then in path order.
fn files(paths: &[PathBuf]) -> Result<Vec<Found>, CliError> {
    let mut out = Vec::new();
    for (i, p) in paths.iter().enumerate() {
        if p.is_dir() {
            let mut found = Vec::new();
            for e in walkdir::WalkDir::new(p) {
                let e = e.map_err(|e| {
                    CliError::Environment(format!("cannot read {}: {e}", p.display()))
                })?;
                if e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "json") {
                    found.push(e.into_path());
                }
            }
            found.sort_by_key(|f| (f.components().count(), f.clone()));
            out.extend(found.into_iter().map(|path| Found {
                path,
                under: Some(i),
            }));
        } else {
            out.push(Found {
                path: p.clone(),
                under: None,
            });
        }
    }
    if out.is_empty() {
        return Err(CliError::Usage(
            "no JSON report to merge (give the files, or directories holding them)".into(),
        ));
    }
    Ok(out)
}

/// The reports among `found`, each told to read only files inside its own directory. Under a
/// directory, a JSON file that is not a report (a download, a saved state) is passed over with
/// a warning, and a second copy of a run's report counts once: a run writes its report into
/// its artifacts too, so a shard whose artifacts sit inside its report's folder holds two.
fn reports(found: Vec<Found>, reporter: &Reporter) -> Result<Vec<(PathBuf, Report)>, CliError> {
    let mut texts: Vec<(Option<usize>, String)> = Vec::new();
    let mut out = Vec::new();
    for Found { path, under } in found {
        let text = read_shard(&path)?;
        let not_a_report = |e: &dyn std::fmt::Display| {
            CliError::Usage(format!(
                "{} is not a runner JSON report (`runner run --report json=PATH` writes one): {e}",
                path.display()
            ))
        };
        let shaped = serde_json::from_str::<Value>(&text)
            .map_err(|e| not_a_report(&e))?
            .as_object()
            .is_some_and(|o| {
                ["run_id", "flows", "summary"]
                    .iter()
                    .all(|k| o.contains_key(*k))
            });
        if under.is_some() && !shaped {
            // (Quoted: a file's name may hold a line break or an escape sequence.)
            reporter.warn(&format!(
                "{:?} is passed over: not a runner JSON report",
                path.display().to_string()
            ));
            continue;
        }
        if under.is_some() && texts.iter().any(|(u, t)| *u == under && *t == text) {
            continue;
        }
        let mut r: Report = serde_json::from_str(&text).map_err(|e| not_a_report(&e))?;
        known_statuses(&path, &r)?;
        let reads = Reads::shard(&path).map_err(|e| {
            CliError::Environment(format!(
                "cannot read the directory of {}: {e}",
                path.display()
            ))
        })?;
        r.reading(&reads);
        texts.push((under, text));
        out.push((path, r));
    }
    Ok(out)
}

/// Merges shard reports: every flow of every report (in file order, as one run lists them),
/// counts made again from the flows; `total` is the suite's (each shard counts the flows of the
/// others as skipped, and lists those it never started), the duration the longest shard's.
pub(crate) fn merge(reports: &[(PathBuf, Report)]) -> Result<Report, CliError> {
    let mut flows = Vec::new();
    let mut seen: std::collections::HashMap<(String, String), &Path> =
        std::collections::HashMap::new();
    for (path, r) in reports {
        for f in &r.flows {
            if let Some(other) = seen.insert((f.file.clone(), f.name.clone()), path) {
                // A shard's names are quoted: they may hold line breaks and escape sequences.
                return Err(CliError::Usage(format!(
                    "flow {:?} ({:?}) is in {} and in {}: give each shard's report once",
                    f.name,
                    f.file,
                    other.display(),
                    path.display()
                )));
            }
            flows.push(f.clone());
        }
    }
    flows.sort_by(|a, b| (&a.file, &a.name).cmp(&(&b.file, &b.name)));
    let count = |s: &str| flows.iter().filter(|f| f.status == s).count();
    let total = reports
        .iter()
        .map(|(_, r)| r.summary.total)
        .max()
        .unwrap_or(0)
        .max(flows.len());
    let summary = crate::report::Counts {
        total,
        passed: count("passed"),
        failed: count("failed"),
        errors: count("error"),
        interrupted: count("interrupted"),
        flaky: flows.iter().filter(|f| f.flaky).count(),
        skipped: total - (flows.len() - count("skipped")),
        duration_ms: reports
            .iter()
            .map(|(_, r)| r.summary.duration_ms)
            .max()
            .unwrap_or(0),
    };
    let run_id = reports
        .iter()
        .map(|(_, r)| r.run_id.as_str())
        .collect::<Vec<_>>()
        .join("+");
    // Each shard started its own run-level servers: all of them are listed.
    let web_servers = reports
        .iter()
        .flat_map(|(_, r)| r.web_servers.iter().cloned())
        .collect();
    Ok(Report {
        run_id,
        flows,
        summary,
        web_servers,
    })
}

/// A shard's report comes from outside: a flow status or a step outcome runner never writes
/// would be counted under none of the summary's counts and reach the reports as it is, so it
/// is refused.
fn known_statuses(path: &Path, r: &Report) -> Result<(), CliError> {
    const FLOW: &[&str] = &["passed", "failed", "error", "interrupted", "skipped"];
    const STEP: &[&str] = &["passed", "failed", "skipped"];
    fn steps(s: &[crate::report::Step]) -> Option<&str> {
        s.iter().find_map(|s| {
            [s.outcome.as_str(), s.conclusion.as_str()]
                .into_iter()
                .find(|v| !STEP.contains(v))
                .or_else(|| steps(&s.steps))
        })
    }
    for f in &r.flows {
        let bad = (!FLOW.contains(&f.status.as_str()))
            .then_some(f.status.as_str())
            .or_else(|| steps(&f.steps));
        if let Some(bad) = bad {
            return Err(CliError::Usage(format!(
                "{}: flow {:?} has {bad:?}, not a status runner writes (a flow is {}; a step {}): is this a runner JSON report?",
                path.display(),
                f.name,
                FLOW.join(", "),
                STEP.join(", ")
            )));
        }
    }
    Ok(())
}

/// The largest shard report read: far more than a run of thousands of flows writes.
const MAX_SHARD_REPORT: u64 = 1 << 30;

/// A shard's report: a regular file (a FIFO would block the read for ever), of at most
/// [`MAX_SHARD_REPORT`] bytes, in UTF-8.
fn read_shard(f: &Path) -> Result<String, CliError> {
    let bytes = crate::fs::read_regular(f, MAX_SHARD_REPORT).map_err(|e| {
        if e.kind() == std::io::ErrorKind::InvalidInput {
            CliError::Usage(format!("cannot read {}: {e}", f.display()))
        } else {
            CliError::Environment(format!("cannot read {}: {e}", f.display()))
        }
    })?;
    if bytes.len() as u64 > MAX_SHARD_REPORT {
        return Err(CliError::Usage(format!(
            "{} is larger than 1 GB: not a runner JSON report",
            f.display()
        )));
    }
    String::from_utf8(bytes).map_err(|_| {
        CliError::Usage(format!(
            "{} is not UTF-8 text: not a runner JSON report",
            f.display()
        ))
    })
}

/// `runner merge-reports PATH... --report KIND=PATH...`.
pub(crate) fn run(
    paths: &[PathBuf],
    targets: &[String],
    reporter: &Reporter,
) -> Result<Outcome, CliError> {
    let targets = ReportTarget::parse_all(targets).map_err(CliError::Usage)?;
    if targets.is_empty() {
        return Err(CliError::Usage(
            "say what to write: --report junit=PATH, json=PATH or html=DIR".into(),
        ));
    }
    let reports = reports(files(paths)?, reporter)?;
    if reports.is_empty() {
        return Err(CliError::Usage(
            "no runner JSON report among the files given".into(),
        ));
    }
    let merged = merge(&reports)?;
    for t in &targets {
        let notes = t
            .write_report(&merged)
            .map_err(|e| CliError::Environment(e.to_string()))?;
        for n in &notes {
            reporter.warn(n);
        }
    }
    let s = &merged.summary;
    reporter.err(&format!(
        "merged {} report(s): {} flows, {} passed, {} failed, {} errors, {} flaky, {} skipped\n",
        reports.len(),
        s.total,
        s.passed,
        s.failed,
        s.errors,
        s.flaky,
        s.skipped
    ));
    Ok(Outcome::Passed)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    /// A shard whose names hold escape sequences and line breaks (a terminal's title, a
    /// workflow command at the start of a line) is named in an error quoted, never raw.
    #[test]
    fn a_shards_names_are_quoted_in_errors() {
        let text = include_str!("../../tests/fixtures/golden-run/expected/report.json");
        let text = text.replace("\"<ms>\"", "0");
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        v["flows"][0]["name"] = serde_json::json!("evil\u{1b}]0;PWNED\u{7}\u{1b}[2J");
        v["flows"][0]["file"] = serde_json::json!("/x\n::error::pwn");
        let r: crate::report::Report = serde_json::from_value(v.clone()).unwrap();
        let twice = [
            (PathBuf::from("a.json"), r.clone()),
            (PathBuf::from("b.json"), r),
        ];
        let e = super::merge(&twice).err().unwrap().to_string();
        assert!(e.contains("give each shard's report once"), "{e}");
        assert!(!e.contains('\u{1b}') && !e.contains('\n'), "{e:?}");
        v["flows"][0]["status"] = serde_json::json!("weird\n::error::x");
        let r: crate::report::Report = serde_json::from_value(v).unwrap();
        let e = super::known_statuses(&PathBuf::from("a.json"), &r)
            .err()
            .unwrap()
            .to_string();
        assert!(!e.contains('\u{1b}') && !e.contains('\n'), "{e:?}");
    }
}
