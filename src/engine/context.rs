//! The data templates see (SPEC §3.4) for one flow run, and its conversion to a minijinja value.

use std::sync::Arc;

use serde_json::{Map, Value, json};

/// The scope of one flow (a sub-flow has its own).
#[derive(Debug, Clone)]
pub struct Scope {
    pub vars: Map<String, Value>,
    pub steps: Map<String, Value>,
    pub env: Arc<Map<String, Value>>,
    pub secrets: Map<String, Value>,
    pub flow: Value,
    pub run: Value,
    pub web_server: Option<Value>,
    /// Steps run since the last `link_state` (templates rendered, secrets as references): the
    /// next edge's flow.
    pub trail: Vec<Value>,
    /// The node of the last `link_state`.
    pub last_state: Option<String>,
    cached: Option<minijinja::Value>,
}

impl Scope {
    /// A scope with no vars or step outputs yet.
    pub fn new(env: Arc<Map<String, Value>>, flow: Value, run: Value) -> Scope {
        Scope {
            vars: Map::new(),
            steps: Map::new(),
            env,
            secrets: Map::new(),
            flow,
            run,
            web_server: None,
            trail: Vec::new(),
            last_state: None,
            cached: None,
        }
    }

    /// Sets a var.
    pub fn set_var(&mut self, name: String, value: Value) {
        self.vars.insert(name, value);
        self.cached = None;
    }

    /// Records a step's outputs under `steps.<id>`.
    pub fn set_outputs(&mut self, id: String, outputs: Value) {
        self.steps.insert(id, outputs);
        self.cached = None;
    }

    /// Sets a secret.
    pub fn set_secret(&mut self, name: String, value: String) {
        self.secrets.insert(name, Value::String(value));
        self.cached = None;
    }

    /// The context with every secret replaced by its own reference (`{{ secrets.X }}`): what
    /// recorded steps are rendered with, so secret values never reach the atlas.
    pub fn context_with_secret_refs(&self) -> minijinja::Value {
        let mut s = self.clone();
        for (k, v) in s.secrets.iter_mut() {
            *v = Value::String(format!("{{{{ secrets.{k} }}}}"));
        }
        s.cached = None;
        s.context()
    }

    /// The template context, rebuilt only after a change.
    pub fn context(&mut self) -> minijinja::Value {
        if let Some(c) = &self.cached {
            return c.clone();
        }
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
        let v = minijinja::Value::from_serialize(&root);
        self.cached = Some(v.clone());
        v
    }
}

/// The process environment as a JSON map.
pub fn process_env() -> Map<String, Value> {
    std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, Value::String(v.into_string().ok()?))))
        .collect()
}
