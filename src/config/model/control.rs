//! The steps that hold steps: `each` (its steps once per item of a list) and `group` (its steps
//! as one named step), and the walk over a list of steps that goes inside them.

use serde::Deserialize;
use serde_json::Value;

use super::action::Action;
use super::step::Step;

/// `each: { in, as, steps }`: the steps once per item, the item as `vars.<as>` and its
/// position (from 0) as `vars.<as>_index`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct EachAction {
    /// A list, or a template that renders to one (checked when the step starts).
    #[serde(rename = "in")]
    pub(crate) items: Value,
    /// The var each item is: `vars.<as>`.
    #[serde(rename = "as", default = "default_as")]
    pub(crate) var: String,
    pub(crate) steps: Vec<Step>,
}

/// `group: { name, steps }`: steps shown and judged as one named step.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct GroupAction {
    pub(crate) name: String,
    pub(crate) steps: Vec<Step>,
}

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
        if self.steps.is_empty() {
            return Err("`each.steps` must not be empty".into());
        }
        Ok(())
    }
}

impl GroupAction {
    pub(crate) fn check(&self) -> Result<(), String> {
        if self.name.is_empty() {
            return Err("empty `group.name`".into());
        }
        if self.steps.is_empty() {
            return Err("`group.steps` must not be empty".into());
        }
        Ok(())
    }
}

impl Action {
    /// The steps this step holds (`each`, `group`) and the key they are under, below the
    /// action's key.
    pub(crate) fn inner_steps(&self) -> Option<&[Step]> {
        match self {
            Action::Each(e) => Some(&e.steps),
            Action::Group(g) => Some(&g.steps),
            _ => None,
        }
    }

    /// A `group`'s name (its label).
    pub(crate) fn group_name(&self) -> Option<&str> {
        match self {
            Action::Group(g) => Some(&g.name),
            _ => None,
        }
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

/// Every step of `steps` and every step inside them, in the order they run (a step before the
/// steps it holds), each with its JSON pointer: `{base}/{i}`, and inside an `each` at
/// `{base}/{i}/each/steps/{j}`.
pub(crate) fn walk_steps<'a>(steps: &'a [Step], base: &str, out: &mut Vec<(String, &'a Step)>) {
    for (i, step) in steps.iter().enumerate() {
        let ptr = format!("{base}/{i}");
        if let Some(inner) = step.action.inner_steps() {
            let below = format!("{ptr}/{}/steps", step.action.key());
            out.push((ptr, step));
            walk_steps(inner, &below, out);
        } else {
            out.push((ptr, step));
        }
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
        let e = each(serde_json::json!({"in": "{{ vars.items }}", "steps": []}));
        assert_eq!(e.label(), "item in vars.items");
        let e = each(serde_json::json!({"in": [1, "a"], "as": "n", "steps": []}));
        assert_eq!(e.label(), "n in [1, a]");
    }

    #[test]
    fn the_walk_goes_inside_each_and_group() {
        let steps: Vec<Step> = serde_json::from_value(serde_json::json!([
            {"log": "a"},
            {"group": {"name": "g", "steps": [
                {"each": {"in": [1, 2], "steps": [{"log": "b"}]}},
                {"log": "c"}
            ]}}
        ]))
        .unwrap();
        let mut out = Vec::new();
        walk_steps(&steps, "/steps", &mut out);
        let ptrs: Vec<&str> = out.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(
            ptrs,
            [
                "/steps/0",
                "/steps/1",
                "/steps/1/group/steps/0",
                "/steps/1/group/steps/0/each/steps/0",
                "/steps/1/group/steps/1",
            ]
        );
    }
}
