//! The pictures of a trace kept only when its flow fails (`retain-on-failure`): no screencast
//! (its capture delays the animation frames the steps' actionability waits use), but after each
//! step that acts on the page a snapshot of its document — HTML with the live state of its
//! fields written in (a password field's as dots), its scripts out, its stylesheets inlined
//! (`scripts/snapshot.js`, evaluated in an isolated world of the tab's frame, so the page's
//! scripts cannot change what it reads): one `Runtime.evaluate` sent after the step (before
//! the next step's commands: it is of the page after this step), its answer taken as it comes,
//! so the flow waits for no answer (the isolated world is made ahead, as each document comes:
//! see `world`). A step that only reads the page shares the snapshot of the last that acted.
//!
//! Bounded: a snapshot (its HTML and the stylesheets' texts it sends) of more than
//! `MAX_SNAPSHOT` characters is not sent (the page says how large it is: no answer comes near
//! the connection's message limit), and then none is taken for the rest of the flow (a
//! document that large costs each step its serialization); a stylesheet is held once a flow
//! (each of more than `MAX_SHEET` characters empty); a flow holds at most `MAX_HELD` bytes of
//! snapshots and stylesheets, and at most `HELD` snapshots: its latest (a failure is at the
//! end).
//!
//! A flow that passed drops them. One that failed has them drawn at its end, one at a time,
//! offline (see `draw`).

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::Notify;

use super::super::cdp::Link;
use super::super::script;

mod draw;
pub(crate) use draw::{BOUNDS, Drawn, refuse, render};
mod world;

/// The page-side capture.
const SNAPSHOT_JS: &str = include_str!("../scripts/snapshot.js");

/// The most snapshots a flow holds: its latest (a failure is at the end).
const HELD: usize = 200;

/// The most characters of a snapshot: its HTML and the stylesheets' texts it sends (each at
/// most 3 bytes of UTF-8, 6 as JSON escapes: far below the connection's 64 MiB).
const MAX_SNAPSHOT: usize = 8 * 1024 * 1024;

/// The most time a snapshot spends reading which text the page renders (with secrets): a page
/// of hundreds of thousands of text nodes takes seconds, which would hold the page's thread,
/// and so the flow's next steps, after every step that acts. Past it no snapshot is taken any
/// more in the flow (its drawn pictures are left out, saying so).
const SECRETS_READ_MS: u64 = 250;

/// The most characters of one stylesheet's text: a longer one is drawn empty.
const MAX_SHEET: usize = 2 * 1024 * 1024;

/// The most bytes of snapshots and stylesheets a flow holds: past it its oldest snapshots go.
const MAX_HELD: usize = 64 * 1024 * 1024;

/// How long one snapshot's evaluation may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(10);

/// One snapshot: the page's HTML (its `<link>` stylesheets standing as
/// `<style data-runner-sheet>`), its viewport in CSS pixels.
#[derive(Clone, Debug)]
pub(crate) struct Shot {
    pub(crate) html: Arc<str>,
    pub(crate) size: (u32, u32),
}

/// A tab to snapshot: runner's connection, its session on the tab, the tab.
pub(crate) type Page = (Arc<Link>, String, String);

/// A flow's snapshots.
#[derive(Default)]
pub(crate) struct Snapshots {
    state: Arc<Mutex<Held>>,
    /// Told when a snapshot's answer has come (or none will).
    told: Arc<Notify>,
}

#[derive(Default)]
struct Held {
    /// The snapshots taken so far: number -> shot (none when the page gave none).
    shots: BTreeMap<u64, Option<Shot>>,
    /// The snapshot each picture shows: picture id -> snapshot number.
    pictures: HashMap<u64, u64>,
    /// The latest snapshot's number.
    last: Option<u64>,
    next: u64,
    /// Snapshots asked for whose answer has not come.
    pending: usize,
    /// The stylesheets' texts, by address: each read once a flow.
    sheets: HashMap<String, Arc<str>>,
    /// The bytes held: the snapshots' HTML and the stylesheets' texts.
    bytes: usize,
    /// How many snapshots were let go to keep under `MAX_HELD` (or `HELD`).
    let_go: usize,
    /// Why no snapshot is taken any more (a document over `MAX_SNAPSHOT`).
    stopped: Option<String>,
    /// The isolated world snapshots are taken in, in each tab's document (see `world`).
    worlds: world::Worlds,
}

impl Snapshots {
    /// After a step on tab `page` (runner's connection, its session on the tab, the tab): when
    /// it `acts`, a snapshot of the page is asked for (sent, its answer not waited for). The
    /// picture's id when `picture` is wanted (the last snapshot's: none yet, none; none when
    /// runner's session on the tab could not be had after a step that acted, or snapshots were
    /// stopped: never the page before it). With `secrets`, the snapshot leaves out the text the
    /// page does not render (`snapshot.js`: it costs a layout read of each text node).
    pub(crate) async fn stepped(
        &self,
        page: Option<Page>,
        (acts, picture, secrets): (bool, bool, bool),
    ) -> Option<u64> {
        let stopped = self.state.lock().ok()?.stopped.is_some();
        let asked = match (acts, page) {
            (true, Some(page)) if !stopped => self.ask(page, secrets).await,
            (true, _) => {
                self.state.lock().ok()?.last = None;
                None
            }
            (false, _) => None,
        };
        if let Some((n, answer)) = asked {
            let (state, told) = (self.state.clone(), self.told.clone());
            tokio::spawn(async move {
                let value = answer.await.ok().map(|a| a["result"]["value"].clone());
                if let Ok(mut h) = state.lock() {
                    h.took(n, value);
                }
                told.notify_waiters();
            });
        }
        let mut h = self.state.lock().ok()?;
        if !picture {
            return None;
        }
        let id = h.next;
        h.next += 1;
        if let Some(last) = h.last {
            h.pictures.insert(id, last);
        }
        Some(id)
    }

    /// Asks tab `target` (runner's session `session` on it) for a snapshot, in an isolated
    /// world of its frame: its number and its answer to come; none (and no last snapshot)
    /// when it could not be asked.
    async fn ask(
        &self,
        (link, session, target): Page,
        secrets: bool,
    ) -> Option<(
        u64,
        impl Future<Output = Result<Value, super::super::cdp::CdpError>> + use<>,
    )> {
        let Some(context) = self.shared().context((&link, &session, &target)).await else {
            self.state.lock().ok()?.last = None;
            return None;
        };
        let (n, expression) = {
            let mut h = self.state.lock().ok()?;
            let n = h.next;
            h.next += 1;
            h.last = Some(n);
            h.pending += 1;
            let known: Vec<&String> = h.sheets.keys().collect();
            let args = [
                json!(known),
                json!(MAX_SNAPSHOT),
                json!(MAX_SHEET),
                json!(secrets),
                json!(SECRETS_READ_MS),
            ];
            (n, script::call(SNAPSHOT_JS, &args))
        };
        let params = json!({
            "expression": expression, "returnByValue": true, "contextId": context,
        });
        let sent = link
            .sent_in(Some(&session), "Runtime.evaluate", params, CALL_TIMEOUT)
            .await;
        let Ok(answer) = sent else {
            self.state.lock().ok()?.took(n, None);
            return None;
        };
        // A context gone since (an answer that is an error) is not used again.
        let state = self.state.clone();
        Some((n, async move {
            let answer = answer.await;
            if answer.is_err()
                && let Ok(mut h) = state.lock()
            {
                h.worlds.refused(&session, context);
            }
            answer
        }))
    }

    /// What the tasks that make the isolated worlds share (see `world`).
    fn shared(&self) -> world::Shared {
        world::Shared {
            state: self.state.clone(),
            told: self.told.clone(),
        }
    }

    /// Event `method` of runner's session on tab `on` (runner's connection, the session, the
    /// tab): a new document's isolated world is made ahead; when the document's contexts go,
    /// so does its world (read by the connection's reader: nothing here waits).
    pub(crate) fn heard(&self, on: (&Arc<Link>, &str, &str), method: &str, p: &Value) {
        self.shared().heard(on, method, p);
    }

    /// Waits (at most `timeout`) for the snapshots asked for; then the snapshots `pictures`
    /// (by id) show, each with the pictures that show it, and the flow's stylesheets; and what
    /// was left out of them, and why.
    pub(crate) async fn shots(&self, pictures: &[u64], timeout: Duration) -> Shots {
        let until = tokio::time::Instant::now() + timeout;
        loop {
            let told = self.told.notified();
            let done = self.state.lock().map_or(true, |h| h.pending == 0);
            if done || tokio::time::timeout_at(until, told).await.is_err() {
                break;
            }
        }
        let Ok(h) = self.state.lock() else {
            return Shots::default();
        };
        let mut by_shot: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
        for id in pictures {
            if let Some(n) = h.pictures.get(id) {
                by_shot.entry(*n).or_default().push(*id);
            }
        }
        let shots = by_shot
            .into_iter()
            .filter_map(|(n, ids)| Some((ids, h.shots.get(&n)?.clone()?)))
            .collect();
        let mut left_out: Vec<String> = h.stopped.iter().cloned().collect();
        if h.let_go > 0 {
            left_out.push(format!(
                "the snapshots of the first {} steps that acted: a flow holds its latest {HELD}, {} MiB at most",
                h.let_go,
                MAX_HELD / (1024 * 1024)
            ));
        }
        Shots {
            each: shots,
            sheets: h.sheets.clone(),
            left_out,
        }
    }
}

/// What a failed flow's pictures are drawn from (see `Snapshots::shots`).
#[derive(Default)]
pub(crate) struct Shots {
    /// Each snapshot, and the pictures that show it.
    pub(crate) each: Vec<(Vec<u64>, Shot)>,
    /// The flow's stylesheets, by address.
    pub(crate) sheets: HashMap<String, Arc<str>>,
    /// What was left out, and why.
    pub(crate) left_out: Vec<String>,
}

impl Held {
    /// Snapshot `n`'s answer: the page's `value` (none when it gave none).
    fn took(&mut self, n: u64, value: Option<Value>) {
        self.pending = self.pending.saturating_sub(1);
        let shot = value.and_then(|v| self.shot(&v));
        if let Some(s) = &shot {
            self.bytes += s.html.len();
        }
        self.shots.insert(n, shot);
        while self.shots.len() > 1 && (self.bytes > MAX_HELD || self.shots.len() > HELD) {
            if let Some((_, Some(gone))) = self.shots.pop_first() {
                self.bytes -= gone.html.len();
            }
            self.let_go += 1;
        }
    }

    /// The shot a snapshot's answer `v` holds, its stylesheets kept (none past the flow's
    /// bytes; none too large, and no snapshot taken after: see `stopped`).
    fn shot(&mut self, v: &Value) -> Option<Shot> {
        let sheets = v["sheets"].as_object();
        let sent: usize = v["html"].as_str().map_or(0, str::len)
            + sheets
                .into_iter()
                .flatten()
                .map(|(_, t)| t.as_str().map_or(0, str::len))
                .sum::<usize>();
        if v["tooSlow"].is_u64() {
            self.stopped.get_or_insert_with(|| {
                format!(
                    "the snapshots after a step whose page took more than {SECRETS_READ_MS} ms to read for the text it shows (a secret's check): none is taken after it"
                )
            });
            return None;
        }
        let large = v["tooLarge"]
            .as_u64()
            .map(|n| usize::try_from(n).unwrap_or(usize::MAX));
        if let Some(size) = large.or((sent > 3 * MAX_SNAPSHOT).then_some(sent)) {
            self.stopped.get_or_insert_with(|| {
                format!(
                    "the snapshots after a step whose page's document was too large ({} MiB with its stylesheets, more than {} MiB): none is taken after it",
                    size.div_ceil(1024 * 1024),
                    MAX_SNAPSHOT / (1024 * 1024)
                )
            });
            return None;
        }
        for (href, text) in sheets.into_iter().flatten() {
            let text = text.as_str().unwrap_or_default();
            // Past the flow's bytes a new sheet is held empty (not sent again).
            let text = if self.bytes + href.len() + text.len() > MAX_HELD / 2 {
                ""
            } else {
                text
            };
            self.bytes += text.len();
            match self.sheets.insert(href.clone(), text.into()) {
                Some(old) => self.bytes -= old.len(),
                // Its address is held too.
                None => self.bytes += href.len(),
            }
        }
        let html = v["html"].as_str().filter(|h| !h.is_empty())?;
        let side = |k: &str| {
            let px = u32::try_from(v[k].as_u64()?).ok().filter(|p| *p > 0)?;
            Some(px.min(draw::MAX_SIDE))
        };
        let size = (side("width")?, side("height")?);
        Some(Shot {
            html: html.into(),
            size,
        })
    }
}

#[cfg(test)]
mod tests;
