//! The few DevTools calls runner makes itself, over the browser's DevTools WebSocket
//! (tokio-tungstenite): a browser context and a tab per flow and their disposal (SPEC §7), the
//! flow's settings and downloads, what the watch on dialogs in a flow's tabs needs
//! (`dialog_watch`), and runner's page scripts and a plain field's text, in runner's session on
//! the flow's tab (`session::own_eval`). Every other thing a flow does to a page goes through
//! agent-browser.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use futures_util::stream::SplitSink;
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio::sync::oneshot;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

mod download_cap;
mod error;
mod health;
mod reader;
mod sent;
mod state;

pub(crate) use download_cap::{MAX_DOWNLOAD_BYTES, MAX_DOWNLOADS};
pub(crate) use error::CdpError;
use reader::{read, ws_config};

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// What an answer carries: the call's result, or why it failed.
type Answer = Result<Value, Unanswered>;

/// Why a call got no result, as the connection's reader tells it.
#[derive(Debug, Clone)]
enum Unanswered {
    /// The browser answered with an error: its message.
    Refused(String),
    /// The connection ended first.
    Closed,
    /// The browser was found not to answer at all (see `health`).
    Silent,
}

/// The browser's user agent (a page script: `script`).
const USER_AGENT_JS: &str = include_str!("scripts/user_agent.js");

/// The parameters of `Target.setAutoAttach` in a tab's session that hold each dedicated worker
/// the tab starts until runner lets it run (see `new_tabs`). Set on one of runner's sessions on
/// each tab only, the one that records the tab's requests, which gives the worker all runner
/// sets up in it before it runs (see `request_log`).
pub(crate) fn worker_auto_attach() -> Value {
    json!({
        "autoAttach": true,
        "waitForDebuggerOnStart": true,
        "flatten": true,
        "filter": [{ "type": "worker", "exclude": false }, { "exclude": true }],
    })
}

/// Told of every event the browser sends but downloads, by the connection's reader: it must not
/// wait (a call it needs to make goes in a task of its own).
pub(crate) type OnEvent = Box<dyn Fn(&Arc<Link>, &Value) + Send + Sync>;

/// A connection to a browser's DevTools endpoint (`ws://…/devtools/browser/…`). One task reads
/// everything the browser sends: answers go to the calls waiting for them, events to the
/// download list or to the connection's `OnEvent` (the pool's watch on dialogs in a flow's
/// other tabs, which answers one as it opens while the flow's own command may be waiting on it).
pub(crate) struct Cdp {
    link: Arc<Link>,
    reader: tokio::task::JoinHandle<()>,
}

impl Drop for Cdp {
    /// Nothing reads the connection from now on: the calls still waiting on it (made through
    /// its `Link`, which may outlive it: a failed flow's trace drawn beside the next flows)
    /// fail now, later ones at once, instead of waiting out their timeouts.
    fn drop(&mut self) {
        self.reader.abort();
        self.link.end(true);
    }
}

/// The sending half of a connection, shared with its reader.
pub(crate) struct Link {
    sink: tokio::sync::Mutex<SplitSink<Socket, Message>>,
    next_id: AtomicU64,
    /// Calls waiting for their answers, by id.
    pending: std::sync::Mutex<HashMap<u64, oneshot::Sender<Answer>>>,
    /// The browser closed the connection (or it broke, or runner let go of it): every call
    /// fails at once.
    closed: AtomicBool,
    /// runner let go of the connection (see `Cdp::drop`): said instead of "the browser exited".
    let_go: AtomicBool,
    /// Why runner's end of the connection failed, when it did while the browser may still run
    /// (a message past `MAX_MESSAGE`): said instead of "the browser exited".
    broke: std::sync::OnceLock<String>,
    /// The browser did not answer a call every live browser answers at once (see `health`):
    /// every call fails at once.
    silent: AtomicBool,
    /// The DevTools endpoint a user named for a remote browser (see `Cdp::remote`), for the
    /// messages about it.
    endpoint: std::sync::OnceLock<String>,
    /// `Browser.download*` events read so far, oldest first.
    downloads: std::sync::Mutex<Vec<Value>>,
    /// The bound on the current flow's downloads (see `download_cap`).
    cap: std::sync::Mutex<Option<download_cap::Cap>>,
    on_event: OnEvent,
}

impl Cdp {
    /// Connects to `url` (the one `agent-browser get cdp-url` names).
    pub(crate) async fn connect(
        url: &str,
        timeout: Duration,
        on_event: OnEvent,
    ) -> Result<Cdp, CdpError> {
        let connect = tokio_tungstenite::connect_async_with_config(url, Some(ws_config()), false);
        let (socket, _) = tokio::time::timeout(timeout, connect)
            .await
            .map_err(|_| CdpError::ConnectTimeout(timeout))?
            .map_err(CdpError::Unreachable)?;
        let (sink, stream) = socket.split();
        let link = Arc::new(Link {
            sink: tokio::sync::Mutex::new(sink),
            next_id: AtomicU64::new(1),
            pending: std::sync::Mutex::new(HashMap::new()),
            closed: AtomicBool::new(false),
            let_go: AtomicBool::new(false),
            broke: std::sync::OnceLock::new(),
            silent: AtomicBool::new(false),
            endpoint: std::sync::OnceLock::new(),
            downloads: std::sync::Mutex::new(Vec::new()),
            cap: std::sync::Mutex::new(None),
            on_event,
        });
        let reader = tokio::spawn(read(stream, link.clone()));
        Ok(Cdp { link, reader })
    }

    /// The connection's sending half (for what its `OnEvent` calls).
    pub(crate) fn link(&self) -> &Arc<Link> {
        &self.link
    }

    /// Calls `method` and returns its result.
    pub(crate) async fn call(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, CdpError> {
        self.link.call_in(None, method, params, timeout).await
    }

    /// `call`, in an attached target's session (`Target.attachToTarget` with `flatten`).
    async fn call_in(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, CdpError> {
        self.link.call_in(session, method, params, timeout).await
    }

    /// A new browser context (its own cookies, storage, cache), with no tab yet. The browser
    /// disposes it when runner's connection goes (`disposeOnDetach`): a `kill -9` of runner
    /// leaves no flow's tabs, cookies or storage in a running browser it connected to, which
    /// other clients of a shared browser could list and attach to (attack 30, F2).
    pub(crate) async fn create_context(&self, timeout: Duration) -> Result<String, CdpError> {
        let ctx = self
            .call(
                "Target.createBrowserContext",
                json!({ "disposeOnDetach": true }),
                timeout,
            )
            .await?;
        id_field(&ctx, "browserContextId")
    }

    /// One blank tab in context `ctx` (disposed if the tab cannot be made); returns its target
    /// id.
    pub(crate) async fn open_tab(&self, ctx: &str, timeout: Duration) -> Result<String, CdpError> {
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

    /// Overrides the locale and/or time zone of tab `target` for as long as this connection
    /// lasts (the tab's context is disposed before it ends): `Emulation` overrides belong to the
    /// DevTools session that set them, so runner keeps one attached to the tab. Returns the
    /// user agent kept with the locale's language (when a locale is set).
    pub(crate) async fn emulate_locale(
        &self,
        target: &str,
        locale: Option<&str>,
        timezone: Option<&str>,
        timeout: Duration,
    ) -> Result<Option<String>, CdpError> {
        let session = self.attach(target, timeout).await?;
        let mut kept = None;
        if let Some(l) = locale {
            self.call_in(
                Some(&session),
                "Emulation.setLocaleOverride",
                json!({ "locale": l }),
                timeout,
            )
            .await
            .map_err(|e| CdpError::Locale {
                locale: l.to_string(),
                source: Box::new(e),
            })?;
            // `navigator.language` and Accept-Language follow the user agent override's
            // language: the user agent in force (a device's) is kept.
            let expression = super::script::call(USER_AGENT_JS, &[]);
            let ua = self
                .call_in(
                    Some(&session),
                    "Runtime.evaluate",
                    json!({ "expression": expression, "returnByValue": true }),
                    timeout,
                )
                .await?;
            let ua = ua
                .pointer("/result/value")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            self.call_in(
                Some(&session),
                "Emulation.setUserAgentOverride",
                json!({ "userAgent": ua, "acceptLanguage": l }),
                timeout,
            )
            .await
            .map_err(|e| CdpError::Locale {
                locale: l.to_string(),
                source: Box::new(e),
            })?;
            // The workers the tab starts get the language over the one session of runner's
            // that holds them, the one that records the tab's requests (`dialog_watch::attach`,
            // `new_tabs`): not this one.
            kept = Some(ua);
        }
        if let Some(tz) = timezone {
            self.call_in(
                Some(&session),
                "Emulation.setTimezoneOverride",
                json!({ "timezoneId": tz }),
                timeout,
            )
            .await
            .map_err(|e| CdpError::Timezone {
                timezone: tz.to_string(),
                source: Box::new(e),
            })?;
        }
        Ok(kept)
    }

    /// A DevTools session of tab `target` on this connection (what it sets lasts as long as
    /// the connection or the tab).
    async fn attach(&self, target: &str, timeout: Duration) -> Result<String, CdpError> {
        self.link.attach(target, timeout).await
    }

    /// Calls `method` on tab `target` over a session of runner's on it (kept: what an
    /// `Emulation` call sets holds while the session does).
    pub(crate) async fn call_on_tab(
        &self,
        target: &str,
        (method, params): (&str, Value),
        timeout: Duration,
    ) -> Result<(), CdpError> {
        let session = self.attach(target, timeout).await?;
        self.call_in(Some(&session), method, params, timeout)
            .await
            .map(|_| ())
    }

    /// Grants permissions (`geolocation`, ...) to every origin in context `ctx`.
    pub(crate) async fn grant(
        &self,
        ctx: &str,
        permissions: &[&str],
        timeout: Duration,
    ) -> Result<(), CdpError> {
        self.call(
            "Browser.grantPermissions",
            json!({ "permissions": permissions, "browserContextId": ctx }),
            timeout,
        )
        .await
        .map(|_| ())
    }

    /// The tabs (page targets) of context `ctx`: `(target id, url)`.
    pub(crate) async fn tabs(
        &self,
        ctx: &str,
        timeout: Duration,
    ) -> Result<Vec<(String, String)>, CdpError> {
        let all = self.call("Target.getTargets", json!({}), timeout).await?;
        Ok(all
            .get("targetInfos")
            .and_then(Value::as_array)
            .map(|list| {
                list.iter()
                    .filter(|t| {
                        t.get("type").and_then(Value::as_str) == Some("page")
                            && t.get("browserContextId").and_then(Value::as_str) == Some(ctx)
                    })
                    .filter_map(|t| {
                        Some((
                            t.get("targetId")?.as_str()?.to_string(),
                            t.get("url")
                                .and_then(Value::as_str)
                                .unwrap_or("")
                                .to_string(),
                        ))
                    })
                    .collect()
            })
            .unwrap_or_default())
    }

    /// Saves the downloads of context `ctx` into `dir`, each as its download's id (`allowAndName`),
    /// and reports them (`Browser.downloadWillBegin`, `downloadProgress`), bounded (see
    /// `download_cap`).
    pub(crate) async fn save_downloads(
        &self,
        ctx: &str,
        dir: &std::path::Path,
        timeout: Duration,
    ) -> Result<(), CdpError> {
        self.cap_downloads(ctx);
        self.call(
            "Browser.setDownloadBehavior",
            json!({
                "behavior": "allowAndName",
                "browserContextId": ctx,
                "downloadPath": dir.display().to_string(),
                "eventsEnabled": true,
            }),
            timeout,
        )
        .await
        .map(|_| ())
    }

    /// The download events read so far, taken (after a round trip that reads any waiting).
    pub(crate) async fn download_events(&self, timeout: Duration) -> Result<Vec<Value>, CdpError> {
        self.call("Browser.getVersion", json!({}), timeout).await?;
        Ok(self
            .link
            .downloads
            .lock()
            .map(|mut d| std::mem::take(&mut *d))
            .unwrap_or_default())
    }

    /// Disposes a context: its tabs close, its storage goes.
    pub(crate) async fn dispose_context(
        &self,
        id: &str,
        timeout: Duration,
    ) -> Result<(), CdpError> {
        self.call(
            "Target.disposeBrowserContext",
            json!({ "browserContextId": id }),
            timeout,
        )
        .await
        .map(|_| ())
    }
}

impl Link {
    /// Calls `method` (in `session`, an attached target's, when given) and waits up to
    /// `timeout` for its answer; an answer that comes later is dropped.
    pub(crate) async fn call_in(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, CdpError> {
        let closed = || self.closed_error(method);
        if self.closed.load(Ordering::SeqCst) {
            return Err(closed());
        }
        if self.silent.load(Ordering::SeqCst) {
            return Err(CdpError::Silent {
                method: method.to_string(),
            });
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        if let Ok(mut p) = self.pending.lock() {
            p.insert(id, tx);
        }
        let forget = || {
            if let Ok(mut p) = self.pending.lock() {
                p.remove(&id);
            }
        };
        // The reader may have ended since the check above, failing only the calls it saw.
        if self.closed.load(Ordering::SeqCst) {
            forget();
            return Err(closed());
        }
        let mut request = json!({ "id": id, "method": method, "params": params });
        if let Some(s) = session {
            request["sessionId"] = Value::String(s.to_string());
        }
        let exchange = async {
            self.sink
                .lock()
                .await
                .send(Message::text(request.to_string()))
                .await
                .map_err(|source| CdpError::Send {
                    method: method.to_string(),
                    source,
                })?;
            match rx.await {
                Ok(Ok(v)) => Ok(v),
                Ok(Err(Unanswered::Refused(message))) => Err(CdpError::Refused {
                    method: method.to_string(),
                    message,
                }),
                Ok(Err(Unanswered::Silent)) => Err(CdpError::Silent {
                    method: method.to_string(),
                }),
                Ok(Err(Unanswered::Closed)) | Err(_) => Err(closed()),
            }
        };
        let r = tokio::time::timeout(timeout, exchange)
            .await
            .unwrap_or_else(|_| {
                Err(CdpError::NoAnswer {
                    method: method.to_string(),
                    timeout,
                })
            });
        if r.is_err() {
            forget();
        }
        r
    }

    /// A DevTools session of tab `target` on this connection.
    pub(crate) async fn attach(&self, target: &str, timeout: Duration) -> Result<String, CdpError> {
        let attached = self
            .call_in(
                None,
                "Target.attachToTarget",
                json!({ "targetId": target, "flatten": true }),
                timeout,
            )
            .await?;
        id_field(&attached, "sessionId")
    }
}

fn id_field(v: &Value, field: &'static str) -> Result<String, CdpError> {
    v.get(field)
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| CdpError::NoField {
            field,
            answer: v.clone(),
        })
}

#[cfg(test)]
pub(super) mod tests;
