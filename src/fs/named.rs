//! A file the user names for runner to write (`--report json=PATH`, `junit=PATH`, an HTML
//! report's `index.html`): what is already there decides how. A regular file (or nothing, or a
//! symlink to a file or to nothing) is replaced whole, written beside and renamed
//! ([`super::write_atomic_with`]: a reader never sees half a report, and a link in its place is
//! replaced, not followed). A FIFO or a character device (`/dev/null`, a terminal) is written
//! through, as a shell's `>` writes, never replaced: replacing it would leave a regular file
//! where a device was (as root, in `/dev`). So is a path to one of runner's own descriptors
//! (`/dev/stdout`, `/dev/stderr`, `/dev/fd/N`, `/proc/self/fd/N`: links to whatever the
//! descriptor is). Anything else (a directory, a socket, a block device, a link to one of
//! these) is refused.

use std::fs::Metadata;
use std::io::Write;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use nix::fcntl::{FcntlArg, OFlag, fcntl};

/// How a named file is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Way {
    /// Written beside and renamed into place.
    Replace,
    /// Opened (never created) and written through.
    Through,
}

/// How the file at `path` would be written, or why it is not: what the run checks before it
/// starts and the write checks again.
fn way(path: &Path) -> Result<Way, String> {
    if descriptor(path).is_some() {
        return Ok(Way::Through);
    }
    let shown = path.display();
    let meta = match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Way::Replace),
        Err(e) => return Err(format!("cannot look at {shown}: {e}")),
        Ok(m) => m,
    };
    if meta.file_type().is_symlink() {
        return match std::fs::metadata(path) {
            Ok(m) if !m.is_file() => Err(format!(
                "{shown} is a symbolic link to {}: runner writes a report through no link (name the file itself)",
                kind(&m)
            )),
            _ => Ok(Way::Replace),
        };
    }
    let t = meta.file_type();
    if t.is_file() {
        Ok(Way::Replace)
    } else if t.is_fifo() || t.is_char_device() {
        Ok(Way::Through)
    } else {
        Err(format!(
            "{shown} is {}, not a file a report can be written to",
            kind(&meta)
        ))
    }
}

/// Why runner would not write a report at `path`; `None` when it would.
pub(crate) fn named_file_problem(path: &Path) -> Option<String> {
    way(path).err()
}

/// Writes what `write` writes to `path` (see the module's doc).
pub(crate) fn write_named(
    path: &Path,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    match way(path).map_err(std::io::Error::other)? {
        Way::Replace => {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir)?;
            }
            super::write_atomic_with(path, write)
        }
        Way::Through => {
            let mut w = std::io::BufWriter::new(open_through(path)?);
            write(&mut w)?;
            w.flush()
        }
    }
}

/// `path` (a FIFO, a character device or a descriptor's link) opened to write through. Runner's
/// stdout and stderr are written as runner writes them (a duplicate of the descriptor: at its
/// place, appending if it appends, nothing emptied). Anything else is opened, never created,
/// and without waiting for a FIFO's reader (a FIFO nobody reads is an error, not a run that
/// never ends), then made blocking again, so a full pipe or a slow terminal is waited for as any
/// writer waits; checked again through the handle.
fn open_through(path: &Path) -> std::io::Result<std::fs::File> {
    match descriptor(path) {
        Some(1) => return Ok(nix::unistd::dup(std::io::stdout())?.into()),
        Some(2) => return Ok(nix::unistd::dup(std::io::stderr())?.into()),
        _ => {}
    }
    let file = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags((OFlag::O_NONBLOCK | OFlag::O_CLOEXEC).bits())
        .open(path)
        .map_err(|e| {
            if e.raw_os_error() == Some(nix::errno::Errno::ENXIO as i32) {
                std::io::Error::other("it is a FIFO nobody reads (start its reader first)")
            } else {
                e
            }
        })?;
    let t = file.metadata()?.file_type();
    if !(t.is_fifo() || t.is_char_device() || descriptor(path).is_some()) {
        return Err(std::io::Error::other(
            "it changed into something else while it was opened",
        ));
    }
    let flags = OFlag::from_bits_truncate(fcntl(&file, FcntlArg::F_GETFL)?);
    fcntl(&file, FcntlArg::F_SETFL(flags - OFlag::O_NONBLOCK))?;
    if t.is_file() {
        // Another descriptor's regular file (`/dev/fd/3`, opened anew): emptied first, as a
        // shell's `>` empties it.
        file.set_len(0)?;
    }
    Ok(file)
}

/// The descriptor of runner's own that `path` names, as written or through the links it leads
/// along (`/dev/stdout -> /proc/self/fd/1`).
fn descriptor(path: &Path) -> Option<u32> {
    let mut p: PathBuf = path.to_path_buf();
    for _ in 0..8 {
        let text = p.to_string_lossy();
        match text.as_ref() {
            "/dev/stdout" => return Some(1),
            "/dev/stderr" => return Some(2),
            _ => {}
        }
        let number = ["/dev/fd/", "/proc/self/fd/"]
            .iter()
            .find_map(|dir| text.strip_prefix(dir))
            .and_then(|n| n.parse::<u32>().ok());
        if number.is_some() {
            return number;
        }
        let to = std::fs::read_link(&p).ok()?;
        p = p.parent().map_or_else(|| to.clone(), |dir| dir.join(&to));
    }
    None
}

/// What a file that is not a regular one is, for a message.
fn kind(meta: &Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        "a directory"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_fifo() {
        "a FIFO (named pipe)"
    } else {
        "not a file"
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    use std::path::Path;

    use super::{descriptor, named_file_problem, write_named};

    fn fifo(at: &Path) {
        nix::unistd::mkfifo(at, nix::sys::stat::Mode::S_IRWXU).unwrap();
    }

    fn reader(at: &Path) -> std::fs::File {
        std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits())
            .open(at)
            .unwrap()
    }

    #[test]
    fn descriptors_are_told_by_name_and_through_links() {
        let d = tempfile::tempdir().unwrap();
        assert_eq!(descriptor(Path::new("/dev/stdout")), Some(1));
        assert_eq!(descriptor(Path::new("/dev/stderr")), Some(2));
        assert_eq!(descriptor(Path::new("/dev/fd/63")), Some(63));
        assert_eq!(descriptor(Path::new("/proc/self/fd/7")), Some(7));
        assert_eq!(descriptor(Path::new("/dev/fd/x")), None);
        assert_eq!(descriptor(Path::new("/dev/null")), None);
        let link = d.path().join("out");
        std::os::unix::fs::symlink("/dev/stdout", &link).unwrap();
        assert_eq!(descriptor(&link), Some(1));
    }

    #[test]
    fn a_fifo_nobody_reads_is_an_error_at_once_and_so_is_a_failed_write() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("pipe");
        fifo(&p);
        let e = write_named(&p, |w| w.write_all(b"x")).unwrap_err();
        assert!(e.to_string().contains("a FIFO nobody reads"), "{e}");
        // The reader goes away before the write: the write's error is the error.
        let r = reader(&p);
        let e = write_named(&p, |w| {
            drop(r);
            w.write_all(&vec![b'x'; 1 << 17])?;
            w.flush()
        })
        .unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
        assert!(std::fs::symlink_metadata(&p).unwrap().file_type().is_fifo());
    }

    #[test]
    fn links_to_what_is_no_file_are_refused_and_links_to_files_replaced() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("pipe");
        fifo(&p);
        let link = d.path().join("to-pipe");
        std::os::unix::fs::symlink(&p, &link).unwrap();
        let why = named_file_problem(&link).unwrap();
        assert!(
            why.contains("is a symbolic link to a FIFO (named pipe)"),
            "{why}"
        );
        let dir_link = d.path().join("to-dir");
        std::os::unix::fs::symlink(d.path(), &dir_link).unwrap();
        assert!(named_file_problem(&dir_link).is_some());
        let victim = d.path().join("victim");
        std::fs::write(&victim, "keep").unwrap();
        let file_link = d.path().join("to-file");
        std::os::unix::fs::symlink(&victim, &file_link).unwrap();
        write_named(&file_link, |w| w.write_all(b"report")).unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
        assert_eq!(std::fs::read_to_string(&file_link).unwrap(), "report");
        assert!(
            named_file_problem(d.path())
                .unwrap()
                .contains("is a directory")
        );
    }
}
