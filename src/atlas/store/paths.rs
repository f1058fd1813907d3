//! Paths through an atlas: its roots, the shortest path of actions from a root to a node,
//! and the steps that replay it.

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::path::PathBuf;

use serde_json::Value;

use super::{Atlas, AtlasError, Link};

/// One step of a path from a root: the node, and the action taken from it (none at the end).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PathStep {
    pub(crate) node_id: String,
    pub(crate) action: Option<String>,
    pub(crate) script_path: Option<PathBuf>,
}

impl Atlas {
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
        Ok(self
            .steps_by_state(node)?
            .into_iter()
            .flat_map(|(_, steps)| steps)
            .collect())
    }

    /// The origins the page may be on while the path to `node` replays (see
    /// `reach::off_origin`): the atlas's (its root's, or that of `base_url`, which replaces it),
    /// then those runner.toml's `[atlas] origins` names.
    pub(crate) fn allowed_origins(
        &self,
        node: &str,
        base_url: Option<&str>,
    ) -> Result<Vec<String>, AtlasError> {
        let home = match base_url.and_then(super::reach::origin_of) {
            Some(o) => Some(o),
            None => self.home_origin(node)?,
        };
        Ok(home
            .into_iter()
            .chain(self.reach.origins.iter().cloned())
            .collect())
    }

    /// The origin of the root `node` is reached from (`scheme://host[:port]`, as
    /// `reach::origin_of` writes it): the atlas's own, what its stored steps may reach.
    pub(crate) fn home_origin(&self, node: &str) -> Result<Option<String>, AtlasError> {
        let root = self.path_to_node(node)?[0].node_id.clone();
        Ok(super::reach::origin_of(&self.meta(&root)?.url))
    }

    /// The steps from a root to `node`, state by state: each state on the path with the steps
    /// that reach it from the one before (the root's: its entry).
    pub(crate) fn steps_by_state(
        &self,
        node: &str,
    ) -> Result<Vec<(String, Vec<Value>)>, AtlasError> {
        let path = self.path_to_node(node)?;
        let root = path[0].node_id.clone();
        let meta = self.meta(&root)?;
        let home = self.home_origin(node)?;
        let entry = meta.entry.unwrap_or_default();
        let meta_file = self.node_dir(&root).join("meta.json");
        admitted(&entry, &meta_file)?;
        // Each part of the path, where it was read, for what they may read and open together.
        let mut parts = vec![(meta_file.display().to_string(), Value::from(entry.clone()))];
        let mut out = vec![(root.clone(), entry)];
        for (from, to) in path.iter().zip(path.iter().skip(1)) {
            let steps = match &from.script_path {
                Some(script) => {
                    let flow: Value = self.read_json(script)?;
                    let steps = flow
                        .get("steps")
                        .and_then(Value::as_array)
                        .cloned()
                        .unwrap_or_default();
                    admitted(&steps, script)?;
                    parts.push((script.display().to_string(), Value::from(steps.clone())));
                    steps
                }
                None => Vec::new(),
            };
            out.push((to.node_id.clone(), steps));
        }
        // What they may read and open: the project's `[atlas]`, the root's origin; and, run one
        // after the other in one page, no code where any of them reads a secret.
        self.reach.admit_all(&parts, home.as_deref())?;
        Ok(out)
    }
}

/// Steps read from `file` of the atlas, if runner runs them (an atlas is anyone's to edit:
/// its steps may only act on the page, see `config::stored`).
fn admitted(steps: &[Value], file: &std::path::Path) -> Result<(), AtlasError> {
    crate::config::stored::admit_steps(steps, &file.display().to_string())
        .map_err(AtlasError::Refused)
}
