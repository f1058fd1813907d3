//! `runner explore URL`: breadth-first crawl of an app's states. At each new state its links and
//! buttons become its todo list (persisted, so an interrupted crawl resumes); for each todo the
//! browser is teleported to the state (its path replayed), the element clicked, and the state
//! reached recorded with the edge to it. Destructive-looking actions are skipped unless allowed;
//! forms are not filled.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::fingerprint::fingerprint;
use super::store::{Atlas, AtlasError};
use crate::browser::adapter::AgentBrowser;
use crate::browser::session::Session;
use crate::browser::steps::{StepFiles, run as run_browser_step};
use crate::config::model::Step;
use crate::engine::{ErrorKind, StepError};

/// Words that make an action look destructive.
pub const DESTRUCTIVE: &[&str] = &[
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
pub fn is_destructive(name: &str) -> bool {
    let n = name.to_lowercase();
    DESTRUCTIVE.iter().any(|w| n.contains(w))
}

/// Crawl settings.
#[derive(Debug, Clone)]
pub struct Options {
    pub url: String,
    pub max_depth: usize,
    pub max_nodes: usize,
    pub allow_destructive: bool,
    pub atlas: PathBuf,
    pub artifacts: PathBuf,
    pub run_id: String,
}

/// What a crawl found.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Summary {
    pub total_nodes: usize,
    pub total_edges: usize,
    pub max_depth_reached: usize,
    pub atlas_path: String,
    pub skipped_destructive: Vec<String>,
}

fn atlas_err(e: AtlasError) -> StepError {
    StepError::new(ErrorKind::CommandFailed, format!("atlas: {e}"))
}

fn origin(url: &str) -> String {
    url.split_once("://")
        .map(|(s, r)| format!("{s}://{}", r.split('/').next().unwrap_or("")))
        .unwrap_or_default()
}

struct Crawler<'a> {
    session: Session,
    atlas: Atlas,
    opts: &'a Options,
    files: StepFiles,
    timeout: Duration,
}

impl Crawler<'_> {
    async fn run_steps(&mut self, steps: &[Value]) -> Result<(), StepError> {
        for s in steps {
            let step: Step = serde_json::from_value(s.clone()).map_err(|e| {
                StepError::new(
                    ErrorKind::CommandFailed,
                    format!("recorded step {s} is invalid: {e}"),
                )
            })?;
            run_browser_step(&mut self.session, step.action, self.timeout, &self.files).await?;
        }
        Ok(())
    }

    /// The state the browser is in: (node id, is new, its url, its clickable todos).
    async fn observe(&mut self) -> Result<(String, bool, String, Vec<Value>), StepError> {
        tokio::time::sleep(Duration::from_millis(150)).await;
        let data = self.session.cmd("snapshot", &[], self.timeout).await?;
        let text = data
            .get("snapshot")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let get = |d: Value, k: &str| {
            d.get(k)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        let url = get(
            self.session
                .cmd("get", &["url".into()], self.timeout)
                .await?,
            "url",
        );
        let title = get(
            self.session
                .cmd("get", &["title".into()], self.timeout)
                .await?,
            "title",
        );
        let (fp, id) = fingerprint(&url, &text);
        let shot = self.files.dir.join(format!("state-{id}.png"));
        let shot = self
            .session
            .cmd("screenshot", &[shot.display().to_string()], self.timeout)
            .await
            .ok()
            .map(|_| shot);
        let ensured = self
            .atlas
            .ensure_state(
                &id,
                &url,
                &title,
                &fp,
                &text,
                shot.as_deref(),
                &self.opts.run_id,
            )
            .map_err(atlas_err)?;
        let refs = crate::browser::adapter::parse_snapshot_refs(&data);
        let todos = refs
            .values()
            .filter(|r| matches!(r.role.as_str(), "link" | "button") && !r.name.trim().is_empty())
            .map(|r| json!({ "role": r.role, "name": r.name }))
            .collect();
        Ok((id, ensured.is_new, url, todos))
    }

    /// Replays the path to `node` (its root's entry, then each edge).
    async fn teleport(&mut self, node: &str) -> Result<(), StepError> {
        let steps = self.atlas.steps_to(node).map_err(atlas_err)?;
        self.run_steps(&steps).await
    }
}

/// Crawls from `opts.url`; `progress` gets a status line after each todo.
pub async fn explore(
    adapter: Arc<AgentBrowser>,
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
    let atlas = Atlas::open(&opts.atlas).map_err(atlas_err)?;
    let session = Session::new(
        adapter,
        format!("x{}", std::process::id()),
        false,
        std::env::temp_dir(),
    );
    let mut c = Crawler {
        session,
        atlas,
        opts,
        files: StepFiles {
            dir: opts.artifacts.clone(),
            base: "explore".into(),
        },
        timeout: Duration::from_secs(15),
    };
    let result = crawl(&mut c, started, progress).await;
    c.session.close().await;
    result
}

async fn crawl(
    c: &mut Crawler<'_>,
    started: Instant,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<Summary, StepError> {
    let opts = c.opts;
    let entry = vec![json!({ "open": opts.url })];
    c.run_steps(&entry).await?;
    let (root, is_new, _, todos) = c.observe().await?;
    c.atlas.set_entry(&root, &entry).map_err(atlas_err)?;
    if is_new {
        c.atlas
            .manage_todos(&root, Some(&todos))
            .map_err(atlas_err)?;
    }
    let start_origin = origin(&opts.url);
    let mut queue = std::collections::VecDeque::from([(root.clone(), 0usize)]);
    let mut seen = std::collections::HashSet::from([root.clone()]);
    // Resume: states recorded by an earlier crawl that still have todos.
    for id in c.atlas.node_ids().map_err(atlas_err)? {
        let pending = std::fs::read_to_string(c.atlas.node_dir(&id).join("todos.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<Vec<Value>>(&t).ok())
            .is_some_and(|t| !t.is_empty());
        if pending
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
            if c.atlas.node_ids().map_err(atlas_err)?.len() >= opts.max_nodes {
                break 'crawl;
            }
            let Some(todo) = c.atlas.manage_todos(&node, None).map_err(atlas_err)? else {
                break;
            };
            let role = todo["role"].as_str().unwrap_or_default().to_string();
            let name = todo["name"].as_str().unwrap_or_default().to_string();
            let action = format!("click {role} {name}");
            if is_destructive(&name) && !opts.allow_destructive {
                if !skipped.contains(&action) {
                    skipped.push(action);
                }
                continue;
            }
            let nodes = c.atlas.node_ids().map_err(atlas_err)?.len();
            progress(&format!(
                "explore: {nodes} nodes, {} pending in the queue, at {node} (depth {depth}), {:.1}s: {action}",
                queue.len(),
                started.elapsed().as_secs_f64()
            ));
            if c.teleport(&node).await.is_err() {
                continue;
            }
            let step = json!({ "click": { "role": role, "text": name, "exact": true } });
            if c.run_steps(std::slice::from_ref(&step)).await.is_err() {
                continue;
            }
            let url_now = c.session.cmd("get", &["url".into()], c.timeout).await?;
            if origin(url_now.get("url").and_then(Value::as_str).unwrap_or("")) != start_origin {
                continue; // left the app
            }
            let (target, is_new, _, todos) = c.observe().await?;
            if target != node {
                // A link that already exists under this name to another state is kept as recorded.
                let _ = c.atlas.link_state(&node, &action, &target, &[step]);
            }
            if is_new && seen.insert(target.clone()) {
                if depth + 1 < opts.max_depth {
                    c.atlas
                        .manage_todos(&target, Some(&todos))
                        .map_err(atlas_err)?;
                }
                queue.push_back((target, depth + 1));
            }
        }
    }
    let ids = c.atlas.node_ids().map_err(atlas_err)?;
    let mut edges = 0;
    for id in &ids {
        edges += c.atlas.links(id).map_err(atlas_err)?.len();
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
