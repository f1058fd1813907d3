//! A suite file (`flows:`, with the keys its flows share and `before_each` / `after_each`),
//! and the check of a file as a whole: one flow, or a suite.

use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::Value;

use super::browser::BrowserDefaults;
use super::flow::{Flow, WebServer};
use super::retry::StepDefaults;
use super::step::Step;
use super::value::Scalar;

/// A file that holds several flows: the keys its flows share (defaults each flow may override
/// or extend), the steps around each flow, and the flows. Its tests are made from the document
/// (`config::suite`), so most fields are only checked here, never read.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
pub(crate) struct Suite {
    /// Accepted so editors can point at the schema; not used.
    #[serde(rename = "$schema")]
    pub(crate) schema: Option<String>,
    /// The suite's title: the first part of each of its tests' names.
    pub(crate) name: Option<String>,
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
    pub(crate) agent: Option<String>,
    pub(crate) defaults: Option<StepDefaults>,
    /// Run before each flow's steps, as its first steps.
    #[serde(default)]
    pub(crate) before_each: Vec<Step>,
    /// Run after each flow, whether it passed or not, after its own `finally`.
    #[serde(default)]
    pub(crate) after_each: Vec<Step>,
    pub(crate) flows: Vec<Flow>,
}

/// Whether a file's value is a flow file the typed model accepts: a suite when it has
/// `flows`, else one flow; with the rules the types alone do not enforce. (The tests are made
/// from the document, see `config::suite`; this is the model the drift tests hold against the
/// schema.)
pub(crate) fn check_file(v: &Value) -> Result<(), String> {
    if v.get("flows").is_some() {
        let s: Suite = serde_json::from_value(v.clone()).map_err(|e| e.to_string())?;
        s.check()
    } else {
        let f: Flow = serde_json::from_value(v.clone()).map_err(|e| e.to_string())?;
        f.check()
    }
}

impl Suite {
    /// The rules the types alone do not enforce: those of each flow, and of the shared keys.
    pub(crate) fn check(&self) -> Result<(), String> {
        if self.flows.is_empty() {
            return Err("`flows` must not be empty".into());
        }
        if self.name.as_deref() == Some("") {
            return Err("`name` must not be empty".into());
        }
        if let Some(ws) = &self.web_server {
            ws.check()?;
        }
        if let Some(b) = &self.browser {
            b.check()?;
        }
        self.flows.iter().try_for_each(Flow::check)
    }
}

/// Rules of the schema that serde types do not carry (empty strings and lists, patterns,
/// minimums), checked on a whole flow (the drift tests compare it with the schema).
#[cfg(test)]
pub(crate) fn check_constraints(flow: &Value) -> Result<(), String> {
    check_file(flow)
}
