//! What a run's reports are checked against before it starts, and the report of a shard left
//! with no flow: a report is never written over an input of the run (a flow, a sub-flow, a
//! var file, runner.toml), and every shard of a run writes a report saying which shard it is,
//! so `merge-reports` knows a set of shards is whole.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::args::RunArgs;
use super::error::CliError;
use super::exit::Outcome;
use crate::config::flows::LoadedFlow;
use crate::report::{Report, ReportTarget, Reporter, Selection, Shard, Summary, write_json};

/// The place a file is written to or read from, as a report's write meets it: its folder's
/// canonical path (links followed) and its own name (a report replaces a symlink in its place,
/// never writing through it). `None` when its folder does not exist (then no input is there).
fn place(p: &Path) -> Option<PathBuf> {
    let name = p.file_name()?;
    let parent = match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    Some(parent.canonicalize().ok()?.join(name))
}

/// The files of a flow and of its sub-flows (at any depth).
fn flow_files(f: &LoadedFlow, out: &mut HashSet<PathBuf>, seen: &mut HashSet<PathBuf>) {
    if !seen.insert(f.path.clone()) {
        return;
    }
    out.extend(place(&f.path));
    out.extend(f.path.canonicalize().ok());
    for sub in f.subflows.values() {
        flow_files(sub, out, seen);
    }
}

/// Refuses (exit 2, before the run) a report whose file is an input of the run: one of
/// `flows` or their sub-flows, a `var_files`, or the project file. Compared by canonical
/// path, whatever the spelling (`./f.yaml`, `sub/../f.yaml`, a linked folder); an input
/// given through a symlink counts as the link and as the file it names.
pub(super) fn refuse_inputs(
    targets: &[ReportTarget],
    flows: &[Arc<LoadedFlow>],
    var_files: &[PathBuf],
    project_file: Option<&Path>,
) -> Result<(), CliError> {
    let mut inputs = HashSet::new();
    let mut seen = HashSet::new();
    for f in flows {
        flow_files(f, &mut inputs, &mut seen);
    }
    let files = var_files.iter().map(PathBuf::as_path).chain(project_file);
    refuse_over(
        targets,
        inputs,
        files,
        "an input of this run (a flow, a sub-flow, a var file or runner.toml)",
    )
}

/// Refuses (exit 2, before anything is written) a report whose file is one of the shard
/// reports `merge-reports` reads (`inputs`: named, or found under a directory given), by
/// canonical path whatever the spelling: the merge would replace a shard's report, and the
/// set would not merge again.
pub(super) fn refuse_merge_inputs(
    targets: &[ReportTarget],
    inputs: &[&Path],
) -> Result<(), CliError> {
    let what = "one of the reports merged";
    refuse_over(targets, HashSet::new(), inputs.iter().copied(), what)
}

/// Refuses a report whose file is among `inputs` (places, see [`place`]) or `files` (an input
/// given through a symlink counts as the link and as the file it names), saying it is `what`.
fn refuse_over<'a>(
    targets: &[ReportTarget],
    mut inputs: HashSet<PathBuf>,
    files: impl Iterator<Item = &'a Path>,
    what: &str,
) -> Result<(), CliError> {
    for p in files {
        inputs.extend(place(p));
        inputs.extend(p.canonicalize().ok());
    }
    for t in targets {
        let file = t.file();
        if place(&file).is_some_and(|p| inputs.contains(&p)) {
            return Err(CliError::Usage(format!(
                "invalid --report `{}`: {} is {what}: a report written there would replace it",
                t.spec(),
                file.display()
            )));
        }
    }
    Ok(())
}

/// The shard this run is (`--shard I/N`), as its report records it, with what the run
/// selected (`selected`: the flows the filters kept, before the shard was taken).
pub(super) fn shard_of(args: &RunArgs, selected: &[Arc<LoadedFlow>]) -> Option<Shard> {
    let (index, total) = super::select::shard(args).ok().flatten()?;
    let n = args.repeat_each.max(1);
    // A file relative to the working directory (the same on every machine of a CI matrix,
    // wherever its checkout is; runner.toml's `flows` are absolute); a flow named as reports
    // name it, a repeated flow's runs `name [k/n]`.
    let cwd = std::env::current_dir().unwrap_or_default();
    let names: Vec<(String, String)> = selected
        .iter()
        .flat_map(|f| {
            let file = f.path.strip_prefix(&cwd).unwrap_or(&f.path);
            let file = file.display().to_string();
            (1..=n).map(move |k| {
                let name = if n > 1 {
                    format!("{} [{k}/{n}]", f.flow.name)
                } else {
                    f.flow.name.clone()
                };
                (file.clone(), name)
            })
        })
        .collect();
    let mut filters: Vec<String> = Vec::new();
    filters.extend(args.tags.iter().map(|t| format!("--tag `{t}`")));
    filters.extend(
        args.exclude_tags
            .iter()
            .map(|t| format!("--exclude-tag `{t}`")),
    );
    filters.extend(args.grep.iter().map(|g| format!("--grep `{g}`")));
    filters.extend(
        args.grep_invert
            .iter()
            .map(|g| format!("--grep-invert `{g}`")),
    );
    let selection = Selection {
        flows: names.len(),
        fingerprint: Selection::fingerprint(names.iter().map(|(f, n)| (f.as_str(), n.as_str()))),
        filters,
    };
    Some(Shard {
        index,
        total,
        selection: Some(selection),
    })
}

/// A shard the selection left with no flow (a matrix with more shards than flows) writes its
/// reports all the same (run `run_id`, its artifacts `artifacts`): no flow, every flow of the
/// suite left out, and which shard it is (`shard`), so a merge of the run's shards finds it
/// there. The outcome: a pass, unless a report asked for could not be written.
pub(super) fn empty_shard(
    shard: Option<Shard>,
    targets: &[ReportTarget],
    left_out: usize,
    (run_id, artifacts): (&str, &Path),
    reporter: &Reporter,
) -> Outcome {
    let summary = Summary::of(&[], left_out, std::time::Duration::ZERO, run_id);
    let mut report = Report::of(&[], &summary);
    report.shard = shard;
    if write_reports(targets, &report, artifacts, reporter) {
        Outcome::Passed
    } else {
        Outcome::EnvironmentBroken
    }
}

/// Writes the reports asked for, and `report.json` in the artifacts; says whether every one
/// asked for was written (a failure is shown and the run goes on).
pub(super) fn write_reports(
    targets: &[ReportTarget],
    report: &Report,
    artifacts: &Path,
    reporter: &Reporter,
) -> bool {
    let mut written = true;
    for t in targets {
        match t.write_report(report) {
            Ok(notes) => notes.iter().for_each(|n| reporter.warn(n)),
            Err(e) => {
                reporter.error(&e.to_string());
                written = false;
            }
        }
    }
    let _ = write_json(&artifacts.join("report.json"), report);
    written
}
