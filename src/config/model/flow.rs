//! The flow file as a whole: its top-level keys, the web server it starts, and the flow-level
//! rules the types alone do not enforce.

use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::Value;

use super::action::Action;
use super::browser::BrowserDefaults;
use super::exec::Command;
use super::retry::StepDefaults;
use super::step::Step;
use super::value::Scalar;

/// A whole flow file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Flow {
    /// Accepted so editors can point at the schema; not used.
    #[serde(rename = "$schema")]
    #[allow(dead_code)]
    pub(crate) schema: Option<String>,
    pub(crate) name: String,
    /// Documentation for readers of the flow; not used.
    #[allow(dead_code)]
    pub(crate) description: Option<String>,
    #[serde(default)]
    pub(crate) tags: Vec<String>,
    #[serde(default)]
    pub(crate) vars: IndexMap<String, Value>,
    #[serde(default)]
    pub(crate) secrets: Vec<String>,
    #[serde(default)]
    pub(crate) env: IndexMap<String, Scalar>,
    pub(crate) web_server: Option<WebServer>,
    pub(crate) atlas: Option<String>,
    pub(crate) browser: Option<BrowserDefaults>,
    /// The agent profile `act` steps ask when they name none (`--agent` when this is unset).
    pub(crate) agent: Option<String>,
    pub(crate) defaults: Option<StepDefaults>,
    pub(crate) steps: Vec<Step>,
    #[serde(default)]
    pub(crate) finally: Vec<Step>,
    #[serde(default)]
    pub(crate) outputs: IndexMap<String, Value>,
}

/// `web_server:`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct WebServer {
    #[serde(rename = "static")]
    pub(crate) static_dir: Option<String>,
    pub(crate) command: Option<Command>,
    pub(crate) url: Option<String>,
    pub(crate) ready_timeout: Option<String>,
}

/// Rules of the schema that serde types do not carry (empty strings and lists, patterns,
/// minimums), checked on a whole flow (the drift tests compare it with the schema).
#[cfg(test)]
pub(crate) fn check_constraints(flow: &Value) -> Result<(), String> {
    let f: Flow = serde_json::from_value(flow.clone()).map_err(|e| e.to_string())?;
    f.check()
}

impl Flow {
    /// Every step, `finally` included.
    pub(crate) fn all_steps(&self) -> impl Iterator<Item = &Step> {
        self.steps.iter().chain(&self.finally)
    }

    /// Whether the flow drives the browser (then its browser can be launched ahead).
    pub(crate) fn uses_browser(&self) -> bool {
        self.all_steps().any(|s| s.action.needs_browser())
    }

    /// Whether the flow has `link_state` steps (then the steps it runs are recorded for edges).
    pub(crate) fn records_states(&self) -> bool {
        self.all_steps()
            .any(|s| matches!(s.action, Action::LinkState(_)))
    }

    /// The flow-level rules the types alone do not enforce.
    pub(crate) fn check(&self) -> Result<(), String> {
        if self.steps.is_empty() {
            return Err("`steps` must not be empty".into());
        }
        if let Some(ws) = &self.web_server {
            let by_static = ws.static_dir.is_some();
            let by_command = ws.command.is_some() && ws.url.is_some();
            if by_static == by_command {
                return Err(
                    "`web_server` needs either `static`, or both `command` and `url`".into(),
                );
            }
        }
        if let Some(b) = &self.browser {
            b.check()?;
        }
        Ok(())
    }
}
