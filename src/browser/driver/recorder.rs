//! What runner's session on each of a flow's tabs records for the flow's trace (`--trace`), from
//! events alone, so a traced step costs next to nothing more than an untraced one:
//!
//! - the page as it paints: a DevTools screencast (`Page.startScreencast`, JPEG at quality 50,
//!   at most 480 × 480 pixels, every frame), each frame acknowledged as it arrives; only the
//!   latest frame of each tab is kept. The picture "after a step" is the latest frame the tab
//!   had painted when the step ended: a step whose change the browser had not painted yet
//!   (a paint comes a frame or so after the change) shows the page as it was just before.
//! - the console: the page's `console.*` calls (`Runtime.consoleAPICalled`), its uncaught
//!   exceptions (`Runtime.exceptionThrown`) and the browser's own messages (`Log.entryAdded`,
//!   but the "failed to load resource" ones: the requests say that).
//! - the requests that failed: a response with a status of 400 or more, or none
//!   (`Network.loadingFailed`: refused, aborted, blocked).
//!
//! Bounded: one frame per tab; at most `MAX_ENTRIES` console messages and as many requests
//! between two takes (each text cut at `MAX_TEXT` characters); the requests in flight known by
//! their URL up to `MAX_REQUESTS` (past it, they are forgotten, and one of them that fails
//! goes unnamed). Nothing here is masked: the trace is, as it is written.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use serde_json::{Value, json};
use tokio::sync::Notify;

use super::cdp::Link;

/// The screencast's frames: JPEG, their quality, and the largest size (CSS pixels of the page
/// are scaled down to it).
const SCREENCAST: (u32, u32, u32) = (50, 480, 480);

/// The most console messages (and as many failed requests) kept between two takes.
const MAX_ENTRIES: usize = 100;

/// The longest text kept of a message or a URL, in characters.
const MAX_TEXT: usize = 2000;

/// The most requests in flight whose URL is kept (to name one that fails).
const MAX_REQUESTS: usize = 2000;

/// How long a call that starts the recording or acknowledges a frame may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(5);

/// A flow's recording, over all its tabs.
#[derive(Default)]
pub(crate) struct Recorder {
    state: Mutex<Recorded>,
    /// Told when a tab starts recording (or is found not to).
    started: Notify,
}

#[derive(Default)]
struct Recorded {
    /// The latest frame of each tab.
    frames: HashMap<String, Frame>,
    console: Entries,
    network: Entries,
    /// Requests in flight: id -> (method, URL).
    requests: HashMap<String, (String, String)>,
    /// The tabs that record, or that runner's session could not record.
    settled: HashSet<String>,
}

/// A screencast frame: base64 as it came, decoded when first taken.
struct Frame {
    data: String,
    decoded: Option<Arc<Vec<u8>>>,
}

/// Entries since the last take, and how many more were left out.
#[derive(Default)]
struct Entries {
    list: Vec<Value>,
    left_out: usize,
}

impl Entries {
    fn push(&mut self, e: Value) {
        if self.list.len() < MAX_ENTRIES {
            self.list.push(e);
        } else {
            self.left_out += 1;
        }
    }

    fn take(&mut self, what: &str) -> Vec<Value> {
        let mut list = std::mem::take(&mut self.list);
        let left_out = std::mem::take(&mut self.left_out);
        if left_out > 0 {
            list.push(json!({ "left_out": format!("{left_out} more {what} (at most {MAX_ENTRIES} a step)") }));
        }
        list
    }
}

/// What a flow's tabs logged and the requests that failed since the last take.
#[derive(Debug, Default)]
pub(crate) struct Logged {
    pub(crate) console: Vec<Value>,
    pub(crate) network: Vec<Value>,
}

impl Recorder {
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
        )
    }

    /// Starts recording tab `target` over runner's session `session` on it (its Page domain
    /// on): its console, its requests, its screencast.
    pub(crate) async fn start(&self, link: &Link, session: &str, target: &str) {
        let on = Some(session);
        let (quality, width, height) = SCREENCAST;
        let screencast = json!({
            "format": "jpeg", "quality": quality, "maxWidth": width, "maxHeight": height,
            "everyNthFrame": 1,
        });
        // No response bodies are kept for runner's session: it reads none (a total of 0 is
        // refused).
        let network = json!({ "maxTotalBufferSize": 1024, "maxResourceBufferSize": 0 });
        let calls = [
            ("Runtime.enable", json!({})),
            ("Log.enable", json!({})),
            ("Network.enable", network),
            ("Page.startScreencast", screencast),
        ];
        let calls = calls
            .into_iter()
            .map(|(m, p)| link.call_in(on, m, p, CALL_TIMEOUT));
        futures_util::future::join_all(calls).await;
        self.settle(target);
    }

    /// Tab `target` records, or runner's session on it could not be had: nothing is to be
    /// waited for.
    pub(crate) fn settle(&self, target: &str) {
        if let Ok(mut s) = self.state.lock() {
            s.settled.insert(target.to_string());
        }
        self.started.notify_waiters();
    }

    /// Waits (at most `timeout`) until tab `target` records (or is found not to).
    pub(crate) async fn recording(&self, target: &str, timeout: Duration) {
        let until = tokio::time::Instant::now() + timeout;
        loop {
            let told = self.started.notified();
            let on = self.state.lock().is_ok_and(|s| s.settled.contains(target));
            if on || tokio::time::timeout_at(until, told).await.is_err() {
                return;
            }
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
        let Ok(mut s) = self.state.lock() else { return };
        match method {
            "Page.screencastFrame" => {
                let frame = Frame {
                    data: p["data"].as_str().unwrap_or_default().to_string(),
                    decoded: None,
                };
                s.frames.insert(target.to_string(), frame);
                let (link, session, ack) =
                    (link.clone(), session.to_string(), p["sessionId"].clone());
                // The next frame comes once this one is acknowledged.
                tokio::spawn(async move {
                    let params = json!({ "sessionId": ack });
                    let _ = link
                        .call_in(
                            Some(&session),
                            "Page.screencastFrameAck",
                            params,
                            CALL_TIMEOUT,
                        )
                        .await;
                });
            }
            "Runtime.consoleAPICalled" => s.console.push(console_call(p)),
            "Runtime.exceptionThrown" => s.console.push(exception(p)),
            // A resource that failed to load is one of the requests.
            "Log.entryAdded" if p["entry"]["source"] != "network" => {
                let e = &p["entry"];
                s.console.push(json!({
                    "source": e["source"], "level": e["level"], "text": cut(e["text"].as_str().unwrap_or("")),
                    "url": e["url"].as_str().map(cut),
                }));
            }
            _ => network_event(&mut s, method, p),
        }
    }

    /// The latest frame of tab `target`: a JPEG.
    pub(crate) fn picture(&self, target: &str) -> Option<Arc<Vec<u8>>> {
        let mut s = self.state.lock().ok()?;
        let frame = s.frames.get_mut(target)?;
        if frame.decoded.is_none() {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(&frame.data)
                .ok()?;
            frame.decoded = Some(Arc::new(bytes));
        }
        frame.decoded.clone()
    }

    /// The console messages and failed requests since the last take, taken.
    pub(crate) fn take(&self) -> Logged {
        let Ok(mut s) = self.state.lock() else {
            return Logged::default();
        };
        Logged {
            console: s.console.take("console messages"),
            network: s.network.take("failed requests"),
        }
    }
}

/// What the recording does with a `Network.*` event.
fn network_event(s: &mut Recorded, method: &str, p: &Value) {
    let id = p["requestId"].as_str().unwrap_or_default();
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
            s.requests
                .insert(id.to_string(), (method.to_string(), cut(url)));
        }
        "Network.responseReceived" => {
            let r = &p["response"];
            let status = r["status"].as_u64().unwrap_or(0);
            if status >= 400 {
                // Named once: its loading may still fail after (cut short by a navigation).
                let method = s.requests.remove(id).map_or("GET".into(), |(m, _)| m);
                let entry = json!({
                    "method": method, "url": cut(r["url"].as_str().unwrap_or_default()),
                    "status": status, "status_text": r["statusText"], "type": p["type"],
                });
                s.network.push(entry);
            }
        }
        "Network.loadingFinished" => {
            s.requests.remove(id);
        }
        // (Not a request named already, nor one of a `data:` URL.)
        "Network.loadingFailed" => {
            let Some((method, url)) = s.requests.remove(id) else {
                return;
            };
            let mut entry = json!({
                "method": method, "url": url, "error": p["errorText"], "type": p["type"],
            });
            if let Some(why) = p["blockedReason"].as_str() {
                entry["blocked"] = json!(why);
            }
            s.network.push(entry);
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
    json!({
        "source": "console", "level": p["type"], "text": cut(&args.join(" ")),
        "url": top["url"].as_str().filter(|u| !u.is_empty()).map(|u| format!("{}:{}", cut(u), top["lineNumber"].as_u64().unwrap_or(0) + 1)),
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

/// `text`, cut at `MAX_TEXT` characters.
fn cut(text: &str) -> String {
    match text.char_indices().nth(MAX_TEXT) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{MAX_ENTRIES, Recorded, console_call, network_event};

    #[test]
    fn console_arguments_read_as_text() {
        let p = json!({"type": "warning", "args": [{"type": "string", "value": "a"}, {"type": "number", "value": 2},
            {"type": "object", "description": "Array(3)"}, {"type": "undefined"}],
            "stackTrace": {"callFrames": [{"url": "http://x/p.html", "lineNumber": 4}]}});
        let e = console_call(&p);
        assert_eq!(e["text"], "a 2 Array(3) undefined");
        assert_eq!(e["level"], "warning");
        assert_eq!(e["url"], "http://x/p.html:5");
    }

    #[test]
    fn failed_requests_are_named_and_bounded() {
        let mut s = Recorded::default();
        let sent = json!({"requestId": "1", "request": {"url": "http://x/a", "method": "POST"}});
        network_event(&mut s, "Network.requestWillBeSent", &sent);
        let failed =
            json!({"requestId": "1", "errorText": "net::ERR_CONNECTION_REFUSED", "type": "Fetch"});
        network_event(&mut s, "Network.loadingFailed", &failed);
        let ok = json!({"requestId": "2", "response": {"url": "http://x/b", "status": 200}});
        network_event(&mut s, "Network.responseReceived", &ok);
        for _ in 0..=MAX_ENTRIES {
            let missing = json!({"requestId": "3", "response": {"url": "http://x/c", "status": 404, "statusText": "Not Found"}});
            network_event(&mut s, "Network.responseReceived", &missing);
        }
        assert!(s.requests.is_empty());
        let list = s.network.take("failed requests");
        assert_eq!(list.len(), MAX_ENTRIES + 1);
        assert_eq!(list[0]["method"], "POST");
        assert_eq!(list[0]["url"], "http://x/a");
        assert_eq!(list[1]["status"], 404);
        assert_eq!(
            list[MAX_ENTRIES]["left_out"],
            "2 more failed requests (at most 100 a step)"
        );
    }
}
