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
    /// `nodes` and `edges` real directories in it.
    pub(crate) fn open(root: &Path) -> Result<Atlas, AtlasError> {
        let atlas = Atlas {
            root: root.to_path_buf(),
            reach: super::Reach::default(),
        };
        for d in ["nodes", "edges"] {
            atlas.tree().make_dir(&root.join(d))?;
        }
        Ok(atlas)
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
