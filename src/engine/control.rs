//! The steps that hold steps: `group` runs its steps as one named step, `each` runs them once
//! per item of a list. The steps inside are steps like any other (their own `if`, `timeout`,
//! `retry`, `continue_on_error`, outputs and events, one level deeper); the step that holds
//! them concludes what its steps conclude, and fails with the error of the step inside that
//! failed, named by the way to it (`item[2] > fill .new-todo: ...`), at that step's line.

use std::time::Instant;

use serde_json::{Map, Value, json};

use super::attempts::run_step;
use super::context::Scope;
use super::cut::MadeFrom;
use super::render::{learn_secrets, location, quoting_no_secret, template_error};
use super::runtime::{Frame, StepCtx, StepFuture};
use crate::config::model::{Action, EachAction, Step};
use crate::step::result::{ITERATION, failed_among};
use crate::step::{ErrorKind, Outcome, StepError, StepResult};

/// Runs a `group` or an `each` step (the family of these, [`Family::Control`]); the results of
/// the steps inside go to `children`. Nothing of it is rendered ahead: an `each` renders its
/// `in`, a step inside renders itself when it runs, with the vars of its iteration.
///
/// [`Family::Control`]: crate::config::action::Family::Control
pub(crate) fn run<'a>(
    cx: &'a StepCtx<'a>,
    scope: &'a mut Scope,
    children: &'a mut Vec<StepResult>,
) -> StepFuture<'a> {
    Box::pin(async move {
        let deadline = deadline(cx);
        let ran = match &cx.step.action {
            Action::Group(_) => {
                let frame = inner_frame(cx, format!("{}.", base(cx)), 1, deadline);
                let at = format!("{}/group/steps", cx.ptr);
                let failure = run_all(cx, &frame, scope, &cx.step.steps, &at, children).await;
                match failure {
                    Some(e) => Err(e),
                    None => Ok(json!({})),
                }
            }
            Action::Each(e) => each(cx, e, scope, children, deadline).await,
            other => Err(StepError::new(
                ErrorKind::Internal,
                format!("internal error: `{}` holds no steps", other.key()),
            )),
        };
        ran.map_err(|e| explain_timeout(cx, e, deadline))
    })
}

/// `NNN-<id or key>` of the step that holds the steps.
fn base(cx: &StepCtx<'_>) -> String {
    super::artifacts::step_base(&cx.frame.prefix, cx.index, cx.step, cx.step.action.key())
}

/// The frame the steps inside run in: the flow's, `deeper` levels down, their files named after
/// `prefix`.
fn inner_frame<'a>(
    cx: &StepCtx<'a>,
    prefix: String,
    deeper: usize,
    deadline: Option<Instant>,
) -> Frame<'a> {
    let frame = cx.frame;
    Frame {
        info: frame.info,
        depth: frame.depth + deeper,
        loaded: frame.loaded,
        masker: frame.masker.clone(),
        dir: frame.dir.clone(),
        browser: frame.browser,
        records_states: frame.records_states,
        env: frame.env.clone(),
        cancel: frame.cancel.clone(),
        prefix,
        deadline,
        servers: frame.servers,
        origins: frame.origins,
    }
}

/// When the steps inside must be done: the step's `timeout` from now (without one it has none
/// of its own), or sooner when the steps around it must be.
pub(super) fn deadline(cx: &StepCtx<'_>) -> Option<Instant> {
    let own = cx
        .step
        .timeout
        .as_ref()
        .and_then(|_| Instant::now().checked_add(cx.timeout));
    match (own, cx.frame.deadline) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// A timeout of a step inside that came from the step's own `timeout`: said so.
pub(super) fn explain_timeout(
    cx: &StepCtx<'_>,
    mut e: StepError,
    deadline: Option<Instant>,
) -> StepError {
    let ran_out = deadline.is_some_and(|d| Instant::now() >= d);
    if e.kind == ErrorKind::Timeout && ran_out && cx.step.timeout.is_some() {
        e.message = format!(
            "{} (the `{}`'s `timeout` of {} ran out)",
            e.message,
            cx.step.action.key(),
            humantime::format_duration(cx.timeout)
        );
    }
    e
}

/// Runs `steps` (at `at` in the file) in order until one fails or the run is interrupted;
/// their results go to `results`. The failure, when they failed: the error of the step inside
/// that failed, named by the way to it.
async fn run_all(
    cx: &StepCtx<'_>,
    frame: &Frame<'_>,
    scope: &mut Scope,
    steps: &[Step],
    at: &str,
    results: &mut Vec<StepResult>,
) -> Option<StepError> {
    let (rt, finally) = (cx.rt, cx.finally);
    for (i, step) in steps.iter().enumerate() {
        if frame.cancel.is_cancelled() {
            return Some(StepError::new(ErrorKind::Interrupted, "interrupted"));
        }
        let r = Box::pin(run_step(
            rt,
            frame,
            scope,
            step,
            &format!("{at}/{i}"),
            i,
            finally,
        ))
        .await;
        let failed = r.conclusion == Outcome::Failed;
        results.push(r);
        if failed {
            return failure(results);
        }
    }
    None
}

/// The error of steps of which one failed: that step's own, or, when it holds steps, that of
/// the step inside that failed; its message led by the names on the way (`item[2] > fill
/// .new-todo: ...`), at the failing step's place.
fn failure(results: &[StepResult]) -> Option<StepError> {
    let (names, leaf) = failed_among(results)?;
    let e = leaf
        .error
        .clone()
        .unwrap_or_else(|| StepError::new(ErrorKind::Internal, "failed"));
    Some(StepError {
        message: format!("{}: {}", names.join(" > "), e.message),
        location: Some(e.location.clone().unwrap_or_else(|| leaf.location.clone())),
        outputs: None,
        part: None,
        ..e
    })
}

/// `each`: the steps once per item, the item as `vars.<as>` and its position as
/// `vars.<as>_index` (both as they were again after the loop); each iteration is a step of
/// its own (`item[2]`) holding that iteration's steps.
async fn each(
    cx: &StepCtx<'_>,
    e: &EachAction,
    scope: &mut Scope,
    iterations: &mut Vec<StepResult>,
    deadline: Option<Instant>,
) -> Result<Value, StepError> {
    // Every item is whole: an `each` whose `in` reads a cut output does not run
    // (`engine::cut::refusal`).
    let items = items(cx, e, scope)?;
    let (var, index_var) = (e.var.clone(), e.index_var());
    let saved = (scope.saved_var(&var), scope.saved_var(&index_var));
    let mut failure = None;
    for (i, (item, exact)) in items.iter().enumerate() {
        if cx.frame.cancel.is_cancelled() {
            failure = Some(StepError::new(ErrorKind::Interrupted, "interrupted"));
            break;
        }
        scope.set_exact_var(var.clone(), item.clone(), exact.clone(), MadeFrom::new());
        scope.set_var(index_var.clone(), json!(i), MadeFrom::new());
        let r = Box::pin(iteration(cx, e, scope, (i, item), deadline)).await;
        let failed = r.conclusion == Outcome::Failed;
        iterations.push(r);
        if failed {
            failure = self::failure(iterations);
            break;
        }
    }
    scope.restore_var(var, saved.0);
    scope.restore_var(index_var, saved.1);
    // Its `count` is made from nothing cut either (its steps took what theirs were made from).
    scope.cut.pending = None;
    match failure {
        Some(e) => Err(e),
        None => Ok(json!({ "count": items.len() })),
    }
}

/// An item of an `each`, and its exact value when it holds an integer wider than 64 bits (the
/// item holds the nearest float).
type Item = (Value, Option<minijinja::Value>);

/// The items of an `each`: its `in`, rendered, which must be a list.
fn items(cx: &StepCtx<'_>, e: &EachAction, scope: &mut Scope) -> Result<Vec<Item>, StepError> {
    let at = format!("{}/each/in", cx.ptr);
    let ctx = scope.context();
    // A list holding integers wider than 64 bits: each item exact for templates (review of
    // session 26, F6: the loop failed when any item held one, read or not).
    let wide = e
        .items
        .as_str()
        .and_then(|s| cx.rt.templates.wide_value(s, &ctx));
    if let Some(list) = wide.filter(|v| v.kind() == minijinja::value::ValueKind::Seq) {
        learn_secrets(&cx.rt.templates, &ctx, &e.items, &cx.frame.masker);
        let items = list
            .try_iter()
            .map(Iterator::collect::<Vec<_>>)
            .unwrap_or_default();
        return Ok(items
            .into_iter()
            .map(|v| {
                let exact = crate::template::wide_integer_in(&v).map(|_| v.clone());
                (crate::template::nearest_json(&v), exact)
            })
            .collect());
    }
    let rendered = cx
        .rt
        .templates
        .render_value(&e.items, &ctx)
        .map_err(|err| {
            let err = quoting_no_secret(&ctx, &e.items, &cx.frame.masker, err);
            template_error(cx.frame.loaded, &at, err)
        })?;
    learn_secrets(&cx.rt.templates, &ctx, &e.items, &cx.frame.masker);
    match rendered {
        Value::Array(items) => Ok(items.into_iter().map(|v| (v, None)).collect()),
        other => {
            let written = e
                .items
                .as_str()
                .map_or_else(|| e.items.to_string(), str::to_string);
            let shown: String = cx
                .frame
                .masker
                .mask(&other.to_string())
                .chars()
                .take(80)
                .collect();
            Err(StepError::new(
                ErrorKind::Template,
                format!(
                    "`each.in` must be a list, but `{}` is {} ({shown})",
                    written.trim(),
                    what(&other)
                ),
            )
            .located(&location(cx.frame.loaded, &at)))
        }
    }
}

/// A value's kind, in words.
fn what(v: &Value) -> &'static str {
    match v {
        Value::Null => "none",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a map",
    }
}

/// One iteration of an `each`: a step named `<as>[i]` holding its run of the steps, with the
/// item and its position as outputs.
async fn iteration(
    cx: &StepCtx<'_>,
    e: &EachAction,
    scope: &mut Scope,
    (i, item): (usize, &Value),
    deadline: Option<Instant>,
) -> StepResult {
    let rt = cx.rt;
    let started = Instant::now();
    let name = format!("{}[{i}]", e.var);
    let depth = cx.frame.depth + 1;
    rt.listener.group_started(cx.frame.info, depth, &name);
    let frame = inner_frame(cx, format!("{}.{i}.", base(cx)), 2, deadline);
    let mut steps = Vec::new();
    let at = format!("{}/each/steps", cx.ptr);
    let error = run_all(cx, &frame, scope, &cx.step.steps, &at, &mut steps).await;
    let outcome = if error.is_some() {
        Outcome::Failed
    } else {
        Outcome::Passed
    };
    let mut outputs = Map::new();
    outputs.insert("item".into(), cx.frame.masker.mask_value(item));
    outputs.insert("index".into(), json!(i));
    let result = StepResult {
        index: i,
        id: None,
        name,
        action: ITERATION,
        outcome,
        conclusion: outcome,
        attempts: 1,
        flaky: steps.iter().any(|s| s.flaky),
        duration: started.elapsed(),
        error,
        attempt_errors: Vec::new(),
        outputs: Value::Object(outputs),
        failure_artifacts: None,
        location: location(cx.frame.loaded, &format!("{}/each", cx.ptr)),
        finally: cx.finally,
        steps,
        trace: crate::step::StepTrace {
            started: Some(started),
            wall: std::time::SystemTime::now().checked_sub(started.elapsed()),
            ..crate::step::StepTrace::default()
        },
    };
    rt.listener.step_finished(cx.frame.info, depth, &result);
    result
}
