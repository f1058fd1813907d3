//! A flow's `matrix:`: one test per combination of its vars' values (as GitHub Actions'
//! matrix; the combinations are made in `config::matrix`).

use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::Value;

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
        let name_ok = |k: &String| super::control::is_var_name(k);
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
