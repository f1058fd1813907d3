//! Running one flow: secrets, vars, steps with conditions/retries/timeouts, `finally`, outputs,
//! and `run_flow` sub-flows in their own scope.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use indexmap::IndexMap;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use super::context::Scope;
use super::events::{FlowInfo, Listener};
use super::exec::{self, ExecSpec};
use super::retry::Policy;
use super::secrets::Masker;
use super::{ErrorKind, FlowResult, FlowStatus, Outcome, StepError, StepResult};
use crate::browser::session::Session;
use crate::config::duration::parse_duration;
use crate::config::flows::LoadedFlow;
use crate::config::model::{Action, Command, ExecAction, Step};
use crate::template::{RenderError, Templates};

/// Default timeout of one attempt when neither the step nor `defaults` sets one.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// What every flow of a run shares.
pub struct Runtime {
    pub templates: Templates,
    pub env: Arc<Map<String, Value>>,
    pub run_id: String,
    /// The run's artifacts directory (absolute).
    pub artifacts: PathBuf,
    pub cancel: CancellationToken,
    pub listener: Arc<dyn Listener>,
    /// `--var` / `--var-file` values, applied to top-level flows.
    pub overrides: Map<String, Value>,
    /// Browser resources (adapter, sockets, background closes).
    pub browser: crate::browser::host::BrowserHost,
    /// Agent profiles.
    pub profiles: crate::agent::profiles::Registry,
    /// `--atlas DIR`.
    pub atlas: Option<PathBuf>,
}

/// The browser session of one flow run (sub-flows share it), opened on first use.
pub struct FlowBrowser {
    session: tokio::sync::Mutex<Option<Session>>,
    /// Set once this flow's browser is up and the next flow's launch has been started.
    warmed_next: std::sync::atomic::AtomicBool,
    name: String,
    headed: bool,
    cwd: PathBuf,
}

/// Where a step sits, for events and artifact names.
struct Frame<'a> {
    info: &'a FlowInfo,
    depth: usize,
    loaded: &'a LoadedFlow,
    masker: Masker,
    /// `<artifacts>/<flow dir name>`.
    dir: PathBuf,
    browser: &'a FlowBrowser,
    /// The flow has `link_state` steps: record the steps it runs for the atlas's edges.
    records_states: bool,
}

/// Runs a top-level flow.
pub async fn run_flow(rt: &Runtime, loaded: Arc<LoadedFlow>, info: FlowInfo) -> FlowResult {
    let started = Instant::now();
    rt.listener.flow_started(&info);
    let dir = rt
        .artifacts
        .join(format!("{:03}-{}", info.index + 1, slug(&loaded.flow.name)));
    let mut scope = new_scope(rt, &loaded);
    let mut result = FlowResult {
        name: loaded.flow.name.clone(),
        file: loaded.path.clone(),
        status: FlowStatus::Passed,
        duration: Duration::ZERO,
        steps: Vec::new(),
        error: None,
        flaky: false,
    };
    let server = match start_web_server(&loaded).await {
        Ok(s) => s,
        Err(e) => {
            result.status = status_for(e.kind);
            result.error = Some(e);
            result.duration = started.elapsed();
            rt.listener.flow_finished(&info, &result);
            return result;
        }
    };
    if let Some(s) = &server {
        scope.web_server = Some(json!({ "url": s.url }));
    }
    let masker = match prepare(rt, &loaded, &mut scope, &rt.overrides) {
        Ok(m) => m,
        Err(e) => {
            if let Some(s) = server {
                s.stop().await;
            }
            result.status = status_for(e.kind);
            result.error = Some(e);
            result.duration = started.elapsed();
            rt.listener.flow_finished(&info, &result);
            return result;
        }
    };
    if let Err(e) = std::fs::create_dir_all(&dir) {
        result.status = FlowStatus::Error;
        result.error = Some(StepError::new(
            ErrorKind::Environment,
            format!(
                "cannot create the artifacts directory {}: {e}",
                dir.display()
            ),
        ));
        rt.listener.flow_finished(&info, &result);
        return result;
    }
    let headed = wants_headed(rt, &loaded);
    let browser = FlowBrowser {
        session: tokio::sync::Mutex::new(None),
        warmed_next: std::sync::atomic::AtomicBool::new(false),
        name: session_name(info.index),
        headed,
        cwd: loaded.dir.clone(),
    };
    let frame = Frame {
        info: &info,
        depth: 0,
        loaded: &loaded,
        masker,
        dir,
        browser: &browser,
        records_states: records_states(&loaded),
    };
    let (steps, failure) = run_steps(rt, &frame, &mut scope).await;
    crate::agent::registry::stop_flow(&browser.name).await;
    if let Some(session) = browser.session.lock().await.take() {
        rt.browser.close_later(session);
    }
    // A browser launched ahead that the flow never used (it failed before its first browser step).
    if let Some(session) = rt.browser.take_prewarmed(&browser.name).await {
        rt.browser.close_later(session);
    }
    if let Some(s) = server {
        s.stop().await;
    }
    result.steps = steps;
    if let Some(e) = failure {
        result.status = status_for(e.kind);
    }
    result.flaky = result.steps.iter().any(|s| s.flaky);
    result.duration = started.elapsed();
    rt.listener.flow_finished(&info, &result);
    result
}

fn status_for(kind: ErrorKind) -> FlowStatus {
    match kind {
        ErrorKind::Environment => FlowStatus::Error,
        ErrorKind::Interrupted => FlowStatus::Interrupted,
        _ => FlowStatus::Failed,
    }
}

fn new_scope(rt: &Runtime, loaded: &LoadedFlow) -> Scope {
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

/// Reads secrets and renders vars (overrides win); returns the masker for the flow.
fn prepare(
    rt: &Runtime,
    loaded: &LoadedFlow,
    scope: &mut Scope,
    overrides: &Map<String, Value>,
) -> Result<Masker, StepError> {
    let mut values = Vec::new();
    for name in &loaded.flow.secrets {
        match rt.env.get(name).and_then(Value::as_str) {
            Some(v) => {
                values.push(v.to_string());
                scope.set_secret(name.clone(), v.to_string());
            }
            None => {
                return Err(StepError::new(
                    ErrorKind::Environment,
                    format!("secret `{name}` is not set in the environment"),
                ));
            }
        }
    }
    for (k, raw) in &loaded.flow.vars {
        let value = match overrides.get(k) {
            Some(v) => v.clone(),
            None => {
                let ctx = scope.context();
                rt.templates.render_value(raw, &ctx).map_err(|e| {
                    template_error(
                        loaded,
                        &format!("/vars/{}", crate::source::pointer_escape(k)),
                        e,
                    )
                })?
            }
        };
        scope.set_var(k.clone(), value);
    }
    for (k, v) in overrides {
        if !loaded.flow.vars.contains_key(k) {
            scope.set_var(k.clone(), v.clone());
        }
    }
    Ok(Masker::new(values))
}

/// Starts the flow's `web_server`, if it has one.
async fn start_web_server(
    loaded: &LoadedFlow,
) -> Result<Option<crate::engine::web_server::WebServer>, StepError> {
    use crate::engine::web_server::WebServer;
    let Some(ws) = &loaded.flow.web_server else {
        return Ok(None);
    };
    if let Some(dir) = &ws.static_dir {
        return WebServer::serve_static(&loaded.dir.join(dir))
            .await
            .map(Some);
    }
    let (Some(command), Some(url)) = (&ws.command, &ws.url) else {
        return Ok(None);
    };
    let argv = match command {
        Command::Argv(a) => a.clone(),
        Command::String(s) => shell_words::split(s).map_err(|e| {
            StepError::new(ErrorKind::Environment, format!("cannot split `{s}`: {e}"))
        })?,
    };
    let ready = ws
        .ready_timeout
        .as_deref()
        .and_then(|d| parse_duration(d).ok())
        .unwrap_or(Duration::from_secs(30));
    WebServer::start_command(&argv, &loaded.dir, url, ready)
        .await
        .map(Some)
}

/// Runs `steps` then `finally`; returns the results and the error that failed the flow.
async fn run_steps(
    rt: &Runtime,
    frame: &Frame<'_>,
    scope: &mut Scope,
) -> (Vec<StepResult>, Option<StepError>) {
    let flow = &frame.loaded.flow;
    let mut results = Vec::new();
    let mut failure: Option<StepError> = None;
    for (i, step) in flow.steps.iter().enumerate() {
        if failure.is_some() {
            break;
        }
        if rt.cancel.is_cancelled() {
            failure = Some(StepError::new(ErrorKind::Interrupted, "interrupted"));
            break;
        }
        let r = run_step(rt, frame, scope, step, &format!("/steps/{i}"), i, false).await;
        if r.conclusion == Outcome::Failed {
            failure = r.error.clone();
        }
        results.push(r);
    }
    let interrupted = rt.cancel.is_cancelled();
    for (i, step) in flow.finally.iter().enumerate() {
        if interrupted {
            break;
        }
        let idx = flow.steps.len() + i;
        let r = run_step(rt, frame, scope, step, &format!("/finally/{i}"), idx, true).await;
        if r.conclusion == Outcome::Failed && failure.is_none() {
            failure = r.error.clone();
        }
        results.push(r);
    }
    if interrupted
        && failure
            .as_ref()
            .is_none_or(|f| f.kind != ErrorKind::Interrupted)
    {
        failure = Some(StepError::new(ErrorKind::Interrupted, "interrupted"));
    }
    (results, failure)
}

/// Runs one step with its condition, retries and timeout.
#[allow(clippy::too_many_arguments)]
async fn run_step(
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
        .mask(&display_name(rt, loaded, scope, step, ptr));
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
        outputs: Value::Object(Map::new()),
        location: location(loaded, ptr),
        finally,
        steps: Vec::new(),
    };
    if let Some(cond) = &step.condition {
        let ctx = scope.context();
        match rt.templates.condition(cond, &ctx) {
            Ok(true) => {}
            Ok(false) => {
                result.outcome = Outcome::Skipped;
                result.conclusion = Outcome::Skipped;
                rt.listener.step_finished(frame.info, frame.depth, &result);
                return result;
            }
            Err(e) => {
                let err = template_error(loaded, &format!("{ptr}/if"), e);
                return finish(rt, frame, result, Err(err), started, step);
            }
        }
    }
    let defaults = loaded.flow.defaults.as_ref();
    let policy = Policy::from_config(
        step.retry
            .as_ref()
            .or(defaults.and_then(|d| d.retry.as_ref())),
    );
    let timeout = step_timeout(loaded, step);
    rt.listener.step_started(frame.info, frame.depth, &name);
    let mut outcome = Err(StepError::new(ErrorKind::Interrupted, "not run"));
    for attempt in 1..=policy.attempts {
        result.attempts = attempt;
        let mut children = Vec::new();
        let run = run_action(rt, frame, scope, step, ptr, index, timeout, &mut children);
        let bounded = async {
            match tokio::time::timeout(timeout + Duration::from_secs(5), run).await {
                Ok(r) => r,
                Err(_) => Err(StepError::new(
                    ErrorKind::Timeout,
                    format!(
                        "step timed out after {}",
                        humantime::format_duration(timeout)
                    ),
                )),
            }
        };
        // `exec` ends its process group gracefully on interrupt by itself; other steps are
        // dropped at once (their agent-browser calls die with their process groups).
        let graceful = matches!(step.action, Action::Exec(_) | Action::RunFlow(_));
        let r = if graceful {
            bounded.await
        } else {
            tokio::select! {
                r = bounded => r,
                _ = rt.cancel.cancelled() => Err(StepError::new(ErrorKind::Interrupted, "interrupted")),
            }
        };
        result.steps = children;
        match r {
            Ok(outputs) => {
                outcome = Ok(outputs);
                break;
            }
            Err(mut e) => {
                e.message = frame.masker.mask(&e.message);
                if e.location.is_none() {
                    e.location = Some(result.location.clone());
                }
                let again = attempt < policy.attempts
                    && policy.retries(e.kind)
                    && !rt.cancel.is_cancelled();
                let delay = policy.delay_before(attempt + 1);
                rt.listener.attempt_failed(
                    frame.info,
                    frame.depth,
                    &name,
                    attempt,
                    &e,
                    again.then_some(delay),
                );
                outcome = Err(e);
                if !again {
                    break;
                }
                tokio::select! {
                    _ = tokio::time::sleep(delay) => {}
                    _ = rt.cancel.cancelled() => break,
                }
            }
        }
    }
    if let Ok(outputs) = &outcome
        && let Some(id) = &step.id
    {
        scope.set_outputs(id.clone(), outputs.clone());
    }
    if outcome.is_ok() && frame.records_states {
        let key = step.action.key();
        if let Some(raw) = loaded.doc.value.pointer(&format!("{ptr}/{key}")) {
            let ctx = scope.context_with_secret_refs();
            let rendered = rt
                .templates
                .render_value(raw, &ctx)
                .unwrap_or_else(|_| raw.clone());
            if let Some(r) = crate::engine::link_state::recorded(step, rendered) {
                scope.trail.push(r);
            }
        }
    }
    if outcome.is_err() && is_browser_action(&step.action) {
        let base = format!(
            "{:03}-{}",
            index + 1,
            step.id.as_deref().unwrap_or(step.action.key())
        );
        let arts = failure_artifacts(frame, &base).await;
        if !arts.is_null() {
            result.outputs = json!({ "failure_artifacts": arts });
        }
    }
    finish(rt, frame, result, outcome, started, step)
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
        Ok(outputs) => {
            result.outputs = frame.masker.mask_value(&outputs);
            result.flaky = result.attempts > 1;
        }
        Err(e) => {
            // A failed exec still has its outputs (exit code, stderr) for later steps.
            result.outcome = Outcome::Failed;
            let tolerated = step.continue_on_error
                && !matches!(e.kind, ErrorKind::Interrupted | ErrorKind::Environment);
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

fn step_timeout(loaded: &LoadedFlow, step: &Step) -> Duration {
    let parse = |s: &Option<String>| s.as_deref().and_then(|d| parse_duration(d).ok());
    if let Some(t) = parse(&step.timeout) {
        return t;
    }
    if matches!(step.action, Action::RunFlow(_)) {
        // A sub-flow's steps have their own timeouts.
        return Duration::from_secs(365 * 24 * 3600);
    }
    if let Action::Agent(a) = &step.action {
        // An agent's wall clock is its own `timeout` (default 15 minutes).
        return parse(&a.timeout).unwrap_or(Duration::from_secs(15 * 60));
    }
    loaded
        .flow
        .defaults
        .as_ref()
        .and_then(|d| parse(&d.timeout))
        .unwrap_or(DEFAULT_TIMEOUT)
}

/// Renders the step's action value and deserializes it into the typed action.
fn render_action(
    rt: &Runtime,
    loaded: &LoadedFlow,
    scope: &mut Scope,
    step: &Step,
    ptr: &str,
) -> Result<Action, StepError> {
    let key = step.action.key();
    let raw = loaded
        .doc
        .value
        .pointer(&format!("{ptr}/{key}"))
        .cloned()
        .unwrap_or(Value::Null);
    let ctx = scope.context();
    let rendered = rt
        .templates
        .render_value(&raw, &ctx)
        .map_err(|e| template_error(loaded, &format!("{ptr}/{key}"), e))?;
    let mut m = Map::new();
    m.insert(key.to_string(), rendered);
    serde_json::from_value(Value::Object(m)).map_err(|e| StepError {
        kind: ErrorKind::Template,
        message: format!("after rendering its templates, `{key}` is invalid: {e}"),
        location: Some(location(loaded, &format!("{ptr}/{key}"))),
    })
}

#[allow(clippy::too_many_arguments)]
async fn run_action(
    rt: &Runtime,
    frame: &Frame<'_>,
    scope: &mut Scope,
    step: &Step,
    ptr: &str,
    index: usize,
    timeout: Duration,
    children: &mut Vec<StepResult>,
) -> Result<Value, StepError> {
    let loaded = frame.loaded;
    let action = render_action(rt, loaded, scope, step, ptr)?;
    match action {
        Action::Log(msg) => {
            let text = frame.masker.mask(&msg.to_string());
            rt.listener.message(frame.info, frame.depth, &text);
            Ok(json!({}))
        }
        Action::Set(map) => {
            for (k, v) in map {
                scope.set_var(k, v);
            }
            Ok(json!({}))
        }
        Action::Exec(e) => {
            let base = frame.dir.join(format!(
                "{:03}-{}",
                index + 1,
                step.id.as_deref().unwrap_or("exec")
            ));
            exec_step(rt, frame, e, timeout, base).await
        }
        Action::Expect(e) => {
            if e.has_browser_checks() {
                let deadline = tokio::time::Instant::now() + timeout;
                let mut guard = session(rt, frame).await?;
                let s = guard.as_mut().expect("session() leaves a session in place");
                crate::browser::expect::expect(s, &e, deadline).await?;
            }
            match e.that {
                Some(cond) => {
                    let ctx = scope.context();
                    let holds = rt.templates.condition(&cond, &ctx).map_err(|err| {
                        template_error(loaded, &format!("{ptr}/expect/that"), err)
                    })?;
                    if holds {
                        Ok(json!({}))
                    } else {
                        let src = loaded
                            .doc
                            .value
                            .pointer(&format!("{ptr}/expect/that"))
                            .map_or_else(String::new, |v| {
                                v.as_str().map_or_else(|| v.to_string(), str::to_string)
                            });
                        Err(StepError::new(
                            ErrorKind::Assertion,
                            format!("expected `{}` to be true, but it is false", src.trim()),
                        ))
                    }
                }
                None => Ok(json!({})),
            }
        }
        Action::RunFlow(rf) => {
            let vars = match &rf {
                crate::config::model::RunFlow::Full(o) => o.vars.clone(),
                crate::config::model::RunFlow::Path(_) => IndexMap::new(),
            };
            let raw_path = loaded
                .doc
                .value
                .pointer(&format!("{ptr}/run_flow/path"))
                .or_else(|| loaded.doc.value.pointer(&format!("{ptr}/run_flow")))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            let Some(sub) = loaded.subflows.get(&raw_path).cloned() else {
                return Err(StepError::new(
                    ErrorKind::Environment,
                    format!(
                        "sub-flow `{}` was not loaded (templated sub-flow paths are not supported)",
                        rf.path()
                    ),
                ));
            };
            let parent_web_server = scope.web_server.clone();
            run_subflow(
                rt,
                frame,
                sub,
                vars.into_iter().collect(),
                index,
                children,
                parent_web_server,
            )
            .await
        }
        Action::Agent(a) => {
            let listener = rt.listener.clone();
            let info = frame.info.clone();
            let depth = frame.depth;
            let session_of_step = session_lookup(scope.steps.clone());
            let ctx = crate::agent::step::AgentCtx {
                profiles: &rt.profiles,
                flow_dir: loaded.dir.clone(),
                env: loaded
                    .flow
                    .env
                    .iter()
                    .map(|(k, v)| (k.clone(), v.to_string()))
                    .collect(),
                masker: frame.masker.clone(),
                relay: std::sync::Arc::new(move |line: &str| listener.message(&info, depth, line)),
                cancel: rt.cancel.clone(),
                log_path: frame.dir.join(format!(
                    "{:03}-{}.agent.log",
                    index + 1,
                    step.id.as_deref().unwrap_or("agent")
                )),
                flow_key: frame.browser.name.clone(),
                session_of_step: &session_of_step,
                timeout,
            };
            crate::agent::step::run(a, ctx).await
        }
        Action::StopAgent(target) => {
            let session_of_step = session_lookup(scope.steps.clone());
            crate::agent::step::stop(&target, &session_of_step).await
        }
        Action::LinkState(ls) => {
            let atlas = crate::engine::link_state::atlas_dir(
                match &ls {
                    crate::config::model::LinkState::Full(o) => o.atlas.as_deref(),
                    crate::config::model::LinkState::Action(_) => None,
                },
                rt.atlas.as_deref(),
                loaded.flow.atlas.as_deref(),
                &loaded.dir,
            );
            let shot = frame.dir.join(format!("{:03}-state.png", index + 1));
            let mut guard = session(rt, frame).await?;
            let s = guard.as_mut().expect("session() leaves a session in place");
            crate::engine::link_state::record(
                s,
                &ls,
                &atlas,
                scope,
                &rt.run_id,
                &shot,
                timeout,
                &frame.masker,
            )
            .await
        }
        browser_action => {
            let files = crate::browser::steps::StepFiles {
                dir: frame.dir.clone(),
                base: format!(
                    "{:03}-{}",
                    index + 1,
                    step.id.as_deref().unwrap_or(step.action.key())
                ),
            };
            let mut guard = session(rt, frame).await?;
            let s = guard.as_mut().expect("session() leaves a session in place");
            let r = crate::browser::steps::run(s, browser_action, timeout, &files).await;
            if s.is_open()
                && !frame
                    .browser
                    .warmed_next
                    .swap(true, std::sync::atomic::Ordering::SeqCst)
            {
                rt.browser.start_next_prewarm();
            }
            r
        }
    }
}

/// `steps.<id>.session_id` of the steps run so far.
fn session_lookup(steps: Map<String, Value>) -> impl Fn(&str) -> Option<String> + Send + Sync {
    move |id: &str| {
        steps
            .get(id)
            .and_then(|o| o.get("session_id"))
            .and_then(Value::as_str)
            .map(str::to_string)
    }
}

/// The flow's browser session, opened on first use.
async fn session<'f>(
    rt: &Runtime,
    frame: &'f Frame<'_>,
) -> Result<tokio::sync::MutexGuard<'f, Option<Session>>, StepError> {
    let mut guard = frame.browser.session.lock().await;
    if guard.is_none()
        && let Some(warm) = rt.browser.take_prewarmed(&frame.browser.name).await
    {
        *guard = Some(warm);
    }
    if guard.is_none() {
        let adapter = rt.browser.adapter()?;
        *guard = Some(Session::new(
            adapter,
            frame.browser.name.clone(),
            frame.browser.headed,
            frame.browser.cwd.clone(),
        ));
    }
    Ok(guard)
}

/// After a browser step failed: a screenshot and a snapshot of the page, for the report.
async fn failure_artifacts(frame: &Frame<'_>, base: &str) -> Value {
    let mut guard = frame.browser.session.lock().await;
    let Some(s) = guard.as_mut().filter(|s| s.is_open()) else {
        return Value::Null;
    };
    let t = Duration::from_secs(5);
    let png = frame.dir.join(format!("{base}-failure.png"));
    let txt = frame.dir.join(format!("{base}-failure.snapshot.txt"));
    let mut out = Map::new();
    if s.cmd("screenshot", &[png.display().to_string()], t)
        .await
        .is_ok()
    {
        out.insert(
            "screenshot".into(),
            Value::String(png.display().to_string()),
        );
    }
    if let Ok(data) = s.cmd("snapshot", &[], t).await {
        let text = frame
            .masker
            .mask(data.get("snapshot").and_then(Value::as_str).unwrap_or(""));
        if std::fs::write(&txt, text).is_ok() {
            out.insert("snapshot".into(), Value::String(txt.display().to_string()));
        }
    }
    Value::Object(out)
}

/// `--headed` or the flow's `browser.headed`.
pub fn wants_headed(rt: &Runtime, loaded: &LoadedFlow) -> bool {
    rt.browser.headed
        || loaded
            .flow
            .browser
            .as_ref()
            .and_then(|b| b.headed)
            .unwrap_or(false)
}

/// The browser session name of the flow at `index` in this run.
pub fn session_name(index: usize) -> String {
    format!("r{}-{}", std::process::id(), index + 1)
}

/// Whether a flow drives the browser (then its browser can be launched ahead).
pub fn uses_browser(loaded: &LoadedFlow) -> bool {
    loaded
        .flow
        .steps
        .iter()
        .chain(&loaded.flow.finally)
        .any(|s| match &s.action {
            Action::Expect(e) => e.has_browser_checks(),
            a => is_browser_action(a) || matches!(a, Action::LinkState(_)),
        })
}

/// Whether the flow has `link_state` steps (then the steps it runs are recorded for edges).
fn records_states(loaded: &LoadedFlow) -> bool {
    loaded
        .flow
        .steps
        .iter()
        .chain(&loaded.flow.finally)
        .any(|s| matches!(s.action, Action::LinkState(_)))
}

fn is_browser_action(a: &Action) -> bool {
    !matches!(
        a,
        Action::Log(_)
            | Action::Set(_)
            | Action::Exec(_)
            | Action::RunFlow(_)
            | Action::Agent(_)
            | Action::StopAgent(_)
            | Action::LinkState(_)
    )
}

async fn exec_step(
    rt: &Runtime,
    frame: &Frame<'_>,
    e: ExecAction,
    timeout: Duration,
    base: PathBuf,
) -> Result<Value, StepError> {
    let o = e.options();
    let argv = match (&o.command, o.shell) {
        (Command::Argv(a), _) => a.clone(),
        (Command::String(s), true) => vec!["sh".into(), "-c".into(), s.clone()],
        (Command::String(s), false) => shell_words::split(s).map_err(|err| {
            StepError::new(
                ErrorKind::CommandFailed,
                format!("cannot split the command `{s}`: {err}"),
            )
        })?,
    };
    let mut env: IndexMap<String, String> = frame
        .loaded
        .flow
        .env
        .iter()
        .map(|(k, v)| (k.clone(), v.to_string()))
        .collect();
    env.extend(o.env.iter().map(|(k, v)| (k.clone(), v.to_string())));
    let cwd = match &o.cwd {
        Some(c) => frame.loaded.dir.join(c),
        None => frame.loaded.dir.clone(),
    };
    let spec = ExecSpec {
        argv,
        cwd,
        env,
        stdin: o.stdin.clone(),
        artifacts: Some(base),
    };
    let out = exec::run(&spec, timeout, &rt.cancel, &frame.masker).await?;
    let trim = |s: &str| s.trim_end_matches(['\n', '\r']).to_string();
    let outputs = json!({
        "stdout": trim(&out.stdout),
        "stderr": trim(&out.stderr),
        "exit_code": out.exit_code,
        // More than 1 MiB of output: the outputs hold the start, the artifacts all of it.
        "truncated": out.truncated,
    });
    let ok = out.exit_code == Some(0) || (o.allow_failure && out.exit_code.is_some());
    if ok {
        return Ok(outputs);
    }
    let mut msg = match (out.exit_code, out.signal) {
        (Some(c), _) => format!("command exited with code {c}"),
        (None, Some(s)) => format!("command was killed by signal {s}"),
        _ => "command failed".into(),
    };
    let tail = exec::last_lines(&out.stderr, 5);
    if !tail.is_empty() {
        msg.push_str(&format!("; stderr: {tail}"));
    }
    Err(StepError::new(
        ErrorKind::CommandFailed,
        frame.masker.mask(&msg),
    ))
}

/// Runs a sub-flow in its own scope: its vars never leak back, its outputs come back.
fn run_subflow<'a>(
    rt: &'a Runtime,
    frame: &'a Frame<'a>,
    sub: Arc<LoadedFlow>,
    vars: Map<String, Value>,
    index: usize,
    children: &'a mut Vec<StepResult>,
    parent_web_server: Option<Value>,
) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<Value, StepError>> + Send + 'a>> {
    Box::pin(async move {
        let mut scope = new_scope(rt, &sub);
        scope.web_server = parent_web_server;
        let masker = prepare(rt, &sub, &mut scope, &vars)?;
        let sub_frame = Frame {
            info: frame.info,
            depth: frame.depth + 1,
            loaded: &sub,
            masker: frame.masker.extend(masker_values(&masker, &frame.masker)),
            dir: frame
                .dir
                .join(format!("{:03}-{}", index + 1, slug(&sub.flow.name))),
            browser: frame.browser,
            records_states: records_states(&sub),
        };
        std::fs::create_dir_all(&sub_frame.dir).map_err(|e| {
            StepError::new(
                ErrorKind::Environment,
                format!("cannot create {}: {e}", sub_frame.dir.display()),
            )
        })?;
        let (steps, failure) = run_steps(rt, &sub_frame, &mut scope).await;
        *children = steps;
        if let Some(e) = failure {
            let at = children
                .iter()
                .find(|s| s.conclusion == Outcome::Failed)
                .map_or_else(String::new, |s| format!(" at step `{}`", s.name));
            return Err(StepError {
                kind: e.kind,
                message: format!("sub-flow `{}` failed{at}: {}", sub.flow.name, e.message),
                location: e.location,
            });
        }
        let mut outputs = Map::new();
        for (k, raw) in &sub.flow.outputs {
            let ctx = scope.context();
            let v = rt.templates.render_value(raw, &ctx).map_err(|e| {
                template_error(
                    &sub,
                    &format!("/outputs/{}", crate::source::pointer_escape(k)),
                    e,
                )
            })?;
            outputs.insert(k.clone(), v);
        }
        Ok(Value::Object(outputs))
    })
}

fn masker_values(sub: &Masker, _parent: &Masker) -> Vec<String> {
    // A sub-flow's masker holds its own secrets; the parent's are added by `extend`.
    sub.values()
}

/// `file:line:col` of the node at `ptr`.
pub fn location(loaded: &LoadedFlow, ptr: &str) -> String {
    let file = &loaded.doc.file;
    let at = loaded
        .doc
        .spans
        .nearest(ptr)
        .map_or(0, |s| s.key.clone().unwrap_or(s.value.clone()).start);
    let (l, c) = file.line_col(at);
    format!("{}:{l}:{c}", file.name())
}

fn template_error(loaded: &LoadedFlow, ptr: &str, e: RenderError) -> StepError {
    let full = format!("{ptr}{}", e.pointer);
    let file = &loaded.doc.file;
    let at = match loaded.doc.spans.get(&full) {
        Some(s) => match (s.content_start, e.offset) {
            (Some(start), Some(off)) => start + off,
            _ => s.value.start,
        },
        None => loaded.doc.spans.nearest(&full).map_or(0, |s| s.value.start),
    };
    let (l, c) = file.line_col(at);
    StepError {
        kind: ErrorKind::Template,
        message: e.message,
        location: Some(format!("{}:{l}:{c}", file.name())),
    }
}

/// The name shown for a step: its `name`, or a short rendering of its action.
fn display_name(
    rt: &Runtime,
    loaded: &LoadedFlow,
    scope: &mut Scope,
    step: &Step,
    ptr: &str,
) -> String {
    let key = step.action.key();
    if let Some(n) = &step.name {
        let ctx = scope.context();
        return rt
            .templates
            .render_str(n, &ctx)
            .unwrap_or_else(|_| n.clone());
    }
    let raw = loaded.doc.value.pointer(&format!("{ptr}/{key}"));
    // Show the values the step will use, when its templates render already.
    let rendered = raw.and_then(|r| {
        let ctx = scope.context();
        rt.templates.render_value(r, &ctx).ok()
    });
    let raw = rendered.as_ref().or(raw);
    let selector_of = |v: &Value| -> Option<String> {
        let sel: crate::config::model::Selector = serde_json::from_value(v.clone()).ok()?;
        let alts = crate::browser::selector::alternatives(&sel);
        Some(
            alts.iter()
                .map(|a| a.describe())
                .collect::<Vec<_>>()
                .join(" | "),
        )
    };
    let selector_actions = ["click", "dblclick", "hover", "focus", "check", "uncheck"];
    if let Some(v) = raw {
        let label = if selector_actions.contains(&key) {
            selector_of(v)
        } else if matches!(key, "fill" | "type" | "select" | "inspect") {
            v.get("target").and_then(selector_of)
        } else {
            None
        };
        if let Some(label) = label {
            return format!("{key} {label}");
        }
    }
    let detail = match raw {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(a)) => a
            .iter()
            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
            .collect::<Vec<_>>()
            .join(" "),
        Some(Value::Object(m)) => {
            let first = ["command", "path", "profile", "action", "target"]
                .iter()
                .find_map(|k| m.get(*k));
            match first {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Array(a)) => a
                    .iter()
                    .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
                    .collect::<Vec<_>>()
                    .join(" "),
                Some(v) => v.to_string(),
                None => m.keys().cloned().collect::<Vec<_>>().join(", "),
            }
        }
        Some(v) => v.to_string(),
        None => String::new(),
    };
    let detail = detail.replace('\n', " ");
    let short: String = detail.chars().take(60).collect();
    let ellipsis = if detail.chars().count() > 60 {
        "…"
    } else {
        ""
    };
    if short.is_empty() {
        key.to_string()
    } else {
        format!("{key} {short}{ellipsis}")
    }
}

/// `--dry-run`: each step's display name with the templates that can be rendered before the run
/// (vars, env, flow) rendered; secrets show as `***`.
pub fn plan(rt: &Runtime, loaded: &LoadedFlow) -> Vec<String> {
    let mut scope = new_scope(rt, loaded);
    for name in &loaded.flow.secrets {
        scope.set_secret(name.clone(), "***".into());
    }
    for (k, raw) in &loaded.flow.vars {
        let ctx = scope.context();
        let v = match rt.overrides.get(k) {
            Some(v) => v.clone(),
            None => rt
                .templates
                .render_value(raw, &ctx)
                .unwrap_or_else(|_| raw.clone()),
        };
        scope.set_var(k.clone(), v);
    }
    let mut out = Vec::new();
    let steps = loaded
        .flow
        .steps
        .iter()
        .enumerate()
        .map(|(i, s)| (format!("/steps/{i}"), s, ""));
    let fin = loaded
        .flow
        .finally
        .iter()
        .enumerate()
        .map(|(i, s)| (format!("/finally/{i}"), s, "finally "));
    for (n, (ptr, step, prefix)) in steps.chain(fin).enumerate() {
        let name = display_name(rt, loaded, &mut scope, step, &ptr);
        let cond = if step.condition.is_some() {
            " (if)"
        } else {
            ""
        };
        out.push(format!("{prefix}{}. {name}{cond}", n + 1));
    }
    out
}

/// A file-name-safe form of a name.
pub fn slug(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    let s = s
        .split('-')
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    let s: String = s.chars().take(50).collect();
    if s.is_empty() { "flow".into() } else { s }
}
