//! The engine's step logic (retries, timeouts, `finally`, `continue_on_error`, flaky, panics,
//! interrupts) through a fake browser family: `click: "<script>"` does what the script says,
//! every other action goes to the real families.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use serde_json::{Value, json};

use super::dispatch::{RuntimeSettings, run_family};
use super::render::render_action;
use super::runtime::{Dispatch, Runtime, StepCtx, StepFuture};
use super::{RunOptions, run_flows};
use crate::config::flows::Loader;
use crate::config::model::{Action, Selector};
use crate::config::profiles::Registry;
use crate::report::Silent;
use crate::step::{ErrorKind, FlowResult, FlowStatus, Outcome, StepError, StepResult};

/// Attempts per step so far, by flow name and step pointer.
fn calls() -> &'static Mutex<HashMap<String, u32>> {
    static C: OnceLock<Mutex<HashMap<String, u32>>> = OnceLock::new();
    C.get_or_init(|| Mutex::new(HashMap::new()))
}

struct Fake;
static FAKE: Fake = Fake;

impl Dispatch for Fake {
    fn run<'a>(
        &'a self,
        cx: &'a StepCtx<'a>,
        scope: &'a mut super::context::Scope,
        children: &'a mut Vec<StepResult>,
    ) -> StepFuture<'a> {
        Box::pin(async move {
            // Steps that hold steps run as the real dispatcher runs them.
            if cx.step.action.family() == crate::config::action::Family::Control {
                return super::dispatch::FAMILIES.run(cx, scope, children).await;
            }
            let action = render_action(cx, &scope.context())?;
            match &action {
                Action::Click(t) if matches!(t.target, Selector::String(_)) => {
                    let Selector::String(script) = &t.target else {
                        unreachable!()
                    };
                    fake(cx, script).await
                }
                _ => run_family(cx, action, scope, children).await,
            }
        })
    }

    /// The fake family needs no browser.
    fn prepare_browser<'a>(
        &'a self,
        _: &'a crate::browser::FlowBrowser,
        _: &'a crate::browser::BrowserHost,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + 'a>> {
        Box::pin(async {})
    }
}

/// `ok`, `fail:N:KIND` (fails the first N attempts), `timeout` (outputs the step's timeout),
/// `hang`, `panic`.
async fn fake(cx: &StepCtx<'_>, script: &str) -> Result<Value, StepError> {
    let key = format!("{}{}", cx.frame.loaded.flow.name, cx.ptr);
    let attempt = {
        let mut c = calls().lock().unwrap();
        let n = c.entry(key).or_default();
        *n += 1;
        *n
    };
    let parts: Vec<&str> = script.split(':').collect();
    match parts.as_slice() {
        ["fail", n, kind] if attempt <= n.parse::<u32>().unwrap() => {
            let kind = match *kind {
                "not_found" => ErrorKind::NotFound,
                "assertion" => ErrorKind::Assertion,
                "environment" => ErrorKind::Environment,
                other => panic!("unknown kind {other}"),
            };
            Err(StepError::new(kind, format!("attempt {attempt} failed")))
        }
        ["ok"] | ["fail", ..] => Ok(json!({ "attempt": attempt })),
        ["timeout"] => Ok(json!({ "timeout_ms": u64::try_from(cx.timeout.as_millis()).unwrap() })),
        ["hang"] => std::future::pending().await,
        ["panic"] => panic!("the fake family panics"),
        _ => panic!("unknown script {script}"),
    }
}

/// Runs a flow text with the fake family; `cancel_after` interrupts the run.
fn run(text: &str, cancel_after: Option<Duration>) -> FlowResult {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("flow.yaml");
    std::fs::write(&path, text).unwrap();
    let registry = Registry::default();
    let mut loader = Loader::new(&registry);
    let loaded = loader
        .load(&path)
        .unwrap_or_else(|| panic!("{:?}", loader.diagnostics));
    let mut rt = Runtime::new(RuntimeSettings {
        run_id: "test".into(),
        artifacts: dir.path().join("artifacts"),
        listener: Arc::new(Silent),
        overrides: serde_json::Map::new(),
        headed: false,
        trace: crate::config::trace_mode::TraceMode::Off,
        browser_cdp: None,
        defaults: serde_json::Map::new(),
        profiles: registry,
        atlas: None,
        fingerprint: None,
        agent_cache: crate::agent::CacheMode::default(),
        default_agent: None,
    });
    rt.dispatch = &FAKE;
    let rt = Arc::new(rt);
    let tokio_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let mut results = tokio_rt.block_on(async {
        if let Some(d) = cancel_after {
            let cancel = rt.cancel.clone();
            tokio::spawn(async move {
                tokio::time::sleep(d).await;
                cancel.cancel();
            });
        }
        let opts = RunOptions {
            jobs: 1,
            fail_fast: false,
            retries: 0,
            repeat_each: 1,
            secrets: crate::engine::RunSecrets::default(),
        };
        // The browser launched ahead for the flow (its `click` steps are browser steps, faked
        // here) is closed and its daemon ended by `run_flows`, not left behind the test.
        run_flows(rt, vec![loaded], opts, None).await.results
    });
    assert_eq!(results.len(), 1);
    results.remove(0)
}

fn step<'a>(r: &'a FlowResult, id: &str) -> &'a StepResult {
    r.steps
        .iter()
        .find(|s| s.id.as_deref() == Some(id))
        .unwrap_or_else(|| panic!("no step {id} in {:#?}", r.steps))
}

#[test]
fn a_step_that_passes_after_retries_is_flaky() {
    let r = run(
        "name: flaky retry\nsteps:\n  - id: a\n    click: 'fail:2:not_found'\n    retry: 3\n",
        None,
    );
    assert_eq!(r.status, FlowStatus::Passed);
    let a = step(&r, "a");
    assert_eq!((a.attempts, a.flaky), (3, true));
    assert_eq!(a.outputs["attempt"], 3);
    assert!(r.flaky);
}

#[test]
fn retry_on_limits_the_kinds_that_retry_and_attempts_run_out() {
    let r = run(
        "name: retry on\nsteps:\n  - id: a\n    click: 'fail:5:not_found'\n    retry: { attempts: 3, on: [assertion] }\n  - id: b\n    click: ok\n",
        None,
    );
    assert_eq!(r.status, FlowStatus::Failed);
    assert_eq!(step(&r, "a").attempts, 1);
    assert_eq!(r.steps.len(), 1, "the flow stops at its failed step");
    let r = run(
        "name: attempts run out\nsteps:\n  - id: a\n    click: 'fail:5:assertion'\n    retry: { attempts: 2, delay: 10ms }\n",
        None,
    );
    let a = step(&r, "a");
    assert_eq!((a.attempts, a.outcome), (2, Outcome::Failed));
    assert_eq!(a.error.as_ref().unwrap().message, "attempt 2 failed");
}

#[test]
fn an_environment_error_is_never_retried_nor_tolerated() {
    let r = run(
        "name: env\nsteps:\n  - id: a\n    click: 'fail:1:environment'\n    retry: 3\n    continue_on_error: true\n",
        None,
    );
    assert_eq!(r.status, FlowStatus::Error);
    assert_eq!(step(&r, "a").attempts, 1);
    assert_eq!(step(&r, "a").conclusion, Outcome::Failed);
}

#[test]
fn continue_on_error_records_the_failure_and_goes_on() {
    let r = run(
        "name: tolerated\nsteps:\n  - id: a\n    click: 'fail:9:assertion'\n    continue_on_error: true\n  - id: b\n    click: ok\n",
        None,
    );
    assert_eq!(r.status, FlowStatus::Passed);
    let a = step(&r, "a");
    assert_eq!(
        (a.outcome, a.conclusion),
        (Outcome::Failed, Outcome::Passed)
    );
    assert_eq!(step(&r, "b").outcome, Outcome::Passed);
}

#[test]
fn finally_runs_after_a_failure_and_skipped_steps_are_skipped() {
    let r = run(
        "name: finally\nsteps:\n  - id: s\n    if: 'false'\n    click: ok\n  - id: a\n    click: 'fail:9:assertion'\n  - id: never\n    click: ok\nfinally:\n  - id: f\n    click: ok\n",
        None,
    );
    assert_eq!(r.status, FlowStatus::Failed);
    assert_eq!(step(&r, "s").outcome, Outcome::Skipped);
    assert!(r.steps.iter().all(|s| s.id.as_deref() != Some("never")));
    let f = step(&r, "f");
    assert!(f.finally);
    assert_eq!(f.outcome, Outcome::Passed);
}

#[test]
fn timeouts_step_then_browser_then_defaults_then_15s_for_browser_steps() {
    let ms = |r: &FlowResult, id: &str| step(r, id).outputs["timeout_ms"].as_u64().unwrap();
    let r = run(
        "name: t1\nbrowser: { timeout: 7s }\ndefaults: { timeout: 9s }\nsteps:\n  - id: own\n    timeout: 3s\n    click: timeout\n  - id: browser\n    click: timeout\n",
        None,
    );
    assert_eq!(ms(&r, "own"), 3000);
    assert_eq!(ms(&r, "browser"), 7000);
    let r = run(
        "name: t2\ndefaults: { timeout: 9s }\nsteps:\n  - id: d\n    click: timeout\n",
        None,
    );
    assert_eq!(ms(&r, "d"), 9000);
    let r = run("name: t3\nsteps:\n  - id: d\n    click: timeout\n", None);
    assert_eq!(ms(&r, "d"), 15_000);
    // `browser.timeout` is for browser steps only: an exec step keeps the 30 s default.
    let r = run(
        "name: t4\nbrowser: { timeout: 100ms }\nsteps:\n  - id: e\n    exec: [sleep, '0.5']\n",
        None,
    );
    assert_eq!(r.status, FlowStatus::Passed, "{:?}", r.steps[0].error);
}

#[test]
fn a_step_that_ignores_its_timeout_is_cut_off() {
    let r = run(
        "name: hang\nsteps:\n  - id: a\n    timeout: 100ms\n    click: hang\n",
        None,
    );
    let e = step(&r, "a").error.clone().unwrap();
    assert_eq!(e.kind, ErrorKind::Timeout);
    assert_eq!(e.message, "step timed out after 100ms");
    assert!(e.location.is_some(), "a run-time error points at its step");
}

#[test]
fn a_panicking_flow_is_an_internal_error_not_a_pass() {
    let r = run("name: boom\nsteps:\n  - click: panic\n", None);
    assert_eq!(r.status, FlowStatus::Error);
    let e = r.error.unwrap();
    assert_eq!(e.kind, ErrorKind::Internal);
    assert!(e.message.contains("internal error"), "{}", e.message);
}

#[test]
fn an_interrupt_stops_the_step_and_finally_still_runs() {
    let r = run(
        "name: interrupted\nsteps:\n  - id: a\n    click: hang\nfinally:\n  - id: f\n    click: ok\n",
        Some(Duration::from_millis(200)),
    );
    assert_eq!(r.status, FlowStatus::Interrupted);
    assert_eq!(
        step(&r, "a").error.as_ref().unwrap().kind,
        ErrorKind::Interrupted
    );
    // Cleanup runs on cancel, within its grace period, as CI systems run it.
    let f = step(&r, "f");
    assert!(f.finally);
    assert_eq!(f.outcome, Outcome::Passed);
}

#[test]
fn engine_futures_stay_small() {
    // Each step's action is boxed at the dispatch seam, so a flow's future does not carry
    // every family's state inline (it was over 20 KB before the seam).
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("flow.yaml");
    std::fs::write(&path, "name: size\nsteps:\n  - log: hi\n").unwrap();
    let registry = Registry::default();
    let loaded = Loader::new(&registry).load(&path).unwrap();
    let rt = Runtime::new(RuntimeSettings {
        run_id: "size".into(),
        artifacts: dir.path().to_path_buf(),
        listener: Arc::new(Silent),
        overrides: serde_json::Map::new(),
        headed: false,
        trace: crate::config::trace_mode::TraceMode::Off,
        browser_cdp: None,
        defaults: serde_json::Map::new(),
        profiles: registry,
        atlas: None,
        fingerprint: None,
        agent_cache: crate::agent::CacheMode::default(),
        default_agent: None,
    });
    let info = crate::step::FlowInfo {
        index: 0,
        name: "size".into(),
        file: "flow.yaml".into(),
        steps: 1,
    };
    let servers = super::server::RunServers::default();
    let masker = crate::step::Masker::default();
    let f = super::lifecycle::run_flow(&rt, loaded, info, &servers, &masker);
    let size = std::mem::size_of_val(&f);
    assert!(size < 4096, "a flow's future takes {size} bytes");
}

#[test]
fn an_interrupt_inside_an_each_ends_its_iterations() {
    let r = run(
        "name: interrupted loop\nsteps:\n  - id: loop\n    each:\n      in: [1, 2, 3]\n      steps:\n        - click: hang\n",
        Some(Duration::from_millis(300)),
    );
    assert_eq!(r.status, FlowStatus::Interrupted);
    let each = step(&r, "loop");
    assert_eq!(each.steps.len(), 1, "no iteration after the interrupt");
    assert_eq!(each.error.as_ref().unwrap().kind, ErrorKind::Interrupted);
    assert_eq!(each.steps[0].name, "item[0]");
}

#[test]
fn the_steps_of_a_group_in_finally_are_finally_steps_and_run_after_a_failure() {
    let r = run(
        "name: cleanup group\nsteps:\n  - click: 'fail:1:assertion'\nfinally:\n  - id: g\n    group:\n      name: clean up\n      steps:\n        - click: ok\n        - click: ok\n",
        None,
    );
    assert_eq!(r.status, FlowStatus::Failed);
    let g = step(&r, "g");
    assert_eq!(
        (g.name.as_str(), g.conclusion),
        ("clean up", Outcome::Passed)
    );
    assert_eq!(g.steps.len(), 2);
    assert!(g.finally && g.steps.iter().all(|s| s.finally), "{g:#?}");
}
