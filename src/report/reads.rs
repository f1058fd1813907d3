//! Which files a report may read to show what its paths name (a failure screenshot, a page
//! snapshot, a web server's log, the source line of an error's place), and reading them so.
//!
//! A run's report reads the files runner wrote. A merged shard's report is input from outside:
//! a path in it is read only when it resolves (symlinks followed, canonical) to a regular file
//! inside the shard's own directory, of at most [`SHARD_FILE_CAP`] bytes, named as runner names
//! the files it keeps in its artifacts (a screenshot `.png`, a snapshot `.snapshot.txt`, a log
//! `.log`) and in no dot-directory but runner's own `.runner` (never `.git/config`); anything
//! else (`/etc/passwd`, `../x`, `/dev/zero`, a FIFO, a symlink out, a flow file) is left out
//! with the reason, which names paths as the shard does, never as the merging machine's. A
//! shard's flow files are not read for their source lines. A report read back from a file and
//! told nothing reads nothing.

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use nix::fcntl::OFlag;

/// The most bytes read from one file a shard's report names (8 MiB: a failure screenshot is a
/// few hundred KiB, a snapshot less).
pub(crate) const SHARD_FILE_CAP: u64 = 8 * 1024 * 1024;

/// Which files a report's paths may be read from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) enum Reads {
    /// None: a report document read from a file, until told where it comes from.
    #[default]
    Nothing,
    /// The files of this run: runner's own records name them (never a symlink in their
    /// place).
    Own,
    /// A shard's report: regular files inside `dir` (canonical) only, capped; `shown` is the
    /// directory as the command line named it, for the notes.
    Shard { dir: PathBuf, shown: String },
}

/// The endings of the files runner keeps in its artifacts that a report shows.
const ARTIFACT_ENDINGS: [&str; 5] = [".png", ".snapshot.txt", ".log", "trace.json", ".jpg"];

impl Reads {
    /// The reads of a shard whose report is the file `report`: files inside its directory.
    pub(crate) fn shard(report: &Path) -> std::io::Result<Reads> {
        let dir = report
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        Ok(Reads::Shard {
            dir: std::fs::canonicalize(dir)?,
            shown: dir.display().to_string(),
        })
    }

    /// `path` opened for reading, and the most bytes to read from it; else why it is not read.
    pub(crate) fn open(&self, path: &str) -> Result<(File, u64), String> {
        match self {
            Reads::Nothing => Err("a report read back from a file reads none of its files".into()),
            // A file runner wrote is no symlink: one in its place (a reused artifacts
            // directory) is not what runner wrote there, and its target is not copied.
            Reads::Own => {
                let p = Path::new(path);
                if std::fs::symlink_metadata(p).is_ok_and(|m| m.is_symlink()) {
                    return Err("it is a symbolic link, not a file runner wrote".into());
                }
                open_regular(p, OFlag::O_NOFOLLOW).map(|f| (f, u64::MAX))
            }
            Reads::Shard { dir, shown } => {
                let p = Path::new(path);
                let real = std::fs::canonicalize(dir.join(p))
                    .map_err(|e| format!("cannot be read: {e}"))?;
                let Ok(inside) = real.strip_prefix(dir) else {
                    return Err(format!("it is not inside the shard's directory {shown}"));
                };
                // Canonical: a symlink put in its place since is not followed.
                let f = open_regular(&real, OFlag::O_NOFOLLOW)?;
                let len = f.metadata().map_or(u64::MAX, |m| m.len());
                if len > SHARD_FILE_CAP {
                    return Err(format!(
                        "it is larger than {} MiB",
                        SHARD_FILE_CAP / 1024 / 1024
                    ));
                }
                artifact_like(inside)?;
                Ok((f, SHARD_FILE_CAP))
            }
        }
    }

    /// The file `path` names, as one key however it is spelled (`p.png`, `./p.png`, a link to
    /// it): its canonical path; `None` when there is none.
    pub(crate) fn real(&self, path: &str) -> Option<PathBuf> {
        match self {
            Reads::Nothing => None,
            Reads::Own => std::fs::canonicalize(path).ok(),
            Reads::Shard { dir, .. } => std::fs::canonicalize(dir.join(path)).ok(),
        }
    }

    /// Whether what these reads take is input from outside (a shard's), whose total a report
    /// bounds.
    pub(crate) fn is_shard(&self) -> bool {
        matches!(self, Reads::Shard { .. })
    }

    /// The text of a flow file, for the source line of an error's place: a run's own only (a
    /// shard's report names its places as data: its flow files are not artifacts).
    pub(crate) fn read_source(&self, path: &str) -> Result<String, String> {
        match self {
            Reads::Own => self.read_text(path),
            Reads::Nothing | Reads::Shard { .. } => Err("a shard's flow files are not read".into()),
        }
    }

    /// The text of the file at `path` (lossy UTF-8), read as [`Reads::open`] allows.
    pub(crate) fn read_text(&self, path: &str) -> Result<String, String> {
        let (f, cap) = self.open(path)?;
        let mut bytes = Vec::new();
        f.take(cap)
            .read_to_end(&mut bytes)
            .map_err(|e| format!("cannot be read: {e}"))?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }
}

/// Whether `inside` (a path inside a shard's directory) is named as a file runner keeps in its
/// artifacts and shows, and is in no dot-directory but runner's own `.runner` (its default
/// artifacts): a shard's directory may be a repository's root, with `.git/config` beside.
fn artifact_like(inside: &Path) -> Result<(), String> {
    let parts: Vec<String> = inside
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let dotted = parts
        .iter()
        .enumerate()
        .any(|(i, p)| p.starts_with('.') && !(i == 0 && p == ".runner" && parts.len() > 1));
    if dotted {
        return Err("it is in a dot-directory (or is a dot-file) of the shard, where runner keeps no artifact".into());
    }
    let name = parts.last().map_or("", String::as_str);
    if !ARTIFACT_ENDINGS.iter().any(|e| name.ends_with(e)) {
        return Err(format!(
            "it is not named as the artifacts a report shows ({})",
            ARTIFACT_ENDINGS.join(", ")
        ));
    }
    Ok(())
}

/// Opens a regular file (with `flags` too), and nothing else: not a FIFO (whose open waits for a
/// writer), a device or a directory. Checked before the open, and again on what was opened (the
/// path may have changed in between: non-blocking, a FIFO put there does not wait either).
fn open_regular(path: &Path, flags: OFlag) -> Result<File, String> {
    let regular = |m: &std::fs::Metadata| {
        if m.is_file() {
            Ok(())
        } else {
            Err("it is not a regular file".to_string())
        }
    };
    regular(&std::fs::metadata(path).map_err(|e| format!("cannot be read: {e}"))?)?;
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags((OFlag::O_NONBLOCK | flags).bits())
        .open(path)
        .map_err(|e| format!("cannot be read: {e}"))?;
    regular(&f.metadata().map_err(|e| format!("cannot be read: {e}"))?)?;
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shard_reads_regular_files_inside_its_directory_only() {
        let d = tempfile::tempdir().unwrap();
        let shard = d.path().join("shard");
        std::fs::create_dir_all(shard.join("art")).unwrap();
        std::fs::write(shard.join("art/shot.png"), b"png").unwrap();
        std::fs::write(d.path().join("outside.txt"), b"secret").unwrap();
        std::os::unix::fs::symlink(d.path().join("outside.txt"), shard.join("out")).unwrap();
        std::os::unix::fs::symlink("art/shot.png", shard.join("in")).unwrap();
        nix::unistd::mkfifo(&shard.join("fifo"), nix::sys::stat::Mode::S_IRWXU).unwrap();
        std::fs::write(
            shard.join("big"),
            vec![0u8; usize::try_from(SHARD_FILE_CAP).unwrap() + 1],
        )
        .unwrap();
        let reads = Reads::shard(&shard.join("report.json")).unwrap();
        let inside = shard.join("art/shot.png").display().to_string();
        assert_eq!(reads.read_text(&inside).unwrap(), "png");
        assert_eq!(reads.read_text("art/shot.png").unwrap(), "png");
        assert_eq!(reads.read_text("in").unwrap(), "png");
        for (path, why) in [
            ("/etc/passwd", "not inside"),
            ("../outside.txt", "not inside"),
            ("out", "not inside"),
            ("/dev/zero", "not inside"),
            ("fifo", "not a regular file"),
            ("art", "not a regular file"),
            ("big", "larger than 8 MiB"),
            ("missing", "cannot be read"),
        ] {
            let e = reads.read_text(path).unwrap_err();
            assert!(e.contains(why), "{path}: {e}");
        }
        assert!(Reads::Nothing.read_text(&inside).is_err());
        assert!(Reads::Own.read_text(&inside).is_ok());
        assert!(Reads::Own.read_text("/dev/zero").is_err());
        let e = Reads::Own
            .read_text(&shard.join("in").display().to_string())
            .unwrap_err();
        assert!(e.contains("symbolic link"), "{e}");
    }
}
