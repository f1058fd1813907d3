//! `<atlas>/status.json`: what an explore is doing, kept current while it works and readable by
//! another process at any moment (each write replaces the file whole, by rename), and
//! `runner atlas status`.

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::store::Atlas;

/// The file's content.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub(crate) struct Status {
    /// `exploring`, `done`, `failed`, `interrupted`; `atlas status` says `stopped` for an
    /// `exploring` whose process is gone (killed), and `idle` when no explore ever ran.
    pub(crate) state: String,
    pub(crate) current_node: Option<String>,
    pub(crate) nodes_explored: usize,
    /// Todos left on all nodes of the atlas.
    pub(crate) tasks_pending: usize,
    /// Seconds since the explore started.
    pub(crate) uptime: f64,
    /// When it started and when this was written (seconds since the Unix epoch).
    pub(crate) started_at: f64,
    pub(crate) updated_at: f64,
    /// The process that writes it.
    pub(crate) pid: u32,
}

fn now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// Counts nodes and the todos left on them.
fn counts(atlas: &Atlas) -> (usize, usize) {
    let ids = atlas.node_ids().unwrap_or_default();
    let pending = ids.iter().map(|id| atlas.todos(id).len()).sum();
    (ids.len(), pending)
}

/// Keeps one explore's status file.
pub(crate) struct StatusFile {
    started_at: f64,
}

impl StatusFile {
    /// Starts a status for an explore beginning now.
    pub(crate) fn start(atlas: &Atlas) -> StatusFile {
        let s = StatusFile { started_at: now() };
        s.write(atlas, "exploring", None);
        s
    }

    /// Writes the status: `state`, at `node`, with the atlas's current counts.
    pub(crate) fn write(&self, atlas: &Atlas, state: &str, node: Option<&str>) {
        let (nodes, pending) = counts(atlas);
        let t = now();
        let status = Status {
            state: state.to_string(),
            current_node: node.map(str::to_string),
            nodes_explored: nodes,
            tasks_pending: pending,
            uptime: ((t - self.started_at) * 10.0).round() / 10.0,
            started_at: self.started_at,
            updated_at: t,
            pid: std::process::id(),
        };
        let _ = write_atomic(&atlas.root, &status);
    }
}

fn write_atomic(root: &Path, status: &Status) -> std::io::Result<()> {
    let text = serde_json::to_string_pretty(status).unwrap_or_default() + "\n";
    let tmp = tempfile::NamedTempFile::new_in(root)?;
    std::fs::write(tmp.path(), text)?;
    tmp.persist(root.join("status.json"))
        .map(|_| ())
        .map_err(|e| e.error)
}

/// Marks the last explore's status `state` (an interrupted one, from the command line).
pub(crate) fn mark(atlas: &Atlas, state: &str) {
    if let Some(mut s) = read_file(atlas)
        && s.pid == std::process::id()
    {
        let (nodes, pending) = counts(atlas);
        s.state = state.to_string();
        s.nodes_explored = nodes;
        s.tasks_pending = pending;
        s.updated_at = now();
        let _ = write_atomic(&atlas.root, &s);
    }
}

fn read_file(atlas: &Atlas) -> Option<Status> {
    let text = std::fs::read_to_string(atlas.root.join("status.json")).ok()?;
    serde_json::from_str(&text).ok()
}

/// `runner atlas status`: the status file as JSON, `stopped` when the explore that wrote
/// `exploring` is gone, `idle` (with the atlas's counts) when no explore ran.
pub(crate) fn status(atlas: &Atlas) -> String {
    let s = if let Some(mut s) = read_file(atlas) {
        let alive = i32::try_from(s.pid).is_ok_and(crate::process::is_live);
        if (s.state == "exploring" || s.state == "testing") && !alive {
            s.state = "stopped".to_string();
        }
        s
    } else {
        let (nodes, pending) = counts(atlas);
        Status {
            state: "idle".to_string(),
            current_node: None,
            nodes_explored: nodes,
            tasks_pending: pending,
            uptime: 0.0,
            started_at: 0.0,
            updated_at: 0.0,
            pid: 0,
        }
    };
    serde_json::to_string_pretty(&s).unwrap_or_default() + "\n"
}
