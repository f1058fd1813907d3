//! Finding one's way in a schema and a document: the schema node of an error's schema path,
//! local `$ref`s, which branch a value's type fits, and whether a pointer is a step.

use serde_json::Value;

/// Whether `pointer` is a step: `/steps/N` or `/finally/N`, in a suite `/before_each/N`,
/// `/after_each/N`, `/flows/N/steps/M` or `/flows/N/finally/M`, or a step inside an `each` or a
/// `group` step (`/steps/N/each/steps/M`).
pub(super) fn is_step(pointer: &str) -> bool {
    let index = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let parts: Vec<&str> = pointer.split('/').collect();
    match parts.as_slice() {
        ["", "steps" | "finally" | "before_each" | "after_each", i] => index(i),
        ["", "flows", f, "steps" | "finally", i] => index(f) && index(i),
        [init @ .., "each" | "group", "steps", i] if index(i) => is_step(&init.join("/")),
        _ => false,
    }
}

/// Whether `pointer` is a `web_server`: a flow's (`/web_server`, a suite flow's
/// `/flows/N/web_server`) or one of the project file's (`/web_server/N`).
pub(super) fn is_web_server(pointer: &str) -> bool {
    let index = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let parts: Vec<&str> = pointer.split('/').collect();
    match parts.as_slice() {
        ["", "web_server"] => true,
        ["", "web_server", i] | ["", "flows", i, "web_server"] => index(i),
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

/// The one branch of an `anyOf`/`oneOf` node that `value` is meant for: among the branches of
/// its type (the `anyOf`s of branches opened too: a pointer action's target is a selector, and
/// a selector one of several forms), the one that names the most of its keys when it is a map.
pub(super) fn branch_for<'s>(root: &'s Value, node: &'s Value, value: &Value) -> Option<&'s Value> {
    let mut found = Vec::new();
    branches(root, node, 0, &mut found);
    found.retain(|b| type_fits(b, value));
    if let (true, Some(map)) = (found.len() > 1, value.as_object()) {
        let known = |b: &Value| {
            let props = b.get("properties").and_then(Value::as_object);
            map.keys()
                .filter(|k| props.is_some_and(|p| p.contains_key(*k)))
                .count()
        };
        let best = found.iter().map(|b| known(b)).max().unwrap_or(0);
        found.retain(|b| known(b) == best);
    }
    (found.len() == 1).then(|| found[0])
}

/// The branches of an `anyOf`/`oneOf` node, `$ref`s followed and untyped `anyOf`s opened (a few
/// levels deep).
fn branches<'s>(root: &'s Value, node: &'s Value, depth: usize, out: &mut Vec<&'s Value>) {
    let Some(list) = node
        .get("anyOf")
        .or_else(|| node.get("oneOf"))
        .and_then(Value::as_array)
    else {
        return;
    };
    for b in list {
        let b = deref(root, b);
        let nested = b.get("anyOf").is_some() || b.get("oneOf").is_some();
        if b.get("type").is_none() && nested && depth < 4 {
            branches(root, b, depth + 1, out);
        } else {
            out.push(b);
        }
    }
}

fn type_fits(branch: &Value, value: &Value) -> bool {
    let actual = type_name(value);
    match branch.get("type") {
        // A float fits an integer branch, for the branch to say it must be a whole number.
        Some(Value::String(t)) => {
            t == actual
                || (t == "number" && actual == "integer")
                || (t == "integer" && actual == "number")
        }
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
        assert!(is_step("/before_each/0"));
        assert!(is_step("/flows/2/steps/0"));
        assert!(is_step("/flows/2/finally/1"));
        assert!(!is_step("/flows/x/steps/0"));
        assert!(!is_step("/flows/2/steps/0/exec"));
        assert!(is_web_server("/flows/1/web_server"));
        assert!(is_web_server("/web_server/0"));
        assert!(is_step("/flows/2/steps/0/group/steps/1"));
        assert!(!is_web_server("/vars/web_server"));
    }
}
