//! The proofs behind the fields `config::template_fields_tests` lists as rendered: every string
//! of every action renders when its step starts, and a step's own name, its condition, an
//! `each`'s list and a `group`'s name do too.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::dispatch::{FAMILIES, RuntimeSettings};
use super::render::render_action;
use super::runtime::{Dispatch, Runtime, StepCtx, StepFuture};
use super::{RunOptions, run_flows};
use crate::config::action::Family;
use crate::config::flows::Loader;
use crate::config::profiles::Registry;
use crate::config::schema::{SchemaKind, schema_value};
use crate::report::Silent;
use crate::step::{FlowResult, FlowStatus, Outcome, StepResult};

/// Renders each step's action as the engine does and gives it back as the step's outputs,
/// without running it; steps that hold steps run as the real dispatcher runs them.
struct Recorder;
static RECORDER: Recorder = Recorder;

impl Dispatch for Recorder {
    fn run<'a>(
        &'a self,
        cx: &'a StepCtx<'a>,
        scope: &'a mut super::context::Scope,
        children: &'a mut Vec<StepResult>,
    ) -> StepFuture<'a> {
        Box::pin(async move {
            if cx.step.action.family() == Family::Control {
                return FAMILIES.run(cx, scope, children).await;
            }
            let action = render_action(cx, &scope.context())?;
            Ok(json!({ "rendered": format!("{action:?}") }))
        })
    }

    fn prepare_browser<'a>(
        &'a self,
        _: &'a crate::browser::FlowBrowser,
        _: &'a crate::browser::BrowserHost,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + 'a>> {
        Box::pin(async {})
    }
}

/// Runs the flow `doc` (written in `dir`, beside `sub.yaml`) with `dispatch`.
fn run(dir: &std::path::Path, doc: &Value, dispatch: &'static dyn Dispatch) -> FlowResult {
    let path = dir.join("flow.yaml");
    std::fs::write(&path, doc.to_string()).unwrap();
    std::fs::write(
        dir.join("sub.yaml"),
        "name: sub\nvars: { a: 1 }\nsteps: [{ log: x }]\n",
    )
    .unwrap();
    let (registry, _) = Registry::load(&[]);
    let mut loader = Loader::new(&registry);
    let loaded = loader
        .load(&path)
        .unwrap_or_else(|| panic!("{:#?}", loader.diagnostics));
    let mut rt = Runtime::new(RuntimeSettings {
        run_id: "render".into(),
        artifacts: dir.join("artifacts"),
        listener: Arc::new(Silent),
        overrides: Map::new(),
        headed: false,
        trace: crate::config::trace_mode::TraceMode::Off,
        browser_cdp: None,
        defaults: Map::new(),
        profiles: registry,
        atlas: None,
        fingerprint: None,
        agent_cache: crate::agent::CacheMode::default(),
        default_agent: None,
    });
    rt.dispatch = dispatch;
    let opts = RunOptions {
        jobs: 1,
        fail_fast: false,
        retries: 0,
        repeat_each: 1,
        secrets: crate::engine::RunSecrets::default(),
    };
    let tokio_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let mut results = tokio_rt
        .block_on(run_flows(Arc::new(rt), vec![loaded], opts, None))
        .results;
    results.remove(0)
}

/// Every string of every action sample, written as a template that gives it back
/// (`{{ vars.v7 }}`, the var holding the string), renders to the very action the string itself
/// makes: each field of `RENDERED`'s action group is rendered when its step starts.
#[test]
fn every_string_of_an_action_renders_when_its_step_starts() {
    let group = crate::config::template_fields_tests::action_fields();
    let steps: Vec<Value> = crate::config::field_samples::step_samples()
        .into_iter()
        .filter(|s| s.get("each").is_none() && s.get("group").is_none())
        .map(|mut s| {
            // The agent the later samples follow up and stop.
            if s.pointer("/agent/background") == Some(&json!(true)) {
                s["id"] = json!("a");
            }
            s
        })
        .collect();
    let literal =
        json!({"name": "actions", "vars": {"items": ["a", "b"], "n": 1, "a": 1}, "steps": steps});
    let mut templated = literal.clone();
    let mut covered = std::collections::BTreeSet::new();
    let mut count = 0;
    let schema = schema_value(SchemaKind::Flow);
    for (field, ptr) in crate::config::schema_fields::strings_of(schema, &literal) {
        let Some(name) = group
            .iter()
            .find(|f| f.split_once(' ').map(|(_, f)| f) == Some(&field))
        else {
            continue;
        };
        // Only inside an action's value (not a step's own keys: `name`, `if`, `frame`).
        let in_action = ptr
            .split('/')
            .nth(3)
            .is_some_and(|k| crate::config::model::ACTION_KEYS.contains(&k));
        if !in_action {
            continue;
        }
        covered.insert(*name);
        count += 1;
        let var = format!("v{count}");
        let original = literal.pointer(&ptr).unwrap().clone();
        templated["vars"][&var] = original;
        *templated.pointer_mut(&ptr).unwrap() = json!(format!("{{{{ vars.{var} }}}}"));
    }
    let missing: Vec<&&str> = group.iter().filter(|f| !covered.contains(*f)).collect();
    assert!(missing.is_empty(), "no action sample holds {missing:?}");
    let dir = tempfile::tempdir().unwrap();
    let want = run(dir.path(), &literal, &RECORDER);
    let got = run(dir.path(), &templated, &RECORDER);
    let failed = |r: &FlowResult| -> Vec<String> {
        r.steps
            .iter()
            .filter_map(|s| Some(format!("{}: {}", s.name, s.error.as_ref()?.message)))
            .chain(r.error.iter().map(|e| e.message.clone()))
            .collect()
    };
    assert_eq!(want.status, FlowStatus::Passed, "{:#?}", failed(&want));
    assert_eq!(got.status, FlowStatus::Passed, "{:#?}", failed(&got));
    assert_eq!(want.steps.len(), got.steps.len());
    let mut compared = 0;
    for (w, g) in want.steps.iter().zip(&got.steps) {
        assert_eq!(w.outcome, g.outcome, "{}", w.name);
        if w.outcome == Outcome::Skipped {
            continue;
        }
        let (w, g) = (&w.outputs["rendered"], &g.outputs["rendered"]);
        assert!(w.is_string() && !g.to_string().contains("vars.v"), "{g}");
        assert_eq!(w, g, "the templated action renders to the one written out");
        compared += 1;
    }
    assert!(compared > 100, "only {compared} actions compared");
}

/// A step's `name`, its `if` condition, `expect.that`, an `each`'s `in` and a `group`'s `name`
/// render: the step is named by its rendered name, a condition that renders false skips it
/// (fails it, in `expect`), the loop goes over the rendered list.
#[test]
fn a_steps_name_condition_list_and_group_name_render() {
    let flow = json!({"name": "own keys", "vars": {"who": "ada", "list": [1, 2, 3], "n": 1},
    "steps": [
        {"id": "named", "name": "greet {{ vars.who }}", "log": "hi"},
        {"id": "grouped", "group": {"name": "group of {{ vars.who }}", "steps": [{"log": "x"}]}},
        {"id": "loop", "each": {"in": "{{ vars.list }}", "steps": [{"log": "{{ vars.item }}"}]}},
        {"id": "never", "if": "{{ vars.n == 2 }}", "log": "no"},
        {"id": "always", "if": "{{ vars.n == 1 }}", "log": "yes"},
        {"id": "holds", "expect": {"that": "{{ vars.n == 1 }}"}},
        {"id": "fails", "continue_on_error": true, "expect": {"that": "{{ vars.n == 2 }}"}},
    ]});
    let dir = tempfile::tempdir().unwrap();
    let r = run(dir.path(), &flow, &FAMILIES);
    assert_eq!(r.status, FlowStatus::Passed, "{:#?}", r.steps);
    let step = |id: &str| {
        r.steps
            .iter()
            .find(|s| s.id.as_deref() == Some(id))
            .unwrap()
    };
    assert_eq!(step("named").name, "greet ada");
    assert_eq!(step("grouped").name, "group of ada");
    assert_eq!(step("loop").steps.len(), 3);
    assert_eq!(step("never").outcome, Outcome::Skipped);
    assert_eq!(step("always").outcome, Outcome::Passed);
    assert_eq!(step("holds").outcome, Outcome::Passed);
    assert_eq!(step("fails").outcome, Outcome::Failed);
}
