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
use crate::config::flows::{LoadedFlow, absolute};
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
/// selected (`selected`: the flows the filters kept, before the shard was taken). Its flows'
/// files are named relative to `root` (see [`selection_root`]), so the record is the same
/// whatever working directory each job of a CI matrix starts in and however it names the flows
/// (`e2e`, `./e2e`, its absolute path), on every machine wherever its checkout is; its filters
/// as what they select (each tag once, in order).
pub(super) fn shard_of(args: &RunArgs, selected: &[Arc<LoadedFlow>], root: &Path) -> Option<Shard> {
    let (index, total) = super::select::shard(args).ok().flatten()?;
    let n = args.repeat_each.max(1);
    // A flow named as reports name it, a repeated flow's runs `name [k/n]`.
    let names: Vec<(String, String)> = selected
        .iter()
        .flat_map(|f| {
            let file = relative_to(&f.path, root);
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
    let tags = |flag: &str, tags: &[String]| {
        let set: std::collections::BTreeSet<&String> = tags.iter().collect();
        set.into_iter()
            .map(|t| format!("{flag} `{t}`"))
            .collect::<Vec<_>>()
    };
    let mut filters = tags("--tag", &args.tags);
    filters.extend(tags("--exclude-tag", &args.exclude_tags));
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

/// The folder a shard's record names its flows' files relative to: the project's (the folder
/// of runner.toml, `project_file`), else the repository's the working directory is in (the
/// folder holding `.git`, where the search for runner.toml stops), else the working directory.
pub(super) fn selection_root(project_file: Option<&Path>) -> PathBuf {
    let cwd = std::env::current_dir().unwrap_or_default();
    if let Some(dir) = project_file.and_then(Path::parent) {
        return crate::config::flows::absolute(dir);
    }
    cwd.ancestors()
        .find(|d| crate::config::project::is_repository_root(d))
        .map_or_else(|| cwd.clone(), Path::to_path_buf)
}

/// `file` (absolute, normalised) relative to `root`, its components joined by `/` (no `./`,
/// no `..`); through symlinks when only the canonical paths are one inside the other; `file`
/// as it is when it is outside `root`.
fn relative_to(file: &Path, root: &Path) -> String {
    let canonical = || {
        let (f, r) = (file.canonicalize().ok()?, root.canonicalize().ok()?);
        f.strip_prefix(r).ok().map(Path::to_path_buf)
    };
    let Some(rel) = file
        .strip_prefix(root)
        .ok()
        .map(Path::to_path_buf)
        .or_else(canonical)
    else {
        return file.display().to_string();
    };
    let parts: Vec<String> = rel
        .components()
        .filter_map(|c| match c {
            std::path::Component::Normal(p) => Some(p.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    parts.join("/")
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
    // Refused (not written) where a file that is not runner's report came since the start.
    if let Err(e) = write_json(&artifacts.join("report.json"), report) {
        reporter.warn(&e.to_string());
    }
    written
}

/// `--artifacts`, else `.runner/runs/<run-id>`; absolute.
pub(super) fn artifacts_dir(args: &RunArgs, run_id: &str) -> PathBuf {
    absolute(
        &args
            .artifacts
            .clone()
            .unwrap_or_else(|| Path::new(".runner").join("runs").join(run_id)),
    )
}

/// Creates the artifacts directory, marked as runner's (`engine::MARKER`: flow discovery
/// leaves it out); an environment error when it cannot be. A folder that is there already is
/// taken when it is empty or runner's (marked: a run's artifacts); one that holds anything else
/// (`--artifacts notes`, a user's files) is refused (exit 2), left as it was: runner's files
/// would go among the user's (over those with runner's names) and the marker would make the
/// whole folder runner's output for good. A `report.json` already there that is not runner's
/// JSON report is refused too: the run writes its report there at the end.
pub(super) fn create_artifacts(artifacts: &Path) -> Result<(), CliError> {
    let report = artifacts.join("report.json");
    if let Some(why) = crate::report::own_refusal(&report, crate::report::OwnKind::JsonReport)
        .or_else(|| not_runners(artifacts))
    {
        return Err(CliError::Usage(why));
    }
    let cannot = |why: String| {
        CliError::Environment(format!(
            "cannot create the artifacts directory {}: {why}",
            artifacts.display()
        ))
    };
    crate::fs::make_dir_all(artifacts).map_err(|e| cannot(e.why()))?;
    let marker = artifacts.join(crate::engine::MARKER);
    crate::fs::write_artifact(artifacts, &marker, crate::engine::MARKER_TEXT.as_bytes())
        .map_err(cannot)
}

/// What an empty folder may hold all the same: a `.gitkeep` or `.gitignore` (an empty folder
/// in a repository), and what a file manager leaves in a folder it showed (macOS Finder's
/// `.DS_Store`, Windows Explorer's `Thumbs.db` and `desktop.ini`; any case, as Windows names
/// them).
const LEFT_IN_EMPTY: [&str; 5] = [
    ".gitkeep",
    ".gitignore",
    ".DS_Store",
    "Thumbs.db",
    "desktop.ini",
];

/// Why `artifacts`, a folder that is there, is not one runner writes into: it holds files
/// (but for those of `LEFT_IN_EMPTY`) and no marker. None for a new folder, an empty one, or runner's: one holding the marker, also a
/// marker something replaced with a symlink since (the run writes its own in its place, and no
/// artifact through a link).
fn not_runners(artifacts: &Path) -> Option<String> {
    let entries = std::fs::read_dir(artifacts).ok()?;
    if std::fs::symlink_metadata(artifacts.join(crate::engine::MARKER)).is_ok() {
        return None;
    }
    let mut held: Vec<String> = entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !LEFT_IN_EMPTY.iter().any(|e| n.eq_ignore_ascii_case(e)))
        .collect();
    if held.is_empty() {
        return None;
    }
    held.sort();
    let mut shown: Vec<String> = held.iter().take(3).map(|n| format!("{n:?}")).collect();
    if held.len() > 3 {
        shown.push(format!("and {} more", held.len() - 3));
    }
    Some(format!(
        "--artifacts {:?} is a folder that is not runner's: it holds {} and no {} marker; runner would write among those files and mark the folder as its output. Give --artifacts a new or empty folder, or one a run of runner made (by default a run's goes to .runner/runs/<run-id>)",
        artifacts.display().to_string(),
        shown.join(", "),
        crate::engine::MARKER
    ))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// A flow's file is named relative to the root, by its components joined by `/`, whatever
    /// the spelling of the root (a trailing `/`) or a symlinked folder on the way; outside the
    /// root, as it is.
    #[test]
    fn a_flows_file_is_named_relative_to_the_root() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("proj");
        std::fs::create_dir_all(root.join("e2e")).unwrap();
        std::fs::write(root.join("e2e/a.yaml"), "").unwrap();
        std::os::unix::fs::symlink(&root, d.path().join("link")).unwrap();
        let rel = |file: &Path, root: &Path| super::relative_to(file, root);
        assert_eq!(rel(&root.join("e2e/a.yaml"), &root), "e2e/a.yaml");
        let slash = Path::new(&format!("{}/", root.display())).to_path_buf();
        assert_eq!(rel(&root.join("e2e/a.yaml"), &slash), "e2e/a.yaml");
        let linked = d.path().join("link/e2e/a.yaml");
        assert_eq!(rel(&linked, &root), "e2e/a.yaml");
        assert_eq!(
            rel(Path::new("/elsewhere/b.yaml"), &root),
            "/elsewhere/b.yaml"
        );
    }
}
