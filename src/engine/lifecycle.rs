//! One flow from start to end: its web server, secrets and vars, its steps then `finally`, and
//! one teardown path (agents stopped, browser closed, server stopped) whatever happened.

use std::sync::Arc;
use std::time::Instant;

use serde_json::json;

use super::artifacts;
use super::attempts::run_step;
use super::browser_settings::{browser_spec, context_setup, render_settings, waits_for_vars};
use super::context::Scope;
use super::runtime::{Frame, Runtime};
use super::server::{RunServers, Server, Watch, start_for_flow};
use super::start::{Part, flow_scope, prepare_late, render_env};
use crate::browser::FlowBrowser;
use crate::config::flows::LoadedFlow;
use crate::step::{
    ErrorKind, FlowInfo, FlowResult, FlowStatus, Masker, Outcome, StepError, StepResult,
};

/// Runs a top-level flow in a browser of its own, masking with the run's `masker` (the run's
/// secrets, and what any flow made of one) from its start.
pub(crate) async fn run_flow(
    rt: &Runtime,
    loaded: Arc<LoadedFlow>,
    info: FlowInfo,
    servers: &RunServers,
    masker: &Masker,
) -> FlowResult {
    let spec = browser_spec(rt, &loaded);
    // The flow's masker outlives its steps: its browser names the downloads left when it closes.
    // It is the run's: it masks every secret of the run (any other flow's command may print it
    // too) and what any flow made of one, and a remote browser's token or password
    // (`?token=`, `user:pass@`) as a secret.
    let masker = masker.clone();
    if let Some(url) = &spec.cdp {
        masker.add_derived(crate::step::url_secrets::url_secrets(url));
    }
    // A browser launched here saves the flow's downloads with its artifacts.
    let downloads = spec
        .cdp
        .is_none()
        .then(|| crate::browser::driver::downloads::DownloadDir {
            root: rt.artifacts.clone(),
            dir: rt
                .artifacts
                .join(artifacts::flow_dir(info.index, &loaded.flow.name))
                .join("downloads"),
        });
    let mut setup = context_setup(&loaded, downloads);
    setup.record = super::trace::recording(rt.trace);
    setup.masker = masker.clone();
    let browser = FlowBrowser::new(info.index, spec, setup, loaded.dir.clone());
    // The flow's browser context is made while its web server starts and its vars render, and
    // is not counted in its first step's time (a launch or context that fails is reported by
    // the first browser step). A flow that ends before it (it failed to start) lets it finish,
    // so the browser it is taking goes back to the pool; an interrupted one does not wait.
    // Settings with templates wait for the vars (see `body`).
    let result = if loaded.flow.uses_browser() && !waits_for_vars(&loaded) {
        let prepare = async {
            tokio::select! {
                () = rt.dispatch.prepare_browser(&browser, &rt.browser) => {}
                () = rt.cancel.cancelled() => {}
            }
        };
        // `biased`: the context is being taken before the flow reaches its first step.
        let flow = run_in(rt, &loaded, &info, &browser, servers, &masker, None);
        tokio::join!(biased; prepare, Box::pin(flow)).1
    } else {
        run_in(rt, &loaded, &info, &browser, servers, &masker, None).await
    };
    // A flow that failed may be run again (`--retries`), in a browser of the run.
    let last = rt.browser.only_flow_left() && result.status != FlowStatus::Failed;
    browser.close(&rt.browser, &masker, last).await;
    result
}

/// Runs a top-level flow in `browser` (which it leaves open), with the run's `servers`; the
/// flow's secrets, and what its templates make of them, go into `masker`. With a replay's
/// `bounds`, its steps all together take at most their budget, from its first step, and the
/// page stays on their origins.
pub(crate) async fn run_in(
    rt: &Runtime,
    loaded: &LoadedFlow,
    info: &FlowInfo,
    browser: &FlowBrowser,
    servers: &RunServers,
    masker: &Masker,
    bounds: Option<&crate::atlas::Bounds>,
) -> FlowResult {
    let started = Instant::now();
    rt.listener.flow_started(info);
    let mut setup = Setup {
        started,
        server: None,
        failed_log: None,
        until: None,
        budget: bounds.and_then(|b| b.budget),
        origins: bounds.and_then(|b| b.origins.as_deref()),
    };
    let ran = body(rt, loaded, info, browser, servers, &mut setup, masker).await;
    // A server that exited while the flow ran is why it failed, not the browser's network error
    // (a failed step said so when it failed; a flow whose steps passed fails here).
    let died = Watch::new(setup.server.as_ref(), servers).died().await;
    // Downloads under way finish before the server that sends them stops (not on an interrupt).
    if !rt.cancel.is_cancelled() {
        browser
            .settle_downloads(crate::browser::driver::downloads::FINISH_GRACE)
            .await;
    }
    // (Masked: it names a page's URL, which may carry a secret.)
    let downloads_not_kept = browser.downloads_note().await.map(|n| masker.mask(&n));
    // The one teardown path: every return above ends here.
    crate::agent::stop_flow(browser.name()).await;
    if let Some(s) = &setup.server {
        s.stop().await;
    }
    let mut result = FlowResult {
        name: loaded.flow.name.clone(),
        file: loaded.path.clone(),
        status: FlowStatus::Passed,
        duration: started.elapsed(),
        steps: Vec::new(),
        error: None,
        flaky: false,
        retry_errors: Vec::new(),
        setup: setup.until.unwrap_or_else(|| started.elapsed()),
        server_log: setup
            .server
            .as_ref()
            .and_then(|s| s.log())
            .or(setup.failed_log.as_deref())
            .map(|l| l.display().to_string()),
        trace: None,
        trace_attempt: None,
        server_log_not_kept: setup.server.as_ref().and_then(Server::log_not_kept),
        downloads_not_kept,
        state: None,
    };
    conclude(&mut result, ran);
    if let Some(why) = died {
        blame_server(&mut result, &masker.mask(&why));
    }
    let dir = rt
        .artifacts
        .join(artifacts::flow_dir(info.index, &loaded.flow.name));
    let flow = (info, browser);
    super::trace::end(rt, flow, (&dir, started), &mut result, masker).await;
    rt.listener.flow_finished(info, &result);
    result
}

/// The flow's steps and status from how its body ran.
fn conclude(result: &mut FlowResult, ran: Result<Ran, StepError>) {
    match ran {
        Ok(Ran {
            steps,
            failure,
            after,
        }) => {
            result.flaky = steps.iter().any(|s| s.flaky);
            // A failure no step reports (a replay's page that left its origins between two
            // steps) is the flow's error.
            let unreported = !steps
                .iter()
                .any(|s| s.conclusion == crate::step::Outcome::Failed);
            result.steps = steps;
            if let Some(e) = failure {
                result.status = FlowStatus::of(e.kind);
                if unreported && e.kind != ErrorKind::Interrupted {
                    result.error = Some(e);
                }
            } else if let Some(e) = after {
                result.status = FlowStatus::of(e.kind);
                result.error = Some(e);
            }
        }
        Err(e) => {
            result.status = FlowStatus::of(e.kind);
            result.error = Some(e);
        }
    }
}

/// A flow whose web server (its own or the run's) exited while it ran fails, naming the server:
/// its failed step said so when it failed (see `Watch::blame`); when no step failed (the server
/// died after the last one), the flow's error says so.
fn blame_server(result: &mut FlowResult, why: &str) {
    let said = |e: &Option<StepError>| e.as_ref().is_some_and(|e| e.message.contains(why));
    if result.status == FlowStatus::Interrupted
        || said(&result.error)
        || result.steps.iter().any(|s| said(&s.error))
    {
        return;
    }
    let failed = result
        .steps
        .iter_mut()
        .find(|s| s.conclusion == crate::step::Outcome::Failed)
        .and_then(|s| s.error.as_mut());
    if let Some(e) = failed {
        // A step that failed before the server's end was seen (it died as the step ended).
        e.message = format!("{why}\n(the step's own error: {})", e.message);
    } else {
        result.error = Some(StepError::new(ErrorKind::CommandFailed, why));
    }
    if result.status == FlowStatus::Passed {
        result.status = FlowStatus::Failed;
    }
}

/// Says (under the flow) that its web server runs without a log, and why: a symlink stood in
/// the log's place.
fn say_unkept_log(rt: &Runtime, info: &FlowInfo, server: &Server) {
    if let Some(why) = server.log_not_kept() {
        let said = format!("web server `{}`: its log is not kept: {why}", server.name);
        rt.listener.message(info, 0, &said);
    }
}

/// What a flow set up before its first step: its own web server, and when the steps began.
struct Setup<'o> {
    started: Instant,
    server: Option<Server>,
    /// The log of its web server's command when it started but did not get ready.
    failed_log: Option<std::path::PathBuf>,
    until: Option<std::time::Duration>,
    /// What the steps may take, all together (a replay's bound), from the first.
    budget: Option<std::time::Duration>,
    /// The origins the page may be on between the steps (a replay's).
    origins: Option<&'o [String]>,
}

/// What a flow's steps did.
struct Ran {
    steps: Vec<StepResult>,
    /// The error that failed a step (or the interrupt).
    failure: Option<StepError>,
    /// A failure of the flow found after its steps, that no step reported: a confirm or prompt
    /// in another of its tabs that nothing answered (see `FlowBrowser::unanswered_dialog`).
    after: Option<StepError>,
}

/// `<artifacts>/<NNN-flow>`: the folder of the flow's files.
fn folder_of(rt: &Runtime, info: &FlowInfo, loaded: &LoadedFlow) -> std::path::PathBuf {
    rt.artifacts
        .join(artifacts::flow_dir(info.index, &loaded.flow.name))
}

/// Everything between start and teardown; an `Err` is a failure outside any step.
async fn body(
    rt: &Runtime,
    loaded: &LoadedFlow,
    info: &FlowInfo,
    browser: &FlowBrowser,
    servers: &RunServers,
    setup: &mut Setup<'_>,
    masker: &Masker,
) -> Result<Ran, StepError> {
    let dir = folder_of(rt, info, loaded);
    let masker = masker.clone();
    // Boxed: the server's start is a large future, and the flow's must stay small.
    let mut scope = Box::pin(start_scope(rt, loaded, servers, &masker)).await?;
    let shared = serde_json::Value::Object(servers.values().clone());
    let at = (&shared, dir.as_path());
    let log = &mut setup.failed_log;
    setup.server = Box::pin(start_for_flow(rt, loaded, &scope, at, &masker, log)).await?;
    if let Some(s) = &setup.server {
        say_unkept_log(rt, info, s);
        let mut ws = shared.clone();
        ws["url"] = json!(s.url);
        ws["port"] = json!(s.port);
        scope.set_web_server(Some(ws));
    }
    prepare_late(&mut scope, rt, loaded, &masker)?;
    let env = render_env(&mut scope, rt, loaded, &masker)?;
    if waits_for_vars(loaded) {
        render_context(rt, loaded, &mut scope, &masker, browser).await?;
    }
    // Inside the artifacts with no symlink followed: a reused artifacts directory may hold a
    // link out where this flow's folder goes (the web server's log, made earlier, is checked
    // the same way and left out; the browser's `downloads/` is made so as it is given to it).
    crate::fs::artifact_dir(&rt.artifacts, &dir).map_err(|why| {
        StepError::new(
            ErrorKind::Environment,
            format!("cannot create the artifacts directory: {why}"),
        )
    })?;
    // The context being made for the flow (see `run_flow`) is ready before the first step, so
    // its time counts as the flow's set-up, not as its first step's.
    tokio::select! {
        () = browser.settled() => {}
        () = rt.cancel.cancelled() => {}
    }
    setup.until = Some(setup.started.elapsed());
    let watch = Watch::new(setup.server.as_ref(), servers);
    let frame = Frame {
        info,
        depth: 0,
        loaded,
        masker,
        dir,
        browser,
        records_states: loaded.flow.records_states(),
        env,
        cancel: rt.cancel.clone(),
        prefix: String::new(),
        deadline: setup.budget.and_then(|b| Instant::now().checked_add(b)),
        servers: &watch,
        origins: setup.origins,
    };
    let (steps, failure) = run_steps(rt, &frame, &mut scope).await;
    // A popup's confirm or prompt that nothing answered after the flow's last browser step
    // still fails it.
    let after = match failure {
        Some(_) => None,
        None => browser.unanswered_dialog().await.map(|mut e| {
            e.message = frame.masker.mask(&e.message);
            e
        }),
    };
    Ok(Ran {
        steps,
        failure,
        after,
    })
}

/// Renders the templates of the flow's browser settings, then makes its context with them
/// (as `run_flow` does for a flow whose settings have none, while its vars render).
async fn render_context(
    rt: &Runtime,
    loaded: &LoadedFlow,
    scope: &mut Scope,
    masker: &Masker,
    browser: &FlowBrowser,
) -> Result<(), StepError> {
    let rendered = render_settings(rt, loaded, scope, masker).map_err(|mut e| {
        e.message = masker.mask(&e.message);
        e
    })?;
    browser.set_up_with(|s| rendered.apply(&mut s.emulation));
    if loaded.flow.uses_browser() {
        tokio::select! {
            () = rt.dispatch.prepare_browser(browser, &rt.browser) => {}
            () = rt.cancel.cancelled() => {}
        }
    }
    Ok(())
}

/// The flow's scope before its web server starts: the run's servers (`web_server.<name>`), the
/// project file's vars, the secrets and the vars above the first that reads `web_server`. A
/// run's server that did not start, or has exited, fails the flow here.
async fn start_scope(
    rt: &Runtime,
    loaded: &LoadedFlow,
    servers: &RunServers,
    masker: &Masker,
) -> Result<Scope, StepError> {
    if let Some(e) = servers.failed() {
        return Err(e.clone());
    }
    if let Some(why) = servers.died().await {
        return Err(StepError::new(ErrorKind::Environment, why));
    }
    let web_server =
        (!servers.values().is_empty()).then(|| serde_json::Value::Object(servers.values().clone()));
    // Layered as a sub-flow's are (no caller: the run's overrides only).
    let given = (&rt.overrides, web_server);
    let scope = flow_scope(rt, loaded, given, masker, Part::Early)?;
    // Once it knows the flow's secrets: what the run's servers made of them.
    servers.teach(&rt.templates, masker);
    Ok(scope)
}

/// How long `finally` may run after an interrupt, and at least past the time of the `group`
/// or `each` steps around it.
const FINALLY_GRACE: std::time::Duration = std::time::Duration::from_secs(10);

/// Runs `steps` then `finally`; returns the results and the error that failed the flow.
pub(crate) async fn run_steps(
    rt: &Runtime,
    frame: &Frame<'_>,
    scope: &mut Scope,
) -> (Vec<StepResult>, Option<StepError>) {
    let flow = &frame.loaded.flow;
    let mut results = Vec::new();
    let mut failure = run_main_steps(rt, frame, scope, &mut results).await;
    let interrupted = frame.cancel.is_cancelled();
    let finally_frame = finally_frame(frame, interrupted && !flow.finally.is_empty());
    for (i, step) in flow.finally.iter().enumerate() {
        let idx = flow.steps.len() + i;
        let r = Box::pin(run_step(
            rt,
            &finally_frame,
            scope,
            step,
            &format!("/finally/{i}"),
            idx,
            true,
        ))
        .await;
        if r.conclusion == Outcome::Failed && failure.is_none() {
            failure.clone_from(&r.error);
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

/// Runs the flow's `steps` until one fails or the run is interrupted; returns why it stopped
/// early, if it did.
async fn run_main_steps(
    rt: &Runtime,
    frame: &Frame<'_>,
    scope: &mut Scope,
    results: &mut Vec<StepResult>,
) -> Option<StepError> {
    for (i, step) in frame.loaded.flow.steps.iter().enumerate() {
        if frame.cancel.is_cancelled() {
            return Some(StepError::new(ErrorKind::Interrupted, "interrupted"));
        }
        // (Before the first too: a replay that goes on from where another left the page.)
        // Boxed, as the steps are: the flow's future must stay small.
        if let Some(e) = Box::pin(off_origin(rt, frame)).await {
            return Some(e);
        }
        let r = Box::pin(run_step(
            rt,
            frame,
            scope,
            step,
            &format!("/steps/{i}"),
            i,
            false,
        ))
        .await;
        let failed = r.conclusion == Outcome::Failed;
        let failure = failed.then(|| r.error.clone()).flatten();
        results.push(r);
        if failed {
            return failure;
        }
    }
    Box::pin(off_origin(rt, frame)).await
}

/// Why the steps of a replay stop before the next one (or after the last): the page left the
/// origins they may act on (an `eval`'s `location.href = ...`, a link to another site), and
/// nothing a step does or reads there is done (see `atlas::off_origin`). None for a flow with
/// no such bound, and when the page's URL cannot be read (the next step meets that).
async fn off_origin(rt: &Runtime, frame: &Frame<'_>) -> Option<StepError> {
    let origins = frame.origins?;
    let url = {
        let mut session = frame.browser.session(&rt.browser).await.ok()?;
        session.url(std::time::Duration::from_secs(5)).await.ok()?
    };
    let why = crate::atlas::off_origin(&url, Some(origins))?;
    Some(StepError::new(
        ErrorKind::CommandFailed,
        frame.masker.mask(&why),
    ))
}

/// The frame `finally` runs in: the flow's. After an interrupt (`graced`), `finally` still runs
/// (cleanup, as CI systems run it on cancel), within a short grace period; after it, its steps
/// are interrupted too. The grace is one for all that runs after the interrupt: a sub-flow's
/// `finally` run by a `finally` gets what is left of it, and a second interrupt ends it at
/// once (see `interrupt::graced`). Inside a `group` or `each` whose `timeout` has run out (or
/// soon will), it gets what is left of that time and at least the same grace: a sub-flow's
/// cleanup runs however its steps ended, bounded by the grace (without an interrupt, a
/// sub-flow it runs gets its own in turn).
fn finally_frame<'a>(frame: &Frame<'a>, graced: bool) -> Frame<'a> {
    let cancel = if graced {
        crate::step::interrupt::graced(FINALLY_GRACE)
    } else {
        frame.cancel.clone()
    };
    Frame {
        info: frame.info,
        depth: frame.depth,
        loaded: frame.loaded,
        masker: frame.masker.clone(),
        dir: frame.dir.clone(),
        browser: frame.browser,
        records_states: frame.records_states,
        env: frame.env.clone(),
        cancel,
        prefix: frame.prefix.clone(),
        deadline: frame
            .deadline
            .map(|d| d.max(crate::step::interrupt::grace_end(FINALLY_GRACE).into_std())),
        servers: frame.servers,
        origins: frame.origins,
    }
}
