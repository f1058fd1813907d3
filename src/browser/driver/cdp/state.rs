//! Loading a saved state (Playwright's storageState) into a flow's context.

use std::time::Duration;

use serde_json::{Value, json};

use super::{Cdp, CdpError};

/// Puts a saved state's localStorage back in each new document of its origin (one script per
/// origin).
const RESTORE_LOCAL_STORAGE_JS: &str = include_str!("../scripts/restore_local_storage.js");

impl Cdp {
    /// Loads a saved state (Playwright's storageState: `cookies`, `origins[].localStorage`) into
    /// context `ctx` and its tab `target`: the cookies into the context; each origin's
    /// localStorage by a script of its own that runs before the page's own in every new
    /// document of the tab and puts the items back in a document of that origin only, once per
    /// origin and tab (a page that later removes an item does not get it back). A document of an
    /// origin the state does not name gets nothing, and each script holds one origin's items:
    /// a large state for one origin costs the frames of other origins a comparison, not the
    /// whole storage evaluated in each.
    pub(crate) async fn load_state(
        &self,
        ctx: &str,
        target: &str,
        state: &Value,
        timeout: Duration,
    ) -> Result<(), CdpError> {
        let cookies = saved_cookies(state);
        if !cookies.is_empty() {
            self.call(
                "Storage.setCookies",
                json!({ "cookies": cookies, "browserContextId": ctx }),
                timeout,
            )
            .await?;
        }
        let storage = saved_storage(state);
        if storage.is_empty() {
            return Ok(());
        }
        let session = self.attach(target, timeout).await?;
        // Scripts for new documents run only in a session with the Page domain on.
        self.call_in(Some(&session), "Page.enable", json!({}), timeout)
            .await?;
        for (origin, items) in storage {
            let items = Value::String(items.to_string());
            let source = super::super::script::call(
                RESTORE_LOCAL_STORAGE_JS,
                &[Value::String(origin), items],
            );
            self.call_in(
                Some(&session),
                "Page.addScriptToEvaluateOnNewDocument",
                json!({ "source": source }),
                timeout,
            )
            .await?;
        }
        Ok(())
    }
}

/// The cookies of a saved state, as `Storage.setCookies` takes them: the fields it knows, and
/// no `expires` for a session cookie.
fn saved_cookies(state: &Value) -> Vec<Value> {
    let keep = [
        "name", "value", "domain", "path", "secure", "httpOnly", "sameSite", "expires",
    ];
    state
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
        .unwrap_or_default()
}

/// The localStorage of a saved state: `{origin: [[name, value], ...]}`.
fn saved_storage(state: &Value) -> serde_json::Map<String, Value> {
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
    storage
}
