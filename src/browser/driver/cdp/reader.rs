//! What runner's DevTools connection reads: every message the browser sends, until the
//! connection ends, each answer to the call waiting for it and each event to whoever hears it.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use futures_util::StreamExt;
use futures_util::stream::SplitStream;
use serde_json::Value;
use tokio_tungstenite::tungstenite::Message;

use super::{CdpError, Link, Socket, Unanswered};

/// The largest message (and frame) runner's DevTools connection takes: a page's events carry
/// what the page makes (a console message of 17 MiB), past tungstenite's usual bound of a frame
/// (16 MiB) on real apps. Bounded all the same: reading a message costs runner some 5 to 10
/// times its size in memory for a moment (its text, its JSON), so a page cannot have it take
/// gigabytes; past it, the flow fails saying the connection failed (see `health`).
pub(super) const MAX_MESSAGE: usize = 64 << 20;

/// The connection's settings: `MAX_MESSAGE`.
pub(super) fn ws_config() -> tokio_tungstenite::tungstenite::protocol::WebSocketConfig {
    tokio_tungstenite::tungstenite::protocol::WebSocketConfig::default()
        .max_message_size(Some(MAX_MESSAGE))
        .max_frame_size(Some(MAX_MESSAGE))
}

/// Reads everything the browser sends until the connection ends; then every call still
/// waiting fails.
pub(super) async fn read(mut stream: SplitStream<Socket>, link: Arc<Link>) {
    while let Some(read) = stream.next().await {
        let message = match read {
            Ok(m) => m,
            Err(e) => {
                // (A browser that exits resets the connection: that is an exit.)
                if let tokio_tungstenite::tungstenite::Error::Capacity(_) = e {
                    let _ = link.broke.set(e.to_string());
                }
                break;
            }
        };
        let text = match message {
            Message::Text(t) => t,
            Message::Close(_) => break,
            _ => continue,
        };
        let Some(msg) = parsed(&text) else {
            continue;
        };
        if let Some(id) = msg.get("id").and_then(Value::as_u64) {
            let waiting = link.pending.lock().ok().and_then(|mut p| p.remove(&id));
            if let Some(tx) = waiting {
                let answer = match msg.get("error") {
                    Some(e) => Err(Unanswered::Refused(
                        e.get("message")
                            .and_then(Value::as_str)
                            .unwrap_or("error")
                            .to_string(),
                    )),
                    None => Ok(msg.get("result").cloned().unwrap_or(Value::Null)),
                };
                let _ = tx.send(answer);
            }
            continue;
        }
        let method = msg.get("method").and_then(Value::as_str).unwrap_or("");
        if method.starts_with("Browser.download") {
            link.watch_download(&msg);
            if let Ok(mut d) = link.downloads.lock() {
                d.push(msg);
            }
            continue;
        }
        (link.on_event)(&link, &msg);
    }
    link.end(false);
}

impl Link {
    /// The connection ended: the browser closed it or it broke, or runner let go of it
    /// (`let_go`: see `Cdp::drop`). Every call still waiting fails now, every later one at
    /// once (see `closed_error`).
    pub(super) fn end(&self, let_go: bool) {
        // (One the browser ended first stays ended by the browser.)
        if let_go && !self.closed.load(Ordering::SeqCst) {
            self.let_go.store(true, Ordering::SeqCst);
        }
        self.closed.store(true, Ordering::SeqCst);
        self.fail_waiting(&Unanswered::Closed);
    }

    /// Fails every call waiting for an answer with `why`.
    pub(super) fn fail_waiting(&self, why: &Unanswered) {
        let waiting: Vec<_> = self
            .pending
            .lock()
            .map(|mut p| p.drain().collect())
            .unwrap_or_default();
        for (_, tx) in waiting {
            let _ = tx.send(Err(why.clone()));
        }
    }

    /// The error of call `method` on the connection once it ended: runner let go of it, its own
    /// end failed (the browser may still run), or else the browser exited.
    pub(super) fn closed_error(&self, method: &str) -> CdpError {
        let method = method.to_string();
        if self.let_go.load(Ordering::SeqCst) {
            CdpError::LetGo { method }
        } else if let Some(why) = self.broke.get() {
            CdpError::Broke {
                method,
                why: why.clone(),
            }
        } else {
            CdpError::Closed { method }
        }
    }
}

/// A message as JSON. The browser writes a page's text as it is, and JavaScript strings may hold
/// a lone UTF-16 surrogate (`"\ud83d"`: half an emoji, cut by a page or by a slice), which JSON
/// parsers refuse: such a message is read with each lone surrogate as U+FFFD instead of being
/// dropped (its call would wait out its timeout).
fn parsed(text: &str) -> Option<Value> {
    match serde_json::from_str::<Value>(text) {
        Ok(v) => Some(v),
        Err(_) => serde_json::from_str(&lone_surrogates_replaced(text)?).ok(),
    }
}

/// `text` (JSON) with each `\uXXXX` escape of a lone surrogate as `\ufffd`; `None` when it holds
/// none.
fn lone_surrogates_replaced(text: &str) -> Option<String> {
    let surrogate = |hex: &str| {
        u16::from_str_radix(hex, 16)
            .ok()
            .filter(|u| (0xD800..0xE000).contains(u))
    };
    let b = text.as_bytes();
    let escape_at = |i: usize| -> Option<u16> {
        (b.get(i) == Some(&b'\\') && b.get(i + 1) == Some(&b'u'))
            .then(|| text.get(i + 2..i + 6))
            .flatten()
            .and_then(surrogate)
    };
    let mut out = String::with_capacity(text.len());
    let (mut i, mut last, mut changed) = (0, 0, false);
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        match escape_at(i) {
            Some(high) if (0xD800..0xDC00).contains(&high) => {
                if escape_at(i + 6).is_some_and(|low| (0xDC00..0xE000).contains(&low)) {
                    i += 12;
                } else {
                    out.push_str(&text[last..i]);
                    out.push_str("\\ufffd");
                    i += 6;
                    last = i;
                    changed = true;
                }
            }
            Some(_) => {
                out.push_str(&text[last..i]);
                out.push_str("\\ufffd");
                i += 6;
                last = i;
                changed = true;
            }
            // Any other escape (`\\` too) is two characters at least: skip both.
            None => i += 2,
        }
    }
    out.push_str(&text[last..]);
    changed.then_some(out)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn a_lone_surrogate_is_read_as_a_replacement_character() {
        let half = r#"{"id":1,"result":{"value":"abc\ud83d def"}}"#;
        assert_eq!(
            super::parsed(half).unwrap()["result"]["value"],
            json!("abc\u{fffd} def")
        );
        // A pair is an emoji; an escaped backslash before `u` is no escape; a low one alone.
        let pair = r#"{"v":"\ud83d\ude00 \\ud83d \udc00"}"#;
        assert_eq!(
            super::parsed(pair).unwrap()["v"],
            json!("\u{1F600} \\ud83d \u{fffd}")
        );
        assert!(super::lone_surrogates_replaced(r#"{"v":"plain"}"#).is_none());
    }
}
