//! The isolated world a tab's snapshots are evaluated in (see `snapshots`): one per document of
//! the tab's main frame, made ahead, as the document's own context is created (runner's
//! session on the tab hears `Runtime.executionContextCreated`: the document is new, most often
//! during the step that navigates, before its load ends), off the steps' path. A step that acts
//! waits for it only while it is being made (at most `WORLD_TIMEOUT`), and makes it itself when
//! none is (no event came, or making it ahead failed).
//!
//! A world of an earlier document is never used: each document of a tab has its number (one
//! more at each new document, or when its contexts go), and a world is kept only when the tab
//! is still at the document it was asked for in once its answer comes (one that comes later is
//! dropped; the evaluation would refuse its context, or, in another renderer process, a context
//! of the same number could be the page's own).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::Notify;

use super::super::super::cdp::Link;
use super::Held;

/// How long the isolated world a snapshot is taken in may take to be had.
pub(super) const WORLD_TIMEOUT: Duration = Duration::from_secs(2);

/// The worlds of a flow's tabs, by runner's session on each.
#[derive(Default)]
pub(super) struct Worlds(HashMap<String, Tab>);

#[derive(Default)]
struct Tab {
    /// The number of the tab's document.
    document: u64,
    world: World,
}

/// A tab's world in its document.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum World {
    /// None asked for.
    #[default]
    Unasked,
    /// Asked for; its answer has not come.
    Making,
    /// Its execution context.
    Made(u64),
    /// Asked for, and none came.
    Failed,
}

impl Worlds {
    /// The world of runner's session `session`'s tab in its document.
    pub(super) fn get(&self, session: &str) -> World {
        self.0.get(session).map_or(World::Unasked, |t| t.world)
    }

    /// A new document in the tab of `session` (or its contexts went): no world yet.
    pub(super) fn new_document(&mut self, session: &str) {
        let tab = self.0.entry(session.to_string()).or_default();
        tab.document += 1;
        tab.world = World::Unasked;
    }

    /// Context `context` of the tab of `session` went: when it is its world, so is its
    /// document.
    pub(super) fn context_gone(&mut self, session: &str, context: Option<u64>) {
        if context.is_some_and(|c| self.get(session) == World::Made(c)) {
            self.new_document(session);
        }
    }

    /// The world is being made (by whoever was told so): the number of the document it is for.
    /// None when one is made or being made already (unless `again`, when one failed).
    pub(super) fn begin(&mut self, session: &str, again: bool) -> Option<u64> {
        let tab = self.0.entry(session.to_string()).or_default();
        match tab.world {
            World::Unasked => {}
            World::Failed if again => {}
            World::Making | World::Made(_) | World::Failed => return None,
        }
        tab.world = World::Making;
        Some(tab.document)
    }

    /// The answer of the world made for document `document` of the tab of `session`: its
    /// context, or none; dropped when the tab is at another document now.
    pub(super) fn made(&mut self, session: &str, document: u64, context: Option<u64>) {
        if let Some(tab) = self.0.get_mut(session)
            && tab.document == document
            && tab.world == World::Making
        {
            tab.world = context.map_or(World::Failed, World::Made);
        }
    }

    /// An evaluation in `context` failed: it is not used again (the next step makes another).
    pub(super) fn refused(&mut self, session: &str, context: u64) {
        if let Some(tab) = self.0.get_mut(session)
            && tab.world == World::Made(context)
        {
            tab.world = World::Unasked;
        }
    }
}

/// What the snapshots of a flow share with the tasks that make worlds.
#[derive(Clone)]
pub(super) struct Shared {
    pub(super) state: Arc<Mutex<Held>>,
    /// Told when a world is made (or is not) and when a snapshot's answer comes.
    pub(super) told: Arc<Notify>,
}

/// A tab: runner's connection, its session on the tab, the tab (its main frame's id).
pub(super) type On<'a> = (&'a Arc<Link>, &'a str, &'a str);

impl Shared {
    /// Event `method` of runner's session on tab `on`: a new document of its main frame has its
    /// world made (in a task of its own: the connection's reader must not wait); when its
    /// contexts go, so does its world.
    pub(super) fn heard(&self, (link, session, target): On<'_>, method: &str, p: &Value) {
        let Ok(mut h) = self.state.lock() else { return };
        match method {
            "Runtime.executionContextCreated" => {
                let aux = &p["context"]["auxData"];
                if aux["isDefault"] != true || aux["frameId"] != target {
                    return;
                }
                h.worlds.new_document(session);
                let Some(document) = h.worlds.begin(session, false) else {
                    return;
                };
                drop(h);
                let (shared, link) = (self.clone(), link.clone());
                let (session, target) = (session.to_string(), target.to_string());
                tokio::spawn(async move {
                    shared.make((&link, &session, &target), document).await;
                });
            }
            "Runtime.executionContextsCleared" => h.worlds.new_document(session),
            "Runtime.executionContextDestroyed" => {
                h.worlds
                    .context_gone(session, p["executionContextId"].as_u64());
            }
            _ => {}
        }
    }

    /// Makes the world of tab `on` in its document number `document`.
    async fn make(&self, (link, session, target): On<'_>, document: u64) {
        let params = json!({ "frameId": target, "worldName": "runner-snapshot" });
        let made = link
            .call_in(
                Some(session),
                "Page.createIsolatedWorld",
                params,
                WORLD_TIMEOUT,
            )
            .await;
        let context = made.ok().and_then(|m| m["executionContextId"].as_u64());
        if let Ok(mut h) = self.state.lock() {
            h.worlds.made(session, document, context);
        }
        self.told.notify_waiters();
    }

    /// The execution context of the world of tab `on` in its document, for a step's snapshot:
    /// the one made, else once it is made (waiting at most `WORLD_TIMEOUT`; made here when none
    /// is being made); none when none could be had.
    pub(super) async fn context(&self, on: On<'_>) -> Option<u64> {
        let until = tokio::time::Instant::now() + WORLD_TIMEOUT;
        let session = on.1;
        let mut tried = false;
        loop {
            let told = self.told.notified();
            let (world, begun) = {
                let mut h = self.state.lock().ok()?;
                let world = h.worlds.get(session);
                (
                    world,
                    (!tried).then(|| h.worlds.begin(session, true)).flatten(),
                )
            };
            // Once: a world made here for a document the tab has left since is dropped, and
            // the one its new document's event began is waited for.
            if let Some(document) = begun {
                tried = true;
                self.make(on, document).await;
                continue;
            }
            match world {
                World::Made(c) => return Some(c),
                World::Making => {}
                World::Unasked | World::Failed => return None,
            }
            tokio::time::timeout_at(until, told).await.ok()?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{World, Worlds};

    /// A world made for a document the tab has left is dropped, never used in the next; one
    /// per document: a second is not begun while one is made or being made.
    #[test]
    fn a_world_is_kept_only_for_the_document_it_was_made_for() {
        let mut w = Worlds::default();
        w.new_document("s");
        let first = w.begin("s", false).unwrap();
        assert_eq!(w.begin("s", true), None);
        w.new_document("s");
        w.made("s", first, Some(7));
        assert_eq!(w.get("s"), World::Unasked);
        let second = w.begin("s", false).unwrap();
        w.made("s", second, Some(9));
        assert_eq!(w.get("s"), World::Made(9));
        assert_eq!(w.begin("s", true), None);
        // Another context gone keeps it; its own gone takes its document with it.
        w.context_gone("s", Some(7));
        assert_eq!(w.get("s"), World::Made(9));
        w.context_gone("s", Some(9));
        assert_eq!(w.get("s"), World::Unasked);
    }

    /// One that failed ahead is made again by a step (`again`), not by another event's start.
    #[test]
    fn a_world_that_failed_is_made_again_by_a_step() {
        let mut w = Worlds::default();
        let d = w.begin("s", false).unwrap();
        w.made("s", d, None);
        assert_eq!(w.get("s"), World::Failed);
        assert_eq!(w.begin("s", false), None);
        assert_eq!(w.begin("s", true), Some(d));
        w.made("s", d, Some(3));
        w.refused("s", 3);
        assert_eq!(w.get("s"), World::Unasked);
    }
}
