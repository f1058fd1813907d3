//! A suite file (`flows:`, with the keys its flows share and `before_each` / `after_each`),
//! a flow's `matrix:`, and the check of a file as a whole: one flow, or a suite.

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

/// `matrix:` — one test per combination of the values of its keys (as GitHub Actions' matrix).
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Matrix {
    /// Combinations to extend, or to add (GitHub Actions' `include`).
    pub(crate) include: Option<Vec<IndexMap<String, Value>>>,
    /// Combinations to leave out: those with all of an entry's values.
    pub(crate) exclude: Option<Vec<IndexMap<String, Value>>>,
    /// Each var and its values.
    #[serde(flatten)]
    pub(crate) axes: IndexMap<String, Vec<Value>>,
}

impl Matrix {
    /// The rules the types alone do not enforce.
    pub(crate) fn check(&self) -> Result<(), String> {
        if self.axes.is_empty() && self.include.is_none() && self.exclude.is_none() {
            return Err("`matrix` must not be empty".into());
        }
        if let Some((k, _)) = self.axes.iter().find(|(_, v)| v.is_empty()) {
            return Err(format!("`matrix.{k}` must not be empty"));
        }
        let name_ok = |k: &String| {
            let mut b = k.bytes();
            b.next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
                && b.all(|c| c.is_ascii_alphanumeric() || c == b'_')
        };
        let entries = self.include.iter().chain(&self.exclude).flatten();
        if !self.axes.keys().all(name_ok)
            || entries
                .clone()
                .any(|e| e.is_empty() || !e.keys().all(name_ok))
        {
            return Err("a `matrix` key must be a var's name".into());
        }
        Ok(())
    }
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
