//! Saved files, as `run --watch` sees them: notify's events for the directories that hold the
//! run's flows and the files they read, debounced (a save is several events), as batches of
//! absolute paths.
//!
//! Directories are watched, never the files themselves: an editor that saves by writing a new
//! file and renaming it over the old one (vim, JetBrains' safe write) replaces the inode a
//! file watch would follow, and its watch would see no later save.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::time::Duration;

use notify::event::{AccessKind, AccessMode, EventKind, ModifyKind};
use notify::{RecommendedWatcher, RecursiveMode, Watcher};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

/// How long the saved paths must stay quiet before a batch is complete: an editor's save is
/// several events (a write and a close, or a temporary file, a rename and a chmod) within a
/// few milliseconds, and a pass should start well within 100 ms of the save
/// (`scripts/bench-watch`).
const QUIET: Duration = Duration::from_millis(30);

/// The longest a batch waits for quiet: a file written without pause (a log in a watched
/// directory) must not hold the saves back forever.
const MOST: Duration = Duration::from_millis(500);

/// What the watcher saw: the paths saved, or why events may have been lost.
pub(super) struct Batch {
    pub(super) paths: BTreeSet<PathBuf>,
    pub(super) problems: Vec<String>,
}

/// The watcher of the run's directories.
pub(super) struct Changes {
    watcher: RecommendedWatcher,
    rx: UnboundedReceiver<Result<Vec<PathBuf>, String>>,
    /// The directories watched, and whether with everything under them.
    watched: HashMap<PathBuf, bool>,
}

/// Whether an event says a file's content or name changed. Reading a file is an event too
/// (inotify's open and close): runner reads the flows after every save, and those events must
/// not count as saves. A change of metadata alone (a chmod, an access time) is no save.
fn is_save(kind: EventKind) -> bool {
    match kind {
        EventKind::Access(a) => a == AccessKind::Close(AccessMode::Write),
        EventKind::Modify(m) => !matches!(m, ModifyKind::Metadata(_)),
        EventKind::Create(_) | EventKind::Remove(_) | EventKind::Any | EventKind::Other => true,
    }
}

impl Changes {
    /// A watcher of no directory yet (see [`Changes::watch`]).
    pub(super) fn start() -> Result<Changes, String> {
        let (tx, rx) = unbounded_channel();
        let handler = move |r: notify::Result<notify::Event>| {
            let sent = match r {
                Ok(e) if e.need_rescan() => {
                    Err("some events were lost; save the file again".into())
                }
                Ok(e) if is_save(e.kind) => Ok(e.paths),
                Ok(_) => return,
                Err(e) => Err(e.to_string()),
            };
            // The receiver is gone only once the watch has ended.
            let _ = tx.send(sent);
        };
        let watcher =
            notify::recommended_watcher(handler).map_err(|e| format!("cannot watch files: {e}"))?;
        Ok(Changes {
            watcher,
            rx,
            watched: HashMap::new(),
        })
    }

    /// Watches `dir` (absolute): with everything under it (`recursive`), or only its own
    /// entries. A directory already watched that way, or under one watched with everything
    /// under it, is not watched twice.
    pub(super) fn watch(&mut self, dir: &Path, recursive: bool) -> Result<(), String> {
        let covered = self
            .watched
            .iter()
            .any(|(d, deep)| (d == dir && (*deep || !recursive)) || (*deep && dir.starts_with(d)));
        if covered {
            return Ok(());
        }
        let mode = if recursive {
            RecursiveMode::Recursive
        } else {
            RecursiveMode::NonRecursive
        };
        self.watcher
            .watch(dir, mode)
            .map_err(|e| format!("cannot watch {}: {e}", dir.display()))?;
        self.watched.insert(dir.to_path_buf(), recursive);
        Ok(())
    }

    /// The next saves: waits for one, then for the paths to stay quiet for [`QUIET`] (at most
    /// [`MOST`]); saves made while a pass ran come as one batch. `None` once the watcher has
    /// stopped.
    pub(super) async fn next(&mut self) -> Option<Batch> {
        let mut batch = Batch {
            paths: BTreeSet::new(),
            problems: Vec::new(),
        };
        let mut add = |r: Result<Vec<PathBuf>, String>| match r {
            Ok(paths) => batch.paths.extend(paths),
            Err(why) => batch.problems.push(why),
        };
        add(self.rx.recv().await?);
        let deadline = tokio::time::Instant::now() + MOST;
        loop {
            let quiet = (tokio::time::Instant::now() + QUIET).min(deadline);
            match tokio::time::timeout_at(quiet, self.rx.recv()).await {
                Ok(Some(r)) => add(r),
                Ok(None) | Err(_) => break,
            }
        }
        Some(batch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file replaced by a rename (as vim saves) is seen, in a directory watched on its own.
    #[tokio::test]
    async fn a_save_by_rename_is_seen() {
        let d = tempfile::tempdir().unwrap();
        let dir = crate::config::flows::absolute(d.path());
        let file = dir.join("flow.yaml");
        std::fs::write(&file, "a").unwrap();
        let mut c = Changes::start().unwrap();
        c.watch(&dir, false).unwrap();
        let tmp = dir.join(".flow.yaml.swp");
        std::fs::write(&tmp, "b").unwrap();
        std::fs::rename(&tmp, &file).unwrap();
        let batch = tokio::time::timeout(Duration::from_secs(10), c.next())
            .await
            .expect("a batch within 10 s")
            .expect("the watcher runs");
        assert!(batch.paths.contains(&file), "{:?}", batch.paths);
    }

    /// Reading a file (as runner does after every save) is no save: only the file written
    /// after the read is in the batch.
    #[tokio::test]
    async fn a_read_is_not_a_save() {
        let d = tempfile::tempdir().unwrap();
        let dir = crate::config::flows::absolute(d.path());
        let read = dir.join("read.yaml");
        std::fs::write(&read, "a").unwrap();
        let mut c = Changes::start().unwrap();
        c.watch(&dir, true).unwrap();
        assert_eq!(std::fs::read_to_string(&read).unwrap(), "a");
        let written = dir.join("written.yaml");
        std::fs::write(&written, "b").unwrap();
        let batch = tokio::time::timeout(Duration::from_secs(10), c.next())
            .await
            .expect("a batch within 10 s")
            .expect("the watcher runs");
        assert_eq!(batch.paths, BTreeSet::from([written]));
    }

    #[test]
    fn a_directory_under_one_watched_whole_is_not_watched_again() {
        let d = tempfile::tempdir().unwrap();
        let dir = crate::config::flows::absolute(d.path());
        std::fs::create_dir(dir.join("sub")).unwrap();
        let mut c = Changes::start().unwrap();
        c.watch(&dir, true).unwrap();
        c.watch(&dir.join("sub"), false).unwrap();
        c.watch(&dir, false).unwrap();
        assert_eq!(c.watched.len(), 1);
    }
}
