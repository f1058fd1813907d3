//! The nodes of an atlas: `nodes/<id>/meta.json`, `screenshot.png`, `snapshot.txt`,
//! `todos.json`, and what explore writes beside them.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::dir::Atlas;
use super::error::AtlasError;
use super::files::{MAX_FILE, io, now};

/// `nodes/<id>/meta.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct NodeMeta {
    pub(crate) id: String,
    pub(crate) url: String,
    pub(crate) title: String,
    pub(crate) fingerprint: String,
    pub(crate) first_seen: String,
    pub(crate) last_seen: String,
    pub(crate) run_ids: Vec<String>,
    /// For a root: the steps that reach it from outside the graph (usually an `open`).
    #[serde(default)]
    pub(crate) entry: Option<Vec<Value>>,
    /// Why the node has no `screenshot.png` though one could be taken: its page showed a
    /// secret (masked in its text, URL or title, never in a picture's pixels).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) screenshot_left_out: Option<String>,
}

/// Why a node whose page shows a secret keeps no screenshot (meta.json, `atlas show`).
pub(crate) const SHOWED_A_SECRET: &str = "the page showed a secret";

/// A state seen in the browser, as [`Atlas::ensure_state`] records it.
pub(crate) struct State<'a> {
    pub(crate) node_id: &'a str,
    pub(crate) url: &'a str,
    pub(crate) title: &'a str,
    pub(crate) fingerprint: &'a str,
    pub(crate) snapshot: &'a str,
    pub(crate) screenshot: Option<&'a Path>,
    /// Why the state keeps no screenshot (its page shows a secret): a known node's is removed.
    pub(crate) screenshot_left_out: Option<&'a str>,
    pub(crate) run_id: &'a str,
}

/// The result of [`Atlas::ensure_state`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Ensured {
    pub(crate) node_id: String,
    pub(crate) node_path: PathBuf,
    pub(crate) is_new: bool,
    pub(crate) meta_file: PathBuf,
}

impl Atlas {
    /// Records a state: a new node, or a new sighting of a known one.
    pub(crate) fn ensure_state(&self, st: &State<'_>) -> Result<Ensured, AtlasError> {
        let _lock = self.lock()?;
        let dir = self.node_dir(st.node_id);
        let meta_file = dir.join("meta.json");
        let known: Option<NodeMeta> = self.read_json_if_any(&meta_file)?;
        let is_new = known.is_none();
        let meta = if let Some(mut m) = known {
            m.last_seen = now();
            if !m.run_ids.iter().any(|r| r == st.run_id) {
                m.run_ids.push(st.run_id.to_string());
            }
            if let Some(why) = st.screenshot_left_out {
                // Taken before the atlas named the secret it shows.
                remove_screenshot(&dir)?;
                m.screenshot_left_out = Some(why.to_string());
            }
            m
        } else {
            self.tree().make_dir(&dir.join("links"))?;
            self.write_file(&dir.join("snapshot.txt"), st.snapshot.as_bytes())?;
            self.write_file(&dir.join("todos.json"), b"[]")?;
            if let Some(png) = st.screenshot {
                self.keep_screenshot(&dir, png)?;
            }
            NodeMeta {
                id: st.node_id.to_string(),
                url: st.url.to_string(),
                title: st.title.to_string(),
                fingerprint: st.fingerprint.to_string(),
                first_seen: now(),
                last_seen: now(),
                run_ids: vec![st.run_id.to_string()],
                entry: None,
                screenshot_left_out: st.screenshot_left_out.map(str::to_string),
            }
        };
        self.write_json(&meta_file, &meta)?;
        Ok(Ensured {
            node_id: st.node_id.to_string(),
            node_path: dir,
            is_new,
            meta_file,
        })
    }

    /// Masks node `id`'s recording (its URL, title, fingerprint and snapshot) with `mask`,
    /// written where that changes it: a node recorded before the atlas named a secret its page
    /// shows, seen again, holds it no longer. Its id stays: links and edges name it.
    pub(crate) fn mask_node(
        &self,
        id: &str,
        mask: &dyn Fn(&str) -> String,
    ) -> Result<(), AtlasError> {
        let _lock = self.lock()?;
        let dir = self.node_dir(id);
        let file = dir.join("snapshot.txt");
        if let Some(text) = self.read_text(&file)? {
            let masked = mask(&text);
            if masked != text {
                self.write_file(&file, masked.as_bytes())?;
            }
        }
        let file = dir.join("meta.json");
        let meta: NodeMeta = self.read_json(&file)?;
        let masked = NodeMeta {
            url: mask(&meta.url),
            title: mask(&meta.title),
            fingerprint: mask(&meta.fingerprint),
            ..meta.clone()
        };
        if masked != meta {
            self.write_json(&file, &masked)?;
        }
        Ok(())
    }

    /// Whether the atlas has node `id` (a state recorded before).
    pub(crate) fn has_node(&self, id: &str) -> bool {
        self.node_dir(id).join("meta.json").exists()
    }

    /// Gives node `id` the screenshot `png` (one recorded without: see `record::observe`).
    pub(crate) fn set_screenshot(&self, id: &str, png: &Path) -> Result<(), AtlasError> {
        let _lock = self.lock()?;
        self.keep_screenshot(&self.node_dir(id), png)
    }

    /// A node's metadata.
    pub(crate) fn meta(&self, id: &str) -> Result<NodeMeta, AtlasError> {
        if !is_node_id(id) {
            return Err(AtlasError::NotFound(id.escape_debug().to_string()));
        }
        self.read_json_if_any(&self.node_dir(id).join("meta.json"))?
            .ok_or_else(|| AtlasError::NotFound(id.to_string()))
    }

    /// The snapshot a node was recorded with (`snapshot.txt`), if it has one.
    pub(crate) fn snapshot(&self, id: &str) -> Result<Option<String>, AtlasError> {
        self.read_text(&self.node_dir(id).join("snapshot.txt"))
    }

    /// Marks a node as a root reached by `steps` (kept if it already has an entry).
    pub(crate) fn set_entry(&self, id: &str, steps: &[Value]) -> Result<(), AtlasError> {
        let _lock = self.lock()?;
        let p = self.node_dir(id).join("meta.json");
        let mut m: NodeMeta = self.read_json(&p)?;
        if m.entry.is_none() {
            m.entry = Some(steps.to_vec());
            self.write_json(&p, &m)?;
        }
        Ok(())
    }

    /// Every node id. A folder with a `meta.json` whose name is not a node id (see
    /// [`node_id`]) breaks the atlas there.
    pub(crate) fn node_ids(&self) -> Result<Vec<String>, AtlasError> {
        // A node's folder that is a link still counts: reading it then says what is wrong.
        let mut ids = self.tree().list(&self.root.join("nodes"))?;
        ids.retain(|id| self.node_dir(id).join("meta.json").exists());
        for id in &ids {
            self.node_id(id, &self.root.join("nodes"))?;
        }
        Ok(ids)
    }

    /// `name`, found in `at` (the `nodes` folder, a link), if it is a node id as runner makes
    /// them (16 lowercase hex digits, see `fingerprint`): a name read from an atlas goes into
    /// exported code, graphs and the terminal, so any other breaks the atlas there. The one
    /// check of a node id read from an atlas.
    pub(crate) fn node_id<'a>(&self, name: &'a str, at: &Path) -> Result<&'a str, AtlasError> {
        if is_node_id(name) {
            return Ok(name);
        }
        Err(AtlasError::Broken {
            path: at.display().to_string(),
            message: format!(
                "`{}` is not a node's folder: runner names a node by 16 lowercase hex digits",
                name.escape_debug()
            ),
        })
    }

    /// Writes `nodes/<id>/<name>` (JSON, atomically): what explore learnt of a node.
    pub(crate) fn write_node_json(
        &self,
        id: &str,
        name: &str,
        value: &Value,
    ) -> Result<(), AtlasError> {
        self.write_json(&self.node_dir(id).join(name), value)
    }

    /// Reads `nodes/<id>/<name>`; `None` when there is no such file.
    pub(crate) fn read_node_json(&self, id: &str, name: &str) -> Result<Option<Value>, AtlasError> {
        self.read_json_if_any(&self.node_dir(id).join(name))
    }

    /// Removes a node explore just recorded and then found to mean nothing (no edge leads to
    /// it: the move to it was dropped).
    pub(crate) fn forget_new_node(&self, id: &str) -> Result<(), AtlasError> {
        let _lock = self.lock()?;
        let dir = self.node_dir(id);
        std::fs::remove_dir_all(&dir).map_err(|e| io(&dir, e))
    }

    /// A node's pending todos (an unreadable list counts as none).
    pub(crate) fn todos(&self, id: &str) -> Vec<Value> {
        self.read_json(&self.node_dir(id).join("todos.json"))
            .unwrap_or_default()
    }

    /// Pushes tasks onto a node's todo list, or pops the first one.
    pub(crate) fn manage_todos(
        &self,
        id: &str,
        push: Option<&[Value]>,
    ) -> Result<Option<Value>, AtlasError> {
        let _lock = self.lock()?;
        let p = self.node_dir(id).join("todos.json");
        let mut todos: Vec<Value> = match self.read_json(&p) {
            Ok(a) => a,
            Err(AtlasError::Io { .. }) => Vec::new(),
            Err(e) => return Err(e),
        };
        let popped = match push {
            Some(tasks) => {
                todos.extend(tasks.iter().cloned());
                None
            }
            None if todos.is_empty() => None,
            None => Some(todos.remove(0)),
        };
        self.write_json(&p, &todos)?;
        Ok(popped)
    }
}

/// Whether `name` is a node id as runner makes them: 16 lowercase hex digits.
pub(crate) fn is_node_id(name: &str) -> bool {
    name.len() == 16
        && name
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Removes node directory `dir`'s screenshot, if it has one.
fn remove_screenshot(dir: &Path) -> Result<(), AtlasError> {
    let file = dir.join("screenshot.png");
    match std::fs::remove_file(&file) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io(&file, e)),
        _ => Ok(()),
    }
}

impl Atlas {
    /// Copies screenshot `png` (one the run took) into node directory `dir` (nothing when
    /// there is none).
    fn keep_screenshot(&self, dir: &Path, png: &Path) -> Result<(), AtlasError> {
        if !png.exists() {
            return Ok(());
        }
        let bytes = crate::fs::read_regular(png, MAX_FILE).map_err(|e| io(png, e))?;
        if bytes.len() as u64 > MAX_FILE {
            return Err(AtlasError::Io {
                path: png.display().to_string(),
                message: format!("larger than {MAX_FILE} bytes"),
            });
        }
        self.write_file(&dir.join("screenshot.png"), &bytes)
    }
}
