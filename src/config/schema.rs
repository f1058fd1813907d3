//! The JSON Schemas (embedded from `schemas/`) and the mapping of their validation errors to
//! diagnostics that point at the offending key or value.

use std::sync::OnceLock;

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::{Draft, Validator};
use serde_json::Value;

use crate::source::did_you_mean;
use crate::source::{Diagnostic, SourceFile, SpanMap, pointer_push};

/// The text of `schemas/flow.schema.json`.
pub(crate) const FLOW_SCHEMA: &str = include_str!("../../schemas/flow.schema.json");
/// The text of `schemas/profile.schema.json`.
pub(crate) const PROFILE_SCHEMA: &str = include_str!("../../schemas/profile.schema.json");
/// The text of `schemas/config.schema.json` (the project file).
pub(crate) const CONFIG_SCHEMA: &str = include_str!("../../schemas/config.schema.json");

/// Which schema a document follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SchemaKind {
    Flow,
    Profile,
    Config,
}

struct Compiled {
    schema: Value,
    validator: Validator,
}

fn compiled(kind: SchemaKind) -> &'static Compiled {
    static FLOW: OnceLock<Compiled> = OnceLock::new();
    static PROFILE: OnceLock<Compiled> = OnceLock::new();
    static CONFIG: OnceLock<Compiled> = OnceLock::new();
    let (cell, text) = match kind {
        SchemaKind::Flow => (&FLOW, FLOW_SCHEMA),
        SchemaKind::Profile => (&PROFILE, PROFILE_SCHEMA),
        SchemaKind::Config => (&CONFIG, CONFIG_SCHEMA),
    };
    cell.get_or_init(|| {
        let schema: Value = serde_json::from_str(text).expect("the embedded schema is valid JSON");
        let validator = compile(&schema).expect("the embedded schema compiles");
        Compiled { schema, validator }
    })
}

fn compile(schema: &Value) -> Result<Validator, String> {
    jsonschema::options()
        .with_draft(Draft::Draft202012)
        .with_pattern_options(jsonschema::PatternOptions::regex())
        .build(schema)
        .map_err(|e| e.to_string())
}

/// The schema as JSON (the drift tests walk it).
#[cfg(test)]
pub(crate) fn schema_value(kind: SchemaKind) -> &'static Value {
    &compiled(kind).schema
}

/// Validates `doc` against the schema; every error becomes a diagnostic at the node it is about.
pub(crate) fn validate(
    kind: SchemaKind,
    file: &SourceFile,
    doc: &Value,
    spans: &SpanMap,
) -> Vec<Diagnostic> {
    let c = compiled(kind);
    if c.validator.is_valid(doc) {
        return Vec::new();
    }
    let mut out = Vec::new();
    collect(c, &c.validator, &c.schema, "", doc, file, spans, &mut out);
    out.sort_by_key(|d| d.span.as_ref().map(|s| s.start));
    out.dedup_by(|a, b| a.span == b.span && a.message == b.message);
    out
}

/// Validates `instance` (found at `base` in the document) with `validator` compiled from
/// `schema`, and turns each error into diagnostics.
#[allow(clippy::too_many_arguments)]
fn collect(
    c: &Compiled,
    validator: &Validator,
    schema: &Value,
    base: &str,
    instance: &Value,
    file: &SourceFile,
    spans: &SpanMap,
    out: &mut Vec<Diagnostic>,
) {
    for err in validator.iter_errors(instance) {
        let pointer = format!("{base}{}", err.instance_path().as_str());
        let at = resolve(schema, err.schema_path().as_str());
        let node = at.and_then(|(parent, _)| parent);
        let value = err.instance().as_ref();
        let name = key_name(&pointer);
        match err.kind() {
            ValidationErrorKind::AdditionalProperties { unexpected } => {
                let allowed: Vec<&str> = node
                    .and_then(|n| n.get("properties"))
                    .and_then(Value::as_object)
                    .map(|p| p.keys().map(String::as_str).collect())
                    .unwrap_or_default();
                for key in unexpected {
                    let child = pointer_push(&pointer, key);
                    let where_ = if pointer.is_empty() {
                        "at the top level".to_string()
                    } else if is_step(&pointer) {
                        "in a step".to_string()
                    } else {
                        format!("in `{name}`")
                    };
                    let mut d =
                        at_key(file, spans, &child, format!("unknown key `{key}` {where_}"));
                    d = match did_you_mean(key, allowed.iter().copied()) {
                        Some(s) => d.with_help(format!("did you mean `{s}`?")),
                        None if !allowed.is_empty() => {
                            d.with_help(format!("expected one of: {}", allowed.join(", ")))
                        }
                        None => d,
                    };
                    out.push(d);
                }
            }
            ValidationErrorKind::OneOfNotValid { .. }
            | ValidationErrorKind::OneOfMultipleValid { .. }
                if is_step(&pointer) =>
            {
                out.extend(step_action_error(file, spans, &pointer, value));
            }
            ValidationErrorKind::OneOfNotValid { .. }
            | ValidationErrorKind::OneOfMultipleValid { .. }
                if pointer == "/web_server" =>
            {
                out.push(
                    at_value(
                        file,
                        spans,
                        &pointer,
                        "`web_server` needs either `static`, or both `command` and `url`",
                    )
                    .with_help("serve a folder with `static: ./site`, or start a server with `command` and poll `url`"),
                );
            }
            ValidationErrorKind::AnyOf { .. } | ValidationErrorKind::OneOfNotValid { .. } => {
                // Narrow to the one branch of the instance's type, to point at what is wrong
                // inside it rather than at the whole value.
                let branches: Vec<&Value> = node
                    .and_then(|n| n.get("anyOf").or_else(|| n.get("oneOf")))
                    .and_then(Value::as_array)
                    .map(|b| b.iter().map(|b| deref(&c.schema, b)).collect())
                    .unwrap_or_default();
                let same_type: Vec<&Value> = branches
                    .iter()
                    .copied()
                    .filter(|b| type_fits(b, value))
                    .collect();
                if same_type.len() == 1 && (value.is_object() || value.is_array()) {
                    let mut sub = same_type[0].clone();
                    if let (Some(obj), Some(defs)) = (sub.as_object_mut(), c.schema.get("$defs")) {
                        obj.insert("$defs".into(), defs.clone());
                    }
                    if let Ok(v) = compile(&sub) {
                        let before = out.len();
                        collect(c, &v, &sub, &pointer, value, file, spans, out);
                        if out.len() > before {
                            continue;
                        }
                    }
                }
                let what = node
                    .and_then(|n| n.get("description"))
                    .and_then(Value::as_str)
                    .unwrap_or("see the schema");
                // The schema's description as a sentence about the key: "`wait` takes a
                // duration, or ...", not "expected wait: a duration".
                let what = what
                    .split_once(": ")
                    .filter(|(head, _)| head.eq_ignore_ascii_case(&name))
                    .map_or(what, |(_, rest)| rest);
                let help = if let Value::Number(n) = value
                    && DURATION_KEYS.contains(&name.as_str())
                {
                    format!("did you mean `{n}s`? durations need a unit: `250ms`, `5s`, `2m`, `1h`")
                } else if ["a ", "an ", "one ", "the "]
                    .iter()
                    .any(|a| what.to_lowercase().starts_with(a))
                {
                    format!("`{name}` takes {}", lower_first(what))
                } else {
                    format!("`{name}`: {what}")
                };
                out.push(
                    at_value(
                        file,
                        spans,
                        &pointer,
                        format!("invalid value for `{name}`: {}", describe(value)),
                    )
                    .with_help(help),
                );
            }
            ValidationErrorKind::Type { kind } => {
                let expected = match kind {
                    TypeKind::Single(t) => article(&t.to_string()),
                    TypeKind::Multiple(set) => set
                        .iter()
                        .map(|t| article(&t.to_string()))
                        .collect::<Vec<_>>()
                        .join(" or "),
                };
                let mut d = at_value(
                    file,
                    spans,
                    &pointer,
                    format!("`{name}` must be {expected}, not {}", describe(value)),
                );
                // A bare number where a duration goes: say which unit is meant.
                if let Value::Number(n) = value
                    && DURATION_KEYS.contains(&name.as_str())
                {
                    d = d.with_help(format!(
                        "did you mean `{n}s`? durations need a unit: `250ms`, `5s`, `2m`, `1h`"
                    ));
                }
                out.push(d);
            }
            ValidationErrorKind::Required { property } => {
                let prop = property.as_str().unwrap_or("?");
                let whose = if pointer.is_empty() {
                    "the flow".to_string()
                } else {
                    format!("`{name}`")
                };
                let first_key = value
                    .as_object()
                    .and_then(|m| m.keys().next())
                    .map(|k| pointer_push("", k));
                let d = if let (true, Some(first)) = (pointer.is_empty(), &first_key) {
                    // Where the key belongs: beside the mapping's first key, not at a comment
                    // on line 1.
                    at_key(
                        file,
                        spans,
                        first,
                        format!("{whose} is missing the required key `{prop}`"),
                    )
                } else if pointer.is_empty() {
                    Diagnostic::error(
                        file,
                        0..0,
                        format!("{whose} is missing the required key `{prop}`"),
                    )
                } else {
                    at_key(
                        file,
                        spans,
                        &pointer,
                        format!("{whose} is missing the required key `{prop}`"),
                    )
                };
                out.push(d.with_pointer(pointer.clone()));
            }
            ValidationErrorKind::MinItems { limit } => {
                let msg = if *limit == 1 {
                    format!("`{name}` must not be empty")
                } else {
                    format!("`{name}` needs at least {limit} items")
                };
                out.push(at_value(file, spans, &pointer, msg));
            }
            ValidationErrorKind::MaxProperties { limit } => {
                out.push(at_value(
                    file,
                    spans,
                    &pointer,
                    format!("`{name}` takes at most {limit} key(s)"),
                ));
            }
            // An object with some keys but not enough (`text: { target: h1 }`): say which
            // keys it may still take.
            ValidationErrorKind::MinProperties { .. }
                if value.as_object().is_some_and(|o| !o.is_empty()) =>
            {
                let has: Vec<&String> = value
                    .as_object()
                    .map(|o| o.keys().collect())
                    .unwrap_or_default();
                let more: Vec<String> = node
                    .and_then(|n| n.get("properties"))
                    .and_then(Value::as_object)
                    .map(|p| {
                        p.keys()
                            .filter(|k| !has.contains(k))
                            .map(|k| format!("`{k}`"))
                            .collect()
                    })
                    .unwrap_or_default();
                let has: Vec<String> = has.iter().map(|k| format!("`{k}`")).collect();
                out.push(at_value(
                    file,
                    spans,
                    &pointer,
                    format!(
                        "`{name}` needs more than {}: add {}",
                        has.join(", "),
                        if more.is_empty() {
                            "another key".to_string()
                        } else {
                            format!("one of {}", more.join(", "))
                        }
                    ),
                ));
            }
            ValidationErrorKind::MinProperties { .. } | ValidationErrorKind::MinLength { .. } => {
                out.push(at_value(
                    file,
                    spans,
                    &pointer,
                    format!("`{name}` must not be empty"),
                ));
            }
            ValidationErrorKind::Pattern { pattern } => {
                let s = value.as_str().unwrap_or_default();
                let d = if pattern.contains("(ms|s|m|h)") {
                    at_value(file, spans, &pointer, format!("invalid duration `{s}`"))
                        .with_help("write a number and a unit: `250ms`, `5s`, `2m`, `1h`")
                } else if pattern.contains("KB") {
                    at_value(file, spans, &pointer, format!("invalid size `{s}`"))
                        .with_help("write bytes or a number with a unit: `50KB`, `1MB`")
                } else if name == "id" {
                    at_value(file, spans, &pointer, format!("invalid step id `{s}`")).with_help(
                        "ids are lowercase letters, digits and `_`, not starting with a digit",
                    )
                } else {
                    at_value(
                        file,
                        spans,
                        &pointer,
                        format!("`{s}` is not a valid `{name}` (expected to match `{pattern}`)"),
                    )
                };
                out.push(d);
            }
            ValidationErrorKind::PropertyNames { error } => {
                let bad = error.instance().as_str().unwrap_or_default().to_string();
                out.push(
                    at_key(
                        file,
                        spans,
                        &pointer_push(&pointer, &bad),
                        format!("`{bad}` is not a valid name in `{name}`"),
                    )
                    .with_help("names are letters, digits and `_`, not starting with a digit"),
                );
            }
            ValidationErrorKind::Enum { options } => {
                let opts: Vec<String> = options
                    .as_array()
                    .map(|o| {
                        o.iter()
                            .map(|v| v.as_str().unwrap_or("?").to_string())
                            .collect()
                    })
                    .unwrap_or_default();
                let s = value
                    .as_str()
                    .map_or_else(|| value.to_string(), str::to_string);
                let mut d = at_value(
                    file,
                    spans,
                    &pointer,
                    format!("`{s}` is not a valid `{name}`"),
                );
                d = match did_you_mean(&s, opts.iter().map(String::as_str)) {
                    Some(m) => {
                        d.with_help(format!("did you mean `{m}`? (one of: {})", opts.join(", ")))
                    }
                    None => d.with_help(format!("expected one of: {}", opts.join(", "))),
                };
                out.push(d);
            }
            ValidationErrorKind::Constant { expected_value } => {
                out.push(at_value(
                    file,
                    spans,
                    &pointer,
                    format!("`{name}` must be {expected_value}"),
                ));
            }
            ValidationErrorKind::Minimum { limit } => {
                out.push(at_value(
                    file,
                    spans,
                    &pointer,
                    format!("`{name}` must be at least {limit}, not {value}"),
                ));
            }
            ValidationErrorKind::UniqueItems => {
                out.push(at_value(
                    file,
                    spans,
                    &pointer,
                    format!("`{name}` lists an item twice"),
                ));
            }
            _ => {
                out.push(at_value(file, spans, &pointer, err.to_string()));
            }
        }
    }
}

/// The explanation for a step that has no action key or more than one.
fn step_action_error(
    file: &SourceFile,
    spans: &SpanMap,
    pointer: &str,
    step: &Value,
) -> Vec<Diagnostic> {
    let Some(map) = step.as_object() else {
        return Vec::new();
    };
    let actions: Vec<&String> = map
        .keys()
        .filter(|k| super::model::ACTION_KEYS.contains(&k.as_str()))
        .collect();
    if actions.len() > 1 {
        let second = actions[1];
        return vec![
            at_key(
                file,
                spans,
                &pointer_push(pointer, second),
                format!(
                    "a step has one action, but this one has `{}` and `{second}`",
                    actions[0]
                ),
            )
            .with_help("split it into two steps"),
        ];
    }
    let unknown = map
        .keys()
        .any(|k| !super::model::COMMON_KEYS.contains(&k.as_str()) && !actions.contains(&k));
    if actions.is_empty() && !unknown {
        return vec![
            at_value(file, spans, pointer, "this step has no action")
                .with_help("add one action key, like `exec`, `log`, `open` or `click`"),
        ];
    }
    // An unknown key is already reported, with its own "did you mean".
    Vec::new()
}

fn is_step(pointer: &str) -> bool {
    let mut parts = pointer.rsplitn(3, '/');
    let idx = parts.next().unwrap_or("");
    let list = parts.next().unwrap_or("");
    let rest = parts.next();
    (list == "steps" || list == "finally")
        && rest == Some("")
        && !idx.is_empty()
        && idx.bytes().all(|b| b.is_ascii_digit())
}

/// Walks a schema path (`/properties/steps/items/$ref/oneOf`) to the node holding the failing
/// keyword; returns that node and the keyword.
fn resolve<'s>(root: &'s Value, path: &str) -> Option<(Option<&'s Value>, String)> {
    let mut node = root;
    let segments: Vec<String> = path
        .split('/')
        .skip(1)
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
        .collect();
    let (last, init) = segments.split_last()?;
    for seg in init {
        if seg == "$ref" {
            node = deref(root, node);
            continue;
        }
        node = match node {
            Value::Object(m) => m.get(seg)?,
            Value::Array(a) => a.get(seg.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    if last == "$ref" {
        return Some((Some(deref(root, node)), last.clone()));
    }
    Some((Some(node), last.clone()))
}

/// Follows a local `$ref` (`#/$defs/x`).
fn deref<'s>(root: &'s Value, node: &'s Value) -> &'s Value {
    let mut node = node;
    for _ in 0..8 {
        match node.get("$ref").and_then(Value::as_str) {
            Some(r) => match r.strip_prefix('#').and_then(|p| root.pointer(p)) {
                Some(n) => node = n,
                None => return node,
            },
            None => return node,
        }
    }
    node
}

fn type_fits(branch: &Value, value: &Value) -> bool {
    let actual = match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    match branch.get("type") {
        Some(Value::String(t)) => t == actual || (t == "number" && actual == "integer"),
        Some(Value::Array(ts)) => ts.iter().any(|t| t == actual),
        _ => false,
    }
}

/// The key a pointer ends with (`/steps/0/exec` -> `exec`; list items name their list).
fn key_name(pointer: &str) -> String {
    let mut parts = pointer.rsplit('/');
    let last = parts.next().unwrap_or("");
    if !last.is_empty() && last.bytes().all(|b| b.is_ascii_digit()) {
        let parent = parts.next().unwrap_or("");
        return format!("{}[{last}]", parent.replace("~1", "/").replace("~0", "~"));
    }
    last.replace("~1", "/").replace("~0", "~")
}

/// Keys whose value is a duration (a bare number there is missing its unit).
const DURATION_KEYS: &[&str] = &[
    "timeout",
    "delay",
    "max_delay",
    "ready_timeout",
    "idle_timeout",
    "wait",
];

fn describe(v: &Value) -> String {
    match v {
        Value::Null => "null (an empty value)".into(),
        Value::Bool(b) => format!("the boolean `{b}`"),
        Value::Number(n) => format!("the number `{n}`"),
        Value::String(s) if s.chars().count() > 40 => "a string".into(),
        Value::String(s) => format!("the string `{s}`"),
        Value::Array(_) => "a list".into(),
        Value::Object(_) => "a map".into(),
    }
}

fn article(t: &str) -> String {
    match t {
        "object" => "a map".into(),
        "array" => "a list".into(),
        "integer" => "an integer".into(),
        "null" => "null".into(),
        other => format!("a {other}"),
    }
}

fn lower_first(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_lowercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

/// A diagnostic at the key of the node at `pointer` (its value when it has no key).
pub(crate) fn at_key(
    file: &SourceFile,
    spans: &SpanMap,
    pointer: &str,
    message: impl Into<String>,
) -> Diagnostic {
    let span = spans
        .get(pointer)
        .map(|s| s.key.clone().unwrap_or(s.value.clone()))
        .or_else(|| spans.nearest(pointer).map(|s| s.value.clone()))
        .unwrap_or(0..0);
    Diagnostic::error(file, span, message).with_pointer(pointer)
}

/// A diagnostic at the value of the node at `pointer`.
pub(crate) fn at_value(
    file: &SourceFile,
    spans: &SpanMap,
    pointer: &str,
    message: impl Into<String>,
) -> Diagnostic {
    let span = spans
        .nearest(pointer)
        .map(|s| s.value.clone())
        .unwrap_or(0..0);
    Diagnostic::error(file, span, message).with_pointer(pointer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_pointers() {
        assert!(is_step("/steps/3"));
        assert!(is_step("/finally/0"));
        assert!(!is_step("/steps/3/exec"));
        assert!(!is_step("/x/steps/3"));
    }

    #[test]
    fn embedded_schemas_compile() {
        assert_eq!(schema_value(SchemaKind::Flow)["title"], "runner flow");
        assert_eq!(
            schema_value(SchemaKind::Profile)["title"],
            "runner agent profile"
        );
    }
}
