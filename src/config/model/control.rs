//! The actions of the steps that hold steps: `each` (the steps once per item of a list) and
//! `group` (the steps as one named step). The steps they hold are the step's own
//! ([`Step::steps`](super::Step)), read from the action's `steps`.

use serde::Deserialize;
use serde_json::Value;

/// `each: { in, as, steps }` (its `steps` taken out): the steps once per item, the item as
/// `vars.<as>` and its position (from 0) as `vars.<as>_index`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct EachAction {
    /// A list, or a template that renders to one (checked when the step starts).
    #[serde(rename = "in")]
    pub(crate) items: Value,
    /// The var each item is: `vars.<as>`.
    #[serde(rename = "as", default = "default_as")]
    pub(crate) var: String,
}

/// `group: { name, steps }` (its `steps` taken out): steps shown and judged as one named step.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct GroupAction {
    pub(crate) name: String,
}

/// The action keys of the steps that hold steps (under their `steps`).
pub(crate) const HOLDERS: &[&str] = &["each", "group"];

/// The var an `each` item is when `as` is not given.
pub(crate) const DEFAULT_AS: &str = "item";

fn default_as() -> String {
    DEFAULT_AS.to_string()
}

/// Whether `name` can be read as `vars.<name>`: letters, digits and `_`, not starting with a
/// digit (the schema's pattern for var names).
pub(crate) fn is_var_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

impl EachAction {
    /// The var that holds the item's position: `<as>_index`.
    pub(crate) fn index_var(&self) -> String {
        format!("{}_index", self.var)
    }

    pub(crate) fn check(&self) -> Result<(), String> {
        if !is_var_name(&self.var) {
            return Err(format!(
                "`each.as` must be a var name (letters, digits and `_`), not `{}`",
                self.var
            ));
        }
        if !(self.items.is_array() || self.items.is_string()) {
            return Err("`each.in` takes a list, or a template that renders to one".into());
        }
        Ok(())
    }
}

impl GroupAction {
    pub(crate) fn check(&self) -> Result<(), String> {
        if self.name.is_empty() {
            return Err("empty `group.name`".into());
        }
        Ok(())
    }
}

impl EachAction {
    /// What an `each` reads as: `item in vars.items` (a single template's expression), or the
    /// list as written.
    pub(crate) fn label(&self) -> String {
        let items = match &self.items {
            Value::String(s) => {
                let t = s.trim();
                t.strip_prefix("{{")
                    .and_then(|r| r.strip_suffix("}}"))
                    .filter(|inner| !inner.contains("{{") && !inner.contains("}}"))
                    .map_or(t, str::trim)
                    .to_string()
            }
            Value::Array(a) => {
                let words: Vec<String> = a
                    .iter()
                    .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
                    .collect();
                format!("[{}]", words.join(", "))
            }
            other => other.to_string(),
        };
        format!("{} in {items}", self.var)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn var_names() {
        assert!(is_var_name("item"));
        assert!(is_var_name("_x1"));
        assert!(!is_var_name(""));
        assert!(!is_var_name("1x"));
        assert!(!is_var_name("a-b"));
    }

    #[test]
    fn an_each_reads_as_its_var_and_its_list() {
        let each = |v: serde_json::Value| -> EachAction { serde_json::from_value(v).unwrap() };
        let e = each(serde_json::json!({"in": "{{ vars.items }}"}));
        assert_eq!(e.label(), "item in vars.items");
        let e = each(serde_json::json!({"in": [1, "a"], "as": "n"}));
        assert_eq!(e.label(), "n in [1, a]");
    }
}
