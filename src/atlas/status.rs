//! `<atlas>/status.json`: what an explore is doing, kept current while it works and readable by
//! another process at any moment (each write replaces the file whole, by rename), and
//! `runner atlas status`.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::store::Atlas;

/// The file's content.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub(crate) struct Status {
    /// `exploring`, `done`, `limited` (stopped at `--max-nodes` with todos left), `failed`,
    /// `interrupted`; `atlas status` says `stopped` for an `exploring` whose process is gone
    /// (killed), and `idle` when no explore ever ran.
    pub(crate) state: String,
    pub(crate) current_node: Option<String>,
    pub(crate) nodes_explored: usize,
    /// Todos left on all nodes of the atlas.
    pub(crate) tasks_pending: usize,
    /// Seconds since the explore started.
    pub(crate) uptime: f64,
    /// When it started and when this was written, in RFC 3339 (UTC, milliseconds); none when
    /// no explore ran.
    #[serde(default, deserialize_with = "time")]
    pub(crate) started_at: Option<String>,
    #[serde(default, deserialize_with = "time")]
    pub(crate) updated_at: Option<String>,
    /// The process that writes it.
    pub(crate) pid: u32,
}

/// A time as the file holds it: RFC 3339, as written now.
fn rfc3339(t: SystemTime) -> String {
    humantime::format_rfc3339_millis(t).to_string()
}

/// Reads a time: RFC 3339, or the seconds since the epoch an earlier runner wrote.
fn time<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(match Option::<Value>::deserialize(d)? {
        Some(Value::String(s)) => Some(s),
        Some(Value::Number(n)) => n
            .as_f64()
            .filter(|s| s.is_finite() && *s > 0.0 && *s < 1e12)
            .map(|s| rfc3339(UNIX_EPOCH + Duration::from_secs_f64(s))),
        _ => None,
    })
}

/// Counts nodes and the todos left on them.
fn counts(atlas: &Atlas) -> (usize, usize) {
    let ids = atlas.node_ids().unwrap_or_default();
    let pending = ids.iter().map(|id| atlas.todos(id).len()).sum();
    (ids.len(), pending)
}

/// Keeps one explore's status file.
pub(crate) struct StatusFile {
    started_at: SystemTime,
}

impl StatusFile {
    /// Starts a status for an explore beginning now.
    pub(crate) fn start(atlas: &Atlas) -> StatusFile {
        let s = StatusFile {
            started_at: SystemTime::now(),
        };
        s.write(atlas, "exploring", None);
        s
    }

    /// Writes the status: `state`, at `node`, with the atlas's current counts; returns them
    /// (nodes, todos pending), so what is shown beside it says the same.
    pub(crate) fn write(&self, atlas: &Atlas, state: &str, node: Option<&str>) -> (usize, usize) {
        let (nodes, pending) = counts(atlas);
        let t = SystemTime::now();
        let up = t
            .duration_since(self.started_at)
            .map_or(0.0, |d| d.as_secs_f64());
        let status = Status {
            state: state.to_string(),
            current_node: node.map(str::to_string),
            nodes_explored: nodes,
            tasks_pending: pending,
            uptime: (up * 10.0).round() / 10.0,
            started_at: Some(rfc3339(self.started_at)),
            updated_at: Some(rfc3339(t)),
            pid: std::process::id(),
        };
        write(atlas, &status);
        (nodes, pending)
    }
}

/// Writes `status.json` (best effort: the status is for watching an explore, not its result).
fn write(atlas: &Atlas, status: &Status) {
    let text = serde_json::to_string_pretty(status).unwrap_or_default() + "\n";
    let _ = atlas.write_file(&atlas.root.join("status.json"), text.as_bytes());
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
        s.updated_at = Some(rfc3339(SystemTime::now()));
        write(atlas, &s);
    }
}

fn read_file(atlas: &Atlas) -> Option<Status> {
    let text = atlas.read_text(&atlas.root.join("status.json")).ok()??;
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
            started_at: None,
            updated_at: None,
            pid: 0,
        }
    };
    serde_json::to_string_pretty(&s).unwrap_or_default() + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_rfc3339_and_an_earlier_files_seconds_are_read_as_such() {
        let at = UNIX_EPOCH + Duration::from_millis(1_764_253_774_250);
        assert_eq!(rfc3339(at), "2025-11-27T14:29:34.250Z");
        let old: Status = serde_json::from_str(
            r#"{"state":"done","current_node":null,"nodes_explored":1,"tasks_pending":0,"uptime":1.0,"started_at":1764253774.25,"updated_at":0,"pid":1}"#,
        )
        .unwrap();
        assert_eq!(old.started_at.as_deref(), Some("2025-11-27T14:29:34.250Z"));
        assert_eq!(old.updated_at, None);
    }
}
