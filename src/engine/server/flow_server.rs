//! A flow's own `web_server`: started before its steps with the flow's scope (the vars above
//! the first one that reads `web_server`, its secrets, `env` with the flow's `env:`), its log in
//! the flow's artifacts.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

use super::launch::{Place, launch, name_of};
use super::process::Server;
use crate::config::flows::LoadedFlow;
use crate::engine::context::Scope;
use crate::engine::render::{learn_secrets, template_error};
use crate::engine::runtime::Runtime;
use crate::step::{Masker, StepError};

/// Starts the flow's `web_server`, if it has one; `flow_dir` is the flow's artifacts directory
/// (its log goes to `web_server/<name>.log` there). `shared` is what `web_server` holds before
/// (the run's servers). An error is masked with `masker`, which has learned what the server's
/// templates made of a secret: each names the rendered field it is about (the command that
/// cannot start, the `ready_url` that answered 404, the `cwd`, `static`), which may hold one.
/// `log` is set to the log of a command that started but did not get ready.
pub(crate) async fn start_for_flow(
    rt: &Runtime,
    loaded: &LoadedFlow,
    scope: &Scope,
    (shared, flow_dir): (&Value, &Path),
    masker: &Masker,
    log: &mut Option<PathBuf>,
) -> Result<Option<Server>, StepError> {
    start(rt, loaded, scope, (shared, flow_dir), masker, log)
        .await
        .map_err(|mut e| {
            e.message = masker.mask(&e.message);
            e
        })
}

/// [`start_for_flow`], its errors as they are made.
async fn start(
    rt: &Runtime,
    loaded: &LoadedFlow,
    scope: &Scope,
    (shared, flow_dir): (&Value, &Path),
    masker: &Masker,
    log: &mut Option<PathBuf>,
) -> Result<Option<Server>, StepError> {
    let Some(ws) = &loaded.flow.web_server else {
        return Ok(None);
    };
    // `env.X` in the server's strings, and the server's environment, have the flow's `env:`
    // (those entries that read neither `web_server` nor the vars rendered after it).
    let mut scope = scope.clone();
    let late = loaded.flow.late_env();
    let mut flow_env = Vec::new();
    for (k, v) in &loaded.flow.env {
        let raw = Value::String(v.to_string());
        // Not there yet: `web_server` itself, and the vars rendered once it is up.
        if late.contains(&k.as_str()) {
            continue;
        }
        let ptr = format!("/env/{}", crate::source::pointer_escape(k));
        let ctx = scope.context();
        learn_secrets(&rt.templates, &ctx, &raw, masker);
        let text = rt
            .templates
            .render_str(&v.to_string(), &ctx)
            .map_err(|e| template_error(loaded, &ptr, e))?;
        flow_env.push((k.clone(), text));
    }
    let mut env = (*scope.env).clone();
    for (k, v) in &flow_env {
        env.insert(k.clone(), Value::String(v.clone()));
    }
    scope.env = Arc::new(env);
    let mut render = |src: &str, ptr: &str, known: &Value| -> Result<String, StepError> {
        let mut ws_value = shared.clone();
        if let (Some(m), Some(k)) = (ws_value.as_object_mut(), known.as_object()) {
            m.extend(k.clone());
        }
        scope.set_web_server(Some(ws_value));
        let ctx = scope.context();
        learn_secrets(&rt.templates, &ctx, &Value::String(src.to_string()), masker);
        rt.templates
            .render_str(src, &ctx)
            .map_err(|e| template_error(loaded, ptr, e))
    };
    let name = name_of(ws);
    if let Some(dir) = &ws.static_dir {
        let dir = render(dir, "/web_server/static", &Value::Null)?;
        return Server::serve_static(&name, &loaded.dir.join(dir))
            .await
            .map(Some);
    }
    let place = Place {
        ptr: "/web_server",
        dir: &loaded.dir,
        env: flow_env,
        log: flow_dir.join("web_server").join(format!("{name}.log")),
        artifacts: rt.artifacts.clone(),
        masker: masker.clone(),
        reuse_by_default: false,
    };
    Server::start(
        &mut || launch(ws, place.clone(), &mut render),
        &rt.cancel,
        log,
    )
    .await
    .map(Some)
}
