//! The checks of the steps that hold steps (`each`, `group`): what `each.in` can be, and the
//! step keys that mean nothing on them; and the vars an `each` gives the steps inside it.

use serde_json::Value;

use super::context::Ctx;
use crate::config::model::{Action, DEFAULT_AS, Step};
use crate::config::schema::{at_key, at_value};
use crate::source::Diagnostic;
use crate::template::is_template;

/// The checks of an `each` or a `group` step at `ptr`.
pub(super) fn check_holder(c: &Ctx<'_>, ptr: &str, step: &Step, out: &mut Vec<Diagnostic>) {
    let key = step.action.key();
    if let Action::Each(e) = &step.action
        && let Value::String(s) = &e.items
        && !is_template(s)
    {
        out.push(
            at_value(
                c.file,
                c.spans,
                &format!("{ptr}/each/in"),
                format!("`each.in` takes a list, not the text `{s}`"),
            )
            .with_help(
                "write a list (`in: [a, b]`), or a template that renders to one (`in: \"{{ vars.items }}\"`)",
            ),
        );
    }
    if step.retry.is_some() {
        out.push(
            at_key(
                c.file,
                c.spans,
                &format!("{ptr}/retry"),
                format!("`retry` on `{key}` would run all its steps again"),
            )
            .with_help("put `retry` on the steps inside that may need it"),
        );
    }
    if let (Action::Group(_), Some(_)) = (&step.action, &step.name) {
        out.push(
            at_key(
                c.file,
                c.spans,
                &format!("{ptr}/name"),
                "a group is named by `group.name`",
            )
            .with_help("drop the step's `name`"),
        );
    }
}

/// The vars the `each` steps around the step at `ptr` give it: each one's `as` (default
/// `item`) and `<as>_index`.
pub(super) fn loop_vars(value: &Value, ptr: &str) -> Vec<String> {
    const INSIDE: &str = "/each/steps/";
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = ptr[from..].find(INSIDE) {
        let each = &ptr[..from + i];
        let var = value
            .pointer(&format!("{each}/each/as"))
            .and_then(Value::as_str)
            .unwrap_or(DEFAULT_AS);
        out.push(var.to_string());
        out.push(format!("{var}_index"));
        from += i + INSIDE.len();
    }
    out
}

/// The vars every `each` of the flow gives the steps inside it.
pub(super) fn all_loop_vars(steps: &[(String, &Step)]) -> Vec<String> {
    steps
        .iter()
        .filter_map(|(_, s)| match &s.action {
            Action::Each(e) => Some([e.var.clone(), e.index_var()]),
            _ => None,
        })
        .flatten()
        .collect()
}

/// An unknown var that is an `each`'s item (or index), read outside that `each`: says so.
pub(super) fn outside_their_loop(loop_vars: &[String], found: &mut [Diagnostic]) {
    for d in found {
        let name = d
            .message
            .strip_prefix("unknown var `")
            .and_then(|r| r.strip_suffix('`'));
        if let Some(name) = name.filter(|n| loop_vars.iter().any(|v| v == n)) {
            d.help = Some(format!(
                "`vars.{name}` is set by an `each` only for the steps inside it"
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn the_steps_inside_an_each_have_its_vars() {
        let v = json!({"steps": [{"each": {"in": [], "as": "row", "steps": [
            {"each": {"in": [], "steps": [{"log": "x"}]}}
        ]}}]});
        assert_eq!(
            super::loop_vars(&v, "/steps/0/each/steps/0/each/steps/0"),
            ["row", "row_index", "item", "item_index"]
        );
        assert!(super::loop_vars(&v, "/steps/0").is_empty());
    }
}
