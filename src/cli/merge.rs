//! `runner merge-reports`: the JSON reports of a suite's shards (`runner run --shard I/N
//! --report json=...` on each machine of a CI matrix) made into one set of reports, as if one
//! run had run them all.

use std::path::{Path, PathBuf};

use super::error::CliError;
use super::exit::Outcome;
use crate::report::{Reads, Report, ReportTarget, Reporter};

/// A JSON file to merge, and the directory argument it was found under (`None`: named).
struct Found {
    path: PathBuf,
    under: Option<usize>,
}

/// The JSON files named, a directory standing for the reports under it: the regular `*.json`
/// files at any depth (CI downloads each shard's artifact into a directory of its own), but
/// none in a flow's folder of a run's artifacts (see [`Walk`]) and no flow's trace; the
/// shallowest first, then in path order. A note names the flow folders not searched.
fn files(paths: &[PathBuf], reporter: &Reporter) -> Result<Vec<Found>, CliError> {
    let mut out = Vec::new();
    for (i, p) in paths.iter().enumerate() {
        if p.is_dir() {
            let mut walk = Walk::default();
            let mut found = Vec::new();
            let entries = walkdir::WalkDir::new(p)
                .into_iter()
                .filter_entry(|e| walk.searched(e));
            for e in entries {
                let e = e.map_err(|e| {
                    CliError::Environment(format!("cannot read {}: {e}", p.display()))
                })?;
                if e.file_type().is_file()
                    && e.path().extension().is_some_and(|x| x == "json")
                    && !crate::engine::is_trace_file(e.path())
                {
                    found.push(e.into_path());
                }
            }
            walk.note(reporter);
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

/// A walk of a directory given for its reports. Runner's output is searched only for the
/// report a run writes at the top of its artifacts: a flow's folder of a run's artifacts
/// (`001-checkout/`: its downloads, saved states and traces, files a page may name and fill;
/// its sub-flows' folders inside it) and a flow's downloads wherever they are (artifacts copied
/// without their hidden marker, or of a run killed before it wrote its report) are not, by the
/// rule flow discovery asks too ([`crate::engine::output_kind`]). Any other folder is searched,
/// whatever its name (`2026-11-28/`, `123-linux/`).
#[derive(Default)]
struct Walk {
    /// The flow folders not searched, by the artifacts they are in.
    skipped: std::collections::BTreeMap<PathBuf, Vec<String>>,
    /// The downloads folders not searched.
    downloads: Vec<PathBuf>,
}

impl Walk {
    /// Whether the walk goes into `e` (a file is always taken to the caller).
    fn searched(&mut self, e: &walkdir::DirEntry) -> bool {
        if e.depth() == 0 || !e.file_type().is_dir() {
            return true;
        }
        match crate::engine::output_kind(e.path(), None) {
            // A run's artifacts, and a folder in them runner gives no name (a `--report
            // json=art/reports/r.json`): searched.
            None | Some(crate::engine::Output::Artifacts | crate::engine::Output::Written) => true,
            // The servers' logs: no report is written there.
            Some(crate::engine::Output::Logs) => false,
            Some(crate::engine::Output::Downloads) => {
                self.downloads.push(e.path().to_path_buf());
                false
            }
            Some(crate::engine::Output::FlowFolder) => {
                let parent = e.path().parent().unwrap_or(e.path()).to_path_buf();
                let name = e.file_name().to_string_lossy().into_owned();
                self.skipped.entry(parent).or_default().push(name);
                false
            }
        }
    }

    /// Names the flow folders not searched, by the artifacts they are in, and the downloads
    /// folders (at most 5 of each).
    fn note(&mut self, reporter: &Reporter) {
        // (Quoted: a folder's name may hold a line break or an escape sequence.)
        for (dir, names) in &mut self.skipped {
            names.sort();
            reporter.err(&format!(
                "note: {:?} holds a run's artifacts: its flows' folders are not searched for reports ({})\n",
                dir.display().to_string(),
                first_five(names.iter().map(|n| format!("{n:?}")))
            ));
        }
        if !self.downloads.is_empty() {
            self.downloads.sort();
            let shown = self
                .downloads
                .iter()
                .map(|d| format!("{:?}", d.display().to_string()));
            reporter.err(&format!(
                "note: a flow's downloads in a run's artifacts (files a page named) are not searched for reports ({})\n",
                first_five(shown)
            ));
        }
    }
}

/// The first 5 of `items`, joined, and how many more.
fn first_five(items: impl ExactSizeIterator<Item = String>) -> String {
    let count = items.len();
    let mut shown: Vec<String> = items.take(5).collect();
    if count > 5 {
        shown.push(format!("and {} more", count - 5));
    }
    shown.join(", ")
}

/// The reports among `found`, each parsed once, checked against itself and told to read only
/// files inside its own directory. Under a directory, a JSON file that is not a report (a
/// download, a saved state) is passed over with a warning, and a second copy of a run's report
/// counts once: a run writes its report into its artifacts too, so a shard whose artifacts sit
/// inside its report's folder holds two.
fn reports(found: Vec<Found>, reporter: &Reporter) -> Result<Vec<(PathBuf, Report)>, CliError> {
    use sha2::Digest;
    within_total(&found)?;
    let mut seen: Vec<(Option<usize>, Vec<u8>)> = Vec::new();
    let mut out = Vec::new();
    let mut read = 0;
    for Found { path, under } in found {
        let text = read_shard(&path)?;
        read += text.len() as u64;
        if read > MAX_SHARDS_TOTAL {
            return Err(too_much(read));
        }
        let digest = sha2::Sha256::digest(text.as_bytes()).to_vec();
        if under.is_some() && seen.iter().any(|(u, d)| *u == under && *d == digest) {
            continue;
        }
        let mut r: Report = match serde_json::from_str(&text) {
            Ok(r) => r,
            Err(_) if under.is_some() && !crate::report::is_runner_report(text.as_bytes()) => {
                // (Quoted: a file's name may hold a line break or an escape sequence.)
                reporter.warn(&format!(
                    "{:?} is passed over: not a runner JSON report",
                    path.display().to_string()
                ));
                continue;
            }
            Err(e) => {
                return Err(CliError::Usage(format!(
                    "{} is not a runner JSON report (`runner run --report json=PATH` writes one): {e}",
                    path.display()
                )));
            }
        };
        drop(text);
        super::merge_checks::known_statuses(&path, &r)?;
        super::merge_checks::consistent(&path, &r)?;
        super::merge_checks::statuses_agree(&path, &r)?;
        let reads = Reads::shard(&path).map_err(|e| {
            CliError::Environment(format!(
                "cannot read the directory of {}: {e}",
                path.display()
            ))
        })?;
        r.reading(&reads);
        seen.push((under, digest));
        out.push((path, r));
    }
    Ok(out)
}

/// Merges shard reports: every flow of every report (in file order, as one run lists them),
/// its counts made from the flows it lists (a shard's own counts are checked, never taken);
/// the duration the longest shard's (shards run side by side).
pub(crate) fn merge(reports: Vec<(PathBuf, Report)>) -> Result<Report, CliError> {
    super::merge_checks::whole_set(&reports)?;
    let selection = super::merge_checks::same_selection(&reports)?;
    let mut flows = Vec::new();
    let mut seen: std::collections::HashMap<(String, String), PathBuf> =
        std::collections::HashMap::new();
    let mut run_ids = Vec::new();
    let mut web_servers = Vec::new();
    let mut duration_ms = 0;
    for (path, r) in reports {
        for f in r.flows {
            if let Some(other) = seen.insert((f.file.clone(), f.name.clone()), path.clone()) {
                // A shard's names are quoted: they may hold line breaks and escape sequences.
                return Err(CliError::Usage(format!(
                    "flow {:?} ({:?}) is in {} and in {}: give each shard's report once",
                    f.name,
                    f.file,
                    other.display(),
                    path.display()
                )));
            }
            flows.push(f);
        }
        run_ids.push(r.run_id);
        // Each shard started its own run-level servers: all of them are listed.
        web_servers.extend(r.web_servers);
        duration_ms = duration_ms.max(r.summary.duration_ms);
    }
    flows.sort_by(|a, b| (&a.file, &a.name).cmp(&(&b.file, &b.name)));
    let mut summary = super::merge_checks::counts(&flows);
    summary.duration_ms = duration_ms;
    if let Some((selection, found)) = selection {
        super::merge_checks::every_flow_selected(&flows, &selection)?;
        // As the unsharded run counts: every flow found, those its filters left out skipped.
        let ran = summary.total - summary.skipped;
        summary.total = found;
        summary.skipped = found.saturating_sub(ran);
    }
    Ok(Report {
        run_id: run_ids.join("+"),
        shard: None,
        flows,
        summary,
        web_servers,
    })
}

/// The largest shard report read (128 MiB): far more than a run of thousands of flows writes,
/// and little enough to merge in a few hundred MB (outputs stay the text they are).
const MAX_SHARD_REPORT: u64 = 128 * 1024 * 1024;

/// The most shard input read in all (512 MiB): four shards at their cap. Each report is held
/// parsed until the merge, so the shards' total, not each one's size, bounds the memory.
const MAX_SHARDS_TOTAL: u64 = 512 * 1024 * 1024;

/// The error of shard input over [`MAX_SHARDS_TOTAL`] (`bytes` of it, or more).
fn too_much(bytes: u64) -> CliError {
    CliError::Usage(format!(
        "the shard reports are {} MiB together, more than the {} MiB merge-reports reads (merge fewer at a time, or name the reports rather than directories that hold other JSON files)",
        bytes.div_ceil(1024 * 1024),
        MAX_SHARDS_TOTAL / 1024 / 1024
    ))
}

/// Refuses shard input over [`MAX_SHARDS_TOTAL`] by the files' sizes, before any is read (what
/// is read is counted again as it is read: a file may grow).
fn within_total(found: &[Found]) -> Result<(), CliError> {
    let total: u64 = found
        .iter()
        .filter_map(|f| std::fs::metadata(&f.path).ok())
        .filter(std::fs::Metadata::is_file)
        .map(|m| m.len())
        .sum();
    if total > MAX_SHARDS_TOTAL {
        return Err(too_much(total));
    }
    Ok(())
}

/// A shard's report: a regular file (a FIFO would block the read for ever), of at most
/// [`MAX_SHARD_REPORT`] bytes (told by its size before it is read, and by the bytes read: a file
/// may grow), in UTF-8.
fn read_shard(f: &Path) -> Result<String, CliError> {
    let too_large = || {
        CliError::Usage(format!(
            "{} is larger than {} MiB, the most merge-reports reads of a shard's report",
            f.display(),
            MAX_SHARD_REPORT / 1024 / 1024
        ))
    };
    if std::fs::metadata(f).is_ok_and(|m| m.is_file() && m.len() > MAX_SHARD_REPORT) {
        return Err(too_large());
    }
    let bytes = crate::fs::read_regular(f, MAX_SHARD_REPORT).map_err(|e| {
        if e.kind() == std::io::ErrorKind::InvalidInput {
            CliError::Usage(format!("cannot read {}: {e}", f.display()))
        } else {
            CliError::Environment(format!("cannot read {}: {e}", f.display()))
        }
    })?;
    if bytes.len() as u64 > MAX_SHARD_REPORT {
        return Err(too_large());
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
    let found = files(paths, reporter)?;
    let inputs: Vec<&Path> = found.iter().map(|f| f.path.as_path()).collect();
    super::run_reports::refuse_merge_inputs(&targets, &inputs)?;
    let reports = reports(found, reporter)?;
    if reports.is_empty() {
        return Err(CliError::Usage(
            "no runner JSON report among the files given".into(),
        ));
    }
    let count = reports.len();
    let merged = merge(reports)?;
    for t in &targets {
        let notes = t
            .write_report(&merged)
            .map_err(|e| CliError::Environment(e.to_string()))?;
        for n in &notes {
            reporter.warn(n);
        }
    }
    let s = &merged.summary;
    // (Interrupted flows named when there are any, as a run's summary does.)
    let interrupted = match s.interrupted {
        0 => String::new(),
        n => format!(", {n} interrupted"),
    };
    reporter.err(&format!(
        "merged {} report(s): {} flows, {} passed, {} failed, {} errors, {} flaky, {} skipped{interrupted}\n",
        count, s.total, s.passed, s.failed, s.errors, s.flaky, s.skipped
    ));
    // The merged run's verdict, once its reports are written: a job that merges the shards
    // (their own jobs let go on failure, so that every shard uploads) and gates on it must not
    // be green with a flow that did not pass. (Playwright's merge-reports exits 0.)
    Ok(if s.failed + s.errors + s.interrupted > 0 {
        Outcome::FlowsFailed
    } else {
        Outcome::Passed
    })
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
        let e = super::merge(twice.to_vec()).err().unwrap().to_string();
        assert!(e.contains("give each shard's report once"), "{e}");
        assert!(!e.contains('\u{1b}') && !e.contains('\n'), "{e:?}");
        v["flows"][0]["status"] = serde_json::json!("weird\n::error::x");
        let r: crate::report::Report = serde_json::from_value(v).unwrap();
        let e = super::super::merge_checks::known_statuses(&PathBuf::from("a.json"), &r)
            .err()
            .unwrap()
            .to_string();
        assert!(!e.contains('\u{1b}') && !e.contains('\n'), "{e:?}");
    }
}
