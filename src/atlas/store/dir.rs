//! An atlas directory: opening it, where its nodes are, and the lock file that serializes
//! writers, so two runs can share an atlas.

use std::fs::File;
use std::path::{Path, PathBuf};

use nix::fcntl::{Flock, FlockArg};

use super::error::AtlasError;
use super::files::io;

/// An atlas directory.
#[derive(Debug, Clone)]
pub(crate) struct Atlas {
    pub(crate) root: PathBuf,
}

impl Atlas {
    /// Opens (and creates) an atlas directory.
    pub(crate) fn open(root: &Path) -> Result<Atlas, AtlasError> {
        for d in ["nodes", "edges"] {
            std::fs::create_dir_all(root.join(d)).map_err(|e| io(&root.join(d), e))?;
        }
        Ok(Atlas {
            root: root.to_path_buf(),
        })
    }

    /// `nodes/<id>`.
    pub(crate) fn node_dir(&self, id: &str) -> PathBuf {
        self.root.join("nodes").join(id)
    }

    /// Takes the atlas's lock (`.lock`), held until the returned guard drops.
    pub(super) fn lock(&self) -> Result<Flock<File>, AtlasError> {
        let p = self.root.join(".lock");
        let f = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&p)
            .map_err(|e| io(&p, e))?;
        Flock::lock(f, FlockArg::LockExclusive).map_err(|(_, e)| AtlasError::Io {
            path: p.display().to_string(),
            message: e.to_string(),
        })
    }
}
