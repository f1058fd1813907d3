//! How a flow's scope starts: `flow`, `run` and `env`, its secrets read from the environment
//! and its vars rendered in order (a sub-flow's from the vars its parent passes).

use indexmap::IndexMap;
use serde_json::{Map, Value, json};

use super::context::Scope;
use super::render::template_error;
use super::runtime::Runtime;
use crate::config::flows::LoadedFlow;
use crate::step::{ErrorKind, Masker, StepError};

/// The scope a flow starts with: `flow`, `run` and `env` set, no vars yet.
pub(crate) fn new_scope(rt: &Runtime, loaded: &LoadedFlow) -> Scope {
    Scope::new(
        rt.env.clone(),
        json!({
            "name": loaded.flow.name,
            "file": loaded.path.display().to_string(),
            "dir": loaded.dir.display().to_string(),
        }),
        json!({"id": rt.run_id, "artifacts": rt.artifacts.display().to_string()}),
    )
}

/// The flow's `env` with its templates rendered (vars and secrets are known by then): what its
/// exec and agent steps get.
pub(crate) fn render_env(
    scope: &mut Scope,
    rt: &Runtime,
    loaded: &LoadedFlow,
    masker: &Masker,
) -> Result<IndexMap<String, String>, StepError> {
    let ctx = scope.context();
    loaded
        .flow
        .env
        .iter()
        .map(|(k, v)| {
            let text = v.to_string();
            super::render::learn_secrets(&rt.templates, &ctx, &Value::String(text.clone()), masker);
            rt.templates
                .render_str(&text, &ctx)
                .map(|r| (k.clone(), r))
                .map_err(|e| {
                    template_error(
                        loaded,
                        &format!("/env/{}", crate::source::pointer_escape(k)),
                        e,
                    )
                })
        })
        .collect()
}

/// Which of a flow's vars to render: a flow with a web server renders those above the first var
/// that reads `web_server` before it starts the server (which may read them), the rest after.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Part {
    /// Secrets, and the vars before the first that reads `web_server`.
    Early,
    /// The other vars, and the overrides no var declares.
    Late,
    All,
}

/// Reads the flow's secrets into `masker` (shared with the flow's parent and sub-flows) and
/// renders its vars (`overrides` win, but not over matrix values), the `part` of them asked for; a var rendered from a
/// secret is masked too.
pub(crate) fn prepare(
    scope: &mut Scope,
    rt: &Runtime,
    loaded: &LoadedFlow,
    overrides: &Map<String, Value>,
    masker: &Masker,
    part: Part,
) -> Result<(), StepError> {
    let early = loaded.flow.early_vars().count();
    let range = match part {
        Part::Early => 0..early,
        Part::Late => early..loaded.flow.vars.len(),
        Part::All => 0..loaded.flow.vars.len(),
    };
    if part != Part::Late {
        read_secrets(scope, rt, loaded, masker)?;
        // The overrides no var declares are there from the start (the web server may read them).
        for (k, v) in overrides {
            if !loaded.flow.vars.contains_key(k) {
                scope.set_var(k.clone(), v.clone());
            }
        }
    }
    for (k, raw) in loaded.flow.vars.iter().skip(range.start).take(range.len()) {
        // A matrix value is in the test's name: `--var` does not change it.
        let value = if let Some(v) = overrides.get(k).filter(|_| !loaded.matrix.contains_key(k)) {
            v.clone()
        } else {
            let ctx = scope.context();
            let v = rt.templates.render_value(raw, &ctx).map_err(|e| {
                template_error(
                    loaded,
                    &format!("/vars/{}", crate::source::pointer_escape(k)),
                    e,
                )
            })?;
            super::render::learn_secrets(&rt.templates, &ctx, raw, masker);
            v
        };
        scope.set_var(k.clone(), value);
    }
    Ok(())
}

/// Reads the flow's secrets from the environment into the scope and `masker`.
fn read_secrets(
    scope: &mut Scope,
    rt: &Runtime,
    loaded: &LoadedFlow,
    masker: &Masker,
) -> Result<(), StepError> {
    for name in &loaded.flow.secrets {
        if let Some(v) = rt.env.get(name).and_then(Value::as_str) {
            masker.add(v);
            scope.set_secret(name.clone(), v.to_string());
        } else {
            let why = if std::env::var_os(name).is_some() {
                "is not valid UTF-8"
            } else {
                "is not set in the environment"
            };
            return Err(StepError::new(
                ErrorKind::Environment,
                format!("secret `{name}` {why}"),
            ));
        }
    }
    Ok(())
}
