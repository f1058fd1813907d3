//! The type of a var given to runner (`--var`, a var file): a `--var` or `.env` value is text,
//! and a var whose value in a flow (or in runner.toml's `[vars]`) is a boolean, a number, a list
//! or a map takes that type from it (a list or a map given as JSON). Without this, `--var SKIP_CHECKS=false` is the text `"false"` (so `not
//! vars.SKIP_CHECKS` is false) and `--var MAX_MS=100` is a text compared with numbers: an
//! override would turn a flow's meaning around without a word. A value that does not read as
//! the type is refused.

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::flows::LoadedFlow;
use crate::source::Diagnostic;

/// The value `given` (a var given to runner) takes when the var is `declared` so: a text made a
/// boolean or a number when `declared` is one, anything else as it is; an error saying what
/// was wanted when the text does not read as it.
pub(crate) fn typed(given: &Value, declared: &Value) -> Result<Value, String> {
    let Value::String(text) = given else {
        return Ok(given.clone());
    };
    let t = text.trim();
    match declared {
        Value::Bool(_) => match t {
            "true" | "True" | "TRUE" => Ok(Value::Bool(true)),
            "false" | "False" | "FALSE" => Ok(Value::Bool(false)),
            _ => Err("a boolean: give `true` or `false`".to_string()),
        },
        // The reading templates use to refuse ordering two texts that hold numbers.
        Value::Number(_) => crate::template::read_number(t)
            .ok_or_else(|| "a number: give digits (`100`, `2.5`)".to_string()),
        // A list or a map is given as JSON; a text that is not one would be taken as a text
        // (`admin,editor`: its `length` 12, `in` a substring test).
        Value::Array(_) => match serde_json::from_str::<Value>(t) {
            Ok(v @ Value::Array(_)) => Ok(v),
            _ => Err("a list: give it as JSON (`[\"a\", \"b\"]`)".to_string()),
        },
        Value::Object(_) => match serde_json::from_str::<Value>(t) {
            Ok(v @ Value::Object(_)) => Ok(v),
            _ => Err("a map: give it as JSON (`{\"key\": \"value\"}`)".to_string()),
        },
        _ => Ok(given.clone()),
    }
}

/// The declaration that types the override of `k` in `flow`: its own (`vars:`), else
/// runner.toml's `[vars]` (`project`), which every flow has. The one rule of the check before
/// the run ([`type_overrides`]) and of the flow's start ([`for_flow`]).
pub(crate) fn declared<'a>(
    flow: &'a crate::config::model::Flow,
    project: &'a Map<String, Value>,
    k: &str,
) -> Option<&'a Value> {
    flow.vars.get(k).or_else(|| project.get(k))
}

/// The value an override `given` has in a flow whose declaration of the var is `declared`
/// ([`declared`]): [`typed`] by it when it is a boolean or a number, else as given. Each flow and
/// sub-flow gets its own: the type is never another flow's. A text that does not read as the
/// type is an error saying what was wanted ([`type_overrides`] refuses it before the run; a
/// flow reached without that check fails rather than run with the text).
pub(crate) fn for_flow(given: &Value, declared: Option<&Value>) -> Result<Value, String> {
    match declared.filter(|d| typed_kind(d)) {
        Some(d) => typed(given, d),
        None => Ok(given.clone()),
    }
}

/// Where the override of `k` comes from, as a message names it: `--var k`, or the var file
/// that gives it (the last, as the last wins).
pub(crate) fn origin(k: &str, vars: &[String], files: &[PathBuf]) -> String {
    let on_line = vars
        .iter()
        .any(|v| v.split_once('=').is_some_and(|(n, _)| n.trim() == k));
    if on_line {
        return format!("--var {k}");
    }
    files
        .iter()
        .rev()
        .find(|f| super::var_file::read(f).is_ok_and(|m| m.contains_key(k)))
        .map_or_else(
            || format!("--var {k}"),
            |f| format!("`{k}` of the var file {}", f.display()),
        )
}

/// Checks that each override reads as the type each flow of the run (a sub-flow at any depth
/// too, as the override reaches it) gets it in ([`declared`]: its own declaration, else
/// runner.toml's `project`) when that is a boolean or a number ([`typed`]; each flow gets it
/// so: [`for_flow`]), and that no flow reads one it does not declare that reads as a boolean
/// or a number where the type matters ([`undeclared_reads`]): each is an error.
pub(crate) fn type_overrides(
    overrides: &Map<String, Value>,
    flows: &[Arc<LoadedFlow>],
    project: &Map<String, Value>,
    vars: &[String],
    files: &[PathBuf],
) -> Result<(), Vec<Diagnostic>> {
    let all = every_flow(flows);
    let mut errors = undeclared_reads(overrides, &all, project, vars, files);
    for (k, given) in overrides {
        // Each flow's type ([`declared`]): its own, else runner.toml's.
        let mut types: Vec<(&Value, String)> = all
            .iter()
            .filter_map(|f| {
                let v = declared(&f.flow, project, k).filter(|v| typed_kind(v))?;
                let who = if f.flow.vars.contains_key(k.as_str()) {
                    format!("the flow `{}` ({})", f.flow.name, f.doc.file.name())
                } else {
                    "runner.toml's `[vars]`".to_string()
                };
                Some((v, who))
            })
            .collect();
        if all.is_empty()
            && let Some(v) = project.get(k.as_str()).filter(|v| typed_kind(v))
        {
            types.push((v, "runner.toml's `[vars]`".to_string()));
        }
        // The first type it does not read as is said (once per var).
        let wrong = types
            .iter()
            .find_map(|(d, who)| typed(given, d).err().map(|wanted| (d, who, wanted)));
        if let Some((declared, who, wanted)) = wrong {
            errors.push(
                Diagnostic::file_error(
                    origin(k, vars, files),
                    // (Not the value given: it may be a secret, or hold one.)
                    format!(
                        "the value given is not {wanted}: {who} gives `{k}` the value {declared}"
                    ),
                )
                .with_help(
                    "a var given to runner takes the type of the var it overrides (a boolean or a number), in every flow and sub-flow that declares it",
                ),
            );
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// An override is typed by the flow that reads it (a sub-flow by its own declaration): one
/// that a flow reads without declaring it (nor runner.toml's `[vars]`, nor a `set` step of the
/// flow) stays the text given, whatever other flows the run loads. When that text reads as a
/// boolean or a number (`false`, `3`), the flow would read `"false"` where `false` was meant
/// (`not vars.SKIP` is false): each such read is refused, at its place, where the type matters
/// (not a tag that only prints the var into a text: [`super::reads::typed_vars_read`]). So is a
/// read of `vars` there that names no var (`vars['SK' ~ 'IP']`, `vars | attr(name)`,
/// `vars.items()`): it may read it, and no check before the run can tell.
fn undeclared_reads(
    overrides: &Map<String, Value>,
    all: &[&LoadedFlow],
    project: &Map<String, Value>,
    vars: &[String],
    files: &[PathBuf],
) -> Vec<Diagnostic> {
    let looks: Vec<(&String, &str, &str)> = overrides
        .iter()
        .filter(|(k, _)| !project.get(k.as_str()).is_some_and(typed_kind))
        .filter_map(|(k, v)| {
            let v = v.as_str()?;
            if typed(&Value::from(v), &Value::Bool(false)).is_ok() {
                Some((k, "a boolean", "false"))
            } else if typed(&Value::from(v), &Value::from(0)).is_ok() {
                Some((k, "a number", "0"))
            } else {
                None
            }
        })
        .collect();
    let mut out = Vec::new();
    if looks.is_empty() {
        return out;
    }
    let t = crate::template::Templates::new();
    for f in all {
        // (Not a read that only prints the var into a text: the text is the same, typed or not.)
        let reads = super::reads::typed_vars_read(&t, f);
        for (k, kind, example) in &looks {
            let own = f.flow.vars.contains_key(k.as_str())
                || f.matrix.contains_key(k.as_str())
                || sets(f, k);
            // A read of `vars` that names no var (`vars['SK' ~ 'IP']`, `vars.items()`) may be
            // one of `k`: what it reads cannot be told before the run.
            let read = reads.iter().find(|(r, _)| r == *k);
            let read = read.or_else(|| reads.iter().find(|(r, _)| r == "*"));
            let Some((r, span)) = read.filter(|_| !own) else {
                continue;
            };
            // (The tests of a suite or a matrix share their file's reads: each said once.)
            let name = f.doc.file.name();
            if out.iter().any(|d: &Diagnostic| {
                d.file_name == name
                    && d.span.as_ref() == Some(span)
                    && d.message.contains(&format!("`{k}`"))
            }) {
                continue;
            }
            let how = if r == "*" {
                format!(
                    ", and the template here reads `vars` without naming a var (a computed key or `attr`, the whole map), so it may read `{k}`"
                )
            } else {
                String::new()
            };
            out.push(
                Diagnostic::error(
                    &f.doc.file,
                    span.clone(),
                    format!(
                        "`{k}` reaches {name} undeclared and reads as {kind}{how}: declare it under `vars:` (e.g. `{k}: {example}`) to give it a type",
                    ),
                )
                .with_help(format!(
                    "{} is text in a flow that does not declare `{k}`, whatever other flows the run loads; a flow that declares it a boolean or a number gets it so",
                    origin(k, vars, files)
                )),
            );
        }
    }
    out
}

/// Whether a `set` step of `f` gives the var `k` a value.
fn sets(f: &LoadedFlow, k: &str) -> bool {
    f.flow
        .pointed_steps()
        .iter()
        .any(|(_, step)| matches!(&step.action, super::model::Action::Set(m) if m.contains_key(k)))
}

/// `flows` and the sub-flows they run, at any depth, each once.
pub(crate) fn every_flow(flows: &[Arc<LoadedFlow>]) -> Vec<&LoadedFlow> {
    fn add<'a>(f: &'a LoadedFlow, out: &mut Vec<&'a LoadedFlow>) {
        if out.iter().any(|o| std::ptr::eq(*o, f)) {
            return;
        }
        out.push(f);
        let mut subs: Vec<&Arc<LoadedFlow>> = f.subflows.values().collect();
        subs.sort_by(|a, b| a.path.cmp(&b.path));
        for s in subs {
            add(s, out);
        }
    }
    let mut out = Vec::new();
    for f in flows {
        add(f, &mut out);
    }
    out
}

fn typed_kind(v: &Value) -> bool {
    matches!(
        v,
        Value::Bool(_) | Value::Number(_) | Value::Array(_) | Value::Object(_)
    )
}

#[cfg(test)]
mod tests {
    use super::typed;
    use serde_json::json;

    #[test]
    fn a_text_takes_the_type_of_the_var_it_overrides() {
        assert_eq!(typed(&json!("false"), &json!(true)), Ok(json!(false)));
        assert_eq!(typed(&json!(" True "), &json!(false)), Ok(json!(true)));
        assert_eq!(typed(&json!("100"), &json!(500)), Ok(json!(100)));
        assert_eq!(typed(&json!("2.5"), &json!(1)), Ok(json!(2.5)));
        assert_eq!(typed(&json!("x"), &json!("y")), Ok(json!("x")));
        assert!(typed(&json!("no"), &json!(true)).is_err());
        assert!(typed(&json!("12abc"), &json!(1)).is_err());
        assert!(typed(&json!("inf"), &json!(1)).is_err());
        assert!(typed(&json!(""), &json!(1)).is_err());
    }
}
