//! Turning the paths given on the command line into the list of files to work on.

use std::path::{Path, PathBuf};

use crate::config::document::Format;
use crate::source::Diagnostic;

/// Files under `paths`: files as given, directories walked for *.yaml, *.yml and *.toml (hidden
/// directories, `target`, `node_modules` and atlas directories skipped), sorted for a
/// deterministic order.
pub(crate) fn collect(paths: &[PathBuf]) -> Result<Vec<PathBuf>, Vec<Diagnostic>> {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut found: Vec<PathBuf> = walkdir::WalkDir::new(p)
                .follow_links(true)
                .into_iter()
                .filter_entry(|e| e.depth() == 0 || !skipped_dir(e.path()))
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
            out.extend(found);
        } else if p.exists() {
            out.push(p.clone());
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

fn skipped_dir(p: &Path) -> bool {
    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
    p.is_dir()
        && (name.starts_with('.')
            || name == "target"
            || name == "node_modules"
            // An atlas: its edge flows are fragments to replay, not tests to run.
            || (p.join("nodes").is_dir() && p.join("edges").is_dir()))
}

/// Whether a file is an agent profile (it sits in a directory named `profiles`).
pub(crate) fn is_profile(path: &Path) -> bool {
    path.parent()
        .and_then(Path::file_name)
        .is_some_and(|n| n == "profiles")
}
