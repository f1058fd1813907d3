//! The crawl: breadth first from the URL, each state's todos done one by one (taken off the
//! list only once done, so an interrupted crawl resumes), new states queued until the depth
//! or node limit.

use std::collections::{HashSet, VecDeque};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::crawler::Crawler;
use super::destructive::is_destructive;
use super::options::{ExploreAgent, Options};
use super::summary::Summary;
use super::task::{Task, kept_todo, task_of};
use crate::atlas::fingerprint::origin;
use crate::atlas::replay::Driver;
use crate::atlas::secrets::{add_atlas_secrets, secret_value};
use crate::atlas::status::StatusFile;
use crate::atlas::store::Atlas;
use crate::step::{ErrorKind, StepError};

/// Crawls from `opts.url` with `driver` (one browser session for the whole crawl), with the
/// agent's skills when there is one; `progress` gets a status line after each todo, `warn`
/// each warning.
pub(crate) async fn explore(
    driver: &mut dyn Driver,
    opts: &Options,
    agent: Option<&ExploreAgent<'_>>,
    progress: &(dyn Fn(&str) + Sync),
    warn: &(dyn Fn(&str) + Sync),
) -> Result<Summary, StepError> {
    let started = Instant::now();
    std::fs::create_dir_all(&opts.artifacts).map_err(|e| {
        StepError::new(
            ErrorKind::Environment,
            format!("cannot create {}: {e}", opts.artifacts.display()),
        )
    })?;
    let mut atlas = Atlas::open(&opts.atlas)?;
    atlas.reach = opts.reach.clone();
    // Its atlas.json, written now, before the status: a folder that holds runner's status.json
    // is one runner writes into again (`store::refusal`), even when no state was recorded.
    atlas.settle_fingerprint(opts.fingerprint)?;
    if let Some(name) = &opts.server
        && let Some(before) =
            atlas.settle_server(name, opts.server_url.as_deref(), opts.fingerprint)?
    {
        warn(&format!(
            "the atlas at {} was recorded on the web server `{before}`; this explore is on `{name}`, which replays now go to",
            opts.atlas.display()
        ));
    }
    // Pages are masked as the atlas's recording runs masked theirs (its `secrets`): in what is
    // stored and in what the agent is asked (its masker is the crawl's).
    let masker = opts.masker.clone();
    add_atlas_secrets(&atlas, &masker)?;
    // The secrets runner.toml's `[atlas] secrets` names (those set) are the atlas's too: the
    // project says its atlases' steps may read them, so they are what its pages may show. The
    // pages are masked with them, and the atlas names them, so its replays mask as it did.
    let mut declared = Vec::new();
    for name in &opts.reach.secrets {
        if let Some(v) = secret_value(name) {
            masker.add_named(name, &v);
            declared.push(name.clone());
        }
    }
    atlas.note_secrets(&declared)?;
    let status = StatusFile::start(&atlas);
    let mut c = Crawler {
        driver,
        atlas,
        status,
        opts,
        agent,
        timeout: Duration::from_secs(15),
        masker,
        summary: Summary::default(),
        started,
        origin: origin(&opts.url),
        progress,
        warn,
        ran: None,
        arrived: None,
    };
    let r = crawl(&mut c).await;
    let end = match &r {
        Ok((_, true)) => "limited",
        Ok(_) => "done",
        Err(_) => "failed",
    };
    let (nodes, pending) = c.status.write(&c.atlas, end, None);
    if end == "limited" {
        warn(&format!(
            "explore stopped at --max-nodes {}: {nodes} nodes, {pending} todos pending (the next `runner explore` does them)",
            opts.max_nodes
        ));
    }
    r.map(|(summary, _)| summary)
}

/// The states waiting for their todos, breadth first, with their depth; and every state met.
struct Frontier {
    queue: VecDeque<(String, usize)>,
    seen: HashSet<String>,
}

impl Frontier {
    /// The root, then the states an earlier crawl recorded that still have todos (resuming it).
    fn resume(atlas: &Atlas, root: &str) -> Result<Frontier, StepError> {
        let mut f = Frontier {
            queue: VecDeque::from([(root.to_string(), 0)]),
            seen: HashSet::from([root.to_string()]),
        };
        for id in atlas.node_ids()? {
            if !atlas.todos(&id).is_empty()
                && f.seen.insert(id.clone())
                && let Ok(path) = atlas.path_to_node(&id)
            {
                f.queue.push_back((id, path.len() - 1));
            }
        }
        Ok(f)
    }

    /// The next state to do the todos of: the first queued; or the one the browser is at
    /// (`here`, reached by its own path: no teleport there), when it is queued at the same
    /// depth as the first, so the crawl stays breadth first.
    fn next(&mut self, here: Option<&str>) -> Option<(String, usize)> {
        let depth = self.queue.front()?.1;
        let i = here
            .and_then(|h| self.queue.iter().position(|(id, d)| id == h && *d == depth))
            .unwrap_or(0);
        self.queue.remove(i)
    }
}

/// The crawl's summary, and whether it stopped at `--max-nodes`.
async fn crawl(c: &mut Crawler<'_>) -> Result<(Summary, bool), StepError> {
    let root = enter(c).await?;
    let mut frontier = Frontier::resume(&c.atlas, &root)?;
    let mut max_depth = 0;
    let mut limited = false;
    'crawl: while let Some((node, depth)) = frontier.next(c.here().as_deref()) {
        max_depth = max_depth.max(depth);
        loop {
            // Taken off the list only once it is done: a crawl killed midway retries it.
            let Some(todo) = c.atlas.todos(&node).into_iter().next() else {
                break;
            };
            // Stop before doing a todo, so what is left stays on disk for the next crawl (a
            // crawl is `limited` only when a todo is left).
            if c.atlas.node_ids()?.len() >= c.opts.max_nodes {
                limited = true;
                break 'crawl;
            }
            // A todo that could not be finished (the agent did not answer, the browser broke)
            // stays on the list: the crawl stops, and the next one does it.
            visit(c, &node, depth, &todo, &mut frontier).await?;
            c.atlas.manage_todos(&node, None)?;
        }
    }
    let ids = c.atlas.node_ids()?;
    let mut edges = 0;
    for id in &ids {
        edges += c.atlas.links(id)?.len();
    }
    let mut summary = std::mem::take(&mut c.summary);
    summary.total_nodes = ids.len();
    summary.total_edges = edges;
    summary.max_depth_reached = max_depth;
    summary.atlas_path = c.opts.atlas.display().to_string();
    Ok((summary, limited))
}

/// Opens the URL and records the state it shows as the atlas's root entry, with its todos
/// when it is new. Returns its node id.
async fn enter(c: &mut Crawler<'_>) -> Result<String, StepError> {
    // The URL is text, as every step explore makes (see `task::as_text`).
    let entry = vec![json!({ "open": crate::template::literal(&c.opts.url) })];
    c.fresh().await?;
    c.run_steps(&entry).await.map_err(|mut e| {
        e.message = format!("explore cannot start: {}", e.message);
        e
    })?;
    let root = c.observe(false).await?.ok_or_else(|| {
        StepError::new(
            ErrorKind::Internal,
            "the start page was taken for another app's",
        )
    })?;
    if root.is_new {
        match c.todos_of(&root).await {
            Ok(todos) => {
                let todos = kept_todos(c, &root.node, todos);
                c.atlas.manage_todos(&root.node, Some(&todos))?
            }
            Err(e) => {
                // Not kept half done: the next crawl sees the state anew and asks again.
                c.atlas.forget_new_node(&root.node)?;
                return Err(e);
            }
        };
    }
    c.atlas.set_entry(&root.node, &entry)?;
    c.arrived = Some(root.node.clone());
    Ok(root.node)
}

/// Does one todo of `node`: teleport there, act, record where it led.
async fn visit(
    c: &mut Crawler<'_>,
    node: &str,
    depth: usize,
    todo: &Value,
    frontier: &mut Frontier,
) -> Result<(), StepError> {
    let Some(task) = allowed(c, node, todo) else {
        return Ok(());
    };
    // The counts the status file holds now, so the line and `atlas status` agree.
    let (nodes, pending) = c.status.write(&c.atlas, "exploring", Some(node));
    (c.progress)(&format!(
        "explore: {nodes} nodes, {pending} todos pending ({} states queued), at {node} (depth {depth}), {:.1}s: {}",
        frontier.queue.len(),
        c.started.elapsed().as_secs_f64(),
        task.name
    ));
    // An interrupt ends the crawl, the todo in flight kept (the next crawl does it); it is
    // not a todo that failed. So does a browser that failed (it exited, or does not answer:
    // an error of kind `Environment`, exit 3): every todo after would fail on it, none for
    // the app's sake.
    let ends_crawl =
        |e: &StepError| matches!(e.kind, ErrorKind::Interrupted | ErrorKind::Environment);
    if let Err(e) = c.teleport(node).await {
        if ends_crawl(&e) {
            return Err(stopped_at(e, node, &task.name));
        }
        c.summary.failed_todos.push(format!(
            "{node}: {}: the path to the state no longer replays: {}",
            task.name, e.message
        ));
        return Ok(());
    }
    if let Err(e) = c.run_steps(&task.steps).await {
        if ends_crawl(&e) {
            return Err(stopped_at(e, node, &task.name));
        }
        c.summary
            .failed_todos
            .push(format!("{node}: {}: {}", task.name, e.message));
        return Ok(());
    }
    let Some(to) = c.observe(true).await? else {
        return Ok(()); // left the app
    };
    c.arrived = Some(to.node.clone());
    // A new state is analysed before it is linked: if either fails it is forgotten (the todo
    // stays, the next crawl meets the state anew); a move that meant nothing leaves no trace.
    let explored = to.is_new && depth + 1 < c.opts.max_depth;
    let kept = async {
        let todos = if explored {
            Some(c.todos_of(&to).await?)
        } else {
            None
        };
        let linked = to.node == node || c.link(node, &task, &to).await?;
        Ok::<_, StepError>((linked, todos))
    }
    .await;
    let todos = match kept {
        Ok((true, todos)) => todos,
        Ok((false, _)) | Err(_) if to.is_new => {
            c.atlas.forget_new_node(&to.node)?;
            return kept.map(|_| ());
        }
        Ok((false, _)) => return Ok(()),
        Err(e) => return Err(e),
    };
    if to.is_new && frontier.seen.insert(to.node.clone()) {
        if let Some(todos) = todos {
            let todos = kept_todos(c, &to.node, todos);
            c.atlas.manage_todos(&to.node, Some(&todos))?;
        }
        frontier.queue.push_back((to.node.clone(), depth + 1));
    }
    Ok(())
}

/// The error that ends a crawl at `node`'s todo `task`: an interrupt as it is; a browser that
/// failed (an `Environment` error) saying where, and that the todo is left for the next crawl.
fn stopped_at(mut e: StepError, node: &str, task: &str) -> StepError {
    if e.kind == ErrorKind::Environment {
        e.message = format!(
            "explore stopped at {node}, todo `{task}` (left for the next `runner explore`): {}",
            e.message
        );
    }
    e
}

/// `todos` of `node` as the atlas keeps them (see `task::kept_todo`): one that cannot be kept
/// without a secret is not, and is a failed todo of the summary, saying why.
fn kept_todos(c: &mut Crawler<'_>, node: &str, todos: Vec<Value>) -> Vec<Value> {
    let mut kept = Vec::new();
    for todo in todos {
        match kept_todo(todo, &c.masker, &c.atlas.reach) {
            Ok(t) => kept.push(t),
            Err((name, why)) => c
                .summary
                .failed_todos
                .push(format!("{node}: {name}: {why}")),
        }
    }
    kept
}

/// The task a todo is, if explore can do it and may: what it cannot do is a failed todo, what
/// looks destructive is skipped (both noted in the summary). A todo an earlier crawl left with
/// a secret in it is kept as this one keeps its own first (see `kept_todos`); one kept with its
/// steps (`todos.json` is anyone's to edit) is admitted as an edge's are.
fn allowed(c: &mut Crawler<'_>, node: &str, todo: &Value) -> Option<Task> {
    let todo = kept_todos(c, node, vec![todo.clone()]).pop()?;
    let Some(task) = task_of(&todo) else {
        let shown = c.masker.mask(&todo.to_string());
        c.summary
            .failed_todos
            .push(format!("{node}: {shown}: not a todo explore can do"));
        return None;
    };
    if todo.get("stored").is_some() {
        let steps = Value::from(task.steps.clone());
        let from = format!("{}", c.atlas.node_dir(node).join("todos.json").display());
        let home = c.atlas.home_origin(node).ok().flatten();
        let admitted = crate::config::stored::admit_steps(&task.steps, &from)
            .and_then(|()| c.atlas.reach.admits(&steps, home.as_deref(), &from));
        if let Err(why) = admitted {
            c.summary
                .failed_todos
                .push(format!("{node}: {}: {}", task.name, c.masker.mask(&why)));
            return None;
        }
    }
    // An agent's word can add to the guard, never lift it: only --allow-destructive does.
    if (task.destructive || is_destructive(&task.target_name) || is_destructive(&task.name))
        && !c.opts.allow_destructive
    {
        if !c.summary.skipped_destructive.contains(&task.name) {
            c.summary.skipped_destructive.push(task.name.clone());
        }
        return None;
    }
    Some(task)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// After a todo that found a state, the browser is there by that state's own path: the
    /// crawl does that state's todos next when it is queued at the depth the crawl is at (no
    /// teleport to it later), never one deeper (the crawl stays breadth first).
    #[test]
    fn the_state_the_browser_is_at_is_done_next_at_the_same_depth() {
        let queued = |q: &[(&str, usize)]| Frontier {
            queue: q.iter().map(|(id, d)| (id.to_string(), *d)).collect(),
            seen: HashSet::new(),
        };
        let mut f = queued(&[("about", 1), ("stats", 1), ("welcome", 1), ("team", 2)]);
        assert_eq!(f.next(Some("welcome")), Some(("welcome".into(), 1)));
        assert_eq!(f.next(Some("team")), Some(("about".into(), 1)));
        assert_eq!(f.next(None), Some(("stats".into(), 1)));
        assert_eq!(f.next(Some("nowhere")), Some(("team".into(), 2)));
        assert_eq!(f.next(Some("team")), None);
    }
}
