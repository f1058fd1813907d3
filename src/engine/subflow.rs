//! `run_flow`: a sub-flow in its own scope, sharing its parent's browser; its vars never leak
//! back, its `outputs` come back.

use std::collections::BTreeMap;
use std::sync::Arc;

use indexmap::IndexMap;
use serde_json::{Map, Value};

use super::artifacts;
use super::context::Scope;
use super::cut::MadeFrom;
use super::lifecycle::run_steps;
use super::render::{raw_action, template_error};
use super::runtime::{Frame, StepCtx};
use super::start::{Part, flow_scope, render_env};
use crate::config::flows::LoadedFlow;
use crate::config::model::RunFlow;
use crate::config::overrides::typed;
use crate::step::{ErrorKind, Outcome, StepError, StepResult};

/// The `run_flow` step; the sub-flow's step results go to `children`. Its outputs, with what
/// each was made from of cut outputs (`engine::cut`).
pub(crate) async fn step(
    cx: &StepCtx<'_>,
    rf: &RunFlow,
    scope: &Scope,
    children: &mut Vec<StepResult>,
) -> Result<(Value, BTreeMap<String, MadeFrom>), StepError> {
    let loaded = cx.frame.loaded;
    let vars = match rf {
        RunFlow::Full(o) => o.vars.clone(),
        RunFlow::Path(_) => IndexMap::new(),
    };
    // Sub-flows were loaded by the path as written (before rendering).
    let raw = raw_action(loaded, cx.ptr, "run_flow");
    let raw_path = raw
        .and_then(|v| v.get("path"))
        .or(raw)
        .and_then(Value::as_str)
        .unwrap_or_default();
    let Some(sub) = loaded.subflows.get(raw_path).cloned() else {
        return Err(StepError::new(
            ErrorKind::Environment,
            format!(
                "sub-flow `{}` was not loaded (templated sub-flow paths are not supported)",
                rf.path()
            ),
        ));
    };
    let vars = typed_vars(&sub, vars.into_iter().collect())?;
    // Every var given is whole: a `run_flow` whose vars read a cut output does not run
    // (`engine::cut::refusal`).
    run(cx, sub, vars, scope.web_server.clone(), children).await
}

async fn run(
    cx: &StepCtx<'_>,
    sub: Arc<LoadedFlow>,
    vars: Map<String, Value>,
    web_server: Option<Value>,
    children: &mut Vec<StepResult>,
) -> Result<(Value, BTreeMap<String, MadeFrom>), StepError> {
    let (rt, frame) = (cx.rt, cx.frame);
    // Layered as a top-level flow's are, the caller's `run_flow.vars` over the run's (which
    // `cli::var_warnings` says); its `web_server` is the caller's (its vars may read it). Its
    // secrets join the caller's masker: its outputs are masked in the caller too.
    let given = super::start::given(rt, vars);
    let mut scope = flow_scope(rt, &sub, (&given, web_server), &frame.masker, Part::All)?;
    let env = render_env(&mut scope, rt, &sub, &frame.masker)?;
    let deadline = super::control::deadline(cx);
    let sub_frame = Frame {
        info: frame.info,
        depth: frame.depth + 1,
        loaded: &sub,
        masker: frame.masker.clone(),
        dir: sub_dir(frame, cx.index, &sub.flow.name),
        browser: frame.browser,
        records_states: sub.flow.records_states(),
        env,
        cancel: frame.cancel.clone(),
        prefix: String::new(),
        // Its steps end by the step's own `timeout`, and by that of a `group` or `each` it is
        // in (its `finally` then has its grace: `lifecycle::finally_frame`).
        deadline,
        servers: frame.servers,
        origins: frame.origins,
    };
    // Inside the artifacts, no symlink followed (a reused directory may hold one out).
    crate::fs::artifact_dir(&rt.artifacts, &sub_frame.dir)
        .map_err(|why| StepError::new(ErrorKind::Environment, why))?;
    let (steps, failure) = run_steps(rt, &sub_frame, &mut scope).await;
    *children = steps;
    if let Some(e) = failure.map(|e| super::control::explain_timeout(cx, e, deadline)) {
        let at = children
            .iter()
            .find(|s| s.conclusion == Outcome::Failed)
            .map_or_else(String::new, |s| format!(" at step `{}`", s.name));
        // Where it failed, reached through this step: `suite.yaml:12:5 > _helper.yaml:4:5`.
        let here = super::render::location(frame.loaded, &format!("{}/run_flow", cx.ptr));
        return Err(StepError {
            message: format!("sub-flow `{}` failed{at}: {}", sub.flow.name, e.message),
            outputs: None,
            location: Some(
                e.location
                    .map_or_else(|| here.clone(), |l| l.called_from(&here)),
            ),
            ..e
        });
    }
    outputs(rt, &sub, &mut scope, &frame.masker)
}

/// The sub-flow's `outputs`, rendered once its steps ran, with what each was made from of cut
/// outputs (`engine::cut`).
fn outputs(
    rt: &super::runtime::Runtime,
    sub: &LoadedFlow,
    scope: &mut Scope,
    masker: &crate::step::Masker,
) -> Result<(Value, BTreeMap<String, MadeFrom>), StepError> {
    let mut outputs = Map::new();
    // Each output is made from the cut outputs its own template read.
    let raws: Vec<&Value> = sub.flow.outputs.values().collect();
    let reads = scope.cut_reads_each(&rt.templates, &raws, false);
    let file = sub.doc.file.name();
    let cut = (sub.flow.outputs.keys().zip(&reads))
        .map(|(k, r)| {
            (
                k.clone(),
                super::cut::of_file(super::cut::made_from(r), file),
            )
        })
        .collect();
    for (k, raw) in &sub.flow.outputs {
        let ctx = scope.context();
        let v = rt.templates.render_value(raw, &ctx).map_err(|e| {
            template_error(
                sub,
                &format!("/outputs/{}", crate::source::pointer_escape(k)),
                e,
            )
        })?;
        // An output made of a secret (`{{ secrets.T | upper }}`) is masked in the caller too.
        super::render::learn_secrets(&rt.templates, &ctx, raw, masker);
        outputs.insert(k.clone(), v);
    }
    Ok((Value::Object(outputs), cut))
}

/// The vars the step gives the sub-flow, each that overrides a boolean or a number the sub-flow
/// declares made that type, as a var given to runner is ([`typed`]): `SKIP: "{{ env.SKIP }}"`
/// gave a sub-flow's `SKIP: false` the text `"false"`, which is true. A text that does not read
/// as the type is an error at the var's place in the step.
fn typed_vars(
    sub: &LoadedFlow,
    mut vars: Map<String, Value>,
) -> Result<Map<String, Value>, StepError> {
    for (k, given) in &mut vars {
        let Some(declared) = sub.flow.vars.get(k.as_str()) else {
            continue;
        };
        *given = typed(given, declared).map_err(|wanted| {
            // (Not the value given: it may be, or hold, a secret.)
            StepError::new(
                ErrorKind::Template,
                format!(
                    "run_flow's var `{k}`: the value given is not {wanted}: the sub-flow `{}` ({}) gives `{k}` the value {declared}, and a var given to a sub-flow takes its type",
                    sub.flow.name,
                    sub.doc.file.name()
                ),
            )
            .in_part(format!("vars/{}", crate::source::pointer_escape(k)))
        })?;
    }
    Ok(vars)
}

/// The directory of a sub-flow's files, in its caller's, named after the step that runs it and
/// the steps around that one: a sub-flow run in each iteration of a loop keeps each run's files.
fn sub_dir(frame: &Frame<'_>, index: usize, name: &str) -> std::path::PathBuf {
    let dir = artifacts::flow_dir(index, name);
    frame.dir.join(format!("{}{dir}", frame.prefix))
}
