//! Files runner writes: whole or not at all (reports and the atlas are read by other processes
//! while runner writes them), and only where they belong; and files runner reads as input:
//! regular files only, never more than a cap.

use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` through a temporary file beside it and a rename, so a reader sees
/// the old file or the new one, never half of one. The temporary name carries the pid, so two
/// processes writing the same file do not share it. Neither is written through a symlink: the
/// rename replaces a link at `path`, and the temporary file is made new.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomic_with(path, |w| w.write_all(bytes))
}

/// [`write_atomic`] of what `write` writes (buffered): a large report goes to its file as it
/// is made, never whole in memory.
pub(crate) fn write_atomic_with(
    path: &Path,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    use std::io::Write;
    let tmp = path.with_file_name(format!(
        ".{}.{}.tmp",
        path.file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
        std::process::id()
    ));
    // A file left there (a crash, or a symlink planted in a reused directory) is removed, never
    // written through: the temporary file is made new (`O_EXCL`, which follows no link).
    let _ = std::fs::remove_file(&tmp);
    let created = {
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .custom_flags((nix::fcntl::OFlag::O_NOFOLLOW | nix::fcntl::OFlag::O_CLOEXEC).bits())
            .open(&tmp)
    };
    let written = created.and_then(|f| {
        let mut w = std::io::BufWriter::new(f);
        write(&mut w)?;
        w.flush()
    });
    written
        .and_then(|()| std::fs::rename(&tmp, path))
        .inspect_err(|_| {
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

mod tree;

pub(crate) use tree::{Owner, Tree, TreeError};

/// The directory `dir` inside `root` (the run's artifacts directory, as the user named it: it
/// may itself be a symlink), made where missing without following a symlink (a reused
/// artifacts directory may hold a link out: `art/001-x/shots -> /etc`; see [`Tree`]). The
/// error names the component.
pub(crate) fn artifact_dir(root: &Path, dir: &Path) -> Result<PathBuf, String> {
    Tree::new(root, Owner::Artifacts)
        .make_dir(dir)
        .map(|()| dir.to_path_buf())
        .map_err(|e| e.to_string())
}

/// The file `path` inside `root`, ready to be written (by runner or by the browser): its
/// directories as [`artifact_dir`] makes them, and the file itself no symlink.
pub(crate) fn artifact_file(root: &Path, path: &Path) -> Result<PathBuf, String> {
    Tree::new(root, Owner::Artifacts)
        .file(path)
        .map_err(|e| e.to_string())
}

/// The file `path` inside `root` (the run's artifacts directory, or a report's folder) created
/// for writing, or emptied when it is there: its directories as [`artifact_dir`] makes them,
/// the file opened with `O_NOFOLLOW` through its directory's handle ([`Tree::create`]), so a
/// symlink in its place is refused, never followed, and a link put there after a check is not
/// either. Only a regular file: a FIFO in its place is refused without waiting for a reader.
pub(crate) fn create_artifact(root: &Path, path: &Path) -> Result<std::fs::File, String> {
    Tree::new(root, Owner::Artifacts)
        .create(path)
        .map_err(|e| e.to_string())
}

/// Reads a file runner takes as input (a flow, a var file, a shard's report): at most
/// `cap + 1` bytes, so a caller tells a file over the cap by its length (the size a file
/// reports is not what it gives: a file that grows). Only a regular file: a FIFO would block
/// the open until something writes to it, a device such as `/dev/zero` never ends. The file
/// is opened without blocking and checked through the handle it was opened by, so what is read
/// is what was checked; a symlink counts as what it points to.
pub(crate) fn read_regular(path: &Path, cap: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits())
        .open(path)?;
    if let Some(kind) = not_regular(&file)? {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("it is {kind}, not a regular file"),
        ));
    }
    let mut bytes = Vec::new();
    file.take(cap + 1).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// What an open file is when it is not a regular one (for the message that refuses it).
fn not_regular(file: &std::fs::File) -> std::io::Result<Option<&'static str>> {
    use std::os::unix::fs::FileTypeExt;
    let kind = file.metadata()?.file_type();
    Ok(if kind.is_file() {
        None
    } else if kind.is_dir() {
        Some("a directory")
    } else if kind.is_fifo() {
        Some("a FIFO (named pipe)")
    } else if kind.is_socket() {
        Some("a socket")
    } else if kind.is_char_device() || kind.is_block_device() {
        Some("a device")
    } else {
        Some("not a file")
    })
}

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

    #[test]
    fn written_files_replace_a_symlink_in_their_place_and_never_follow_one() {
        let d = tempfile::tempdir().unwrap();
        let victim = d.path().join("victim");
        std::fs::write(&victim, "original").unwrap();
        let p = d.path().join("r.json");
        std::os::unix::fs::symlink(&victim, &p).unwrap();
        let tmp = d.path().join(format!(".r.json.{}.tmp", std::process::id()));
        std::os::unix::fs::symlink(&victim, &tmp).unwrap();
        super::write_atomic(&p, b"report").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "original");
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "report");
        assert!(!std::fs::symlink_metadata(&p).unwrap().is_symlink());
    }

    #[test]
    fn artifacts_are_created_as_files_of_their_own_through_no_symlink() {
        use std::io::Write;
        let d = tempfile::tempdir().unwrap();
        let (root, outside) = (d.path().join("art"), d.path().join("outside"));
        std::fs::create_dir_all(root.join("flow")).unwrap();
        std::fs::create_dir(&outside).unwrap();
        std::fs::write(outside.join("victim"), "original").unwrap();
        let made = root.join("flow/new/x.log");
        super::create_artifact(&root, &made)
            .unwrap()
            .write_all(b"log")
            .unwrap();
        assert_eq!(std::fs::read_to_string(&made).unwrap(), "log");
        // Made again: emptied, then written.
        super::create_artifact(&root, &made)
            .unwrap()
            .write_all(b"2")
            .unwrap();
        assert_eq!(std::fs::read_to_string(&made).unwrap(), "2");
        std::os::unix::fs::symlink(outside.join("victim"), root.join("flow/link.log")).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("flow/dir")).unwrap();
        nix::unistd::mkfifo(&root.join("flow/fifo"), nix::sys::stat::Mode::S_IRWXU).unwrap();
        for (name, why) in [
            ("flow/link.log", "flow/link.log is a symbolic link"),
            ("flow/dir/victim", "flow/dir is a symbolic link"),
            ("flow/fifo", "flow/fifo is not a regular file"),
        ] {
            let e = super::create_artifact(&root, &root.join(name)).unwrap_err();
            assert!(e.contains(why), "{name}: {e}");
        }
        assert_eq!(
            std::fs::read_to_string(outside.join("victim")).unwrap(),
            "original"
        );
    }

    #[test]
    fn reads_regular_files_only_and_at_most_one_byte_past_the_cap() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("f");
        std::fs::write(&p, "0123456789").unwrap();
        assert_eq!(super::read_regular(&p, 4).unwrap(), b"01234");
        assert_eq!(super::read_regular(&p, 100).unwrap().len(), 10);
        let fifo = d.path().join("pipe");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        let e = super::read_regular(&fifo, 4).unwrap_err();
        assert_eq!(
            e.to_string(),
            "it is a FIFO (named pipe), not a regular file"
        );
        let e = super::read_regular(std::path::Path::new("/dev/zero"), 4).unwrap_err();
        assert_eq!(e.to_string(), "it is a device, not a regular file");
        let e = super::read_regular(d.path(), 4).unwrap_err();
        assert_eq!(e.to_string(), "it is a directory, not a regular file");
    }
}
