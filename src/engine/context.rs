//! The data templates see (docs/flows.md, "Vars and templates") for one flow run, and its
//! conversion to a minijinja value.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{Map, Value, json};

use crate::atlas::Trail;

/// The outputs of a step that are its cut text when it says `truncated: true` (an agent's `result`; an `exec` does
/// not say which of its two streams was cut: both count).
const CUT_FIELDS: &[&str] = &["stdout", "stderr", "body", "json", "result"];

/// A cut step's outputs as a template sees them: a read of one of its cut texts is recorded.
#[derive(Debug)]
struct CutOutputs {
    out: Map<String, Value>,
    read: Arc<AtomicBool>,
}

impl minijinja::value::Object for CutOutputs {
    fn get_value(self: &Arc<Self>, key: &minijinja::Value) -> Option<minijinja::Value> {
        let key = key.as_str()?;
        if CUT_FIELDS.contains(&key) {
            self.read.store(true, Ordering::Relaxed);
        }
        self.out.get(key).map(minijinja::Value::from_serialize)
    }

    fn enumerate(self: &Arc<Self>) -> minijinja::value::Enumerator {
        let keys = self.out.keys().map(|k| minijinja::Value::from(k.as_str()));
        minijinja::value::Enumerator::Values(keys.collect())
    }
}

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
            cached: None,
        }
    }

    /// Sets a var.
    pub(crate) fn set_var(&mut self, name: String, value: Value) {
        self.vars.insert(name, value);
        self.cached = None;
    }

    /// Sets a var back to what it was: `None` removes it.
    pub(crate) fn restore_var(&mut self, name: String, value: Option<Value>) {
        match value {
            Some(v) => {
                self.vars.insert(name, v);
            }
            None => {
                self.vars.remove(&name);
            }
        }
        self.cached = None;
    }

    /// Records a step's outputs under `steps.<id>`.
    pub(crate) fn set_outputs(&mut self, id: String, outputs: Value) {
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
        let mut root = json!({
            "vars": self.vars,
            "env": &*self.env,
            "secrets": self.secrets,
            "steps": self.steps,
            "flow": self.flow,
            "run": self.run,
        });
        if let (Some(ws), Some(obj)) = (&self.web_server, root.as_object_mut()) {
            obj.insert("web_server".into(), ws.clone());
        }
        minijinja::Value::from_serialize(&root)
    }

    /// The ids of the steps whose output runner cut (`truncated: true`: an `exec`'s stdout or
    /// stderr past 1 MiB, a `request`'s body past what it keeps), with the context in which
    /// their outputs record a read of their cut texts (`stdout`, `stderr`, `body`, `json`) in
    /// the flag returned. `None` when no step's output was cut.
    pub(crate) fn watching_cut_outputs(
        &self,
    ) -> Option<(Vec<String>, Arc<AtomicBool>, minijinja::Value)> {
        let read = Arc::new(AtomicBool::new(false));
        let mut cut = Vec::new();
        let steps = self.steps.iter().map(|(id, out)| {
            let value = match out.as_object() {
                Some(map) if map.get("truncated") == Some(&Value::Bool(true)) => {
                    cut.push(id.clone());
                    minijinja::Value::from_object(CutOutputs {
                        out: map.clone(),
                        read: read.clone(),
                    })
                }
                _ => minijinja::Value::from_serialize(out),
            };
            (id.clone(), value)
        });
        let steps: std::collections::BTreeMap<String, minijinja::Value> = steps.collect();
        if cut.is_empty() {
            return None;
        }
        let mut root: std::collections::BTreeMap<&str, minijinja::Value> = [
            ("vars", minijinja::Value::from_serialize(&self.vars)),
            ("env", minijinja::Value::from_serialize(&*self.env)),
            ("secrets", minijinja::Value::from_serialize(&self.secrets)),
            ("steps", minijinja::Value::from_iter(steps)),
            ("flow", minijinja::Value::from_serialize(&self.flow)),
            ("run", minijinja::Value::from_serialize(&self.run)),
        ]
        .into_iter()
        .collect();
        if let Some(ws) = &self.web_server {
            root.insert("web_server", minijinja::Value::from_serialize(ws));
        }
        Some((cut, read, minijinja::Value::from_iter(root)))
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
