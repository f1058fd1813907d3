//! `runner explore URL`: breadth-first crawl of an app's states. At each new state its links and
//! buttons become its todo list (persisted, so an interrupted crawl resumes); for each todo the
//! browser is teleported to the state (its path replayed), the element clicked, and the state
//! reached recorded with the edge to it. Destructive-looking actions are skipped unless allowed;
//! forms are not filled.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::fingerprint::origin;
use super::record::{RecordTarget, observe};
use super::replay::Driver;
use super::status::StatusFile;
use super::store::Atlas;
use crate::browser::adapter::{RefInfo, parse_snapshot_refs, ref_number};
use crate::step::{ErrorKind, FlowStatus, Masker, StepError};

/// Words that make an action look destructive.
pub(crate) const DESTRUCTIVE: &[&str] = &[
    "delete",
    "remove",
    "logout",
    "log out",
    "sign out",
    "signout",
    "pay",
    "purchase",
    "buy",
    "unsubscribe",
    "destroy",
    "erase",
    "deactivate",
    "close account",
    "reset",
    "drop",
];

/// Whether an element's name looks destructive.
pub(crate) fn is_destructive(name: &str) -> bool {
    let n = name.to_lowercase();
    DESTRUCTIVE.iter().any(|w| n.contains(w))
}

/// Crawl settings.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    pub(crate) url: String,
    pub(crate) max_depth: usize,
    pub(crate) max_nodes: usize,
    pub(crate) allow_destructive: bool,
    pub(crate) atlas: PathBuf,
    pub(crate) artifacts: PathBuf,
    pub(crate) run_id: String,
}

/// What a crawl found.
#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct Summary {
    pub(crate) total_nodes: usize,
    pub(crate) total_edges: usize,
    pub(crate) max_depth_reached: usize,
    pub(crate) atlas_path: String,
    pub(crate) skipped_destructive: Vec<String>,
}

/// Whether clicking an element of this role may lead somewhere (as Crawljax's candidates):
/// links and buttons, and what behaves as one — tabs, menu items, tree items. Form controls
/// that only hold a value (checkboxes, radios, selects and their options, text fields) are not:
/// toggling one is no new state of the app.
fn is_candidate(role: &str) -> bool {
    matches!(
        role,
        "link" | "button" | "tab" | "menuitem" | "menuitemcheckbox" | "menuitemradio" | "treeitem"
    )
}

struct Crawler<'a> {
    driver: &'a mut dyn Driver,
    atlas: Atlas,
    status: StatusFile,
    opts: &'a Options,
    timeout: Duration,
    masker: Masker,
}

impl Crawler<'_> {
    /// Runs recorded steps as a flow; the error names the step that failed.
    async fn run_steps(&mut self, steps: &[Value]) -> Result<(), StepError> {
        let flow = json!({ "name": "explore", "steps": steps });
        let r = self.driver.run(&flow).await?;
        if r.status == FlowStatus::Passed {
            return Ok(());
        }
        Err(r.error.clone().unwrap_or_else(|| {
            StepError::new(
                ErrorKind::CommandFailed,
                format!("the steps {}", r.status.as_str()),
            )
        }))
    }

    /// The state the browser is in: (node id, is new, its clickable todos).
    async fn observe(&mut self) -> Result<(String, bool, Vec<Value>), StepError> {
        let shot = self.opts.artifacts.join("state.png");
        let mut session = self.driver.session().await?;
        let to = RecordTarget {
            atlas: &self.atlas.root,
            screenshot: &shot,
            run_id: &self.opts.run_id,
            masker: &self.masker,
        };
        let seen = observe(&mut session, &self.atlas, &to, self.timeout).await?;
        let refs = parse_snapshot_refs(&seen.seen.snapshot);
        let mut clickable: Vec<(&String, &RefInfo)> = refs
            .iter()
            .filter(|(_, r)| is_candidate(&r.role) && !r.name.trim().is_empty())
            .collect();
        clickable.sort_by_key(|(k, _)| ref_number(k));
        // Links of one name are told apart by their order, every one of them (the click is
        // strict: without `nth`, the first of two would match both and never be clicked).
        let mut total: std::collections::HashMap<(&str, &str), i64> =
            std::collections::HashMap::new();
        for (_, r) in &clickable {
            *total.entry((r.role.as_str(), r.name.as_str())).or_insert(0) += 1;
        }
        let mut seen_names: std::collections::HashMap<(&str, &str), i64> =
            std::collections::HashMap::new();
        let todos = clickable
            .into_iter()
            .map(|(_, r)| {
                let key = (r.role.as_str(), r.name.as_str());
                let n = seen_names.entry(key).or_insert(0);
                *n += 1;
                if total.get(&key).copied().unwrap_or(1) == 1 {
                    json!({ "role": r.role, "name": r.name })
                } else {
                    json!({ "role": r.role, "name": r.name, "nth": *n - 1 })
                }
            })
            .collect();
        Ok((seen.ensured.node_id, seen.ensured.is_new, todos))
    }

    /// The current URL.
    async fn url(&mut self) -> Result<String, StepError> {
        let mut session = self.driver.session().await?;
        let data = session.cmd("get", &["url".into()], self.timeout).await?;
        Ok(data
            .get("url")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string())
    }

    /// Replays the path to `node` (its root's entry, then each edge) in a fresh browser context:
    /// what an earlier todo did to the app's client state (cookies, storage) without changing a
    /// fingerprint is not carried over, so every state recorded is one its recorded path
    /// reaches from scratch, as `atlas verify` and `replay` do.
    async fn teleport(&mut self, node: &str) -> Result<(), StepError> {
        let steps = self.atlas.steps_to(node)?;
        self.driver.reset().await?;
        self.run_steps(&steps).await
    }
}

/// Crawls from `opts.url` with `driver` (one browser session for the whole crawl); `progress`
/// gets a status line after each todo.
pub(crate) async fn explore(
    driver: &mut dyn Driver,
    opts: &Options,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<Summary, StepError> {
    let started = Instant::now();
    std::fs::create_dir_all(&opts.artifacts).map_err(|e| {
        StepError::new(
            ErrorKind::Environment,
            format!("cannot create {}: {e}", opts.artifacts.display()),
        )
    })?;
    let atlas = Atlas::open(&opts.atlas)?;
    let status = StatusFile::start(&atlas);
    let mut c = Crawler {
        driver,
        atlas,
        status,
        opts,
        timeout: Duration::from_secs(15),
        masker: Masker::default(),
    };
    let r = crawl(&mut c, started, progress).await;
    let end = if r.is_ok() { "done" } else { "failed" };
    c.status.write(&c.atlas, end, None);
    r
}

async fn crawl(
    c: &mut Crawler<'_>,
    started: Instant,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<Summary, StepError> {
    let opts = c.opts;
    let entry = vec![json!({ "open": opts.url })];
    c.run_steps(&entry).await?;
    let (root, is_new, todos) = c.observe().await?;
    c.atlas.set_entry(&root, &entry)?;
    if is_new {
        c.atlas.manage_todos(&root, Some(&todos))?;
    }
    let start_origin = origin(&opts.url);
    let mut queue = std::collections::VecDeque::from([(root.clone(), 0usize)]);
    let mut seen = std::collections::HashSet::from([root.clone()]);
    // Resume: states recorded by an earlier crawl that still have todos.
    for id in c.atlas.node_ids()? {
        if !c.atlas.todos(&id).is_empty()
            && seen.insert(id.clone())
            && let Ok(path) = c.atlas.path_to_node(&id)
        {
            queue.push_back((id, path.len() - 1));
        }
    }
    let mut max_depth = 0;
    let mut skipped = Vec::new();
    'crawl: while let Some((node, depth)) = queue.pop_front() {
        max_depth = max_depth.max(depth);
        loop {
            // Stop before taking a todo, so what is left stays on disk for the next crawl.
            if c.atlas.node_ids()?.len() >= opts.max_nodes {
                break 'crawl;
            }
            // Taken off the list only once it is done: a crawl killed midway retries it.
            let Some(todo) = c.atlas.todos(&node).into_iter().next() else {
                break;
            };
            let done: Result<(), StepError> = async {
            let role = todo["role"].as_str().unwrap_or_default().to_string();
            let name = todo["name"].as_str().unwrap_or_default().to_string();
            let nth = todo.get("nth").and_then(Value::as_i64);
            let action = match nth {
                Some(n) => format!("click {role} {name} #{}", n + 1),
                None => format!("click {role} {name}"),
            };
            if is_destructive(&name) && !opts.allow_destructive {
                if !skipped.contains(&action) {
                    skipped.push(action);
                }
                return Ok(());
            }
            let nodes = c.atlas.node_ids()?.len();
            c.status.write(&c.atlas, "exploring", Some(&node));
            progress(&format!(
                "explore: {nodes} nodes, {} pending in the queue, at {node} (depth {depth}), {:.1}s: {action}",
                queue.len(),
                started.elapsed().as_secs_f64()
            ));
            if c.teleport(&node).await.is_err() {
                return Ok(());
            }
            let mut target = json!({ "role": role, "text": name, "exact": true });
            if let Some(n) = nth {
                target["nth"] = json!(n);
            }
            let step = json!({ "click": target });
            if c.run_steps(std::slice::from_ref(&step)).await.is_err() {
                return Ok(());
            }
            if origin(&c.url().await?) != start_origin {
                return Ok(()); // left the app
            }
            let (target, is_new, todos) = c.observe().await?;
            if target != node {
                // A link that already exists under this name to another state is kept as recorded.
                let _ = c.atlas.link_state(&node, &action, &target, &[step]);
            }
            if is_new && seen.insert(target.clone()) {
                if depth + 1 < opts.max_depth {
                    c.atlas.manage_todos(&target, Some(&todos))?;
                }
                queue.push_back((target, depth + 1));
            }
                Ok(())
            }
            .await;
            c.atlas.manage_todos(&node, None)?;
            done?;
        }
    }
    let ids = c.atlas.node_ids()?;
    let mut edges = 0;
    for id in &ids {
        edges += c.atlas.links(id)?.len();
    }
    Ok(Summary {
        total_nodes: ids.len(),
        total_edges: edges,
        max_depth_reached: max_depth,
        atlas_path: opts.atlas.display().to_string(),
        skipped_destructive: skipped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn destructive_names() {
        assert!(is_destructive("Delete account"));
        assert!(is_destructive("Sign out"));
        assert!(!is_destructive("About us"));
    }
}
