//! The string fields of a JSON schema, and which of them each string of a document fills: what
//! `template_fields_tests` walks to prove that every field is either rendered or refuses a
//! template. A field is named by the `$defs` entry it is in and its path inside it
//! (`selector_object:/text`, `browser:/headers/*`, `file:/vars/**` for anything inside an
//! open value); the file's root is `file`.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::source::pointer_push;

/// Keys that make a schema node say something about its value (a node with none takes anything).
const SHAPING: [&str; 10] = [
    "type",
    "enum",
    "const",
    "$ref",
    "oneOf",
    "anyOf",
    "allOf",
    "properties",
    "items",
    "not",
];

fn types(n: &Value) -> Vec<&str> {
    match n.get("type") {
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

fn untyped(n: &Value) -> bool {
    !SHAPING.iter().any(|k| n.get(k).is_some())
}

/// Whether a string is a valid value of `n` (before its pattern, length or format).
fn takes_string(n: &Value) -> bool {
    types(n).contains(&"string")
        || n.get("enum")
            .and_then(Value::as_array)
            .is_some_and(|e| e.iter().any(Value::is_string))
        || n.get("const").is_some_and(Value::is_string)
        || untyped(n)
}

/// Whether `n` takes containers whose contents it does not describe (`vars`, `outputs`).
fn open(n: &Value) -> bool {
    let t = types(n);
    let open_map = t.contains(&"object")
        && n.get("properties").is_none()
        && n.get("patternProperties").is_none()
        && n.get("additionalProperties")
            .is_none_or(|a| *a == Value::Bool(true));
    let open_list = t.contains(&"array") && n.get("items").is_none();
    untyped(n) || open_map || open_list
}

/// The `$defs` entry a `$ref` names.
fn def_name(r: &str) -> &str {
    r.rsplit('/').next().unwrap_or(r)
}

/// The nodes below `n` that describe parts of its value (with their paths), and the branches
/// that describe the value itself (with `rel`).
fn children<'a>(n: &'a Value, rel: &str) -> Vec<(&'a Value, String)> {
    let mut out = Vec::new();
    if let Some(p) = n.get("properties").and_then(Value::as_object) {
        out.extend(p.iter().map(|(k, v)| (v, format!("{rel}/{k}"))));
    }
    if let Some(p) = n.get("patternProperties").and_then(Value::as_object) {
        out.extend(p.values().map(|v| (v, format!("{rel}/*"))));
    }
    for k in ["additionalProperties", "items"] {
        if let Some(v) = n.get(k).filter(|v| v.is_object()) {
            out.push((v, format!("{rel}/*")));
        }
    }
    out.extend(branches(n).into_iter().map(|b| (b, rel.to_string())));
    out
}

/// The branches that describe `n`'s value further; those that only constrain it (`required`)
/// say nothing of its shape.
fn branches(n: &Value) -> Vec<&Value> {
    let mut out: Vec<&Value> = ["oneOf", "anyOf", "allOf"]
        .iter()
        .filter_map(|k| n.get(*k).and_then(Value::as_array))
        .flatten()
        .collect();
    out.extend(["then", "else"].iter().filter_map(|k| n.get(*k)));
    out.retain(|b| !untyped(b));
    out
}

/// Every string field of `schema`.
pub(crate) fn fields(schema: &Value) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut seen = BTreeSet::new();
    enumerate(schema, schema, "file", "", &mut seen, &mut out);
    out
}

fn enumerate(
    root: &Value,
    n: &Value,
    def: &str,
    rel: &str,
    seen: &mut BTreeSet<String>,
    out: &mut BTreeSet<String>,
) {
    if !n.is_object() {
        return;
    }
    if let Some(r) = n.get("$ref").and_then(Value::as_str) {
        let d = def_name(r);
        if seen.insert(d.to_string()) {
            enumerate(root, &root["$defs"][d], d, "", seen, out);
        }
        return;
    }
    if takes_string(n) {
        out.insert(format!("{def}:{rel}"));
    }
    if open(n) {
        out.insert(format!("{def}:{rel}/**"));
    }
    for (child, path) in children(n, rel) {
        enumerate(root, child, def, &path, seen, out);
    }
}

/// Every string of `doc` (a document `schema` accepts) with the field it fills: (field,
/// JSON pointer).
pub(crate) fn strings_of(schema: &Value, doc: &Value) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    walk(schema, schema, "file", "", doc, "", &mut out);
    out
}

fn walk(
    root: &Value,
    n: &Value,
    def: &str,
    rel: &str,
    v: &Value,
    ptr: &str,
    out: &mut BTreeSet<(String, String)>,
) {
    if !n.is_object() {
        return;
    }
    if let Some(r) = n.get("$ref").and_then(Value::as_str) {
        let d = def_name(r);
        walk(root, &root["$defs"][d], d, "", v, ptr, out);
        return;
    }
    match v {
        Value::String(_) if takes_string(n) => {
            out.insert((format!("{def}:{rel}"), ptr.to_string()));
        }
        Value::Array(_) | Value::Object(_) if open(n) => {
            inside(v, ptr, &format!("{def}:{rel}/**"), out);
        }
        _ => {}
    }
    if let Some(m) = v.as_object() {
        for (k, child) in m {
            let at = pointer_push(ptr, k);
            if let Some(p) = n.get("properties").and_then(|p| p.get(k)) {
                walk(root, p, def, &format!("{rel}/{k}"), child, &at, out);
                continue;
            }
            let pattern = n
                .get("patternProperties")
                .and_then(Value::as_object)
                .and_then(|pp| {
                    pp.iter()
                        .find(|(re, _)| regex::Regex::new(re).is_ok_and(|r| r.is_match(k)))
                })
                .map(|(_, s)| s);
            let extra = n.get("additionalProperties").filter(|a| a.is_object());
            if let Some(p) = pattern.or(extra) {
                walk(root, p, def, &format!("{rel}/*"), child, &at, out);
            }
        }
    }
    if let (Some(items), Some(schema)) = (v.as_array(), n.get("items")) {
        for (i, x) in items.iter().enumerate() {
            let at = pointer_push(ptr, &i.to_string());
            walk(root, schema, def, &format!("{rel}/*"), x, &at, out);
        }
    }
    for b in branches(n) {
        walk(root, b, def, rel, v, ptr, out);
    }
}

/// Every string inside an open value, as `field`.
fn inside(v: &Value, ptr: &str, field: &str, out: &mut BTreeSet<(String, String)>) {
    match v {
        Value::String(_) => {
            out.insert((field.to_string(), ptr.to_string()));
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                inside(x, &pointer_push(ptr, &i.to_string()), field, out);
            }
        }
        Value::Object(m) => {
            for (k, x) in m {
                inside(x, &pointer_push(ptr, k), field, out);
            }
        }
        _ => {}
    }
}
