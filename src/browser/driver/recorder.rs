//! What runner's session on each of a flow's tabs records for the flow's trace (`--trace`), from
//! events alone, so that a traced step waits for nothing:
//!
//! - with `Recording::Snapshots` (`retain-on-failure`), no screencast but a snapshot of the
//!   document after each step that acts, drawn into pictures only if the flow fails (see
//!   `snapshots`). With `Recording::Screencast` (`on`):
//! - the page as it is drawn: a DevTools screencast (`Page.startScreencast`: JPEG at quality
//!   50, at most 480 × 480 pixels, every frame), each frame acknowledged as it comes (the next
//!   one comes after); the latest few frames of each tab are kept. The picture after a step is
//!   the first frame the browser began after the step ended, chosen as the frames come (see
//!   `screens`): the browser draws a change a frame or so after it is made, so the latest frame
//!   when a step ends mostly shows the page before it.
//! - the console: the page's `console.*` calls (`Runtime.consoleAPICalled`), its uncaught
//!   exceptions (`Runtime.exceptionThrown`) and the browser's own messages (`Log.entryAdded`,
//!   but the "failed to load resource" ones: the requests say that).
//! - the requests that failed: a response with a status of 400 or more, or none
//!   (`Network.loadingFailed`: refused, aborted, blocked).
//!
//! Each message and failed request carries the time the browser gives it (ms since the
//! epoch), by which the trace puts it in the step it happened in. Bounded: a few frames per tab;
//! the latest `MAX_ENTRIES` messages (and as many failed requests) of a flow, each text held up
//! to `MAX_HELD_TEXT` characters; the requests in flight known by their URL up to
//! `MAX_REQUESTS` (past it, they are forgotten, and one of them that fails goes unnamed).
//! Nothing here is masked: the trace masks each text, then cuts it at `MAX_TEXT` characters
//! (a secret across that cut shows as `***`, never its head).

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::Notify;

use super::cdp::Link;

mod screens;
use screens::{Frame, Screens};
mod snapshots;
pub(crate) use snapshots::Drawn;
use snapshots::Snapshots;

/// How a flow's tabs record the pictures of its trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Recording {
    /// A screencast (`--trace on`): each picture chosen among its frames as they come.
    Screencast,
    /// A snapshot of the document after each step that acts, drawn only if the flow fails
    /// (`retain-on-failure`: see `snapshots`).
    Snapshots,
}

/// The screencast's frames: JPEG, their quality, and the largest size (CSS pixels of the page
/// are scaled down to it).
const SCREENCAST: (u32, u32, u32) = (50, 480, 480);

/// The most console messages (and as many failed requests) a flow keeps: its latest.
const MAX_ENTRIES: usize = 1000;

/// The longest text of a message or a URL the trace shows, in characters (cut once masked).
const MAX_TEXT: usize = 2000;

/// The longest text of a message or a URL held until the trace masks it, in characters: far
/// above `MAX_TEXT` and any secret, so what the trace shows of it is whole before it is cut.
const MAX_HELD_TEXT: usize = 16 * 1024;

/// The most requests in flight whose URL is kept (to name one that fails).
const MAX_REQUESTS: usize = 2000;

/// How long a call that starts the recording or acknowledges a frame may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(5);

/// A flow's recording, over all its tabs.
pub(crate) struct Recorder {
    state: Mutex<Recorded>,
    /// Told when a tab starts recording (or is found not to).
    told: Notify,
    /// The snapshots taken instead of a screencast (`Recording::Snapshots`).
    snapshots: Option<Snapshots>,
}

#[derive(Default)]
struct Recorded {
    /// The latest frames of each tab, and the pictures wanted of them.
    screens: Screens,
    console: Entries,
    network: Entries,
    /// Requests in flight: id -> (method, URL, its wall time less its monotonic time: what
    /// turns the browser's monotonic stamps of its later events into wall times).
    requests: HashMap<String, (String, String, f64)>,
    /// The tabs that record, or that runner's session could not record.
    settled: HashSet<String>,
}

/// The latest entries of a flow, with the time of each (ms since the epoch), and how many
/// earlier ones were let go.
#[derive(Default)]
struct Entries {
    list: VecDeque<(f64, Value)>,
    left_out: usize,
}

impl Entries {
    fn push(&mut self, at: f64, e: Value) {
        if self.list.len() == MAX_ENTRIES {
            self.list.pop_front();
            self.left_out += 1;
        }
        self.list.push_back((at, e));
    }
}

/// What a flow's tabs logged and the requests that failed, each with its time (ms since the
/// epoch), and how many earlier ones were let go.
#[derive(Debug, Default)]
pub(crate) struct Logged {
    pub(crate) console: Vec<(f64, Value)>,
    pub(crate) network: Vec<(f64, Value)>,
    pub(crate) left_out: (usize, usize),
}

impl Logged {
    /// The most entries of each kind a flow keeps.
    pub(crate) const MAX: usize = MAX_ENTRIES;
    /// The longest text of an entry the trace shows, once masked.
    pub(crate) const MAX_TEXT: usize = MAX_TEXT;
    /// The longest text of an entry held: one longer (by its `…`) is the start of a longer one.
    pub(crate) const MAX_HELD_TEXT: usize = MAX_HELD_TEXT;
}

impl Recorder {
    /// A flow's recording, its pictures taken `how`.
    pub(crate) fn new(how: Recording) -> Recorder {
        Recorder {
            state: Mutex::default(),
            told: Notify::new(),
            snapshots: (how == Recording::Snapshots).then(Snapshots::default),
        }
    }

    /// Whether the recording takes events of this kind (`method`).
    pub(crate) fn hears(method: &str) -> bool {
        matches!(
            method,
            "Page.screencastFrame"
                | "Runtime.consoleAPICalled"
                | "Runtime.exceptionThrown"
                | "Log.entryAdded"
                | "Network.requestWillBeSent"
                | "Network.responseReceived"
                | "Network.loadingFinished"
                | "Network.loadingFailed"
                | "Runtime.executionContextCreated"
                | "Runtime.executionContextsCleared"
                | "Runtime.executionContextDestroyed"
        )
    }

    /// Starts recording a tab over runner's session `session` on it (its Page domain on): its
    /// console, its requests, its screencast. (Its caller then `settle`s it.)
    pub(crate) async fn start(&self, link: &Link, session: &str) {
        let on = Some(session);
        // No response bodies are kept for runner's session: it reads none (a total of 0 is
        // refused).
        // Nor a request's body (an upload's may be any size): the trace names requests only.
        let network = json!({
            "maxTotalBufferSize": 1024, "maxResourceBufferSize": 0, "maxPostDataSize": 0,
        });
        let (quality, width, height) = SCREENCAST;
        let screencast = json!({
            "format": "jpeg", "quality": quality, "maxWidth": width, "maxHeight": height,
            "everyNthFrame": 1,
        });
        let mut calls = vec![
            ("Runtime.enable", json!({})),
            ("Log.enable", json!({})),
            ("Network.enable", network),
        ];
        if self.snapshots.is_none() {
            calls.push(("Page.startScreencast", screencast));
        }
        let calls = calls
            .into_iter()
            .map(|(m, p)| link.call_in(on, m, p, CALL_TIMEOUT));
        futures_util::future::join_all(calls).await;
    }

    /// Tab `target` records, or runner's session on it could not be had: nothing is to be
    /// waited for.
    pub(crate) fn settle(&self, target: &str) {
        if let Ok(mut s) = self.state.lock() {
            s.settled.insert(target.to_string());
        }
        self.told.notify_waiters();
    }

    /// Waits (at most `timeout`) until tab `target` records (or is found not to).
    pub(crate) async fn recording(&self, target: &str, timeout: Duration) {
        self.wait_until(timeout, |s| s.settled.contains(target))
            .await;
    }

    /// A browser step of the flow, on tab `target`, began at `start` and ended at `end` (ms
    /// since the epoch); `acts` when it may change the page (not only read it). When `picture`,
    /// the picture of the tab after it is wanted: its id, to take it by once it is chosen (see
    /// `screens`; with snapshots, one is asked of the `page` — runner's session on the tab —
    /// when it `acts`: see `snapshots`; one of a flow with `secrets` leaves out the text the
    /// page does not render).
    pub(crate) async fn stepped(
        &self,
        (target, page): (&str, Option<snapshots::Page>),
        (start, end): (f64, f64),
        (acts, picture, secrets): (bool, bool, bool),
    ) -> Option<u64> {
        if let Some(shots) = &self.snapshots {
            return shots.stepped(page, (acts, picture, secrets)).await;
        }
        let mut s = self.state.lock().ok()?;
        s.screens.step((start, end), acts);
        picture.then(|| s.screens.want(target, end))
    }

    /// A request paused in a tab runner draws snapshots in (the only tabs it turns `Fetch` on
    /// in: see `snapshots`), event `msg`: refused (read by the connection's reader: nothing
    /// here waits).
    pub(crate) fn refuse(link: &Arc<Link>, msg: &Value) {
        snapshots::refuse(link, msg);
    }

    /// Whether its pictures are snapshots, drawn at the flow's end (see `drawn`).
    pub(crate) fn snapshots(&self) -> bool {
        self.snapshots.is_some()
    }

    /// With snapshots, at the flow's end (its trace kept): the pictures `ids`, drawn in the
    /// browser on `link` once the snapshots asked for have come (waiting at most `timeout`),
    /// masked with `masker`; and what was left out of them, and why.
    pub(crate) async fn drawn(
        &self,
        link: &Arc<Link>,
        ids: &[u64],
        timeout: Duration,
        masker: &crate::step::Masker,
    ) -> Drawn {
        let Some(s) = &self.snapshots else {
            return Drawn::default();
        };
        let shots = s.shots(ids, timeout).await;
        let (quality, width, height) = SCREENCAST;
        let size = (quality, f64::from(width.min(height)));
        snapshots::render(link, shots, size, masker, snapshots::BOUNDS).await
    }

    /// Picture `id` once it is chosen: a JPEG (or none), and whether it may show the changes
    /// of a later step too (see `screens`). A snapshot's is drawn at the flow's end only.
    pub(crate) fn take(&self, id: u64) -> Option<(Option<Arc<Vec<u8>>>, bool)> {
        if self.snapshots.is_some() {
            return None;
        }
        let (frame, later) = self.state.lock().ok()?.screens.take(id)?;
        Some((frame.and_then(|f| f.jpeg()), later))
    }

    /// The flow ended: the pictures still waiting are chosen as the frames the browser began
    /// before come (waiting for them, at most `timeout`); then each takes the frame of before
    /// its step (the browser drew nothing after).
    pub(crate) async fn ended(&self, timeout: Duration) {
        let Some(until) = self
            .state
            .lock()
            .ok()
            .and_then(|mut s| s.screens.ended(now_ms()))
        else {
            return;
        };
        let wait = Duration::from_secs_f64(((until - now_ms()) / 1000.0).max(0.0));
        self.wait_until(wait.min(timeout), |s| !s.screens.waiting())
            .await;
        if let Ok(mut s) = self.state.lock() {
            s.screens.give_up();
        }
    }

    async fn wait_until(&self, timeout: Duration, done: impl Fn(&Recorded) -> bool) {
        let until = tokio::time::Instant::now() + timeout;
        loop {
            let told = self.told.notified();
            let now = self.state.lock().is_ok_and(|s| done(&s));
            if now || tokio::time::timeout_at(until, told).await.is_err() {
                return;
            }
        }
    }

    /// What the flow's tabs logged and the requests that failed, taken.
    pub(crate) fn logged(&self) -> Logged {
        let Ok(mut s) = self.state.lock() else {
            return Logged::default();
        };
        let console = std::mem::take(&mut s.console);
        let network = std::mem::take(&mut s.network);
        Logged {
            console: console.list.into(),
            network: network.list.into(),
            left_out: (console.left_out, network.left_out),
        }
    }

    /// An event of tab `target` on runner's session `session` (read by the connection's
    /// reader: nothing here waits).
    pub(crate) fn on_event(
        &self,
        link: &Arc<Link>,
        (session, target): (&str, &str),
        method: &str,
        p: &Value,
    ) {
        if method.starts_with("Runtime.executionContext") {
            if let Some(shots) = &self.snapshots {
                shots.heard((link, session, target), method, p);
            }
            return;
        }
        let Ok(mut s) = self.state.lock() else { return };
        match method {
            "Page.screencastFrame" => {
                let data = p["data"].as_str().unwrap_or_default().to_string();
                let stamp = p["metadata"]["timestamp"].as_f64();
                s.screens.frame(target, Frame::new(data, stamp, now_ms()));
                drop(s);
                // Pictures waiting at the flow's end are chosen as frames come.
                self.told.notify_waiters();
                let (link, session) = (link.clone(), session.to_string());
                let params = json!({ "sessionId": p["sessionId"] });
                // The next frame comes once this one is acknowledged.
                tokio::spawn(async move {
                    let ack = "Page.screencastFrameAck";
                    let _ = link
                        .call_in(Some(&session), ack, params, CALL_TIMEOUT)
                        .await;
                });
            }
            "Runtime.consoleAPICalled" => {
                let at = p["timestamp"].as_f64().unwrap_or_else(now_ms);
                s.console.push(at, console_call(p));
            }
            "Runtime.exceptionThrown" => {
                let at = p["timestamp"].as_f64().unwrap_or_else(now_ms);
                s.console.push(at, exception(p));
            }
            // A resource that failed to load is one of the requests.
            "Log.entryAdded" if p["entry"]["source"] != "network" => {
                let e = &p["entry"];
                let at = e["timestamp"].as_f64().unwrap_or_else(now_ms);
                let entry = json!({
                    "source": e["source"], "level": e["level"], "text": cut(e["text"].as_str().unwrap_or("")),
                    "url": e["url"].as_str().map(cut),
                });
                s.console.push(at, entry);
            }
            _ => network_event(&mut s, method, p),
        }
    }
}

/// Now, in ms since the epoch.
fn now_ms() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

/// What the recording does with a `Network.*` event.
fn network_event(s: &mut Recorded, method: &str, p: &Value) {
    let id = p["requestId"].as_str().unwrap_or_default();
    // The browser's monotonic stamp of the event, as a wall time (ms since the epoch).
    let wall = |s: &Recorded| {
        let offset = s.requests.get(id).map(|r| r.2);
        match (p["timestamp"].as_f64(), offset) {
            (Some(t), Some(o)) => (t + o) * 1000.0,
            _ => now_ms(),
        }
    };
    match method {
        "Network.requestWillBeSent" => {
            let url = p["request"]["url"].as_str().unwrap_or_default();
            if url.starts_with("data:") {
                return;
            }
            if s.requests.len() >= MAX_REQUESTS {
                s.requests.clear();
            }
            let method = p["request"]["method"].as_str().unwrap_or("GET");
            let offset = match (p["wallTime"].as_f64(), p["timestamp"].as_f64()) {
                (Some(w), Some(t)) => w - t,
                _ => now_ms() / 1000.0 - p["timestamp"].as_f64().unwrap_or(0.0),
            };
            s.requests
                .insert(id.to_string(), (method.to_string(), cut(url), offset));
        }
        "Network.responseReceived" => {
            let r = &p["response"];
            let status = r["status"].as_u64().unwrap_or(0);
            if status >= 400 {
                let at = wall(s);
                // Named once: its loading may still fail after (cut short by a navigation).
                let method = s.requests.remove(id).map_or("GET".into(), |r| r.0);
                let entry = json!({
                    "method": method, "url": cut(r["url"].as_str().unwrap_or_default()),
                    "status": status, "status_text": r["statusText"], "type": p["type"],
                });
                s.network.push(at, entry);
            }
        }
        "Network.loadingFinished" => {
            s.requests.remove(id);
        }
        // (Not a request named already, nor one of a `data:` URL.)
        "Network.loadingFailed" => {
            let at = wall(s);
            let Some((method, url, _)) = s.requests.remove(id) else {
                return;
            };
            let mut entry = json!({
                "method": method, "url": url, "error": p["errorText"], "type": p["type"],
            });
            if let Some(why) = p["blockedReason"].as_str() {
                entry["blocked"] = json!(why);
            }
            s.network.push(at, entry);
        }
        _ => {}
    }
}

/// A `console.*` call: its level, its arguments as text (a string as it is, a value as JSON,
/// an object as the browser describes it), where it was made.
fn console_call(p: &Value) -> Value {
    let args: Vec<String> = p["args"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|a| match (&a["value"], a["description"].as_str()) {
            (Value::String(s), _) => s.clone(),
            (v, _) if !v.is_null() => v.to_string(),
            (_, Some(d)) => d.to_string(),
            _ => a["unserializableValue"]
                .as_str()
                .or(a["type"].as_str())
                .unwrap_or("")
                .to_string(),
        })
        .collect();
    let top = &p["stackTrace"]["callFrames"][0];
    let line = top["lineNumber"].as_u64().unwrap_or(0) + 1;
    json!({
        "source": "console", "level": p["type"], "text": cut(&args.join(" ")),
        "url": top["url"].as_str().filter(|u| !u.is_empty()).map(|u| format!("{}:{line}", cut(u))),
    })
}

/// An uncaught exception of the page.
fn exception(p: &Value) -> Value {
    let d = &p["exceptionDetails"];
    let text = d["exception"]["description"]
        .as_str()
        .or(d["text"].as_str())
        .unwrap_or("");
    json!({
        "source": "exception", "level": "error", "text": cut(text),
        "url": d["url"].as_str().map(cut),
    })
}

/// `text`, held up to `MAX_HELD_TEXT` characters (the trace cuts it shorter once masked).
fn cut(text: &str) -> String {
    crate::step::masker::cut(text, MAX_HELD_TEXT)
}

#[cfg(test)]
mod tests;
