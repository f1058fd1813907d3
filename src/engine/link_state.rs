//! The `link_state` step: fingerprints the browser's current state, records it as a node of the
//! atlas, and links the flow's previous state to it with the steps run in between.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};

use super::context::Scope;
use super::{ErrorKind, StepError};
use crate::atlas::fingerprint::fingerprint;
use crate::atlas::store::Atlas;
use crate::browser::session::Session;
use crate::config::model::{LinkState, Step};

/// Where the atlas is: the step's `atlas`, else `--atlas`, else the flow's `atlas:` (relative to
/// the flow), else `.runner/atlas`.
pub fn atlas_dir(
    step: Option<&str>,
    cli: Option<&Path>,
    flow: Option<&str>,
    flow_dir: &Path,
) -> PathBuf {
    match (step, cli, flow) {
        (Some(s), _, _) => flow_dir.join(s),
        (None, Some(c), _) => c.to_path_buf(),
        (None, None, Some(f)) => flow_dir.join(f),
        (None, None, None) => PathBuf::from(".runner/atlas"),
    }
}

/// Records the current state and the edge to it.
#[allow(clippy::too_many_arguments)]
pub async fn record(
    session: &mut Session,
    ls: &LinkState,
    atlas_root: &Path,
    scope: &mut Scope,
    run_id: &str,
    shot: &Path,
    timeout: Duration,
    masker: &crate::engine::secrets::Masker,
) -> Result<Value, StepError> {
    let action = match ls {
        LinkState::Action(a) => a.clone(),
        LinkState::Full(o) => o.action.clone(),
    };
    let text = settled_snapshot(session, timeout).await?;
    let get = |d: Value, k: &str| {
        d.get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let url = get(session.cmd("get", &["url".into()], timeout).await?, "url");
    let title = get(
        session.cmd("get", &["title".into()], timeout).await?,
        "title",
    );
    // Secrets never reach the atlas (a form may put one in the URL or on the page).
    let (url, title, text) = (masker.mask(&url), masker.mask(&title), masker.mask(&text));
    let (fp, node_id) = fingerprint(&url, &text);
    let screenshot = session
        .cmd("screenshot", &[shot.display().to_string()], timeout)
        .await
        .ok()
        .map(|_| shot);
    let err = |e: crate::atlas::store::AtlasError| {
        StepError::new(ErrorKind::CommandFailed, format!("atlas: {e}"))
    };
    let atlas = Atlas::open(atlas_root).map_err(err)?;
    let ensured = atlas
        .ensure_state(&node_id, &url, &title, &fp, &text, screenshot, run_id)
        .map_err(err)?;
    let trail = std::mem::take(&mut scope.trail);
    let edge = match scope.last_state.clone() {
        None => {
            atlas.set_entry(&node_id, &trail).map_err(err)?;
            None
        }
        Some(prev) => Some(
            atlas
                .link_state(&prev, &action, &node_id, &trail)
                .map_err(err)?,
        ),
    };
    scope.last_state = Some(node_id.clone());
    Ok(json!({
        "node_id": node_id,
        "is_new": ensured.is_new,
        "path": ensured.node_path.display().to_string(),
        "edge": edge.map(|p| p.display().to_string()),
        "url": url,
        "title": title,
    }))
}

/// A snapshot of a page that has finished loading and stopped changing: two snapshots 100 ms
/// apart with the same structure (a click may return before the navigation it starts is done).
pub async fn settled_snapshot(
    session: &mut Session,
    timeout: Duration,
) -> Result<String, StepError> {
    let deadline = tokio::time::Instant::now() + timeout.min(Duration::from_secs(5));
    let snap = |d: Value| {
        d.get("snapshot")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let mut last = snap(session.cmd("snapshot", &[], timeout).await?);
    loop {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let ready = session.eval("document.readyState", timeout).await?;
        let now = snap(session.cmd("snapshot", &[], timeout).await?);
        let stable = crate::atlas::fingerprint::structure(&now)
            == crate::atlas::fingerprint::structure(&last);
        if (stable && ready == "complete") || tokio::time::Instant::now() >= deadline {
            return Ok(now);
        }
        last = now;
    }
}

/// The step as it goes into an edge's flow: its action with templates rendered (secrets as
/// references) and its name; `None` for steps that do not act on the page's state.
pub fn recorded(step: &Step, rendered: Value) -> Option<Value> {
    let key = step.action.key();
    if matches!(
        key,
        "link_state" | "log" | "set" | "run_flow" | "agent" | "stop_agent"
    ) {
        return None;
    }
    let mut m = serde_json::Map::new();
    if let Some(n) = &step.name {
        m.insert("name".into(), json!(n));
    }
    m.insert(key.into(), rendered);
    Some(Value::Object(m))
}
