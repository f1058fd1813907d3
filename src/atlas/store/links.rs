//! The edges of an atlas: `nodes/<id>/links/<action>` (a symlink to `../../<target>`) and
//! `edges/<source>/<action>/` with the edge's `flow.yaml` (the steps from source to target, a
//! flow that replays) and `meta.json`.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::files::{MAX_FILE, now};
use super::reach::referenced_secrets;
use super::{Atlas, AtlasError};

/// `edges/<source>/<action>/meta.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct EdgeMeta {
    pub(crate) source: String,
    /// The action's name as given (the directory and link use its safe form).
    pub(crate) action: String,
    pub(crate) target: String,
    pub(crate) created: String,
    /// What an agent said of the edge (`explore --agent`), when one labelled it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) label: Option<EdgeLabel>,
}

/// An agent's label of an edge (the `trajectory_labeling` skill): the edge's name is its
/// `semantic_label`; these are the rest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct EdgeLabel {
    /// The file name (without extension) of the edge's exported flow.
    pub(crate) script_name: String,
    pub(crate) confidence: f64,
    /// What explore did, in its own words (`click link Cart`).
    pub(crate) performed: String,
}

/// An outgoing edge of a node.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Link {
    pub(crate) action: String,
    pub(crate) target: String,
    /// The action's file-name-safe form (the link's name).
    pub(crate) safe: String,
}

/// Makes an action name safe as a file name: no `/`, no NUL, no `..`, no leading `.`; names
/// longer than 80 bytes are shortened and given a hash of the whole name.
pub(crate) fn safe_action_name(action: &str) -> String {
    let mut s: String = action
        .chars()
        .map(|c| {
            if c == '/' || c == '\\' || c == '\0' || c.is_control() {
                '_'
            } else {
                c
            }
        })
        .collect();
    while s.contains("..") {
        s = s.replace("..", "_");
    }
    let s = s.trim().trim_start_matches('.').to_string();
    let s = if s.is_empty() { "_".to_string() } else { s };
    if s.len() <= 80 {
        return s;
    }
    let hash: String = Sha256::digest(action.as_bytes())
        .iter()
        .take(4)
        .map(|b| format!("{b:02x}"))
        .collect();
    let mut cut = 60;
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}-{hash}", &s[..cut])
}

impl Atlas {
    /// Links `source` to `target` under `action`, with the steps between them as the edge's flow.
    /// The same link again is a no-op; the same action to another target is `LinkExists`.
    pub(crate) fn link_state(
        &self,
        source: &str,
        action: &str,
        target: &str,
        steps: &[Value],
    ) -> Result<PathBuf, AtlasError> {
        self.link_labelled(source, action, target, steps, None)
    }

    /// `link_state` with an agent's label of the edge kept in its meta.json.
    pub(crate) fn link_labelled(
        &self,
        source: &str,
        action: &str,
        target: &str,
        steps: &[Value],
        label: Option<EdgeLabel>,
    ) -> Result<PathBuf, AtlasError> {
        let _lock = self.lock()?;
        for id in [source, target] {
            if !self.node_dir(id).join("meta.json").exists() {
                return Err(AtlasError::NotFound(id.to_string()));
            }
        }
        let links = self.node_dir(source).join("links");
        self.tree().make_dir(&links)?;
        let safe = self.link_name(source, action)?;
        let link = links.join(&safe);
        let edge_dir = self.edge_dir(source, &safe);
        let flow_path = edge_dir.join("flow.yaml");
        if let Ok(existing) = self.tree().read_link(&link) {
            let existing = existing
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            if existing == target {
                return Ok(flow_path);
            }
            return Err(AtlasError::LinkExists {
                from: source.into(),
                action: action.into(),
                existing,
                target: target.into(),
            });
        }
        // JSON is YAML: the edge's flow is written as JSON so no YAML emitter is needed.
        // A flow's name takes no template: an action named after a page's text loses its `{{`.
        let name = crate::template::unbraced(&format!("{action} (from {source})"));
        let mut flow = json!({ "name": name, "steps": steps });
        let secrets = referenced_secrets(&Value::from(steps.to_vec()));
        if !secrets.is_empty() {
            flow["secrets"] = json!(secrets);
        }
        self.write_json(&flow_path, &flow)?;
        let meta = EdgeMeta {
            source: source.into(),
            action: action.into(),
            target: target.into(),
            created: now(),
            label,
        };
        self.write_json(&edge_dir.join("meta.json"), &meta)?;
        self.tree()
            .symlink(&link, &Path::new("../..").join(target))?;
        Ok(flow_path)
    }

    /// `edges/<source>/<safe>`: an edge's directory, by its source and link name.
    pub(super) fn edge_dir(&self, source: &str, safe: &str) -> PathBuf {
        self.root.join("edges").join(source).join(safe)
    }

    /// The link name of `action` from `source`: its safe form, suffixed when another action's
    /// safe form is the same (`a/b` and `a_b`); each edge keeps its original name in its
    /// meta.json.
    fn link_name(&self, source: &str, action: &str) -> Result<String, AtlasError> {
        let base = safe_action_name(action);
        let mut safe = base.clone();
        for n in 2.. {
            let meta = self.edge_dir(source, &safe).join("meta.json");
            // Through a link, a FIFO: refused here, as writing the edge there would be.
            let taken_by_other = match self.tree().read_text(&meta, MAX_FILE) {
                Ok(text) => {
                    serde_json::from_str::<EdgeMeta>(&text).is_ok_and(|m| m.action != action)
                }
                Err(e) if e.is_not_found() => false,
                Err(e) => return Err(e.into()),
            };
            if !taken_by_other {
                break;
            }
            safe = format!("{base}-{n}");
        }
        Ok(safe)
    }

    /// An edge's meta.json, by its source and link name.
    pub(crate) fn edge_meta(&self, source: &str, safe: &str) -> Option<EdgeMeta> {
        self.read_json(&self.edge_dir(source, safe).join("meta.json"))
            .ok()
    }

    /// A node's outgoing edges, by action.
    pub(crate) fn links(&self, id: &str) -> Result<Vec<Link>, AtlasError> {
        let dir = self.node_dir(id).join("links");
        let names = match self.tree().list(&dir) {
            Ok(names) => names,
            Err(e) if e.is_not_found() => return Ok(Vec::new()),
            Err(e) => return Err(e.into()),
        };
        let mut out = Vec::new();
        for safe in names {
            if safe.starts_with('.') {
                continue;
            }
            let at = dir.join(&safe);
            let target = self
                .tree()
                .read_link(&at)
                .map_err(|err| AtlasError::Broken {
                    path: at.display().to_string(),
                    message: format!("not a link: {err}"),
                })?;
            let target = target
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            self.node_id(&target, &at)?;
            let edge_meta = self.edge_dir(id, &safe).join("meta.json");
            let action = self
                .read_json::<EdgeMeta>(&edge_meta)
                .map_or_else(|_| safe.clone(), |m| m.action);
            out.push(Link {
                action,
                target,
                safe,
            });
        }
        out.sort();
        Ok(out)
    }
}
