//! One step: its condition, its attempts (retries with delays, each bounded by the timeout),
//! its outputs, what it adds to the atlas trail, and its result.

use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use super::context::Scope;
use super::plan::display_name;
use super::render::{location, template_error};
use super::retry::Policy;
use super::runtime::Runtime;
use super::runtime::{Frame, StepCtx};
use crate::config::action::{Family, OwnTimeout};
use crate::config::duration::parse_duration;
use crate::config::flows::LoadedFlow;
use crate::config::model::Step;
use crate::step::{ErrorKind, Outcome, StepError, StepResult};

/// Default timeout of one attempt when neither the step nor `defaults` sets one.
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// Default timeout of a step that drives the browser when nothing sets one (docs/flows.md,
/// "Timeouts and retries").
pub(crate) const BROWSER_TIMEOUT: Duration = Duration::from_secs(15);

/// An agent's wall clock when its step sets none.
const AGENT_TIMEOUT: Duration = Duration::from_secs(15 * 60);

/// Extra time the engine gives an attempt beyond its timeout before it cuts it off: the
/// families enforce the timeout themselves and say precisely what timed out.
const OVERRUN: Duration = Duration::from_secs(5);

/// A sub-flow's bound (its own steps have timeouts): a year.
const UNBOUNDED: Duration = Duration::from_secs(365 * 24 * 3600);

/// The timeout of one attempt: the step's; else the action's own; else, for a step that
/// drives the browser, the flow's `browser.timeout`; else `defaults.timeout`; else 15 s for a
/// browser step and 30 s for the others.
pub(crate) fn step_timeout(loaded: &LoadedFlow, step: &Step) -> Duration {
    let parse = |s: Option<&String>| s.and_then(|d| parse_duration(d).ok());
    if let Some(t) = parse(step.timeout.as_ref()) {
        return t;
    }
    let flow = &loaded.flow;
    let defaults = || parse(flow.defaults.as_ref().and_then(|d| d.timeout.as_ref()));
    match step.action.own_timeout() {
        Some(OwnTimeout::Unbounded) => UNBOUNDED,
        Some(OwnTimeout::Agent(t)) => parse(t.as_ref()).unwrap_or(AGENT_TIMEOUT),
        None if step.action.needs_browser() => browser_timeout(loaded),
        None => defaults().unwrap_or(DEFAULT_TIMEOUT),
    }
}

/// A step's timeout, no longer than the time left before `deadline` (that of the `group` or
/// `each` steps around it), in whole milliseconds.
fn within(timeout: Duration, deadline: Option<Instant>) -> Duration {
    match deadline {
        Some(d) => {
            let left = d.saturating_duration_since(Instant::now());
            let left = Duration::from_millis(u64::try_from(left.as_millis()).unwrap_or(u64::MAX));
            timeout.min(left)
        }
        None => timeout,
    }
}

/// Whether the step holds steps (`group`, `each`, `run_flow`): those bound it.
fn holds_steps(step: &Step) -> bool {
    matches!(step.action.own_timeout(), Some(OwnTimeout::Unbounded))
}

/// What a browser command may take in this flow when its step sets nothing: the flow's
/// `browser.timeout`, else `defaults.timeout`, else 15 s.
pub(crate) fn browser_timeout(loaded: &LoadedFlow) -> Duration {
    let parse = |s: Option<&String>| s.and_then(|d| parse_duration(d).ok());
    let flow = &loaded.flow;
    parse(flow.browser.as_ref().and_then(|b| b.timeout.as_ref()))
        .or_else(|| parse(flow.defaults.as_ref().and_then(|d| d.timeout.as_ref())))
        .unwrap_or(BROWSER_TIMEOUT)
}

/// Runs one step with its condition, retries and timeout.
pub(crate) async fn run_step(
    rt: &Runtime,
    frame: &Frame<'_>,
    scope: &mut Scope,
    step: &Step,
    ptr: &str,
    index: usize,
    finally: bool,
) -> StepResult {
    let loaded = frame.loaded;
    let name = frame
        .masker
        .mask(&display_name(rt, loaded, scope, step, ptr, &frame.masker));
    let started = Instant::now();
    let mut result = StepResult {
        index,
        id: step.id.clone(),
        name: name.clone(),
        action: step.action.key(),
        outcome: Outcome::Passed,
        conclusion: Outcome::Passed,
        attempts: 0,
        flaky: false,
        duration: Duration::ZERO,
        error: None,
        attempt_errors: Vec::new(),
        outputs: Value::Object(Map::new()),
        failure_artifacts: None,
        // The action's key: one line to underline, where the step says what it does.
        location: location(loaded, &format!("{ptr}/{}", step.action.key())),
        finally,
        steps: Vec::new(),
        trace: crate::step::StepTrace::starting(started),
    };
    match may_run(rt, frame, scope, step, ptr) {
        Ok(true) => {}
        Ok(false) => {
            result.outcome = Outcome::Skipped;
            result.conclusion = Outcome::Skipped;
            rt.listener.step_finished(frame.info, frame.depth, &result);
            return result;
        }
        Err(err) => return finish(rt, frame, result, Err(err), started, step),
    }
    let cx = StepCtx {
        rt,
        frame,
        step,
        ptr,
        index,
        timeout: within(step_timeout(loaded, step), frame.deadline),
        finally,
    };
    rt.listener.step_started(frame.info, frame.depth, &name);
    if step.action.family() == Family::Control {
        rt.listener.group_started(frame.info, frame.depth, &name);
    }
    let outcome = attempts(&cx, scope, &mut result).await;
    // A server that exited is why the step failed: its block and every report say so first.
    let outcome = match outcome {
        Err(e) => Err(frame.servers.blame(e, &frame.masker).await),
        ok => ok,
    };
    keep_outputs(frame, scope, step, &outcome, &mut result);
    if let Ok(outputs) = &outcome
        && frame.records_states
        && step.action.recorded_in_atlas()
    {
        super::trail::add_to_trail(rt, frame, scope, step, ptr, &name, outputs);
    }
    let passed = outcome.is_ok();
    if !passed && step.action.needs_browser() {
        add_failure_artifacts(&rt.artifacts, frame, step, index, &mut result).await;
    }
    let mut result = finish(rt, frame, result, outcome, started, step);
    // After the step's time: what the trace keeps of it is not the step's doing.
    super::trace::record(rt, frame, (step, index, passed), &mut result).await;
    result
}

/// Whether the step runs: its `if` holds, and then its inputs read no cut output (else it fails
/// before it runs: [`cut_inputs`]).
fn may_run(
    rt: &Runtime,
    frame: &Frame<'_>,
    scope: &mut Scope,
    step: &Step,
    ptr: &str,
) -> Result<bool, StepError> {
    if !holds(rt, frame, scope, step, ptr)? {
        return Ok(false);
    }
    cut_inputs(rt, frame, scope, step, ptr)?;
    Ok(true)
}

/// Whether the step's `if` holds (true when it has none); an `if` that does not render is the
/// step's error.
fn holds(
    rt: &Runtime,
    frame: &Frame<'_>,
    scope: &mut Scope,
    step: &Step,
    ptr: &str,
) -> Result<bool, StepError> {
    let Some(cond) = &step.condition else {
        return Ok(true);
    };
    // An `if` that reads a cut output decides on a part of it: the step fails, as a check on
    // it does (`engine::cut`; fifteenth attack D3: `if: "'FATAL' not in steps.build.stdout"`
    // skipped the step that would have failed, the error printed past the cut).
    let cut = scope.cut_reads(&rt.templates, cond, true);
    if !cut.is_empty() {
        let message = super::cut::message(&cut).replacen("this check", "this `if`", 1);
        return Err(StepError::new(
            crate::step::ErrorKind::Assertion,
            frame.masker.mask(&message),
        )
        .located(&location(frame.loaded, &format!("{ptr}/if"))));
    }
    let ctx = scope.context();
    rt.templates.condition(cond, &ctx).map_err(|e| {
        let e = super::render::quoting_no_secret(&ctx, cond, &frame.masker, e);
        let mut err = template_error(frame.loaded, &format!("{ptr}/if"), e);
        // The error may quote a value (`unable to calculate <secret> ** 100`).
        err.message = frame.masker.mask(&err.message);
        err
    })
}

/// Records what the step's inputs were made from of cut outputs (`engine::cut`): its outputs
/// are. A step that would act on a cut value, or check one, fails here, before it runs
/// ([`super::cut::refusal`]): nothing sent, no command started, no attempt retried.
fn cut_inputs(
    rt: &Runtime,
    frame: &Frame<'_>,
    scope: &mut Scope,
    step: &Step,
    ptr: &str,
) -> Result<(), StepError> {
    let key = step.action.key();
    let parts = super::cut::inputs(key, super::render::raw_action(frame.loaded, ptr, key));
    let raws: Vec<&Value> = parts.iter().map(|(_, v)| *v).collect();
    let reads = scope.cut_reads_each(&rt.templates, &raws, false);
    let from = reads.iter().flat_map(super::cut::made_from).collect();
    scope.cut.pending = Some(super::cut::StepCut::All(from));
    let fields: Vec<(&str, super::cut::Reads)> = parts.iter().map(|(f, _)| *f).zip(reads).collect();
    let Some((field, message)) = super::cut::refusal(key, &fields) else {
        return Ok(());
    };
    let at = if field.is_empty() {
        format!("{ptr}/{key}")
    } else {
        format!("{ptr}/{key}/{}", crate::source::pointer_escape(&field))
    };
    Err(
        StepError::new(ErrorKind::Assertion, frame.masker.mask(&message))
            .located(&location(frame.loaded, &at)),
    )
}

/// Keeps what the step produced, for the steps after it (by its `id`) and, masked, in its
/// result: a failed step too (a failed exec's exit code and output).
fn keep_outputs(
    frame: &Frame<'_>,
    scope: &mut Scope,
    step: &Step,
    outcome: &Result<Value, StepError>,
    result: &mut StepResult,
) {
    let produced = match outcome {
        Ok(outputs) => Some(outputs),
        Err(e) => e.outputs.as_deref(),
    };
    // What its inputs were made from, of cut outputs (set when they were rendered).
    let cut = scope.cut.pending.take();
    if let Some(outputs) = produced {
        if let Some(id) = &step.id {
            // A `request`'s `json` as its body spells it: JSON parsing rounds integers wider
            // than 64 bits to floats, where different ones are equal.
            let exact = matches!(step.action, crate::config::model::Action::Request(_))
                .then(|| crate::template::exact_json(outputs))
                .flatten();
            scope.set_outputs(id.clone(), outputs.clone(), cut, exact);
        }
        result.outputs = frame.masker.mask_value(outputs);
    }
}

/// Saves what the browser showed when a browser step failed, and records the files in the
/// step's `failure_artifacts` (not its outputs: reports read the files named there).
async fn add_failure_artifacts(
    root: &std::path::Path,
    frame: &Frame<'_>,
    step: &Step,
    index: usize,
    result: &mut StepResult,
) {
    let base = super::artifacts::step_base(&frame.prefix, index, step, step.action.key());
    let arts = frame
        .browser
        .failure_artifacts(root, &frame.dir, &base, &frame.masker)
        .await;
    if !arts.is_null() {
        result.failure_artifacts = Some(arts);
    }
}

/// The attempts of a step: each bounded by its timeout, retried as its policy says, stopped by
/// an interrupt. Records the attempts and any sub-flow steps in `result`.
async fn attempts(
    cx: &StepCtx<'_>,
    scope: &mut Scope,
    result: &mut StepResult,
) -> Result<Value, StepError> {
    let (rt, frame, step) = (cx.rt, cx.frame, cx.step);
    let policy = policy(step, frame.loaded.flow.defaults.as_ref());
    let mut outcome = Err(StepError::new(ErrorKind::Interrupted, "not run"));
    for attempt in 1..=policy.attempts {
        // The time of the steps around it ran out (a `group`'s `timeout`, a replay's bound):
        // it does not start, nor start again. (A step that did gets its attempt's grace past
        // the deadline, so each step after it would too: a replayed edge of many `wait`s
        // would never end.)
        let Some(cx) = &attempt_ctx(cx) else {
            if attempt == 1 {
                return Err(StepError::new(
                    ErrorKind::Timeout,
                    "not started: the time given to the steps around it ran out",
                ));
            }
            outcome = outcome.map_err(out_of_time);
            break;
        };
        result.attempts = attempt;
        let mut children = Vec::new();
        let r = one_attempt(cx, scope, &mut children).await;
        result.steps = children;
        match r {
            Ok(outputs) => return Ok(outputs),
            Err(mut e) => {
                e.message = frame.masker.mask(&e.message);
                // The failing part's own line (an `expect`'s failing check), else the step's.
                if let Some(part) = e.part.take() {
                    let at = format!("{}/{}/{part}", cx.ptr, step.action.key());
                    e = e.located(&location(frame.loaded, &at));
                }
                let e = e.located(&result.location);
                let again = attempt < policy.attempts
                    && policy.retries(e.kind)
                    && !frame.cancel.is_cancelled();
                let delay = policy.delay_before(attempt + 1);
                rt.listener.attempt_failed(
                    frame.info,
                    frame.depth,
                    &result.name,
                    attempt,
                    &e,
                    again.then_some(delay),
                );
                result.attempt_errors.push(e.clone());
                outcome = Err(e);
                if !again {
                    break;
                }
                let wake = Instant::now() + delay;
                let wake = frame.deadline.map_or(wake, |d| wake.min(d));
                tokio::select! {
                    () = tokio::time::sleep_until(wake.into()) => {}
                    () = frame.cancel.cancelled() => break,
                }
            }
        }
    }
    outcome
}

/// One attempt of a step: bounded by its timeout (a step that holds steps by theirs), dropped
/// at an interrupt unless it ends gracefully.
async fn one_attempt(
    cx: &StepCtx<'_>,
    scope: &mut Scope,
    children: &mut Vec<StepResult>,
) -> Result<Value, StepError> {
    let (rt, frame, step) = (cx.rt, cx.frame, cx.step);
    let run = rt.dispatch.run(cx, scope, children);
    let bounded = async {
        // A step that holds steps is bounded by them (each by its own attempt; none starts
        // once its time is out), and a sub-flow's `finally` inside has its grace past that
        // time (`lifecycle::finally_frame`), which a cut-off here would take from it.
        if holds_steps(step) {
            return run.await;
        }
        match tokio::time::timeout(cx.timeout.saturating_add(OVERRUN), run).await {
            Ok(r) => r,
            Err(_) => Err(timed_out(cx)),
        }
    };
    if step.action.graceful_on_interrupt() {
        bounded.await
    } else {
        // Dropped at once: their agent-browser calls die with their process groups.
        tokio::select! {
            r = bounded => r,
            () = frame.cancel.cancelled() => Err(StepError::new(ErrorKind::Interrupted, "interrupted")),
        }
    }
}

/// The retry policy of a step: its `retry`, else the flow's default. A step that holds steps is
/// run once: the steps inside retry on their own (`validate` refuses a `retry` on it), and the
/// flow's default `retry` is theirs.
fn policy(step: &Step, defaults: Option<&crate::config::model::StepDefaults>) -> Policy {
    if step.action.family() == Family::Control {
        return Policy::default();
    }
    Policy::from_config(
        step.retry
            .as_ref()
            .or(defaults.and_then(|d| d.retry.as_ref())),
    )
}

/// The context of a step's attempt: the time left to the steps around it now; none once it is
/// out (their `timeout` caps the retries and the waits between them too).
fn attempt_ctx<'a>(cx: &StepCtx<'a>) -> Option<StepCtx<'a>> {
    let deadline = cx.frame.deadline;
    if deadline.is_some_and(|d| Instant::now() >= d) {
        return None;
    }
    Some(StepCtx {
        timeout: within(step_timeout(cx.frame.loaded, cx.step), deadline),
        ..*cx
    })
}

/// The last attempt's error when the time of the steps around a step ran out before it could be
/// tried again: a timeout, as the steps around it fail.
fn out_of_time(mut e: StepError) -> StepError {
    e.kind = ErrorKind::Timeout;
    e.message = format!(
        "{}; not tried again: the time given to the steps around it ran out",
        e.message
    );
    e
}

/// The error of an attempt that ran out of time; a step that holds steps says the time was
/// theirs.
fn timed_out(cx: &StepCtx<'_>) -> StepError {
    let after = humantime::format_duration(cx.timeout);
    let message = if cx.step.action.family() == Family::Control {
        format!(
            "`{}` timed out after {after}: its `timeout` caps all its steps",
            cx.step.action.key()
        )
    } else {
        format!("step timed out after {after}")
    };
    StepError::new(ErrorKind::Timeout, message)
}

fn finish(
    rt: &Runtime,
    frame: &Frame<'_>,
    mut result: StepResult,
    outcome: Result<Value, StepError>,
    started: Instant,
    step: &Step,
) -> StepResult {
    result.duration = started.elapsed();
    match outcome {
        Ok(_) => {
            // A step that holds steps is flaky when one of them is.
            result.flaky =
                result.attempts > 1 || result.holds_steps() && result.steps.iter().any(|s| s.flaky);
        }
        Err(e) => {
            result.outcome = Outcome::Failed;
            let tolerated = step.continue_on_error
                && !matches!(
                    e.kind,
                    ErrorKind::Interrupted | ErrorKind::Environment | ErrorKind::Internal
                );
            result.conclusion = if tolerated {
                Outcome::Passed
            } else {
                Outcome::Failed
            };
            result.error = Some(e);
        }
    }
    rt.listener.step_finished(frame.info, frame.depth, &result);
    result
}
