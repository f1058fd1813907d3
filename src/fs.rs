//! Files runner writes: whole or not at all (reports and the atlas are read by other processes
//! while runner writes them), and only where they belong.

use std::path::Path;

/// Writes `bytes` to `path` through a temporary file beside it and a rename, so a reader sees
/// the old file or the new one, never half of one. The temporary name carries the pid, so two
/// processes writing the same file do not share it.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = path.with_file_name(format!(
        ".{}.{}.tmp",
        path.file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
        std::process::id()
    ));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// Whether a path given for a file runner writes would leave the directory it is relative to:
/// absolute, or with a `..` component.
pub(crate) fn leaves_dir(path: &str) -> bool {
    let p = Path::new(path);
    p.is_absolute()
        || p.components()
            .any(|c| matches!(c, std::path::Component::ParentDir))
}

/// What `validate` and the run (on a rendered path) both say of a `screenshot.path` or
/// `download.path` (`what`) that would leave the artifacts directory; `None` when it stays.
pub(crate) fn artifact_path_problem(what: &str, path: &str) -> Option<String> {
    leaves_dir(path).then(|| format!("{what} path `{path}` leaves the artifacts directory"))
}

/// The help that goes with [`artifact_path_problem`].
pub(crate) const ARTIFACT_PATH_HELP: &str =
    "give a path relative to the run's artifacts directory, without `..`";

#[cfg(test)]
mod tests {
    #[test]
    fn writes_whole_files_and_leaves_no_temporary_one() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("r.json");
        super::write_atomic(&p, b"one").unwrap();
        super::write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "two");
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
    }
}
