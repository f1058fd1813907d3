//! Files runner writes: whole or not at all (reports and the atlas are read by other processes
//! while runner writes them), and only where they belong; and files runner reads as input:
//! regular files only, never more than a cap.

use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` through a temporary file beside it and a rename, so a reader sees
/// the old file or the new one, never half of one. The temporary name carries the pid, so two
/// processes writing the same file do not share it.
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
    let written = std::fs::File::create(&tmp).and_then(|f| {
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

/// The directory `dir` inside `root` (the run's artifacts directory, as the user named it: it
/// may itself be a symlink), made where missing one component at a time, each opened without
/// following a symlink: a reused artifacts directory may hold a link out (`art/001-x/shots ->
/// /etc`), and nothing runner writes goes through one. The error names the component.
pub(crate) fn artifact_dir(root: &Path, dir: &Path) -> Result<PathBuf, String> {
    open_artifact_dir(root, dir).map(|_| dir.to_path_buf())
}

/// The file `path` inside `root`, ready to be written (by runner or by the browser): its
/// directories as [`artifact_dir`] makes them, and the file itself no symlink (a write would
/// go where it points).
pub(crate) fn artifact_file(root: &Path, path: &Path) -> Result<PathBuf, String> {
    use nix::fcntl::AtFlags;
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(format!("{} is not a file's path", path.display()));
    };
    let fd = open_artifact_dir(root, parent)?;
    match nix::sys::stat::fstatat(&fd, name, AtFlags::AT_SYMLINK_NOFOLLOW) {
        Ok(st) if st.st_mode & nix::libc::S_IFMT == nix::libc::S_IFLNK => Err(link_refused(path)),
        _ => Ok(path.to_path_buf()),
    }
}

fn link_refused(p: &Path) -> String {
    format!(
        "{} is a symbolic link: runner writes no artifact through one (a reused artifacts directory? remove the link)",
        p.display()
    )
}

/// `dir` (inside `root`) opened as a directory, each component below `root` made if missing
/// and opened with `O_NOFOLLOW`.
fn open_artifact_dir(root: &Path, dir: &Path) -> Result<std::os::fd::OwnedFd, String> {
    use nix::errno::Errno;
    use nix::fcntl::{OFlag, open, openat};
    use nix::sys::stat::{Mode, mkdirat};
    let rel = dir.strip_prefix(root).map_err(|_| {
        format!(
            "{} is not inside the artifacts directory {}",
            dir.display(),
            root.display()
        )
    })?;
    std::fs::create_dir_all(root).map_err(|e| format!("cannot create {}: {e}", root.display()))?;
    let flags = OFlag::O_DIRECTORY | OFlag::O_RDONLY | OFlag::O_CLOEXEC;
    let mut fd = open(root, flags, Mode::empty())
        .map_err(|e| format!("cannot open {}: {e}", root.display()))?;
    let mut at = root.to_path_buf();
    for c in rel.components() {
        let std::path::Component::Normal(name) = c else {
            return Err(format!("{} leaves the artifacts directory", dir.display()));
        };
        at.push(name);
        match mkdirat(&fd, name, Mode::from_bits_truncate(0o755)) {
            Ok(()) | Err(Errno::EEXIST) => {}
            Err(e) => return Err(format!("cannot create {}: {e}", at.display())),
        }
        fd = match openat(&fd, name, flags | OFlag::O_NOFOLLOW, Mode::empty()) {
            Ok(next) => next,
            Err(Errno::ELOOP) => return Err(link_refused(&at)),
            Err(Errno::ENOTDIR) => {
                let link = std::fs::symlink_metadata(&at).is_ok_and(|m| m.is_symlink());
                return Err(if link {
                    link_refused(&at)
                } else {
                    format!("{} is a file, not a directory", at.display())
                });
            }
            Err(e) => return Err(format!("cannot open {}: {e}", at.display())),
        };
    }
    Ok(fd)
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
    let kind = file.metadata()?.file_type();
    if !kind.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("it is {}, not a regular file", kind_name(kind)),
        ));
    }
    let mut bytes = Vec::new();
    file.take(cap + 1).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// What a file that is not a regular one is, for the message that refuses it.
fn kind_name(kind: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_dir() {
        "a directory"
    } else if kind.is_fifo() {
        "a FIFO (named pipe)"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else {
        "not a file"
    }
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
