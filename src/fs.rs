//! Files runner writes: whole or not at all (reports and the atlas are read by other processes
//! while runner writes them), and only where they belong; and files runner reads as input:
//! regular files only, never more than a cap.

use std::path::{Path, PathBuf};

/// [`write_atomic_with`] of `bytes`.
#[cfg(test)]
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomic_with(path, |w| w.write_all(bytes))
}

/// Writes what `write` writes (buffered) to `path` through a temporary file beside it and a
/// rename, so a reader sees the old file or the new one, never half of one; a large report goes
/// to its file as it is made, never whole in memory. The temporary name carries the pid, so two
/// processes writing the same file do not share it. Neither is written through a symlink: the
/// rename replaces a link at `path`, and the temporary file is made new.
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
    if path.contains('\0') {
        // (No file name holds one: the run could only fail at the step.)
        return Some(format!("{what} path {path:?} holds a NUL character"));
    }
    leaves_dir(path).then(|| format!("{what} path `{path}` leaves the artifacts directory"))
}

/// The help that goes with [`artifact_path_problem`].
pub(crate) const ARTIFACT_PATH_HELP: &str =
    "give a path relative to the run's artifacts directory, without `..`";

/// A private scratch folder in the system's temporary directory: an unpredictable name after
/// `prefix`, mode 0700 whatever the umask (tempfile gives a folder the umask's mode unless told),
/// so no other local user reads what a replay or a saved state leaves there, nor puts a file in
/// it. Every scratch folder runner makes is made here.
pub(crate) fn private_scratch(prefix: &str) -> std::io::Result<tempfile::TempDir> {
    use std::os::unix::fs::PermissionsExt;
    tempfile::Builder::new()
        .prefix(prefix)
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir()
}

mod named;
mod tree;
mod trust;

pub(crate) use named::{named_file_problem, write_named};
pub(crate) use tree::{Owner, Tree, TreeError};
pub(crate) use trust::{Distrust, distrust};

/// runner's own folder in the working directory: its runs, logs, atlas and agent cache by
/// default.
const OWN_FOLDER: &str = ".runner";

/// Makes directory `dir` and those on its way where missing. A directory the user named is
/// taken as named (it may be reached through a link: `--artifacts` on another disk); one in
/// runner's own folder of the working directory (`.runner/...`, the default place of runs,
/// logs, the atlas and the agent cache) is made from the working directory with no link
/// followed ([`Tree`]): a repository may hold a `.runner` (or `.runner/logs`) link to elsewhere,
/// which would have runner write there.
pub(crate) fn make_dir_all(dir: &Path) -> Result<(), TreeError> {
    let io = |path: &Path, source| TreeError::Io {
        doing: "create",
        path: path.to_path_buf(),
        source,
    };
    let cwd = std::env::current_dir().map_err(|e| io(dir, e))?;
    let rel: PathBuf = dir
        .strip_prefix(&cwd)
        .unwrap_or(dir)
        .components()
        .skip_while(|c| matches!(c, std::path::Component::CurDir))
        .collect();
    if rel.starts_with(OWN_FOLDER) {
        return Tree::new(&cwd, Owner::Project).make_dir(&cwd.join(rel));
    }
    std::fs::create_dir_all(dir).map_err(|e| io(dir, e))
}

/// What `validate` and the run (on a rendered path) both say of a `state.save` path that would
/// leave the flow's directory; `None` when it stays.
pub(crate) fn flow_path_problem(what: &str, path: &str) -> Option<String> {
    if path.contains('\0') {
        return Some(format!("{what} path {path:?} holds a NUL character"));
    }
    leaves_dir(path).then(|| format!("{what} path `{path}` leaves the flow's directory"))
}

/// The help that goes with [`flow_path_problem`].
pub(crate) const FLOW_PATH_HELP: &str =
    "give a path relative to the flow's directory, without `..`";

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

/// Writes `bytes` to `path` inside `root` (the run's artifacts directory) whole or not at all
/// ([`Tree::write`]: its folders made and opened with `O_NOFOLLOW`, a link in the file's place
/// replaced, never written through).
pub(crate) fn write_artifact(root: &Path, path: &Path, bytes: &[u8]) -> Result<(), String> {
    Tree::new(root, Owner::Artifacts)
        .write(path, bytes)
        .map_err(|e| e.to_string())
}

/// Writes `bytes` to `path` inside `root` (the flow's directory) for its owner's eyes only
/// ([`Tree::write_private`]: mode 0600 from the start, its folders opened with `O_NOFOLLOW`,
/// the file not a symlink, written whole through a temporary file beside it and a rename).
pub(crate) fn write_private(root: &Path, path: &Path, bytes: &[u8]) -> Result<(), String> {
    Tree::new(root, Owner::FlowDir)
        .write_private(path, bytes)
        .map_err(|e| e.to_string())
}

/// The most bytes a file name may have (`NAME_MAX` on Linux and the BSDs).
const NAME_MAX: usize = 255;

/// `name` (a file name) as the `n`th candidate for a file: `name`, then `name (2)`,
/// `name (3)`, ... before its extension; never longer than a file name may be: a long stem is
/// cut (on a character's boundary), its extension kept.
pub(crate) fn numbered_name(name: &str, n: u32) -> String {
    // An extension is a short one: a dot late in a long name does not make the rest one.
    let (stem, ext) = match name.rsplit_once('.') {
        Some((s, e)) if !s.is_empty() && e.len() < 16 => (s, &name[s.len()..]),
        _ => (name, ""),
    };
    let number = if n > 1 {
        format!(" ({n})")
    } else {
        String::new()
    };
    let room = NAME_MAX.saturating_sub(number.len() + ext.len());
    let cut = (0..=room.min(stem.len()))
        .rev()
        .find(|i| stem.is_char_boundary(*i))
        .unwrap_or(0);
    format!("{}{number}{ext}", &stem[..cut])
}

/// Moves the file named `from` in `dir` (inside `root`, opened as [`artifact_dir`] opens it)
/// to the first free name of `name`'s [`numbered_name`]s, and says where it went: never over
/// anything already there, a file or a symlink a reused artifacts directory holds (which is
/// neither followed nor replaced).
pub(crate) fn move_to_free_name(
    root: &Path,
    dir: &Path,
    from: &str,
    name: &str,
) -> Result<PathBuf, String> {
    use nix::errno::Errno;
    let fd = Tree::new(root, Owner::Artifacts)
        .open_dir(dir, true)
        .map_err(|e| e.to_string())?;
    for n in 1..100_000 {
        let to = numbered_name(name, n);
        match move_within(&fd, from, &to) {
            Ok(()) => return Ok(dir.join(to)),
            Err(Errno::EEXIST) => {}
            Err(e) => {
                return Err(format!(
                    "cannot move {} to {}: {e}",
                    dir.join(from).display(),
                    dir.join(&to).display()
                ));
            }
        }
    }
    Err(format!("{} holds no free name for {name}", dir.display()))
}

/// Renames `from` to `to` in the directory `fd`, `EEXIST` when `to` is there: a hard link
/// then the old name's removal (a link is never made over anything); on a file system without
/// hard links, a look then a rename.
fn move_within(fd: &std::os::fd::OwnedFd, from: &str, to: &str) -> nix::Result<()> {
    use nix::errno::Errno;
    use nix::fcntl::{AtFlags, renameat};
    use nix::unistd::{UnlinkatFlags, linkat, unlinkat};
    match linkat(fd, from, fd, to, AtFlags::empty()) {
        Ok(()) => unlinkat(fd, from, UnlinkatFlags::NoRemoveDir),
        Err(Errno::EEXIST) => Err(Errno::EEXIST),
        Err(Errno::EPERM | Errno::EOPNOTSUPP | Errno::EMLINK | Errno::EXDEV) => {
            if nix::sys::stat::fstatat(fd, to, AtFlags::AT_SYMLINK_NOFOLLOW).is_ok() {
                return Err(Errno::EEXIST);
            }
            renameat(fd, from, fd, to)
        }
        Err(e) => Err(e),
    }
}

/// Reads a file runner takes as input (a flow, a var file, a shard's report): at most
/// `cap + 1` bytes, so a caller tells a file over the cap by its length (the size a file
/// reports is not what it gives: a file that grows). Only a regular file: a FIFO would block
/// the open until something writes to it, a device such as `/dev/zero` never ends. The file
/// is opened without blocking and checked through the handle it was opened by, so what is read
/// is what was checked; a symlink counts as what it points to.
pub(crate) fn read_regular(path: &Path, cap: u64) -> std::io::Result<Vec<u8>> {
    read_regular_if(path, cap, |_| true)
}

/// [`read_regular`] of a file `keep` takes, given the metadata of the handle the file was
/// opened by (so what it checked is what is read: a file swapped after a look is not). A file
/// it does not take is an error (`PermissionDenied`), read no further.
pub(crate) fn read_regular_if(
    path: &Path,
    cap: u64,
    keep: impl FnOnce(&std::fs::Metadata) -> bool,
) -> std::io::Result<Vec<u8>> {
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
    if !keep(&file.metadata()?) {
        return Err(std::io::ErrorKind::PermissionDenied.into());
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
    fn a_scratch_folder_is_private() {
        use std::os::unix::fs::PermissionsExt;
        // Under the usual umask (022) a folder is made 0755.
        let d = super::private_scratch("runner-test-").unwrap();
        let mode = std::fs::metadata(d.path()).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        assert!(
            d.path()
                .file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("runner-test-")
        );
    }

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
    fn private_files_are_0600_from_the_start_and_never_written_through_a_link() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("flow");
        let path = root.join(".auth/user.json");
        super::write_private(&root, &path, b"one").unwrap();
        super::write_private(&root, &path, b"two").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "two");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert_eq!(std::fs::read_dir(root.join(".auth")).unwrap().count(), 1);
        let outside = d.path().join("target");
        std::fs::write(&outside, "keep").unwrap();
        std::fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink(&outside, &path).unwrap();
        let e = super::write_private(&root, &path, b"x").unwrap_err();
        assert!(
            e.ends_with(
                "user.json is a symbolic link: runner writes no file through one (remove the link)"
            ),
            "{e}"
        );
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "keep");
    }

    #[test]
    fn numbered_names_keep_their_extension_and_fit_a_file_name() {
        use super::numbered_name;
        assert_eq!(numbered_name("a.txt", 1), "a.txt");
        assert_eq!(numbered_name("a.txt", 2), "a (2).txt");
        assert_eq!(numbered_name(".bashrc", 3), ".bashrc (3)");
        assert_eq!(numbered_name("archive.tar.gz", 2), "archive.tar (2).gz");
        let long = format!("{}.csv", "L".repeat(300));
        assert_eq!(numbered_name(&long, 1), format!("{}.csv", "L".repeat(251)));
        assert_eq!(
            numbered_name(&long, 12),
            format!("{} (12).csv", "L".repeat(246))
        );
        // Cut on a character's boundary; a long "extension" is no extension.
        let wide = "é".repeat(200);
        assert_eq!(numbered_name(&wide, 1), "é".repeat(127));
        let dotted = format!("a.{}", "x".repeat(300));
        assert_eq!(numbered_name(&dotted, 1).len(), 255);
        assert!(numbered_name(&dotted, 1).starts_with("a.xxx"));
    }

    #[test]
    fn moves_to_a_free_name_past_files_and_symlinks_without_following_them() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("art");
        let dir = root.join("001-f/downloads");
        std::fs::create_dir_all(&dir).unwrap();
        let outside = d.path().join("passwd");
        std::fs::write(&outside, "root").unwrap();
        std::os::unix::fs::symlink(&outside, dir.join("r.csv")).unwrap();
        std::os::unix::fs::symlink(d.path().join("new"), dir.join("r (2).csv")).unwrap();
        std::fs::write(dir.join("r (3).csv"), "older").unwrap();
        std::fs::write(dir.join("guid"), "data").unwrap();
        let to = super::move_to_free_name(&root, &dir, "guid", "r.csv").unwrap();
        assert_eq!(to, dir.join("r (4).csv"));
        assert_eq!(std::fs::read_to_string(&to).unwrap(), "data");
        assert!(!dir.join("guid").exists());
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "root");
        assert_eq!(
            std::fs::read_to_string(dir.join("r (3).csv")).unwrap(),
            "older"
        );
        assert!(!d.path().join("new").exists());
        // The directory itself a symlink: refused.
        let linked = root.join("001-g");
        std::os::unix::fs::symlink(d.path(), &linked).unwrap();
        let e = super::move_to_free_name(&root, &linked, "passwd", "x").unwrap_err();
        assert!(e.contains("001-g is a symbolic link"), "{e}");
        assert!(outside.exists());
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
