//! The network and the context's state: `route` (stub or abort requests) and `state: { save }`
//! (cookies and storage to a file).

use std::time::Duration;

use serde_json::{Value, json};

use crate::browser::driver::command::Command;
use crate::browser::driver::session::Session;
use crate::step::{ErrorKind, StepError};

/// `state: { save }`: the flow's cookies and storage (agent-browser's `state save`, Playwright's
/// storageState format) written to a file only its owner reads; outputs its path and how many
/// cookies and origins it holds, never what they are.
pub(crate) async fn save_state(
    session: &mut Session,
    path: &str,
    files: &super::files::StepFiles,
    timeout: Duration,
) -> Result<Value, StepError> {
    // Named as the reports show it: a secret in the path is masked.
    let dest = session.cwd.join(files.masker.mask(path));
    let fail = |e: String| StepError::new(ErrorKind::CommandFailed, e);
    if let Some(parent) = dest.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| fail(format!("cannot create {}: {e}", parent.display())))?;
    }
    session
        .send(Command::StateSave { path: dest.clone() }, timeout)
        .await?;
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&dest, std::fs::Permissions::from_mode(0o600))
            .map_err(|e| fail(format!("cannot restrict {}: {e}", dest.display())))?;
    }
    let saved: Value = std::fs::read_to_string(&dest)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .ok_or_else(|| fail(format!("the saved state {} is not JSON", dest.display())))?;
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
    let mut response = None;
    if !r.abort {
        let (body, kind) = match &r.body {
            None => (String::new(), "text/plain; charset=utf-8"),
            Some(Value::String(s)) => (s.clone(), "text/plain; charset=utf-8"),
            Some(v) => (v.to_string(), "application/json"),
        };
        let mut stub = json!({
            "status": r.status.unwrap_or(200),
            "body": body,
            "contentType": r.content_type.as_deref().unwrap_or(kind),
        });
        if let Some(h) = &r.headers {
            stub["headers"] = json!(h);
        }
        response = Some(stub);
    }
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
