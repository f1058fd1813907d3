//! An atlas directory: opening it, where its nodes are, and the lock file that serializes
//! writers, so two runs can share an atlas.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::fcntl::{Flock, FlockArg};

use super::error::AtlasError;

/// The longest a writer waits for another process's lock. Runner holds it for one small write
/// at a time (milliseconds): one held longer is a stuck process, and waiting for it in a
/// blocking call would leave the run where no timeout can end it (the wait is synchronous, on
/// the runtime's thread; an interrupt ends it through `step::interrupt`).
const LOCK_WAIT: Duration = Duration::from_secs(10);

/// An atlas directory.
#[derive(Debug, Clone)]
pub(crate) struct Atlas {
    pub(crate) root: PathBuf,
    /// What the steps read from it may reach (runner.toml's `[atlas]`): see `atlas::reach`.
    pub(crate) reach: super::Reach,
}

impl Atlas {
    /// Opens (and creates) an atlas directory: the directory as named (a link or not), its
    /// `nodes` and `edges` real directories in it; a folder that is not an atlas is refused
    /// ([`refusal`]).
    pub(crate) fn open(root: &Path) -> Result<Atlas, AtlasError> {
        if let Some(why) = refusal(root) {
            return Err(AtlasError::Refused(why));
        }
        let atlas = Atlas {
            root: root.to_path_buf(),
            reach: super::Reach::default(),
        };
        for d in ["nodes", "edges"] {
            atlas.tree().make_dir(&root.join(d))?;
        }
        Ok(atlas)
    }

    /// Whether `atlas.json` is there, or (an atlas recorded before runner wrote it) a node.
    fn is_atlas(&self) -> bool {
        std::fs::symlink_metadata(self.root.join("atlas.json")).is_ok_and(|m| m.is_file())
            || self.node_ids().is_ok_and(|ids| !ids.is_empty())
    }

    /// `nodes/<id>`.
    pub(crate) fn node_dir(&self, id: &str) -> PathBuf {
        self.root.join("nodes").join(id)
    }

    /// Takes the atlas's lock (`.lock`), held until the returned guard drops.
    pub(super) fn lock(&self) -> Result<Flock<File>, AtlasError> {
        let p = self.root.join(".lock");
        let mut f = self.tree().lock_file(&p)?;
        let deadline = Instant::now() + LOCK_WAIT;
        loop {
            if crate::step::interrupt::interrupted() {
                return Err(AtlasError::Io {
                    path: p.display().to_string(),
                    message: "interrupted while waiting for the atlas's lock".to_string(),
                });
            }
            match Flock::lock(f, FlockArg::LockExclusiveNonblock) {
                Ok(held) => return Ok(held),
                Err((back, Errno::EWOULDBLOCK)) if Instant::now() < deadline => {
                    f = back;
                    std::thread::sleep(Duration::from_millis(5));
                }
                Err((_, Errno::EWOULDBLOCK)) => {
                    return Err(AtlasError::Io {
                        path: p.display().to_string(),
                        message: format!(
                            "another process has held the atlas's lock for {}s: is a run on this atlas stuck?",
                            LOCK_WAIT.as_secs()
                        ),
                    });
                }
                Err((_, e)) => {
                    return Err(AtlasError::Io {
                        path: p.display().to_string(),
                        message: e.to_string(),
                    });
                }
            }
        }
    }
}

/// Why runner does not write an atlas into `root`, a folder it was given (`explore --atlas`, a
/// flow's `atlas:`); `None` when it does: nothing is there, an empty folder, an atlas (it holds
/// `atlas.json`, or nodes runner recorded before it wrote that file), or only what runner makes
/// first in one (empty `nodes` and `edges` folders, its `.lock`). Anything else is a folder of
/// the user's, whose files (a `status.json`) runner would write over and fill: the one rule for
/// files runner writes by a name it was given (`report::ours`) holds for an atlas too.
///
/// Another run may be writing the atlas's first file (a temporary file, then a rename, under
/// the lock): a folder that looks foreign while it holds runner's `.lock` is judged again
/// holding that lock, when every write has finished.
pub(crate) fn refusal(root: &Path) -> Option<String> {
    let atlas = Atlas {
        root: root.to_path_buf(),
        reach: super::Reach::default(),
    };
    let why = judge(&atlas)?;
    let lock = std::fs::symlink_metadata(root.join(".lock"));
    if !lock.is_ok_and(|m| m.is_file() && m.len() == 0) {
        return Some(why);
    }
    match atlas.lock() {
        Ok(_held) => judge(&atlas),
        Err(_) => Some(why),
    }
}

/// [`refusal`]'s judgement of the folder as it is now.
fn judge(atlas: &Atlas) -> Option<String> {
    let root = atlas.root.as_path();
    let entries = std::fs::read_dir(root).ok()?;
    if atlas.is_atlas() {
        return None;
    }
    let runners_start = |e: &std::fs::DirEntry| {
        let name = e.file_name();
        let Ok(meta) = e.metadata() else {
            return false;
        };
        match name.to_str() {
            Some("nodes" | "edges") => {
                meta.is_dir() && std::fs::read_dir(e.path()).is_ok_and(|mut d| d.next().is_none())
            }
            Some(".lock") => meta.is_file() && meta.len() == 0,
            _ => false,
        }
    };
    let foreign = entries.flatten().find(|e| !runners_start(e))?.file_name();
    Some(format!(
        "{} is not an atlas (it holds no atlas.json, and holds {}): runner does not write an atlas into it (name another folder, or an empty one)",
        root.display(),
        foreign.to_string_lossy()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Another run writing the atlas's first file holds the lock while its temporary file is
    /// there: a run opening the atlas then waits for the write, and finds an atlas, not a
    /// folder of the user's (CI: `two_concurrent_runs_share_one_atlas` was refused so).
    #[test]
    fn a_write_in_progress_by_another_run_is_not_a_foreign_file() {
        let d = tempfile::tempdir().unwrap();
        let atlas = Atlas::open(d.path()).unwrap();
        let held = atlas.lock().unwrap();
        let tmp = d.path().join(".atlas.json.4242.1.tmp");
        std::fs::write(&tmp, "{}").unwrap();
        let root = d.path().to_path_buf();
        let other = std::thread::spawn(move || refusal(&root));
        std::thread::sleep(Duration::from_millis(100));
        std::fs::rename(&tmp, d.path().join("atlas.json")).unwrap();
        drop(held);
        assert_eq!(other.join().unwrap(), None);
    }

    #[test]
    fn a_users_folder_is_refused_with_or_without_a_lock_file() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("status.json"), "{}").unwrap();
        assert!(refusal(d.path()).unwrap().contains("status.json"));
        std::fs::write(d.path().join(".lock"), "").unwrap();
        assert!(refusal(d.path()).unwrap().contains("status.json"));
    }
}
