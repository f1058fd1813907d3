//! What `run --watch` says between its passes: before each, the time and the files saved; after
//! each, that it waits for the next save.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::Reporter;

/// The line that opens a pass: `── 14:03:07 · flows/login.yaml saved` (`removed` for a file
/// that is gone), the files shown relative to the working directory.
pub(crate) fn saved(reporter: &Reporter, at: SystemTime, files: &[PathBuf]) {
    let cwd = std::env::current_dir().unwrap_or_default();
    let (there, gone): (Vec<&PathBuf>, Vec<&PathBuf>) = files.iter().partition(|f| f.exists());
    let list = |files: &[&PathBuf], verb: &str| {
        let names: Vec<String> = files.iter().map(|f| shown(f, &cwd)).collect();
        (!names.is_empty()).then(|| format!("{} {verb}", names.join(", ")))
    };
    let what: Vec<String> = [list(&there, "saved"), list(&gone, "removed")]
        .into_iter()
        .flatten()
        .collect();
    let time = chrono::DateTime::<chrono::Local>::from(at).format("%H:%M:%S");
    reporter.err(&format!("\n── {time} · {}\n", what.join(" · ")));
}

/// After a pass, or after problems that kept one from running.
pub(crate) fn waiting(reporter: &Reporter) {
    reporter.err("waiting for changes (Ctrl-C to stop)\n");
}

/// No selected flow to run: at the start (`first`: the paths hold no flow yet, or the filters
/// leave none), or for a save no selected flow reads (a flow removed, a sub-flow no flow runs
/// any more).
pub(crate) fn nothing_to_run(reporter: &Reporter, first: bool) {
    reporter.err(if first {
        "no flow to run (check the paths, --tag, --exclude-tag, --grep, --grep-invert and --shard)\n"
    } else {
        "no flow to run for this change\n"
    });
}

/// A problem of the file watcher (events lost, a directory that cannot be watched): the watch
/// goes on.
pub(crate) fn watch_problem(reporter: &Reporter, why: &str) {
    reporter.warn(&format!("watching files: {why}"));
}

/// A file's name as a run shows it: on one line, without escape sequences, control or
/// bidirectional characters (`shown::one_line`), as the run's own lines show the same names.
fn shown(path: &Path, cwd: &Path) -> String {
    crate::step::shown::one_line(&path.strip_prefix(cwd).unwrap_or(path).display().to_string())
}

#[cfg(test)]
mod tests {
    /// A saved file's name holding escape sequences (a window title, a screen clear, colour)
    /// reached the terminal raw in the watch's header (attack 29, A13).
    #[test]
    fn a_saved_files_name_is_shown_without_escapes() {
        let cwd = std::path::Path::new("/w");
        let name = std::path::Path::new("/w/flows/x\u{1b}]0;PWNED\u{7}\u{1b}[2Jy\u{202e}.yaml");
        assert_eq!(super::shown(name, cwd), "flows/xy.yaml");
    }
}
