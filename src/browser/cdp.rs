//! The few DevTools calls runner makes itself: a browser context and a tab per flow, and their
//! disposal (SPEC §7). Everything a flow does to a page still goes through agent-browser; this
//! only manages contexts, over the browser's DevTools WebSocket (tokio-tungstenite).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// A connection to a browser's DevTools endpoint (`ws://…/devtools/browser/…`).
pub(crate) struct Cdp {
    socket: tokio::sync::Mutex<Socket>,
    next_id: AtomicU64,
}

impl Cdp {
    /// Connects to `url` (the one `agent-browser get cdp-url` names).
    pub(crate) async fn connect(url: &str, timeout: Duration) -> Result<Cdp, String> {
        let (socket, _) = tokio::time::timeout(timeout, tokio_tungstenite::connect_async(url))
            .await
            .map_err(|_| format!("the browser's DevTools endpoint did not answer in {timeout:?}"))?
            .map_err(|e| format!("cannot reach the browser's DevTools endpoint: {e}"))?;
        Ok(Cdp {
            socket: tokio::sync::Mutex::new(socket),
            next_id: AtomicU64::new(1),
        })
    }

    /// Calls `method` and returns its result; events and late answers to earlier calls that
    /// timed out are skipped.
    pub(crate) async fn call(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, String> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut socket = self.socket.lock().await;
        let exchange = async {
            let request = json!({ "id": id, "method": method, "params": params }).to_string();
            socket
                .send(Message::text(request))
                .await
                .map_err(|e| format!("{method}: {e}"))?;
            while let Some(message) = socket.next().await {
                let text = match message.map_err(|e| format!("{method}: {e}"))? {
                    Message::Text(t) => t,
                    Message::Close(_) => break,
                    _ => continue,
                };
                let Ok(answer) = serde_json::from_str::<Value>(&text) else {
                    continue;
                };
                if answer.get("id").and_then(Value::as_u64) != Some(id) {
                    continue;
                }
                if let Some(e) = answer.get("error") {
                    let why = e.get("message").and_then(Value::as_str).unwrap_or("error");
                    return Err(format!("{method}: {why}"));
                }
                return Ok(answer.get("result").cloned().unwrap_or(Value::Null));
            }
            Err(format!(
                "{method}: the browser closed its DevTools connection"
            ))
        };
        tokio::time::timeout(timeout, exchange)
            .await
            .map_err(|_| format!("{method}: no answer in {timeout:?}"))?
    }

    /// A new browser context (its own cookies, storage, cache), with no tab yet.
    pub(crate) async fn create_context(&self, timeout: Duration) -> Result<String, String> {
        let ctx = self
            .call(
                "Target.createBrowserContext",
                json!({ "disposeOnDetach": false }),
                timeout,
            )
            .await?;
        id_field(&ctx, "browserContextId")
    }

    /// One blank tab in context `ctx` (disposed if the tab cannot be made); returns its target
    /// id.
    pub(crate) async fn open_tab(&self, ctx: &str, timeout: Duration) -> Result<String, String> {
        let target = self
            .call(
                "Target.createTarget",
                json!({ "url": "about:blank", "browserContextId": ctx }),
                timeout,
            )
            .await;
        match target.and_then(|t| id_field(&t, "targetId")) {
            Ok(t) => Ok(t),
            Err(e) => {
                let _ = self.dispose_context(ctx, timeout).await;
                Err(e)
            }
        }
    }

    /// Disposes a context: its tabs close, its storage goes.
    pub(crate) async fn dispose_context(&self, id: &str, timeout: Duration) -> Result<(), String> {
        self.call(
            "Target.disposeBrowserContext",
            json!({ "browserContextId": id }),
            timeout,
        )
        .await
        .map(|_| ())
    }
}

fn id_field(v: &Value, field: &str) -> Result<String, String> {
    v.get(field)
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| format!("the browser's answer has no {field}: {v}"))
}
