//! Reading and writing an atlas's files, all through the atlas's [`Tree`]: nothing read or
//! written through a symlink in it (a committed atlas may hold one, to redirect CI's writes or
//! have a key read as a snapshot), only regular files read (a FIFO would block the run where
//! nothing can end it), each of at most [`MAX_FILE`] bytes; JSON written atomically (write,
//! then rename), and errors named by the file they are about.

use std::path::Path;

use serde::Serialize;

use super::dir::Atlas;
use super::error::AtlasError;
use crate::fs::{Owner, Tree, TreeError};

/// The most runner reads of one file of an atlas: far above a large page's snapshot or
/// full-page screenshot, far below what would exhaust memory.
pub(crate) const MAX_FILE: u64 = 64 << 20;

pub(super) fn io(path: &Path, e: std::io::Error) -> AtlasError {
    AtlasError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

impl From<TreeError> for AtlasError {
    /// What the atlas holds where runner would not read or write (a link, a FIFO, a file over
    /// the cap) is a broken atlas; an I/O error stays one.
    fn from(e: TreeError) -> AtlasError {
        match e {
            TreeError::Io { path, source, .. } => io(&path, source),
            TreeError::Refused { path, why } => AtlasError::Broken {
                path: path.display().to_string(),
                message: format!("it is {why}"),
            },
        }
    }
}

/// What a read found: the value, or nothing there (an I/O error that is not "not found", and a
/// refusal, are errors).
fn found<T>(read: Result<T, TreeError>) -> Result<Option<T>, AtlasError> {
    match read {
        Ok(v) => Ok(Some(v)),
        Err(e) if e.is_not_found() => Ok(None),
        Err(e) => Err(e.into()),
    }
}

impl Atlas {
    /// The atlas's directory, for reading and writing inside it.
    pub(crate) fn tree(&self) -> Tree<'_> {
        Tree::new(&self.root, Owner::Atlas)
    }

    /// Writes `bytes` to `path` (inside the atlas) atomically, its folders made.
    pub(crate) fn write_file(&self, path: &Path, bytes: &[u8]) -> Result<(), AtlasError> {
        Ok(self.tree().write(path, bytes)?)
    }

    /// The text of `path` (inside the atlas); `None` when there is no such file.
    pub(crate) fn read_text(&self, path: &Path) -> Result<Option<String>, AtlasError> {
        found(self.tree().read_text(path, MAX_FILE))
    }

    /// A node's file `name`, for another program to read by its path (an agent is given a
    /// node's screenshot so): only a regular file reached through no link, else `None`.
    pub(crate) fn node_file(&self, id: &str, name: &str) -> Option<String> {
        let p = self.node_dir(id).join(name);
        self.tree().open(&p).ok().map(|_| p.display().to_string())
    }

    /// Reads a JSON file; what is not JSON is a broken atlas.
    pub(super) fn read_json<T: serde::de::DeserializeOwned>(
        &self,
        path: &Path,
    ) -> Result<T, AtlasError> {
        let text = self.tree().read_text(path, MAX_FILE)?;
        parse(path, &text)
    }

    /// [`Atlas::read_json`]; `None` when there is no such file.
    pub(super) fn read_json_if_any<T: serde::de::DeserializeOwned>(
        &self,
        path: &Path,
    ) -> Result<Option<T>, AtlasError> {
        match found(self.tree().read_text(path, MAX_FILE))? {
            Some(text) => parse(path, &text).map(Some),
            None => Ok(None),
        }
    }

    /// Writes `value` as pretty JSON, atomically.
    pub(super) fn write_json<T: Serialize>(
        &self,
        path: &Path,
        value: &T,
    ) -> Result<(), AtlasError> {
        let text = serde_json::to_string_pretty(value).map_err(|e| AtlasError::Broken {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        self.write_file(path, text.as_bytes())
    }
}

fn parse<T: serde::de::DeserializeOwned>(path: &Path, text: &str) -> Result<T, AtlasError> {
    serde_json::from_str(text).map_err(|e| AtlasError::Broken {
        path: path.display().to_string(),
        message: format!("invalid JSON: {e}"),
    })
}

/// The time now, as the metadata records it (RFC 3339, seconds).
pub(super) fn now() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}
