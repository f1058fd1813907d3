//! The atlas on disk (SPEC §6):
//! `nodes/<id>/meta.json`, `screenshot.png`, `snapshot.txt`, `todos.json`,
//! `nodes/<id>/links/<action>` (a symlink to `../../<target>`: the edge) and
//! `edges/<source>/<action>/flow.yaml` (the steps from source to target, a flow that replays).
//! Writes are atomic (write, then rename) and serialized by a lock file, so two runs can share
//! an atlas. A broken or hand-edited atlas gives errors, never a panic.

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::fs::File;
use std::path::{Path, PathBuf};

use nix::fcntl::{Flock, FlockArg};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::step::{ErrorKind, StepError};
use sha2::{Digest, Sha256};

/// What can go wrong with an atlas.
#[derive(Debug, thiserror::Error)]
pub(crate) enum AtlasError {
    #[error("{path}: {message}")]
    Io { path: String, message: String },
    #[error("link `{action}` of node {from} already leads to {existing}, not {target}")]
    LinkExists {
        from: String,
        action: String,
        existing: String,
        target: String,
    },
    #[error("the atlas is broken at {path}: {message}")]
    Broken { path: String, message: String },
    #[error("no node `{0}` in the atlas")]
    NotFound(String),
}

impl From<AtlasError> for StepError {
    /// An atlas that cannot be read or written is the environment's problem (exit code 3);
    /// a conflicting or broken atlas fails the step.
    fn from(e: AtlasError) -> StepError {
        let kind = match e {
            AtlasError::Io { .. } => ErrorKind::Environment,
            AtlasError::LinkExists { .. } | AtlasError::Broken { .. } | AtlasError::NotFound(_) => {
                ErrorKind::CommandFailed
            }
        };
        StepError::new(kind, format!("atlas: {e}"))
    }
}

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
}

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

/// A state seen in the browser, as [`Atlas::ensure_state`] records it.
pub(crate) struct State<'a> {
    pub(crate) node_id: &'a str,
    pub(crate) url: &'a str,
    pub(crate) title: &'a str,
    pub(crate) fingerprint: &'a str,
    pub(crate) snapshot: &'a str,
    pub(crate) screenshot: Option<&'a Path>,
    pub(crate) run_id: &'a str,
}

fn io(path: &Path, e: std::io::Error) -> AtlasError {
    AtlasError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

/// The result of [`Atlas::ensure_state`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Ensured {
    pub(crate) node_id: String,
    pub(crate) node_path: PathBuf,
    pub(crate) is_new: bool,
    pub(crate) meta_file: PathBuf,
}

/// One step of a path from a root: the node, and the action taken from it (none at the end).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PathStep {
    pub(crate) node_id: String,
    pub(crate) action: Option<String>,
    pub(crate) script_path: Option<PathBuf>,
}

/// An atlas directory.
#[derive(Debug, Clone)]
pub(crate) struct Atlas {
    pub(crate) root: PathBuf,
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

/// The secrets recorded steps refer to (`{{ secrets.X }}`), sorted: a flow made of them
/// declares them, so it validates and runs on its own.
pub(crate) fn referenced_secrets(text: &str) -> Vec<String> {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let re = RE.get_or_init(|| {
        regex::Regex::new(r"\{\{\s*secrets\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
            .expect("a valid pattern")
    });
    let mut secrets: Vec<String> = re.captures_iter(text).map(|c| c[1].to_string()).collect();
    secrets.sort();
    secrets.dedup();
    secrets
}

/// Writes `bytes` to `path` atomically.
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), AtlasError> {
    crate::fs::write_atomic(path, bytes).map_err(|e| io(path, e))
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, AtlasError> {
    let text = std::fs::read_to_string(path).map_err(|e| io(path, e))?;
    serde_json::from_str(&text).map_err(|e| AtlasError::Broken {
        path: path.display().to_string(),
        message: format!("invalid JSON: {e}"),
    })
}

fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<(), AtlasError> {
    let text = serde_json::to_string_pretty(value).map_err(|e| AtlasError::Broken {
        path: path.display().to_string(),
        message: e.to_string(),
    })?;
    write_atomic(path, text.as_bytes())
}

fn now() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
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

    fn lock(&self) -> Result<Flock<File>, AtlasError> {
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

    /// `nodes/<id>`.
    pub(crate) fn node_dir(&self, id: &str) -> PathBuf {
        self.root.join("nodes").join(id)
    }

    /// Records a state: a new node, or a new sighting of a known one.
    pub(crate) fn ensure_state(&self, st: &State<'_>) -> Result<Ensured, AtlasError> {
        let _lock = self.lock()?;
        let dir = self.node_dir(st.node_id);
        let meta_file = dir.join("meta.json");
        let is_new = !meta_file.exists();
        let meta = if is_new {
            std::fs::create_dir_all(dir.join("links")).map_err(|e| io(&dir, e))?;
            write_atomic(&dir.join("snapshot.txt"), st.snapshot.as_bytes())?;
            write_atomic(&dir.join("todos.json"), b"[]")?;
            if let Some(png) = st.screenshot
                && png.exists()
            {
                let bytes = std::fs::read(png).map_err(|e| io(png, e))?;
                write_atomic(&dir.join("screenshot.png"), &bytes)?;
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
            }
        } else {
            let mut m: NodeMeta = read_json(&meta_file)?;
            m.last_seen = now();
            if !m.run_ids.iter().any(|r| r == st.run_id) {
                m.run_ids.push(st.run_id.to_string());
            }
            m
        };
        write_json(&meta_file, &meta)?;
        Ok(Ensured {
            node_id: st.node_id.to_string(),
            node_path: dir,
            is_new,
            meta_file,
        })
    }

    /// A node's metadata.
    pub(crate) fn meta(&self, id: &str) -> Result<NodeMeta, AtlasError> {
        let p = self.node_dir(id).join("meta.json");
        if !p.exists() {
            return Err(AtlasError::NotFound(id.to_string()));
        }
        read_json(&p)
    }

    /// Marks a node as a root reached by `steps` (kept if it already has an entry).
    pub(crate) fn set_entry(&self, id: &str, steps: &[Value]) -> Result<(), AtlasError> {
        let _lock = self.lock()?;
        let p = self.node_dir(id).join("meta.json");
        let mut m: NodeMeta = read_json(&p)?;
        if m.entry.is_none() {
            m.entry = Some(steps.to_vec());
            write_json(&p, &m)?;
        }
        Ok(())
    }

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
        std::fs::create_dir_all(&links).map_err(|e| io(&links, e))?;
        // Two actions whose safe names collide (`a/b` and `a_b`) get distinct links: the second
        // is suffixed; each edge keeps its original name in its meta.json.
        let base = safe_action_name(action);
        let mut safe = base.clone();
        for n in 2.. {
            let taken_by_other = read_json::<EdgeMeta>(
                &self
                    .root
                    .join("edges")
                    .join(source)
                    .join(&safe)
                    .join("meta.json"),
            )
            .is_ok_and(|m| m.action != action);
            if !taken_by_other {
                break;
            }
            safe = format!("{base}-{n}");
        }
        let link = links.join(&safe);
        let edge_dir = self.root.join("edges").join(source).join(&safe);
        let flow_path = edge_dir.join("flow.yaml");
        if let Ok(existing) = std::fs::read_link(&link) {
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
        std::fs::create_dir_all(&edge_dir).map_err(|e| io(&edge_dir, e))?;
        // JSON is YAML: the edge's flow is written as JSON so no YAML emitter is needed.
        let mut flow = json!({ "name": format!("{action} (from {source})"), "steps": steps });
        let secrets = referenced_secrets(&serde_json::to_string(steps).unwrap_or_default());
        if !secrets.is_empty() {
            flow["secrets"] = json!(secrets);
        }
        write_json(&flow_path, &flow)?;
        let meta = EdgeMeta {
            source: source.into(),
            action: action.into(),
            target: target.into(),
            created: now(),
            label,
        };
        write_json(&edge_dir.join("meta.json"), &meta)?;
        let tmp = links.join(format!(".{safe}.{}.tmp", std::process::id()));
        let _ = std::fs::remove_file(&tmp);
        std::os::unix::fs::symlink(Path::new("../..").join(target), &tmp)
            .map_err(|e| io(&tmp, e))?;
        std::fs::rename(&tmp, &link).map_err(|e| io(&link, e))?;
        Ok(flow_path)
    }

    /// Pushes tasks onto a node's todo list, or pops the first one.
    pub(crate) fn manage_todos(
        &self,
        id: &str,
        push: Option<&[Value]>,
    ) -> Result<Option<Value>, AtlasError> {
        let _lock = self.lock()?;
        let p = self.node_dir(id).join("todos.json");
        let mut todos: Vec<Value> = match read_json(&p) {
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
        write_json(&p, &todos)?;
        Ok(popped)
    }

    /// Every node id.
    pub(crate) fn node_ids(&self) -> Result<Vec<String>, AtlasError> {
        let dir = self.root.join("nodes");
        let mut ids: Vec<String> = std::fs::read_dir(&dir)
            .map_err(|e| io(&dir, e))?
            .flatten()
            .filter(|e| e.path().join("meta.json").exists())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        ids.sort();
        Ok(ids)
    }

    /// Writes `nodes/<id>/<name>` (JSON, atomically): what explore learnt of a node.
    pub(crate) fn write_node_json(
        &self,
        id: &str,
        name: &str,
        value: &Value,
    ) -> Result<(), AtlasError> {
        write_json(&self.node_dir(id).join(name), value)
    }

    /// Removes a node explore just recorded and then found to mean nothing (no edge leads to
    /// it: the move to it was dropped).
    pub(crate) fn forget_new_node(&self, id: &str) -> Result<(), AtlasError> {
        let _lock = self.lock()?;
        let dir = self.node_dir(id);
        std::fs::remove_dir_all(&dir).map_err(|e| io(&dir, e))
    }

    /// Reads `nodes/<id>/<name>`; `None` when there is no such file.
    pub(crate) fn read_node_json(&self, id: &str, name: &str) -> Result<Option<Value>, AtlasError> {
        let p = self.node_dir(id).join(name);
        if !p.exists() {
            return Ok(None);
        }
        read_json(&p).map(Some)
    }

    /// An edge's meta.json, by its source and link name.
    pub(crate) fn edge_meta(&self, source: &str, safe: &str) -> Option<EdgeMeta> {
        read_json(
            &self
                .root
                .join("edges")
                .join(source)
                .join(safe)
                .join("meta.json"),
        )
        .ok()
    }

    /// A node's pending todos (an unreadable list counts as none).
    pub(crate) fn todos(&self, id: &str) -> Vec<Value> {
        read_json(&self.node_dir(id).join("todos.json")).unwrap_or_default()
    }

    /// A node's outgoing edges, by action.
    pub(crate) fn links(&self, id: &str) -> Result<Vec<Link>, AtlasError> {
        let dir = self.node_dir(id).join("links");
        let Ok(rd) = std::fs::read_dir(&dir) else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for e in rd.flatten() {
            let safe = e.file_name().to_string_lossy().into_owned();
            if safe.starts_with('.') {
                continue;
            }
            let target = std::fs::read_link(e.path()).map_err(|err| AtlasError::Broken {
                path: e.path().display().to_string(),
                message: format!("not a link: {err}"),
            })?;
            let target = target
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            let edge_meta = self
                .root
                .join("edges")
                .join(id)
                .join(&safe)
                .join("meta.json");
            let action =
                read_json::<EdgeMeta>(&edge_meta).map_or_else(|_| safe.clone(), |m| m.action);
            out.push(Link {
                action,
                target,
                safe,
            });
        }
        out.sort();
        Ok(out)
    }

    /// Nodes with an entry (reached from outside the graph).
    pub(crate) fn roots(&self) -> Result<Vec<String>, AtlasError> {
        Ok(self
            .node_ids()?
            .into_iter()
            .filter(|id| self.meta(id).is_ok_and(|m| m.entry.is_some()))
            .collect())
    }

    /// The shortest path of actions from a root to `target`.
    pub(crate) fn path_to_node(&self, target: &str) -> Result<Vec<PathStep>, AtlasError> {
        self.meta(target)?;
        let roots = self.roots()?;
        let mut prev: BTreeMap<String, (String, String, String)> = BTreeMap::new();
        let mut seen: HashSet<String> = roots.iter().cloned().collect();
        let mut queue: VecDeque<String> = roots.iter().cloned().collect();
        let mut found = roots.iter().any(|r| r == target);
        while let Some(n) = queue.pop_front() {
            if found {
                break;
            }
            for Link {
                action,
                target: to,
                safe,
            } in self.links(&n)?
            {
                if seen.insert(to.clone()) {
                    prev.insert(to.clone(), (n.clone(), action, safe));
                    if to == target {
                        found = true;
                    }
                    queue.push_back(to);
                }
            }
        }
        if !found {
            return Err(AtlasError::Broken {
                path: self.node_dir(target).display().to_string(),
                message: "no root leads to this node".into(),
            });
        }
        let mut steps = vec![PathStep {
            node_id: target.to_string(),
            action: None,
            script_path: None,
        }];
        let mut cur = target.to_string();
        while let Some((from, action, safe)) = prev.get(&cur).cloned() {
            steps.push(PathStep {
                node_id: from.clone(),
                action: Some(action),
                script_path: Some(
                    self.root
                        .join("edges")
                        .join(&from)
                        .join(&safe)
                        .join("flow.yaml"),
                ),
            });
            cur = from;
        }
        steps.reverse();
        Ok(steps)
    }

    /// The steps from a root to `node`: the root's entry, then each edge's flow.
    pub(crate) fn steps_to(&self, node: &str) -> Result<Vec<Value>, AtlasError> {
        let path = self.path_to_node(node)?;
        let root = &path[0].node_id;
        let mut steps: Vec<Value> = self.meta(root)?.entry.unwrap_or_default();
        for p in &path {
            if let Some(script) = &p.script_path {
                let flow: Value = read_json(script)?;
                steps.extend(
                    flow.get("steps")
                        .and_then(Value::as_array)
                        .cloned()
                        .unwrap_or_default(),
                );
            }
        }
        Ok(steps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state<'a>(id: &'a str, url: &'a str, run_id: &'a str) -> State<'a> {
        State {
            node_id: id,
            url,
            title: id,
            fingerprint: "fp",
            snapshot: "- main",
            screenshot: None,
            run_id,
        }
    }

    fn node(a: &Atlas, id: &str) {
        a.ensure_state(&state(id, &format!("http://h/{id}"), "run1"))
            .unwrap();
    }

    #[test]
    fn nodes_links_paths_and_todos() {
        let d = tempfile::tempdir().unwrap();
        let a = Atlas::open(d.path()).unwrap();
        let first = a.ensure_state(&state("n1", "http://h/", "run1")).unwrap();
        assert!(first.is_new);
        assert!(
            !a.ensure_state(&state("n1", "http://h/", "run2"))
                .unwrap()
                .is_new
        );
        assert_eq!(a.meta("n1").unwrap().run_ids, ["run1", "run2"]);
        node(&a, "n2");
        node(&a, "n3");
        a.set_entry("n1", &[json!({"open": "http://h/"})]).unwrap();
        a.link_state("n1", "go to 2", "n2", &[json!({"click": "#a"})])
            .unwrap();
        a.link_state("n2", "go/to/3 ../../etc", "n3", &[json!({"click": "#b"})])
            .unwrap();
        a.link_state("n1", "go to 2", "n2", &[]).unwrap(); // same link: no-op
        assert!(matches!(
            a.link_state("n1", "go to 2", "n3", &[]),
            Err(AtlasError::LinkExists { .. })
        ));
        let path = a.path_to_node("n3").unwrap();
        let actions: Vec<_> = path.iter().map(|p| p.action.clone()).collect();
        assert_eq!(
            actions,
            [
                Some("go to 2".into()),
                Some("go/to/3 ../../etc".into()),
                None
            ]
        );
        assert!(
            path[1]
                .script_path
                .as_ref()
                .unwrap()
                .starts_with(d.path().join("edges/n2"))
        );
        assert_eq!(
            std::fs::read_link(d.path().join("nodes/n1/links/go to 2")).unwrap(),
            Path::new("../../n2")
        );
        a.manage_todos("n1", Some(&[json!("a"), json!("b")]))
            .unwrap();
        assert_eq!(a.manage_todos("n1", None).unwrap(), Some(json!("a")));
        assert!(matches!(a.path_to_node("zz"), Err(AtlasError::NotFound(_))));
    }

    #[test]
    fn actions_whose_safe_names_collide_get_their_own_links() {
        let d = tempfile::tempdir().unwrap();
        let a = Atlas::open(d.path()).unwrap();
        for id in ["n1", "n2", "n3"] {
            node(&a, id);
        }
        a.link_state("n1", "go a/b", "n2", &[]).unwrap();
        a.link_state("n1", "go a_b", "n3", &[]).unwrap();
        let links = a.links("n1").unwrap();
        let pairs: Vec<(&str, &str)> = links
            .iter()
            .map(|l| (l.action.as_str(), l.target.as_str()))
            .collect();
        assert_eq!(pairs, [("go a/b", "n2"), ("go a_b", "n3")]);
        // The same action again is still the same link.
        a.link_state("n1", "go a_b", "n3", &[]).unwrap();
        assert_eq!(a.links("n1").unwrap().len(), 2);
    }

    #[test]
    fn hostile_action_names_stay_inside_the_atlas() {
        for name in [
            "../../../etc/passwd",
            "a/b",
            "..",
            ".hidden",
            "nul\0byte",
            &"x".repeat(300),
        ] {
            let safe = safe_action_name(name);
            assert!(
                !safe.contains('/')
                    && !safe.contains("..")
                    && !safe.starts_with('.')
                    && !safe.contains('\0'),
                "{safe}"
            );
            assert!(safe.len() <= 80);
        }
        assert_ne!(
            safe_action_name(&"x".repeat(300)),
            safe_action_name(&"x".repeat(301))
        );
    }

    #[test]
    fn a_broken_atlas_is_an_error_not_a_panic() {
        let d = tempfile::tempdir().unwrap();
        let a = Atlas::open(d.path()).unwrap();
        node(&a, "n1");
        std::fs::write(d.path().join("nodes/n1/meta.json"), "{ not json").unwrap();
        assert!(matches!(a.meta("n1"), Err(AtlasError::Broken { .. })));
        std::fs::write(d.path().join("nodes/n1/links/oops"), "a file, not a link").unwrap();
        assert!(matches!(a.links("n1"), Err(AtlasError::Broken { .. })));
    }
}
