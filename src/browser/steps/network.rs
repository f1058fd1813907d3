//! The network and the context's state: `route` (stub or abort requests) and `state: { save }`
//! (cookies and storage to a file).

use std::time::Duration;

use serde_json::{Value, json};

use crate::browser::driver::command::Command;
use crate::browser::driver::session::Session;
use crate::step::{ErrorKind, StepError};

/// The most a saved state may be (agent-browser writes it; runner reads it back).
const MAX_STATE: u64 = 64 * 1024 * 1024;

/// `state: { save }`: the flow's cookies and storage (agent-browser's `state save`, Playwright's
/// storageState format) written to a file only its owner reads, inside the flow's directory and
/// through no symlink (agent-browser saves it into a private scratch folder; runner moves it:
/// see `crate::fs::write_private`); outputs its path and how many cookies and origins it
/// holds, never what they are. A path the run saved another state to (two paths that differ
/// only by a secret are named alike) is refused, never written over.
pub(crate) async fn save_state(
    session: &mut Session,
    path: &str,
    files: &super::files::StepFiles,
    timeout: Duration,
) -> Result<Value, StepError> {
    let fail = |e: String| StepError::new(ErrorKind::CommandFailed, e);
    // Named as the reports show it: a secret in the path is masked.
    let masked = files.masker.mask(path);
    let problem = crate::fs::flow_path_problem("state.save", &masked).or_else(|| {
        crate::fs::flow_path_problem("state.save", path)
            .map(|_| format!("state.save path `{masked}` leaves the flow's directory"))
    });
    if let Some(problem) = problem {
        return Err(fail(format!("{problem}; {}", crate::fs::FLOW_PATH_HELP)));
    }
    let dest = session.cwd.join(&masked);
    if !files.states.claim(&dest, path) {
        return Err(fail(format!(
            "state.save path `{masked}` is where this run saved another state, from a path that differs only by a secret (a file is named with its secrets masked); give each state a path that differs outside its secrets"
        )));
    }
    let scratch = crate::fs::private_scratch("runner-state-")
        .map_err(|e| fail(format!("cannot make a private folder for the state: {e}")))?;
    let tmp = scratch.path().join("state.json");
    session
        .send(Command::StateSave { path: tmp.clone() }, timeout)
        .await?;
    let bytes = crate::fs::read_regular(&tmp, MAX_STATE)
        .map_err(|e| fail(format!("cannot read the saved state: {e}")))?;
    let saved: Value = serde_json::from_slice(&bytes)
        .ok()
        .filter(|_| bytes.len() as u64 <= MAX_STATE)
        .ok_or_else(|| fail("the saved state is not JSON (of at most 64 MiB)".to_string()))?;
    crate::fs::write_private(&session.cwd, &dest, &bytes).map_err(fail)?;
    let n = |k: &str| saved.get(k).and_then(Value::as_array).map_or(0, Vec::len);
    Ok(json!({
        "path": dest.display().to_string(),
        "cookies": n("cookies"),
        "origins": n("origins"),
    }))
}

/// `route`: from now to the end of the flow, requests matching the pattern get the stub (or
/// fail, with `abort`); the newest route wins over an older one for the same URL.
pub(crate) async fn route(
    session: &mut Session,
    r: &crate::config::model::RouteAction,
    timeout: Duration,
) -> Result<Value, StepError> {
    let response = (!r.abort).then(|| stub(r));
    // runner routes every tab of the flow itself, those its pages open later too (see
    // `dialog_watch::routes`), the flow's own included: one interceptor, so a request is
    // answered once, and alike in every tab.
    if let Some(w) = session.watched.clone() {
        let routed = w
            .route(&r.url, response.clone())
            .await
            .map_err(|e| StepError::new(ErrorKind::CommandFailed, e))?;
        if routed {
            return Ok(json!({ "url": r.url }));
        }
    }
    // Where runner has no session on the flow's tab (a browser outside its pool, or a tab it
    // could not attach to), agent-browser routes the tab it acts on.
    let route = Command::Route {
        url: r.url.clone(),
        abort: r.abort,
        response,
    };
    // agent-browser answers a URL from the first route that matches it: an earlier route of
    // the same pattern goes first, so this one takes its place.
    if session.routes.contains(&r.url) {
        session
            .send(
                Command::Unroute {
                    url: Some(r.url.clone()),
                },
                timeout,
            )
            .await?;
    }
    session.send(route, timeout).await?;
    session.routes.push(r.url.clone());
    Ok(json!({ "url": r.url }))
}

/// The stub a `route` answers with: `{status, body, contentType, headers}`, with one Content-Type
/// (a response with two is read as both, `text/plain, application/xml`): `content_type`, else
/// the one `headers` give (in any case), else text for a string body and JSON for any other.
fn stub(r: &crate::config::model::RouteAction) -> Value {
    let (body, kind) = match &r.body {
        None => (String::new(), "text/plain; charset=utf-8"),
        Some(Value::String(s)) => (s.clone(), "text/plain; charset=utf-8"),
        Some(v) => (v.to_string(), "application/json"),
    };
    let is_type = |k: &String| k.eq_ignore_ascii_case("content-type");
    let given = r.headers.iter().flatten().find(|(k, _)| is_type(k));
    let kind = r
        .content_type
        .as_deref()
        .or(given.map(|(_, v)| v.as_str()))
        .unwrap_or(kind);
    let mut stub = json!({
        "status": r.status.unwrap_or(200),
        "body": body,
        "contentType": kind,
    });
    if let Some(h) = &r.headers {
        let rest: serde_json::Map<String, Value> = h
            .iter()
            .filter(|(k, _)| !is_type(k))
            .map(|(k, v)| (k.clone(), json!(v)))
            .collect();
        stub["headers"] = Value::Object(rest);
    }
    stub
}
