//! The flow's `route`s in every tab of its context (attack 29, A8): agent-browser's `network
//! route` answers the requests of the tab it acts on only, so a popup or a `target=_blank` tab
//! reached the real server. runner intercepts the requests of the flow's tabs over its own
//! sessions on them (those its request record is kept over: a new tab's from before it runs,
//! see `new_tabs`) with the DevTools Fetch domain, and answers those a route matches as the
//! route says; any other goes on. runner's interception is the only one in a flow's tabs, its
//! first tab included (agent-browser's route is sent only where runner has no session on the
//! flow's tab): two interceptors in one tab each read the glob their own way (agent-browser's
//! `*` crosses `/`), so a tab answered a request another tab let through.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use serde_json::{Value, json};

use super::super::cdp::Link;
use super::super::recorder::Recorder;
use super::super::url_glob::{UrlGlob, browser_pattern};
use super::{FlowDialogs, Watch};

const CALL_TIMEOUT: Duration = Duration::from_secs(5);

/// One route: its glob, and the stub (`{status, body, contentType, headers}`) or none (abort).
struct Rule {
    url: String,
    glob: UrlGlob,
    stub: Option<Value>,
}

/// A flow's routes, newest first.
#[derive(Default)]
pub(crate) struct Routes(Mutex<Vec<Rule>>);

impl Routes {
    /// `Fetch.enable`'s parameters for the routes there are, or None when there are none.
    fn fetch_enable(&self) -> Option<Value> {
        let rules = self.0.lock().ok()?;
        if rules.is_empty() {
            return None;
        }
        // The browser's own wildcards take in at least what each glob matches; the glob decides
        // (`answer`).
        let patterns: Vec<Value> = rules
            .iter()
            .map(|r| json!({ "urlPattern": browser_pattern(&r.url), "requestStage": "Request" }))
            .collect();
        Some(json!({ "patterns": patterns }))
    }

    /// The call that gives a new tab of the flow its routes before it runs, if it has any.
    pub(crate) fn new_tab_call(&self) -> Option<(String, Value)> {
        self.fetch_enable().map(|p| ("Fetch.enable".to_string(), p))
    }
}

impl FlowDialogs {
    /// A `route` step: `url` (a glob) gets `stub`, or fails when `stub` is None, in every tab of
    /// the flow from now on (a newer route of the same glob replaces it), those open now
    /// included. Whether runner routes the tab the flow acts on (it has a session there); Err
    /// (why) when a tab of the flow could not be told.
    pub(crate) async fn route(&self, url: &str, stub: Option<Value>) -> Result<bool, String> {
        let glob = UrlGlob::new(url).map_err(|e| format!("route `{url}`: {e}"))?;
        if let Ok(mut rules) = self.routes.0.lock() {
            rules.retain(|r| r.url != url);
            rules.insert(
                0,
                Rule {
                    url: url.to_string(),
                    glob,
                    stub,
                },
            );
        }
        let (Some(link), Some(watch), Some(params)) = (
            self.link.upgrade(),
            self.watch.upgrade(),
            self.routes.fetch_enable(),
        ) else {
            return Ok(false);
        };
        let current = self.current().unwrap_or_default();
        let mut routed = false;
        for (session, target) in watch.page_sessions(&self.context) {
            let on = link.call_in(Some(&session), "Fetch.enable", params.clone(), CALL_TIMEOUT);
            if let Err(e) = on.await {
                return Err(format!(
                    "the route could not be set in a tab of the flow: {e}"
                ));
            }
            routed |= target == current;
        }
        Ok(routed)
    }
}

impl Watch {
    /// The sessions the record of `context`'s tabs is kept over (one per tab), and their tabs.
    fn page_sessions(&self, context: &str) -> Vec<(String, String)> {
        self.logs.lock().map_or_else(
            |_| Vec::new(),
            |l| {
                l.iter()
                    .filter(|(_, (c, _, page))| c == context && *page)
                    .map(|(s, (_, t, _))| (s.clone(), t.clone()))
                    .collect()
            },
        )
    }

    /// `Fetch.requestPaused` (`msg`): in runner's session on a flow's tab, answered as the
    /// newest route that matches says, else let go on; in another, a tab runner draws a trace's
    /// snapshots in (see `recorder`).
    pub(super) fn paused(&self, link: &Arc<Link>, msg: &Value) {
        let (session, params) = (
            msg["sessionId"].as_str().unwrap_or_default(),
            &msg["params"],
        );
        let known = self.logs.lock().ok().and_then(|l| l.get(session).cloned());
        let Some(flow) = known.and_then(|(c, ..)| self.flow(&c)) else {
            return Recorder::refuse(link, msg);
        };
        let id = params["requestId"].as_str().unwrap_or_default().to_string();
        let url = params["request"]["url"].as_str().unwrap_or_default();
        let answer = flow.routes.0.lock().ok().and_then(|rules| {
            rules
                .iter()
                .find(|r| r.glob.is_match(url))
                .map(|r| r.stub.clone())
        });
        let request = &params["request"];
        let (method, p) = match answer {
            None => ("Fetch.continueRequest", json!({ "requestId": id })),
            // The browser asks leave for a cross-origin request to a routed URL: granted, as
            // Playwright's interceptor grants it, whatever the route then answers.
            Some(_) if is_preflight(request) => ("Fetch.fulfillRequest", preflight(&id, request)),
            Some(None) => (
                "Fetch.failRequest",
                json!({ "requestId": id, "errorReason": "Failed" }),
            ),
            Some(Some(stub)) => ("Fetch.fulfillRequest", fulfill(&id, &stub, request)),
        };
        let (link, session) = (link.clone(), session.to_string());
        tokio::spawn(async move {
            let _ = link.call_in(Some(&session), method, p, CALL_TIMEOUT).await;
        });
    }
}

/// `Fetch.fulfillRequest`'s parameters for request `id` (`request`, as paused) answered with
/// `stub`. A cross-origin request is let read it, as Playwright's `route.fulfill` does
/// (`_maybeAddCorsHeaders`): the request's origin allowed, with credentials, unless the stub
/// says its own `Access-Control-Allow-Origin`.
fn fulfill(id: &str, stub: &Value, request: &Value) -> Value {
    let mut headers = vec![json!({ "name": "Content-Type", "value": stub["contentType"] })];
    let own = stub["headers"].as_object();
    if let Some(h) = own {
        headers.extend(h.iter().map(|(k, v)| json!({ "name": k, "value": v })));
    }
    let says_origin = own.is_some_and(|h| {
        h.keys()
            .any(|k| k.eq_ignore_ascii_case("access-control-allow-origin"))
    });
    if let Some(origin) = cross_origin(request)
        && !says_origin
    {
        headers.extend([
            json!({ "name": "Access-Control-Allow-Origin", "value": origin }),
            json!({ "name": "Access-Control-Allow-Credentials", "value": "true" }),
            json!({ "name": "Vary", "value": "Origin" }),
        ]);
    }
    let body = stub["body"].as_str().unwrap_or_default();
    json!({
        "requestId": id,
        "responseCode": stub["status"].as_u64().unwrap_or(200),
        "responseHeaders": headers,
        "body": base64::engine::general_purpose::STANDARD.encode(body),
    })
}

/// A request header's value (names compared without case).
fn header<'a>(request: &'a Value, name: &str) -> Option<&'a str> {
    request["headers"]
        .as_object()?
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .and_then(|(_, v)| v.as_str())
}

/// The `Origin` of a request to an http(s) URL of another origin (a page's cross-origin
/// `fetch`), else None.
fn cross_origin(request: &Value) -> Option<String> {
    let origin = header(request, "Origin")?.trim();
    let url = request["url"].as_str()?;
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return None;
    }
    let rest = &url[url.find("://")? + 3..];
    let own = &url[..url.len() - rest.len() + rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    (!own.eq_ignore_ascii_case(origin)).then(|| origin.to_string())
}

/// Whether `request` is the browser's CORS preflight (an `OPTIONS` that asks for a method: a
/// page cannot set that header itself).
fn is_preflight(request: &Value) -> bool {
    request["method"] == "OPTIONS" && header(request, "Access-Control-Request-Method").is_some()
}

/// The answer to a preflight (`request`, paused as `id`): 204, the method and headers it asks
/// for allowed to its origin, with credentials (Playwright's `crNetworkManager`).
fn preflight(id: &str, request: &Value) -> Value {
    let mut headers = vec![
        json!({ "name": "Access-Control-Allow-Origin", "value": header(request, "Origin").unwrap_or("*") }),
        json!({ "name": "Access-Control-Allow-Methods", "value": header(request, "Access-Control-Request-Method").unwrap_or("GET, POST, OPTIONS, DELETE") }),
        json!({ "name": "Access-Control-Allow-Credentials", "value": "true" }),
    ];
    if let Some(h) = header(request, "Access-Control-Request-Headers") {
        headers.push(json!({ "name": "Access-Control-Allow-Headers", "value": h }));
    }
    json!({
        "requestId": id,
        "responseCode": 204,
        "responseHeaders": headers,
        "body": "",
    })
}
