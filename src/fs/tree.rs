//! A directory runner keeps files in and reads them back from: the artifacts directory, an
//! atlas, the agent cache. Its root is taken as named (it may itself be a link: a user may put
//! `--artifacts` on another disk); nothing below it is followed. Each folder between the root
//! and a file is opened with `O_NOFOLLOW` from the one above (made where missing, to write),
//! and a file's own name is opened the same way: a repository may hold an atlas or a cache with
//! a link out, which would redirect CI's writes or hand what it points at (a key, `/dev/zero`)
//! to a reader or an agent. A file is read only if it is a regular one, opened without blocking
//! and checked through the handle it was opened by, and only up to a cap: a FIFO would block
//! the run where no timeout or interrupt can end it (the read is synchronous, on the runtime's
//! thread), a device would never end.

use std::ffi::OsStr;
use std::fs::File;
use std::os::fd::OwnedFd;
use std::path::{Component, Path, PathBuf};

use nix::errno::Errno;
use nix::fcntl::{AtFlags, OFlag, open, openat, renameat};
use nix::sys::stat::{Mode, fstatat, mkdirat};
use nix::unistd::{UnlinkatFlags, unlinkat};

/// Whose directory a [`Tree`] is: it says what a refusal says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Owner {
    Artifacts,
    Atlas,
    AgentCache,
    /// A flow's directory, where `state.save` writes.
    FlowDir,
    /// The working directory, where runner keeps its own folder (`.runner`).
    Project,
}

impl Owner {
    fn name(self) -> &'static str {
        match self {
            Owner::Artifacts => "the artifacts directory",
            Owner::Atlas => "the atlas",
            Owner::AgentCache => "the agent cache",
            Owner::FlowDir => "the flow's directory",
            Owner::Project => "the working directory",
        }
    }

    /// Why a link is refused, after "`<path>` is".
    fn link(self) -> &'static str {
        match self {
            Owner::Artifacts => {
                "a symbolic link: runner writes no artifact through one (left from an earlier run? remove the link)"
            }
            Owner::Atlas => {
                "a symbolic link: runner reads and writes nothing in an atlas through one (remove the link)"
            }
            Owner::AgentCache => {
                "a symbolic link: runner reads and writes nothing in the agent cache through one (remove the link)"
            }
            Owner::FlowDir => {
                "a symbolic link: runner writes no file through one (remove the link)"
            }
            Owner::Project => {
                "a symbolic link: runner writes nothing in its own folder through one (remove the link)"
            }
        }
    }
}

/// What goes wrong in a [`Tree`]; each names the path it is about.
#[derive(Debug, thiserror::Error)]
pub(crate) enum TreeError {
    #[error("cannot {doing} {}: {source}", path.display())]
    Io {
        doing: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    /// Something runner does not read or write there: a link, a FIFO, a file over the cap.
    #[error("{} is {why}", path.display())]
    Refused { path: PathBuf, why: String },
}

impl TreeError {
    /// What went wrong, for a message that names the path already: an I/O error's own text, a
    /// refusal whole (it names the link or file it is about).
    pub(crate) fn why(&self) -> String {
        match self {
            TreeError::Io { source, .. } => source.to_string(),
            TreeError::Refused { .. } => self.to_string(),
        }
    }

    /// Whether the file (or a folder on its way) is not there: the one error that means
    /// "nothing recorded yet".
    pub(crate) fn is_not_found(&self) -> bool {
        matches!(self, TreeError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound)
    }
}

/// A directory runner owns the inside of (see the module's doc).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tree<'a> {
    root: &'a Path,
    owner: Owner,
}

impl<'a> Tree<'a> {
    pub(crate) fn new(root: &'a Path, owner: Owner) -> Tree<'a> {
        Tree { root, owner }
    }

    fn refused(&self, path: &Path, why: impl Into<String>) -> TreeError {
        TreeError::Refused {
            path: path.to_path_buf(),
            why: why.into(),
        }
    }

    /// `dir` (inside the root) opened as a directory, each component below the root made if
    /// missing (with `make`) and opened with `O_NOFOLLOW`.
    pub(super) fn open_dir(&self, dir: &Path, make: bool) -> Result<OwnedFd, TreeError> {
        let io = |doing, path: &Path, e: Errno| TreeError::Io {
            doing,
            path: path.to_path_buf(),
            source: e.into(),
        };
        let rel = dir.strip_prefix(self.root).map_err(|_| {
            let why = format!("not inside {} {}", self.owner.name(), self.root.display());
            self.refused(dir, why)
        })?;
        if make {
            super::make_dir_all(self.root)?;
        }
        let flags = OFlag::O_DIRECTORY | OFlag::O_RDONLY | OFlag::O_CLOEXEC;
        let mut fd = open(self.root, flags, Mode::empty()).map_err(|e| io("open", self.root, e))?;
        let mut at = self.root.to_path_buf();
        for c in rel.components() {
            let Component::Normal(name) = c else {
                return Err(self.refused(dir, format!("outside {}", self.owner.name())));
            };
            at.push(name);
            if make {
                match mkdirat(&fd, name, Mode::from_bits_truncate(0o755)) {
                    Ok(()) | Err(Errno::EEXIST) => {}
                    Err(e) => return Err(io("create", &at, e)),
                }
            }
            fd = match openat(&fd, name, flags | OFlag::O_NOFOLLOW, Mode::empty()) {
                Ok(next) => next,
                Err(Errno::ELOOP) => return Err(self.refused(&at, self.owner.link())),
                Err(Errno::ENOTDIR) => {
                    let link = std::fs::symlink_metadata(&at).is_ok_and(|m| m.is_symlink());
                    let why = if link {
                        self.owner.link()
                    } else {
                        "a file, not a directory"
                    };
                    return Err(self.refused(&at, why));
                }
                Err(e) => return Err(io("open", &at, e)),
            };
        }
        Ok(fd)
    }

    /// `path`'s folder opened (made where missing, with `make`), and its own name.
    fn parent<'p>(&self, path: &'p Path, make: bool) -> Result<(OwnedFd, &'p OsStr), TreeError> {
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            return Err(self.refused(path, "not a file's path"));
        };
        Ok((self.open_dir(parent, make)?, name))
    }

    /// Makes directory `dir` (and the folders on its way) where missing.
    pub(crate) fn make_dir(&self, dir: &Path) -> Result<(), TreeError> {
        self.open_dir(dir, true).map(drop)
    }

    /// The file `path`, ready to be written (by runner or by another program, such as the
    /// browser): its folders made, none of them a link, and the file itself no link (a write
    /// would go where it points).
    pub(crate) fn file(&self, path: &Path) -> Result<PathBuf, TreeError> {
        let (fd, name) = self.parent(path, true)?;
        match fstatat(&fd, name, AtFlags::AT_SYMLINK_NOFOLLOW) {
            Ok(st) if st.st_mode & nix::libc::S_IFMT == nix::libc::S_IFLNK => {
                Err(self.refused(path, self.owner.link()))
            }
            _ => Ok(path.to_path_buf()),
        }
    }

    /// Opens `path` with `flags` (and `O_NOFOLLOW`, `O_NONBLOCK`) in its folder; a link in its
    /// place is refused, and so is what is not a regular file.
    fn open_file(&self, path: &Path, flags: OFlag, make: bool) -> Result<File, TreeError> {
        let (dir, name) = self.parent(path, make)?;
        let flags = flags | OFlag::O_NOFOLLOW | OFlag::O_NONBLOCK | OFlag::O_CLOEXEC;
        let file = match openat(&dir, name, flags, Mode::from_bits_truncate(0o666)) {
            Ok(fd) => File::from(fd),
            Err(Errno::ELOOP) => return Err(self.refused(path, self.owner.link())),
            // A FIFO opened to write with no reader, or a socket.
            Err(Errno::ENXIO) => return Err(self.refused(path, "not a regular file")),
            Err(e) => {
                return Err(TreeError::Io {
                    doing: "open",
                    path: path.to_path_buf(),
                    source: e.into(),
                });
            }
        };
        let io = |source| TreeError::Io {
            doing: "read",
            path: path.to_path_buf(),
            source,
        };
        match super::not_regular(&file) {
            Ok(None) => Ok(file),
            // What reading one would say: a folder where a file belongs is a tree that cannot
            // be read, not a trap.
            Ok(Some("a directory")) => Err(io(Errno::EISDIR.into())),
            Ok(Some(kind)) => Err(self.refused(path, format!("{kind}, not a regular file"))),
            Err(source) => Err(io(source)),
        }
    }

    /// Opens regular file `path` to read.
    pub(crate) fn open(&self, path: &Path) -> Result<File, TreeError> {
        self.open_file(path, OFlag::O_RDONLY, false)
    }

    /// The bytes of regular file `path`, of at most `cap` bytes (a larger one is refused).
    pub(crate) fn read(&self, path: &Path, cap: u64) -> Result<Vec<u8>, TreeError> {
        use std::io::Read;
        let file = self.open(path)?;
        let mut bytes = Vec::new();
        file.take(cap + 1)
            .read_to_end(&mut bytes)
            .map_err(|source| TreeError::Io {
                doing: "read",
                path: path.to_path_buf(),
                source,
            })?;
        if bytes.len() as u64 > cap {
            let why = format!("larger than {cap} bytes, the most runner reads of a file there");
            return Err(self.refused(path, why));
        }
        Ok(bytes)
    }

    /// [`Tree::read`] of a text file.
    pub(crate) fn read_text(&self, path: &Path, cap: u64) -> Result<String, TreeError> {
        String::from_utf8(self.read(path, cap)?).map_err(|_| self.refused(path, "not UTF-8 text"))
    }

    /// Creates `path` for writing, or empties it when it is there: its folders made, the file
    /// opened as [`Tree::open`] opens one (a link or a FIFO in its place refused, never
    /// followed nor waited on), and emptied only once it is known to be a regular file.
    pub(crate) fn create(&self, path: &Path) -> Result<File, TreeError> {
        let file = self.open_file(path, OFlag::O_WRONLY | OFlag::O_CREAT, true)?;
        file.set_len(0).map_err(|source| TreeError::Io {
            doing: "create",
            path: path.to_path_buf(),
            source,
        })?;
        Ok(file)
    }

    /// Opens `path` (made if missing) to hold a lock on: a regular file, not a link.
    pub(crate) fn lock_file(&self, path: &Path) -> Result<File, TreeError> {
        self.open_file(path, OFlag::O_WRONLY | OFlag::O_CREAT, true)
    }

    /// Writes `bytes` to `path` whole or not at all (a temporary file beside it, then a
    /// rename, as [`super::write_atomic_with`]), its folders made; a link in its place is replaced,
    /// never written through.
    pub(crate) fn write(&self, path: &Path, bytes: &[u8]) -> Result<(), TreeError> {
        self.write_mode(path, bytes, Mode::from_bits_truncate(0o666))
    }

    /// [`Tree::write`] for its owner's eyes only (mode 0600 from the start: a saved state holds
    /// session cookies), and a link in the file's place refused, not replaced (another program,
    /// such as the browser, may have written through it).
    pub(crate) fn write_private(&self, path: &Path, bytes: &[u8]) -> Result<(), TreeError> {
        self.file(path)?;
        self.write_mode(path, bytes, Mode::S_IRUSR | Mode::S_IWUSR)
    }

    fn write_mode(&self, path: &Path, bytes: &[u8], mode: Mode) -> Result<(), TreeError> {
        use std::io::Write;
        let (dir, name) = self.parent(path, true)?;
        let tmp = tmp_name(name);
        let io = |source: std::io::Error| TreeError::Io {
            doing: "write",
            path: path.to_path_buf(),
            source,
        };
        let flags =
            OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_EXCL | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
        let written = openat(&dir, tmp.as_str(), flags, mode)
            .map_err(std::io::Error::from)
            .and_then(|fd| File::from(fd).write_all(bytes))
            .and_then(|()| renameat(&dir, tmp.as_str(), &dir, name).map_err(std::io::Error::from));
        written.map_err(|e| {
            let _ = unlinkat(&dir, tmp.as_str(), UnlinkatFlags::NoRemoveDir);
            io(e)
        })
    }

    /// Makes `path` a symbolic link to `target` (replacing what is there, atomically).
    pub(crate) fn symlink(&self, path: &Path, target: &Path) -> Result<(), TreeError> {
        let (dir, name) = self.parent(path, true)?;
        let tmp = tmp_name(name);
        nix::unistd::symlinkat(target, &dir, tmp.as_str())
            .and_then(|()| renameat(&dir, tmp.as_str(), &dir, name))
            .map_err(|e| {
                let _ = unlinkat(&dir, tmp.as_str(), UnlinkatFlags::NoRemoveDir);
                TreeError::Io {
                    doing: "write",
                    path: path.to_path_buf(),
                    source: e.into(),
                }
            })
    }

    /// Where symbolic link `path` points (its folders no links).
    pub(crate) fn read_link(&self, path: &Path) -> Result<PathBuf, TreeError> {
        let (dir, name) = self.parent(path, false)?;
        nix::fcntl::readlinkat(&dir, name)
            .map(PathBuf::from)
            .map_err(|e| TreeError::Io {
                doing: "read",
                path: path.to_path_buf(),
                source: e.into(),
            })
    }

    /// The names in directory `dir` (not `.` and `..`), sorted.
    pub(crate) fn list(&self, dir: &Path) -> Result<Vec<String>, TreeError> {
        let fd = self.open_dir(dir, false)?;
        let io = |e: Errno| TreeError::Io {
            doing: "read",
            path: dir.to_path_buf(),
            source: e.into(),
        };
        let mut names = Vec::new();
        for e in nix::dir::Dir::from_fd(fd).map_err(io)? {
            let name = e.map_err(io)?.file_name().to_string_lossy().into_owned();
            if name != "." && name != ".." {
                names.push(name);
            }
        }
        names.sort();
        Ok(names)
    }
}

/// A temporary name beside `name`, for a file written whole then renamed into place: unique
/// to the process (its pid) and to the write (two threads may write the same file), a dot
/// first so that listings pass it over.
fn tmp_name(name: &OsStr) -> String {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!(".{}.{}.{n}.tmp", name.to_string_lossy(), std::process::id())
}

#[cfg(test)]
mod tests {
    use super::{Owner, Tree};

    #[test]
    fn reads_and_writes_nothing_through_a_link_nor_a_fifo() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("atl");
        let outside = d.path().join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("meta.json"), "{}").unwrap();
        let t = Tree::new(&root, Owner::Atlas);
        let ok = root.join("nodes/a/meta.json");
        t.write(&ok, b"{\"a\":1}").unwrap();
        assert_eq!(t.read(&ok, 100).unwrap(), b"{\"a\":1}");
        assert_eq!(t.list(&root.join("nodes")).unwrap(), ["a"]);
        let e = t.read(&ok, 3).unwrap_err().to_string();
        assert!(
            e.ends_with("meta.json is larger than 3 bytes, the most runner reads of a file there"),
            "{e}"
        );
        // A link as a folder on the way, and as the file itself.
        std::os::unix::fs::symlink(&outside, root.join("nodes/b")).unwrap();
        let through = root.join("nodes/b/meta.json");
        let said = format!(
            "{} is a symbolic link: runner reads and writes nothing in an atlas through one (remove the link)",
            root.join("nodes/b").display()
        );
        assert_eq!(t.read(&through, 100).unwrap_err().to_string(), said);
        assert_eq!(t.write(&through, b"x").unwrap_err().to_string(), said);
        assert_eq!(t.list(&root.join("nodes/b")).unwrap_err().to_string(), said);
        let linked = root.join("nodes/a/snapshot.txt");
        std::os::unix::fs::symlink(outside.join("meta.json"), &linked).unwrap();
        assert!(
            t.read(&linked, 100)
                .unwrap_err()
                .to_string()
                .contains("is a symbolic link")
        );
        assert!(
            t.lock_file(&linked)
                .unwrap_err()
                .to_string()
                .contains("is a symbolic link")
        );
        // A write replaces the link; what it pointed at is untouched.
        t.write(&linked, b"snap").unwrap();
        assert!(std::fs::symlink_metadata(&linked).unwrap().is_file());
        assert_eq!(
            std::fs::read_to_string(outside.join("meta.json")).unwrap(),
            "{}"
        );
        // A FIFO is refused at once, to read and to lock.
        let fifo = root.join("nodes/a/todos.json");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        let said = format!(
            "{} is a FIFO (named pipe), not a regular file",
            fifo.display()
        );
        assert_eq!(t.read(&fifo, 100).unwrap_err().to_string(), said);
        assert!(t.lock_file(&fifo).is_err());
        assert!(
            t.read(&root.join("nodes/x/meta.json"), 9)
                .unwrap_err()
                .is_not_found()
        );
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 1);
    }
}
