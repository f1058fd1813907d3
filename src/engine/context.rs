//! The data templates see (docs/flows.md, "Vars and templates") for one flow run, and its
//! conversion to a minijinja value.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::cut::{Cuts, MadeFrom, Reads, StepCut};
use crate::atlas::Trail;

/// A var as [`Scope::saved_var`] keeps it: its value, what it was made from, its exact value.
pub(crate) type SavedVar = (Value, MadeFrom, Option<minijinja::Value>);

/// The scope of one flow (a sub-flow has its own).
#[derive(Debug, Clone)]
pub(crate) struct Scope {
    pub(crate) vars: Map<String, Value>,
    pub(crate) steps: Map<String, Value>,
    pub(crate) env: Arc<Map<String, Value>>,
    pub(crate) secrets: Map<String, Value>,
    pub(crate) flow: Value,
    pub(crate) run: Value,
    /// Set through [`Scope::set_web_server`], which drops the cached context.
    pub(crate) web_server: Option<Value>,
    /// What the flow did since its last `link_state`: the next atlas edge.
    pub(crate) trail: Trail,
    /// Why the atlas cannot hold a step of the trail without a secret (see `engine::trail`):
    /// then every later `link_state` of the flow fails, saying so, and writes nothing.
    pub(crate) unrecordable: Option<String>,
    /// What of its vars and step outputs was made from an output runner cut.
    pub(crate) cut: Cuts,
    /// The `json` output of the `request` steps whose body holds integers wider than 64 bits,
    /// read exactly (`template::exact_json`): what templates see in place of the parsed one,
    /// which holds them as the nearest floats.
    exact_json: BTreeMap<String, minijinja::Value>,
    /// The vars holding integers wider than 64 bits, exact, as templates read them: `vars`
    /// holds them as the nearest floats (review of session 26, F6).
    exact_vars: BTreeMap<String, minijinja::Value>,
    cached: Option<minijinja::Value>,
}

impl Scope {
    /// A scope with no vars or step outputs yet.
    pub(crate) fn new(env: Arc<Map<String, Value>>, flow: Value, run: Value) -> Scope {
        Scope {
            vars: Map::new(),
            steps: Map::new(),
            env,
            secrets: Map::new(),
            flow,
            run,
            web_server: None,
            trail: Trail::default(),
            unrecordable: None,
            cut: Cuts::default(),
            exact_json: BTreeMap::new(),
            exact_vars: BTreeMap::new(),
            cached: None,
        }
    }

    /// Sets a var, made from the cut outputs `from` (none: from nothing cut; see `engine::cut`).
    pub(crate) fn set_var(&mut self, name: String, value: Value, from: MadeFrom) {
        self.set_exact_var(name, value, None, from);
    }

    /// [`Scope::set_var`]; `exact`, the template value templates read in place of `value`
    /// (which holds its integers wider than 64 bits as the nearest floats).
    pub(crate) fn set_exact_var(
        &mut self,
        name: String,
        value: Value,
        exact: Option<minijinja::Value>,
        from: MadeFrom,
    ) {
        self.cut.set_var(&name, from);
        match exact {
            Some(v) => self.exact_vars.insert(name.clone(), v),
            None => self.exact_vars.remove(&name),
        };
        self.vars.insert(name, value);
        self.cached = None;
    }

    /// A var as it is, to set it back with [`Scope::restore_var`].
    pub(crate) fn saved_var(&self, name: &str) -> Option<SavedVar> {
        let from = self.cut.vars.get(name).cloned().unwrap_or_default();
        let exact = self.exact_vars.get(name).cloned();
        self.vars.get(name).map(|v| (v.clone(), from, exact))
    }

    /// Sets a var back to what it was: `None` removes it.
    pub(crate) fn restore_var(&mut self, name: String, saved: Option<SavedVar>) {
        if let Some((v, from, exact)) = saved {
            self.set_exact_var(name, v, exact, from);
        } else {
            self.cut.set_var(&name, MadeFrom::new());
            self.vars.remove(&name);
            self.exact_vars.remove(&name);
            self.cached = None;
        }
    }

    /// Records a step's outputs under `steps.<id>`, made from the cut outputs `cut` says;
    /// `exact_json`, what templates read as its `json` output instead of the one in `outputs`
    /// (a `request`'s, read with its wide integers exact).
    pub(crate) fn set_outputs(
        &mut self,
        id: String,
        outputs: Value,
        cut: Option<StepCut>,
        exact_json: Option<minijinja::Value>,
    ) {
        self.cut.set_outputs(&id, cut);
        match exact_json {
            Some(v) => self.exact_json.insert(id.clone(), v),
            None => self.exact_json.remove(&id),
        };
        self.steps.insert(id, outputs);
        self.cached = None;
    }

    /// Sets what `web_server.*` reads (the flow's server, or a sub-flow's parent's).
    pub(crate) fn set_web_server(&mut self, web_server: Option<Value>) {
        self.web_server = web_server;
        self.cached = None;
    }

    /// Sets a secret.
    pub(crate) fn set_secret(&mut self, name: String, value: String) {
        self.secrets.insert(name, Value::String(value));
        self.cached = None;
    }

    /// The template context, rebuilt only after a change.
    pub(crate) fn context(&mut self) -> minijinja::Value {
        if let Some(c) = &self.cached {
            return c.clone();
        }
        let v = self.root();
        self.cached = Some(v.clone());
        v
    }

    fn root(&self) -> minijinja::Value {
        use minijinja::Value as V;
        let mut root = vec![
            ("vars", self.vars_value()),
            ("env", V::from_serialize(&*self.env)),
            ("secrets", V::from_serialize(&self.secrets)),
            (
                "steps",
                self.steps
                    .iter()
                    .map(|(id, out)| (id.clone(), self.outputs(id, out)))
                    .collect(),
            ),
            ("flow", V::from_serialize(&self.flow)),
            ("run", V::from_serialize(&self.run)),
        ];
        if let Some(ws) = &self.web_server {
            root.push(("web_server", V::from_serialize(ws)));
        }
        root.into_iter().collect()
    }

    /// The vars as templates read them: each exact, if it has an exact value.
    fn vars_value(&self) -> minijinja::Value {
        if self.exact_vars.is_empty() {
            return minijinja::Value::from_serialize(&self.vars);
        }
        self.vars
            .iter()
            .map(|(k, v)| {
                let v = self
                    .exact_vars
                    .get(k)
                    .cloned()
                    .unwrap_or_else(|| minijinja::Value::from_serialize(v));
                (k.clone(), v)
            })
            .collect()
    }

    /// The outputs `out` of the step `id` as templates read them: its exact `json`, if it has one.
    fn outputs(&self, id: &str, out: &Value) -> minijinja::Value {
        let (Some(exact), Some(map)) = (self.exact_json.get(id), out.as_object()) else {
            return minijinja::Value::from_serialize(out);
        };
        map.iter()
            .map(|(k, v)| {
                let v = if k == "json" {
                    exact.clone()
                } else {
                    minijinja::Value::from_serialize(v)
                };
                (k.clone(), v)
            })
            .collect()
    }

    /// What the templates in `raw` read that is cut or made from a cut (`engine::cut`): each
    /// text evaluated again, as a condition when `condition` says so, in a context that records
    /// such reads. Empty when nothing in the scope is cut.
    pub(crate) fn cut_reads(
        &self,
        t: &crate::template::Templates,
        raw: &Value,
        condition: bool,
    ) -> Reads {
        self.cut_reads_each(t, &[raw], condition)
            .pop()
            .unwrap_or_default()
    }

    /// [`Scope::cut_reads`] of each of `raws`, in one context.
    pub(crate) fn cut_reads_each(
        &self,
        t: &crate::template::Templates,
        raws: &[&Value],
        condition: bool,
    ) -> Vec<Reads> {
        let Some((reads, vars, steps)) = self.cut.watching(&self.vars, &self.steps) else {
            return vec![Reads::new(); raws.len()];
        };
        let mut root: std::collections::BTreeMap<&str, minijinja::Value> = [
            ("vars", vars),
            ("env", minijinja::Value::from_serialize(&*self.env)),
            ("secrets", minijinja::Value::from_serialize(&self.secrets)),
            ("steps", steps),
            ("flow", minijinja::Value::from_serialize(&self.flow)),
            ("run", minijinja::Value::from_serialize(&self.run)),
        ]
        .into_iter()
        .collect();
        if let Some(ws) = &self.web_server {
            root.insert("web_server", minijinja::Value::from_serialize(ws));
        }
        let ctx = minijinja::Value::from_iter(root);
        raws.iter()
            .map(|raw| {
                super::cut::reads_of(t, raw, &ctx, condition);
                let mut reads = reads
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                std::mem::take(&mut *reads)
            })
            .collect()
    }
}

impl Scope {
    /// `steps.<id>.session_id` of the steps run so far.
    pub(crate) fn session_lookup(&self) -> impl Fn(&str) -> Option<String> + Send + Sync + use<> {
        let steps = self.steps.clone();
        move |id: &str| {
            steps
                .get(id)
                .and_then(|o| o.get("session_id"))
                .and_then(Value::as_str)
                .map(str::to_string)
        }
    }
}
