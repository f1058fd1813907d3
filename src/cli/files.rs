//! Turning the paths given on the command line into the list of files to work on; writing
//! runner's own files at the paths given.

use std::path::{Path, PathBuf};

use crate::config::document::Format;
use crate::source::Diagnostic;

/// The files to work on, and what was left out on the way (each once).
#[derive(Debug, Default)]
pub(crate) struct Collected {
    pub(crate) files: Vec<PathBuf>,
    /// A symlink under a directory that leads outside it, not followed, in words.
    pub(crate) notes: Vec<String>,
}

/// Files under `paths`: files as given, directories walked for *.yaml, *.yml and *.toml (hidden
/// directories, `target`, `node_modules`, atlas directories and runner's output skipped: see
/// [`output_dir`]; `artifacts`: the run's `--artifacts`), sorted for a deterministic order. A
/// symlink under a directory is followed only where it stays inside the directory (a link to
/// `/` would walk the whole machine, `/sys` without end; a link to `/usr` would take thousands
/// of files nobody meant); one that leads out is left out, said once.
pub(crate) fn collect(
    paths: &[PathBuf],
    artifacts: Option<&Path>,
) -> Result<Collected, Vec<Diagnostic>> {
    let mut out = Collected::default();
    let mut errors = Vec::new();
    let own = artifacts.and_then(|a| std::fs::canonicalize(a).ok());
    for p in paths {
        if p.is_dir() {
            out.files.extend(walk(p, own.as_deref(), &mut out.notes));
        } else if p.exists() {
            out.files.push(p.clone());
        } else {
            errors.push(
                Diagnostic::file_error(p.display().to_string(), "no such file or directory")
                    .with_help("check the path"),
            );
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// The flow files under `dir`, sorted; a symlink leading outside it is noted, not followed;
/// runner's output is not searched (`own`: the run's artifacts, canonical). (walkdir tells a
/// loop of links from a tree, and it is left out as an error entry.)
fn walk(dir: &Path, own: Option<&Path>, notes: &mut Vec<String>) -> Vec<PathBuf> {
    // A run's artifacts named as the folder to walk (`run art`, the `--artifacts` refusal's
    // look): none of it is a flow.
    if crate::engine::output_kind(dir, None) == Some(crate::engine::Output::Artifacts) {
        note_flows_in(dir, notes);
        return Vec::new();
    }
    let root = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let leads_out = |e: &walkdir::DirEntry, notes: &mut Vec<String>| {
        if !e.path_is_symlink() {
            return false;
        }
        let Ok(to) = std::fs::canonicalize(e.path()) else {
            return false;
        };
        if to.starts_with(&root) {
            return false;
        }
        let shown = e.path().strip_prefix(".").unwrap_or(e.path());
        notes.push(format!(
            "{} leads outside {} (to {}): not followed",
            shown.display(),
            dir.display(),
            to.display()
        ));
        true
    };
    let mut found: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .follow_links(true)
        .into_iter()
        .filter_entry(|e| {
            e.depth() == 0
                || !(skipped_dir(e.path()) || output(e, own, notes) || leads_out(e, notes))
        })
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && Format::of(e.path()).is_some())
        // The project file is settings, not a flow (validate checks it on its own).
        .filter(|e| {
            !crate::config::project::NAMES
                .iter()
                .any(|n| e.file_name() == std::ffi::OsStr::new(n))
        })
        .map(|e| {
            let p = e.into_path();
            p.strip_prefix(".").map(Path::to_path_buf).unwrap_or(p)
        })
        .collect();
    found.sort();
    found
}

fn skipped_dir(p: &Path) -> bool {
    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
    p.is_dir()
        && (name.starts_with('.')
            || name == "target"
            || name == "node_modules"
            // An atlas: its edge flows are fragments to replay, not tests to run.
            || (p.join("nodes").is_dir() && p.join("edges").is_dir()))
}

/// Whether `e` (a file or a directory below the walk's root) is runner's output, where no flow
/// is taken, as Playwright's test directory leaves out its output directory: a page's download
/// lands there under the name the page chose (`evil.yaml`), a flow saves files there
/// (`{{ run.artifacts }}/cluster-state.yaml`), and a flow taken from there would run `exec`
/// with the user's rights (a watch would run it at once). Runner's output is what
/// [`crate::engine::output_kind`] says it is (`own`: the run's `--artifacts`, canonical): a
/// run's artifacts and everything in them, a flow's downloads wherever they are. A user's own
/// numbered folders (`e2e/001-login/`) are searched, a report.json beside them or not. A run's
/// artifacts left out that hold files reading as flows are noted (a marker left in a folder of
/// flows by an older runner, or planted, hides them, but not silently: attack 26, C1).
fn output(e: &walkdir::DirEntry, own: Option<&Path>, notes: &mut Vec<String>) -> bool {
    match crate::engine::output_kind(e.path(), own) {
        None => false,
        Some(crate::engine::Output::Artifacts) => {
            note_flows_in(e.path(), notes);
            true
        }
        Some(_) => true,
    }
}

/// Notes the files under `dir` (a run's artifacts a walk leaves out) that read as flows, but
/// for a flow's downloads (files a page named).
fn note_flows_in(dir: &Path, notes: &mut Vec<String>) {
    let found: Vec<String> = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_entry(|e| {
            !matches!(
                crate::engine::output_kind(e.path(), None),
                Some(crate::engine::Output::Downloads)
            )
        })
        .filter_map(Result::ok)
        // An atlas replay's flow is runner's own.
        .filter(|e| e.file_type().is_file() && !crate::engine::is_replay_file(e.path()))
        .filter(|e| reads_as_flow(e.path()))
        .map(|e| format!("{:?}", shown_dir(e.path())))
        .collect();
    if found.is_empty() {
        return;
    }
    let more = found.len().saturating_sub(3);
    let mut shown = found.into_iter().take(3).collect::<Vec<_>>();
    if more > 0 {
        shown.push(format!("and {more} more"));
    }
    notes.push(format!(
        "{} holds runner's marker {} (a run's artifacts): its files that read as flows are not run ({}); remove the marker if they are yours",
        shown_dir(dir),
        crate::engine::MARKER,
        shown.join(", ")
    ));
}

/// `path` as a walk from `.` shows it (`tests/a.yaml`, not `./tests/a.yaml`; `.` itself).
fn shown_dir(path: &Path) -> String {
    match path.strip_prefix(".") {
        Ok(p) if p.as_os_str().is_empty() => ".".into(),
        Ok(p) => p.display().to_string(),
        Err(_) => path.display().to_string(),
    }
}

/// Whether `file` has a flow's extension, is at most 1 MiB and parses to a mapping with
/// `steps`: what a flow file of the user's would be (a cluster dump saved there is not).
fn reads_as_flow(file: &Path) -> bool {
    Format::of(file).is_some()
        && std::fs::metadata(file).is_ok_and(|m| m.len() <= 1 << 20)
        && crate::config::document::read(file).is_ok_and(|d| d.value.get("steps").is_some())
}

/// Refuses `--artifacts` (`artifacts`) on a folder that holds flow files, or at or above the
/// flows run (`paths`): runner's output would go among the flows (and its flows' folders, its
/// downloads, be taken for them or hide them). A folder that does not exist yet holds none.
pub(crate) fn refuse_artifacts(artifacts: &Path, paths: &[PathBuf]) -> Result<(), String> {
    let Ok(own) = std::fs::canonicalize(artifacts) else {
        return Ok(());
    };
    let why = "runner's output would go among the flows; give --artifacts a folder of its own (by default a run's goes to .runner/runs/<run-id>)";
    for p in paths {
        if std::fs::canonicalize(p).is_ok_and(|c| c.starts_with(&own)) {
            return Err(format!(
                "--artifacts {:?} is the folder of the flows run, or above it ({:?}): {why}",
                artifacts.display().to_string(),
                p.display().to_string()
            ));
        }
    }
    if !own.is_dir() {
        return Ok(());
    }
    // Without `own`: everything in the run's own artifacts is output, and this look is for
    // whether the folder is a run's artifacts (marked) or holds flows.
    let found = walk(artifacts, None, &mut Vec::new());
    if found.is_empty() {
        return Ok(());
    }
    let mut shown: Vec<String> = found
        .iter()
        .take(3)
        .map(|f| format!("{:?}", f.display().to_string()))
        .collect();
    if found.len() > 3 {
        shown.push(format!("and {} more", found.len() - 3));
    }
    Err(format!(
        "--artifacts {:?} holds flow files ({}): {why}",
        artifacts.display().to_string(),
        shown.join(", ")
    ))
}

/// Whether a file is an agent profile (it sits in a directory named `profiles`).
pub(crate) fn is_profile(path: &Path) -> bool {
    path.parent()
        .and_then(Path::file_name)
        .is_some_and(|n| n == "profiles")
}

/// Writes `text`, runner's file of `kind`, at `file` (a path the user gave: `atlas diff --html`,
/// `atlas export --out`) when nothing is there or runner's own of that kind; anything else (a
/// user's `app.py`, an export edited by hand) is refused (exit 2) and kept (see
/// `report::ours`). A write that fails is an environment error.
pub(super) fn write_own(
    file: &Path,
    kind: crate::report::OwnKind,
    text: &str,
) -> Result<(), super::error::CliError> {
    use super::error::CliError;
    if let Some(why) = crate::report::own_refusal(file, kind) {
        return Err(CliError::Usage(why));
    }
    // Refused above already: written as `report::write_ours` writes once it has checked.
    crate::fs::write_named(file, |w| w.write_all(text.as_bytes()))
        .map_err(|e| CliError::Environment(format!("cannot write {}: {e}", file.display())))
}
