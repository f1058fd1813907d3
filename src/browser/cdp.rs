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
    /// `Browser.download*` events read while waiting for answers, oldest first.
    downloads: std::sync::Mutex<Vec<Value>>,
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
            downloads: std::sync::Mutex::new(Vec::new()),
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
        self.call_in(None, method, params, timeout).await
    }

    /// `call`, in an attached target's session (`Target.attachToTarget` with `flatten`).
    async fn call_in(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, String> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut socket = self.socket.lock().await;
        let exchange = async {
            let mut request = json!({ "id": id, "method": method, "params": params });
            if let Some(s) = session {
                request["sessionId"] = Value::String(s.to_string());
            }
            let request = request.to_string();
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
                if answer
                    .get("method")
                    .and_then(Value::as_str)
                    .is_some_and(|m| m.starts_with("Browser.download"))
                    && let Ok(mut d) = self.downloads.lock()
                {
                    d.push(answer.clone());
                    continue;
                }
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

    /// Overrides the locale and/or time zone of tab `target` for as long as this connection
    /// lasts (the tab's context is disposed before it ends): `Emulation` overrides belong to the
    /// DevTools session that set them, so runner keeps one attached to the tab.
    pub(crate) async fn emulate_locale(
        &self,
        target: &str,
        locale: Option<&str>,
        timezone: Option<&str>,
        timeout: Duration,
    ) -> Result<(), String> {
        let session = self.attach(target, timeout).await?;
        if let Some(l) = locale {
            self.call_in(
                Some(&session),
                "Emulation.setLocaleOverride",
                json!({ "locale": l }),
                timeout,
            )
            .await
            .map_err(|e| format!("locale `{l}`: {e}"))?;
            // `navigator.language` and Accept-Language follow the user agent override's
            // language: the user agent in force (a device's) is kept.
            let ua = self
                .call_in(
                    Some(&session),
                    "Runtime.evaluate",
                    json!({ "expression": "navigator.userAgent", "returnByValue": true }),
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
            .map_err(|e| format!("locale `{l}`: {e}"))?;
        }
        if let Some(tz) = timezone {
            self.call_in(
                Some(&session),
                "Emulation.setTimezoneOverride",
                json!({ "timezoneId": tz }),
                timeout,
            )
            .await
            .map_err(|e| format!("timezone `{tz}`: {e}"))?;
        }
        Ok(())
    }

    /// Loads a saved state (Playwright's storageState: `cookies`, `origins[].localStorage`) into
    /// context `ctx` and its tab `target`: the cookies into the context; each origin's
    /// localStorage by a script that runs before the page's own in every new document of the
    /// tab, once per origin and tab (a page that later removes an item does not get it back).
    pub(crate) async fn load_state(
        &self,
        ctx: &str,
        target: &str,
        state: &Value,
        timeout: Duration,
    ) -> Result<(), String> {
        let keep = [
            "name", "value", "domain", "path", "secure", "httpOnly", "sameSite", "expires",
        ];
        let cookies: Vec<Value> = state
            .get("cookies")
            .and_then(Value::as_array)
            .map(|list| {
                list.iter()
                    .filter_map(Value::as_object)
                    .map(|c| {
                        let mut m: serde_json::Map<String, Value> = c
                            .iter()
                            .filter(|(k, _)| keep.contains(&k.as_str()))
                            .map(|(k, v)| (k.clone(), v.clone()))
                            .collect();
                        // A session cookie is saved with `expires: -1`.
                        if m.get("expires")
                            .and_then(Value::as_f64)
                            .is_some_and(|e| e <= 0.0)
                        {
                            m.remove("expires");
                        }
                        Value::Object(m)
                    })
                    .collect()
            })
            .unwrap_or_default();
        if !cookies.is_empty() {
            self.call(
                "Storage.setCookies",
                json!({ "cookies": cookies, "browserContextId": ctx }),
                timeout,
            )
            .await?;
        }
        let mut storage = serde_json::Map::new();
        for o in state
            .get("origins")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let (Some(origin), Some(items)) = (
                o.get("origin").and_then(Value::as_str),
                o.get("localStorage").and_then(Value::as_array),
            ) else {
                continue;
            };
            let pairs: Vec<Value> = items
                .iter()
                .filter_map(|i| Some(json!([i.get("name")?, i.get("value")?])))
                .collect();
            storage.insert(origin.to_string(), Value::Array(pairs));
        }
        if storage.is_empty() {
            return Ok(());
        }
        let source = format!(
            "(() => {{ const saved = {}; const items = saved[location.origin]; if (!items) return;
  try {{ if (sessionStorage.getItem('__runner_state_applied')) return;
    for (const [k, v] of items) if (localStorage.getItem(k) === null) localStorage.setItem(k, v);
    sessionStorage.setItem('__runner_state_applied', '1'); }} catch (e) {{}} }})()",
            Value::Object(storage)
        );
        let session = self.attach(target, timeout).await?;
        // Scripts for new documents run only in a session with the Page domain on.
        self.call_in(Some(&session), "Page.enable", json!({}), timeout)
            .await?;
        self.call_in(
            Some(&session),
            "Page.addScriptToEvaluateOnNewDocument",
            json!({ "source": source }),
            timeout,
        )
        .await
        .map(|_| ())
    }

    /// A DevTools session of tab `target` on this connection (what it sets lasts as long as
    /// the connection or the tab).
    async fn attach(&self, target: &str, timeout: Duration) -> Result<String, String> {
        let attached = self
            .call(
                "Target.attachToTarget",
                json!({ "targetId": target, "flatten": true }),
                timeout,
            )
            .await?;
        id_field(&attached, "sessionId")
    }

    /// Grants permissions (`geolocation`, ...) to every origin in context `ctx`.
    pub(crate) async fn grant(
        &self,
        ctx: &str,
        permissions: &[&str],
        timeout: Duration,
    ) -> Result<(), String> {
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
    ) -> Result<Vec<(String, String)>, String> {
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
    /// and reports them (`Browser.downloadWillBegin`, `downloadProgress`).
    pub(crate) async fn save_downloads(
        &self,
        ctx: &str,
        dir: &std::path::Path,
        timeout: Duration,
    ) -> Result<(), String> {
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
    pub(crate) async fn download_events(&self, timeout: Duration) -> Result<Vec<Value>, String> {
        self.call("Browser.getVersion", json!({}), timeout).await?;
        Ok(self
            .downloads
            .lock()
            .map(|mut d| std::mem::take(&mut *d))
            .unwrap_or_default())
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
