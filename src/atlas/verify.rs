//! `atlas verify`: the path to every node replayed, in the order of the paths (a node after the
//! one before it on its path), on as many drivers at once as it is given. A node's path is its
//! parent's and one link more, so a driver that has checked a node goes on from there to one
//! of its children (only that link's steps), down to a leaf: each path from a root to a leaf is
//! replayed once in a fresh browser, every state on it checked on arrival, and the other
//! children wait for a driver of their own (a fresh browser, their whole path). A path that
//! breaks stops there: the nodes behind a node whose replay failed (a step failed, the browser
//! could not be driven) are not replayed, each reported as not reached, so a broken link — or
//! a root that refuses or never answers — costs one wait, not one per node behind it. A node
//! that arrives elsewhere (the page changed) still leads on: its steps ran.

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;

use super::replay::{Arrival, Driver, Replayed, Start, not_run, replay};
use super::store::{Atlas, AtlasError};
use crate::step::{ErrorKind, StepError};

/// How the paths are replayed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Checks<'a> {
    /// The origin that replaces the recorded one.
    pub(crate) base_url: Option<&'a str>,
    /// What each step of a path and each check on arrival may take.
    pub(crate) timeout: Duration,
}

/// The paths to the nodes as a tree: each node's path is its parent's and one link more.
struct Tree {
    roots: Vec<String>,
    children: HashMap<String, Vec<String>>,
}

impl Tree {
    fn of(atlas: &Atlas, ids: &[String]) -> Result<Tree, AtlasError> {
        let mut tree = Tree {
            roots: Vec::new(),
            children: HashMap::new(),
        };
        for id in ids {
            let path = atlas.path_to_node(id)?;
            match path.len().checked_sub(2).map(|i| &path[i].node_id) {
                Some(parent) => tree
                    .children
                    .entry(parent.clone())
                    .or_default()
                    .push(id.clone()),
                None => tree.roots.push(id.clone()),
            }
        }
        Ok(tree)
    }

    fn children(&self, id: &str) -> &[String] {
        self.children.get(id).map_or(&[], Vec::as_slice)
    }

    /// Every node whose path goes through `id`.
    fn behind(&self, id: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut todo: Vec<&str> = vec![id];
        while let Some(n) = todo.pop() {
            for c in self.children(n) {
                out.push(c.clone());
                todo.push(c);
            }
        }
        out
    }
}

/// [`verify_until`] that ends in the error that cut it short, if one did.
pub(crate) async fn verify(
    drivers: &mut [&mut dyn Driver],
    atlas: &Atlas,
    checks: Checks<'_>,
) -> Result<Vec<Replayed>, AtlasError> {
    match verify_until(drivers, atlas, checks).await? {
        (done, None) => Ok(done),
        (_, Some(e)) => Err(e),
    }
}

/// Replays the path to every node, on up to `drivers.len()` at once; the results in the
/// atlas's order of nodes.
///
/// A replay that cannot go on (the browser died: an error, not a node's result) stops it: what
/// was replayed before is returned with that error (in the atlas's order), the nodes not
/// replayed left out, so a report can say what was done and why it stopped.
pub(crate) async fn verify_until(
    drivers: &mut [&mut dyn Driver],
    atlas: &Atlas,
    checks: Checks<'_>,
) -> Result<(Vec<Replayed>, Option<AtlasError>), AtlasError> {
    let ids = atlas.node_ids()?;
    let tree = Tree::of(atlas, &ids)?;
    // The nodes whose whole path is to be replayed, in a fresh browser.
    let mut ready: VecDeque<String> = tree.roots.iter().cloned().collect();
    let mut done: HashMap<String, Replayed> = HashMap::new();
    let mut free: Vec<&mut dyn Driver> = drivers.iter_mut().map(|d| &mut **d).collect();
    let mut running = FuturesUnordered::new();
    let mut broke = None;
    loop {
        while let Some(d) = free.pop() {
            let Some(id) = ready.pop_front() else {
                free.push(d);
                break;
            };
            running.push(hop(d, atlas, id, Start::Fresh, checks));
        }
        let Some((d, id, r)) = running.next().await else {
            break;
        };
        let r = match r {
            Ok(r) => r,
            Err(e) => {
                broke = Some(e);
                break;
            }
        };
        if let Arrival::Failed { .. } = r.arrival {
            free.push(d);
            let behind = tree.behind(&id);
            if !behind.is_empty() {
                let why = broken_at(atlas, &id);
                for n in behind {
                    done.insert(n.clone(), unreached(atlas, &n, why.clone()));
                }
            }
        } else {
            // The driver's browser is at the node: it goes on to the first child from there.
            let mut children = tree.children(&id).iter().cloned();
            match children.next() {
                Some(first) => running.push(hop(d, atlas, first, Start::Parent, checks)),
                None => free.push(d),
            }
            ready.extend(children);
        }
        done.insert(id, r);
    }
    drop(running);
    if broke.is_some() {
        let done = ids.into_iter().filter_map(|id| done.remove(&id)).collect();
        return Ok((done, broke));
    }
    // Every node has a result: one whose path goes through a node the atlas does not hold (a
    // damaged atlas) was never scheduled, and fails rather than drop out of the count.
    let all = ids
        .into_iter()
        .map(|id| {
            done.remove(&id).unwrap_or_else(|| {
                unreached(
                    atlas,
                    &id,
                    "its path goes through a node the atlas does not hold".into(),
                )
            })
        })
        .collect();
    Ok((all, None))
}

/// One node's replay on driver `d`, which it gives back.
async fn hop<'d, 'e>(
    d: &'d mut (dyn Driver + 'e),
    atlas: &Atlas,
    id: String,
    start: Start,
    checks: Checks<'_>,
) -> (
    &'d mut (dyn Driver + 'e),
    String,
    Result<Replayed, AtlasError>,
) {
    let r = replay(&mut *d, atlas, &id, start, checks.base_url, checks.timeout).await;
    (d, id, r)
}

/// Why the nodes behind `broken`, whose replay failed, are not replayed: where their path
/// broke.
fn broken_at(atlas: &Atlas, broken: &str) -> String {
    format!(
        "its path breaks at {broken} ({}), which failed",
        super::label::Labels::one(atlas, broken)
    )
}

/// A node that was not replayed, failed: `not reached: <why>`.
fn unreached(atlas: &Atlas, node: &str, why: String) -> Replayed {
    let message = format!("not reached: {why}");
    Replayed {
        node_id: node.to_string(),
        flow: not_run(
            format!("reach {node}"),
            atlas.root.clone(),
            StepError::new(ErrorKind::CommandFailed, message.clone()),
        ),
        arrival: Arrival::Failed { message },
        diff: None,
    }
}
