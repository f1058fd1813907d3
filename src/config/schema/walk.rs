//! Finding one's way in a schema and a document: the schema node of an error's schema path,
//! local `$ref`s, which branch a value's type fits, and whether a pointer is a step.

use serde_json::Value;

/// Whether `pointer` is a step: `/steps/N` or `/finally/N`, or a step inside an `each` or a
/// `group` step (`/steps/N/each/steps/M`).
pub(super) fn is_step(pointer: &str) -> bool {
    let mut parts = pointer.rsplitn(3, '/');
    let idx = parts.next().unwrap_or("");
    let list = parts.next().unwrap_or("");
    let rest = parts.next();
    let index = !idx.is_empty() && idx.bytes().all(|b| b.is_ascii_digit());
    let holder = |rest: &str| {
        ["each", "group"].iter().any(|k| {
            rest.strip_suffix(k)
                .and_then(|r| r.strip_suffix('/'))
                .is_some_and(is_step)
        })
    };
    index
        && match (list, rest) {
            ("steps" | "finally", Some("")) => true,
            ("steps", Some(rest)) => holder(rest),
            _ => false,
        }
}

/// Walks a schema path (`/properties/steps/items/$ref/oneOf`) to the node holding the failing
/// keyword; returns that node and the keyword.
pub(super) fn resolve<'s>(root: &'s Value, path: &str) -> Option<(Option<&'s Value>, String)> {
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
pub(super) fn deref<'s>(root: &'s Value, node: &'s Value) -> &'s Value {
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

/// The JSON Schema type a value is (`integer` for a whole number).
pub(super) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

pub(super) fn type_fits(branch: &Value, value: &Value) -> bool {
    let actual = type_name(value);
    match branch.get("type") {
        Some(Value::String(t)) => t == actual || (t == "number" && actual == "integer"),
        Some(Value::Array(ts)) => ts.iter().any(|t| t == actual),
        _ => false,
    }
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
        assert!(is_step("/steps/3/each/steps/0"));
        assert!(is_step("/finally/0/group/steps/1/each/steps/2"));
        assert!(!is_step("/steps/3/exec/steps/0"));
        assert!(!is_step("/steps/3/each/steps"));
    }
}
