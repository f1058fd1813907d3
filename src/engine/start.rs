//! How a flow's scope starts: `flow`, `run` and `env`, its secrets read from the environment
//! and its vars rendered in order (a sub-flow's from the vars its parent passes).

use indexmap::IndexMap;
use serde_json::{Map, Value, json};

use super::context::Scope;
use super::cut::MadeFrom;
use super::render::{quoting_no_secret, template_error};
use super::runtime::Runtime;
use crate::config::flows::LoadedFlow;
use crate::config::overrides::{declared, for_flow};
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
                    let e = quoting_no_secret(&ctx, &Value::String(text.clone()), masker, e);
                    template_error(
                        loaded,
                        &format!("/env/{}", crate::source::pointer_escape(k)),
                        e,
                    )
                })
        })
        .collect()
}

/// The scope a flow starts with, its vars layered in the one order of every flow, top-level or
/// sub-flow: runner.toml's `[vars]` (`rt.defaults`) first, which its own vars may read and win
/// over; then its own vars, over which `given` wins (the run's `--var` and var files, and a
/// caller's `run_flow.vars` over those: [`given`]), each typed by the flow's declaration
/// ([`crate::config::overrides::declared`]). Its secrets are read too; `part` says which of its
/// vars are rendered now. An error is masked (a var's template error may quote a secret).
pub(crate) fn flow_scope(
    rt: &Runtime,
    loaded: &LoadedFlow,
    (given, web_server): (&Map<String, Value>, Option<Value>),
    masker: &Masker,
    part: Part,
) -> Result<Scope, StepError> {
    let mut scope = new_scope(rt, loaded);
    scope.set_web_server(web_server);
    for (k, v) in &rt.defaults {
        scope.set_var(k.clone(), v.clone(), MadeFrom::new());
    }
    prepare(&mut scope, rt, loaded, given, masker, part).map_err(|mut e| {
        e.message = masker.mask(&e.message);
        e
    })?;
    Ok(scope)
}

/// The vars given to a flow over its own: the run's (`--var`, the var files), and the
/// caller's `run_flow.vars` (`caller`, none for a top-level flow), which win over them.
pub(crate) fn given(rt: &Runtime, caller: Map<String, Value>) -> Map<String, Value> {
    let mut given = rt.overrides.clone();
    given.extend(caller);
    given
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

/// The vars of a top-level flow rendered after its web server started ([`Part::Late`]); an
/// error is masked (a var's template error may quote a secret).
pub(crate) fn prepare_late(
    scope: &mut Scope,
    rt: &Runtime,
    loaded: &LoadedFlow,
    masker: &Masker,
) -> Result<(), StepError> {
    prepare(scope, rt, loaded, &rt.overrides, masker, Part::Late).map_err(|mut e| {
        e.message = masker.mask(&e.message);
        e
    })
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
        // (Typed as runner.toml's `[vars]` types them, as the flow declares none.)
        for (k, v) in overrides {
            if !loaded.flow.vars.contains_key(k) {
                scope.set_var(k.clone(), typed_for(rt, loaded, k, v)?, MadeFrom::new());
            }
        }
    }
    for (k, raw) in loaded.flow.vars.iter().skip(range.start).take(range.len()) {
        // A matrix value is in the test's name: `--var` does not change it.
        let (value, from) =
            if let Some(v) = overrides.get(k).filter(|_| !loaded.matrix.contains_key(k)) {
                // The type this flow declares (never another flow's).
                (typed_for(rt, loaded, k, v)?, MadeFrom::new())
            } else {
                let ctx = scope.context();
                let v = rt.templates.render_value(raw, &ctx).map_err(|e| {
                    template_error(
                        loaded,
                        &format!("/vars/{}", crate::source::pointer_escape(k)),
                        quoting_no_secret(&ctx, raw, masker, e),
                    )
                })?;
                super::render::learn_secrets(&rt.templates, &ctx, raw, masker);
                let from = super::cut::made_from(&scope.cut_reads(&rt.templates, raw, false));
                (v, from)
            };
        scope.set_var(k.clone(), value, from);
    }
    Ok(())
}

/// The value the var `k` given to the flow (`given`) has in it: typed by the flow's own
/// declaration, else runner.toml's ([`for_flow`]). A text that does not read as that type fails
/// the flow (the check before the run refuses it; a flow it did not see must not run with the
/// text), naming the var, the type and whose it is, not the value (it may be a secret).
fn typed_for(
    rt: &Runtime,
    loaded: &LoadedFlow,
    k: &str,
    given: &Value,
) -> Result<Value, StepError> {
    let decl = declared(&loaded.flow, &rt.defaults, k);
    for_flow(given, decl).map_err(|wanted| {
        let whose = if loaded.flow.vars.contains_key(k) {
            format!("the flow `{}` ({})", loaded.flow.name, loaded.doc.file.name())
        } else {
            "runner.toml's `[vars]`".to_string()
        };
        StepError::new(
            ErrorKind::Template,
            format!(
                "`{k}`, given to runner (`--var {k}` or a var file), is not {wanted}: {whose} gives `{k}` the value {}",
                decl.map_or_else(String::new, Value::to_string)
            ),
        )
    })
}

/// Reads the flow's secrets from the environment into the scope and `masker`.
fn read_secrets(
    scope: &mut Scope,
    rt: &Runtime,
    loaded: &LoadedFlow,
    masker: &Masker,
) -> Result<(), StepError> {
    for name in &loaded.flow.secrets {
        if let Some(v) = secret_value(&rt.env, name) {
            masker.add_named(name, v);
            scope.set_secret(name.clone(), v.to_string());
        } else {
            let why = match std::env::var_os(name) {
                // Nothing to mask, and a flow that would go on with an empty password: as
                // missing as an unset one (CI sets a secret it does not have to nothing).
                Some(v) if v.is_empty() => "is empty in the environment",
                // Masked, it would turn every space (or line end) of the run into `***`.
                Some(v) if v.to_str().is_some_and(|v| v.trim().is_empty()) => {
                    "is only white space in the environment"
                }
                Some(_) => "is not valid UTF-8",
                None => "is not set in the environment",
            };
            return Err(StepError::new(
                ErrorKind::Environment,
                format!("secret `{name}` {why}"),
            ));
        }
    }
    Ok(())
}

/// The value of the secret `name` as flows read it: set in the environment, UTF-8 and not
/// empty nor only white space.
pub(super) fn secret_value<'a>(env: &'a Map<String, Value>, name: &str) -> Option<&'a str> {
    env.get(name)
        .and_then(Value::as_str)
        .filter(|v| Masker::is_secret_value(v))
}

/// The values of every secret a run's flows declare, the sub-flows they may run (known when
/// they load) and runner.toml's (merged into each flow) included, as set in the environment.
/// Every command of the run gets runner's environment and every flow writes into the same
/// console and reports, so each flow masks all of them from its first step, not only its own
/// ([`RunSecrets::masker`]); the run's servers too.
#[derive(Debug, Clone, Default)]
pub(crate) struct RunSecrets(std::sync::Arc<Vec<(String, String)>>);

impl RunSecrets {
    /// The secrets `flows` and their sub-flows declare, read from `env`: (name, value).
    pub(crate) fn declared(env: &Map<String, Value>, flows: &[std::sync::Arc<LoadedFlow>]) -> Self {
        fn add<'a>(
            env: &Map<String, Value>,
            flow: &'a LoadedFlow,
            seen: &mut Vec<&'a std::path::Path>,
            out: &mut Vec<(String, String)>,
        ) {
            if seen.contains(&flow.path.as_path()) {
                return;
            }
            seen.push(&flow.path);
            for name in &flow.flow.secrets {
                if let Some(v) =
                    secret_value(env, name).filter(|_| !out.iter().any(|o| &o.0 == name))
                {
                    out.push((name.clone(), v.to_string()));
                }
            }
            for sub in flow.subflows.values() {
                add(env, sub, seen, out);
            }
        }
        let (mut seen, mut out) = (Vec::new(), Vec::new());
        for f in flows {
            add(env, f, &mut seen, &mut out);
        }
        RunSecrets(std::sync::Arc::new(out))
    }

    /// These and `other`'s (a pass of `run --watch` may load flows that declare more).
    pub(crate) fn with(&self, other: &RunSecrets) -> RunSecrets {
        let mut all = self.0.as_ref().clone();
        all.extend(
            other
                .0
                .iter()
                .filter(|o| !self.0.iter().any(|s| s.0 == o.0))
                .cloned(),
        );
        RunSecrets(std::sync::Arc::new(all))
    }

    /// A new masker (a flow's, the run's servers') that masks every one of them, in all the
    /// forms a secret is masked in, and knows their names (an atlas the flow records keeps
    /// them, to mask its replays with).
    pub(crate) fn masker(&self) -> Masker {
        let m = Masker::default();
        self.add_to(&m);
        m
    }

    /// Adds each of them (with its name) to `m`, a masker already in use (the run's, when a
    /// pass of `run --watch` loads flows that declare more).
    pub(crate) fn add_to(&self, m: &Masker) {
        for (name, value) in self.0.iter() {
            m.add_named(name, value);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::{Map, Value, json};

    use super::{Part, flow_scope};
    use crate::config::flows::Loader;
    use crate::config::profiles::Registry;
    use crate::engine::dispatch::RuntimeSettings;
    use crate::engine::runtime::Runtime;
    use crate::step::Masker;

    /// The scope of `text` (a flow) given `overrides` and runner.toml's `defaults`.
    fn scope_of(
        text: &str,
        overrides: Map<String, Value>,
        defaults: Map<String, Value>,
    ) -> Result<crate::engine::context::Scope, crate::step::StepError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("flow.yaml");
        std::fs::write(&path, text).unwrap();
        let registry = Registry::default();
        let mut loader = Loader::new(&registry).with_vars(defaults.keys().cloned());
        let loaded = loader
            .load(&path)
            .unwrap_or_else(|| panic!("{:?}", loader.diagnostics));
        let rt = Runtime::new(RuntimeSettings {
            run_id: "test".into(),
            artifacts: dir.path().join("artifacts"),
            listener: Arc::new(crate::report::Silent),
            overrides,
            headed: false,
            trace: crate::config::trace_mode::TraceMode::Off,
            browser_cdp: None,
            defaults,
            profiles: registry,
            atlas: None,
            fingerprint: None,
            agent_cache: crate::agent::CacheMode::default(),
            default_agent: None,
        });
        let given = (&rt.overrides, None);
        flow_scope(&rt, &loaded, given, &Masker::default(), Part::All)
    }

    /// D2: an override that does not read as the type the flow gives the var (its own, else
    /// runner.toml's) was kept as text without a word where the check before the run had not
    /// seen the flow; the flow fails now, saying so without the value.
    #[test]
    fn an_override_not_of_the_flows_type_fails_the_flow_without_its_value() {
        let overrides = || {
            let mut m = Map::new();
            m.insert("N".into(), json!("abc-Kestrel"));
            m
        };
        let project = || json!({"N": 5}).as_object().unwrap().clone();
        let own = "name: own\nvars: { N: 5 }\nsteps:\n  - log: x\n";
        let reads = "name: reads\nsteps:\n  - log: \"{{ vars.N }}\"\n";
        for (text, defaults, whose) in [
            (own, Map::new(), "the flow `own`"),
            (reads, project(), "runner.toml's `[vars]`"),
        ] {
            let Err(e) = scope_of(text, overrides(), defaults) else {
                panic!("{whose}: the flow starts with the text");
            };
            assert!(
                e.message
                    .contains("`N`, given to runner (`--var N` or a var file), is not a number")
                    && e.message.contains(whose)
                    && !e.message.contains("Kestrel"),
                "{}",
                e.message
            );
        }
        // A text the flow declares a text, and a number given as digits, start.
        let text = "name: t\nvars: { N: \"five\" }\nsteps:\n  - log: x\n";
        assert!(scope_of(text, overrides(), project()).is_ok());
        let mut seven = Map::new();
        seven.insert("N".into(), json!("7"));
        let scope = scope_of(own, seven, Map::new()).unwrap();
        assert_eq!(scope.vars.get("N"), Some(&json!(7)));
    }
}
