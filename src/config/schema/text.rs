//! Which kinds of value the flow schema takes at a place inside a step's action: a template
//! that renders to a number or a boolean where only text is taken (`exec: [app, --port,
//! "{{ port }}"]`) becomes that text, in every field at once, rather than each field's type
//! accepting numbers on its own; and where it refuses an empty value, which a template that
//! renders to one must not slip past.

use serde_json::Value;

use super::embedded::{SchemaKind, compiled};
use super::walk::{deref, type_name};

/// Whether the flow schema, at `path` (a JSON pointer below a step's action key `key`), takes
/// text but not a value of `value`'s kind (a number, a boolean): then a template that rendered
/// to `value` stands for its text. `false` where the schema takes the value as it is, or where
/// the place is unknown.
pub(crate) fn wants_text(key: &str, path: &str, value: &Value) -> bool {
    let Some(leaves) = leaves(key, path) else {
        return false;
    };
    let takes = |kind: &str| leaves.iter().any(|n| accepts(n, kind));
    let kind = match value {
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        _ => return false,
    };
    takes("string") && !takes(kind)
}

/// The schema's patterns for text that must hold more than whitespace (`wait: { text }`, `js`,
/// a class): `validate` says "must not be blank".
pub(crate) const NOT_BLANK: [&str; 2] = ["\\S", "[^\\s\\u200b\\u00ad\\ufeff]"];

/// Whether the flow schema, at `path` below a step's action key `key`, refuses `value` for being
/// empty (`""`, `[]`, `{}` where each form it takes of that kind has a `minLength`, `minItems`
/// or `minProperties`: `validate` says "must not be empty"), or text for being blank (only
/// whitespace, where each form it takes has a [`NOT_BLANK`] pattern: "must not be blank"). A
/// template that rendered to it there is refused as the value written out would be (attack 28,
/// E5: `expect: { request: { url: "{{ vars.e }}" } }` with `e` empty matched every request;
/// review 26, F5: `wait: { text: "{{ vars.sp }}" }` with `sp` a space held on any page). `false`
/// where the place is unknown.
pub(crate) fn refuses_empty(key: &str, path: &str, value: &Value) -> bool {
    let (kind, min) = match value {
        Value::String(s) if s.is_empty() => ("string", Some("minLength")),
        // (Most text is not blank: the schema is not walked for it.)
        Value::String(s) if s.chars().all(|c| c.is_whitespace() || is_invisible(c)) => {
            ("string", None)
        }
        Value::Array(a) if a.is_empty() => ("array", Some("minItems")),
        Value::Object(o) if o.is_empty() => ("object", Some("minProperties")),
        _ => return false,
    };
    let Some(leaves) = leaves(key, path) else {
        return false;
    };
    // (A branch that only requires keys constrains an object: it takes no text.)
    let taking: Vec<&&Value> = leaves
        .iter()
        .filter(|n| accepts(n, kind) && (n.get("type").is_some() || n.get("required").is_none()))
        .collect();
    let refuses = |n: &Value| {
        min.and_then(|m| n.get(m))
            .and_then(Value::as_u64)
            .is_some_and(|m| m >= 1)
            || value.as_str().is_some_and(|s| refuses_blank(n, s))
    };
    !taking.is_empty() && taking.iter().all(|n| refuses(n))
}

/// Whether `path` below a step's action key `key` is a property the flow schema names (`matches`
/// of a check: `expect`'s `/text/matches`, a request check's), not a key of data the step
/// carries (a request body's `{ "matches": ... }`).
pub(crate) fn names_property(key: &str, path: &str) -> bool {
    let Some((parent, last)) = path.rsplit_once('/') else {
        return false;
    };
    let last = last.replace("~1", "/").replace("~0", "~");
    leaves(key, parent).is_some_and(|nodes| {
        nodes
            .iter()
            .any(|n| n.get("properties").is_some_and(|p| p.get(&last).is_some()))
    })
}

/// A character the page's text comparison drops (a zero-width space, a soft hyphen) or takes
/// for a space (a byte-order mark: JavaScript's `\s` holds it, Rust's does not).
fn is_invisible(c: char) -> bool {
    matches!(c, '\u{200b}' | '\u{ad}' | '\u{feff}')
}

/// Whether schema node `n` refuses the blank text `s` by a [`NOT_BLANK`] pattern.
fn refuses_blank(n: &Value, s: &str) -> bool {
    n.get("pattern")
        .and_then(Value::as_str)
        .filter(|p| NOT_BLANK.contains(p))
        .and_then(|p| regex::Regex::new(p).ok())
        .is_some_and(|r| !r.is_match(s))
}

/// The schema nodes a value at `path` below a step's action key `key` must fit; `None` where
/// the place is unknown.
fn leaves(key: &str, path: &str) -> Option<Vec<&'static Value>> {
    let root = &compiled(SchemaKind::Flow).schema;
    let start = root.pointer(&format!("/$defs/step/properties/{key}"))?;
    let mut nodes = vec![start];
    for seg in path.split('/').skip(1) {
        let seg = seg.replace("~1", "/").replace("~0", "~");
        let mut next = Vec::new();
        for n in branches(root, nodes) {
            next.extend(child(n, &seg));
        }
        if next.is_empty() {
            return None;
        }
        nodes = next;
    }
    Some(branches(root, nodes))
}

/// The nodes a value at `nodes` must fit: `$ref`s followed, `anyOf`/`oneOf`/`allOf` opened.
fn branches<'s>(root: &'s Value, nodes: Vec<&'s Value>) -> Vec<&'s Value> {
    let mut out = Vec::new();
    let mut todo = nodes;
    // Bounded: the schema's `$ref`s could in principle loop.
    let mut budget = 1000;
    while let Some(n) = todo.pop() {
        budget -= 1;
        if budget == 0 {
            break;
        }
        let n = deref(root, n);
        let mut opened = false;
        for k in ["anyOf", "oneOf", "allOf"] {
            if let Some(bs) = n.get(k).and_then(Value::as_array) {
                todo.extend(bs.iter());
                opened = true;
            }
        }
        if !opened || n.get("type").is_some() || n.get("properties").is_some() {
            out.push(n);
        }
    }
    out
}

/// The schema of `seg` inside a value of schema `n` (a property, an item, any other key).
fn child<'s>(n: &'s Value, seg: &str) -> Vec<&'s Value> {
    let mut out = Vec::new();
    if let Some(p) = n.get("properties").and_then(|p| p.get(seg)) {
        out.push(p);
    } else if let Some(a) = n.get("additionalProperties").filter(|a| a.is_object()) {
        out.push(a);
    }
    if seg.bytes().all(|b| b.is_ascii_digit())
        && let Some(items) = n.get("items").filter(|i| i.is_object())
    {
        out.push(items);
    }
    out
}

/// Whether schema node `n` takes a value of JSON type `kind` (a node that names no type,
/// constant or list of values takes any).
fn accepts(n: &Value, kind: &str) -> bool {
    let fits = |t: &str| t == kind || (t == "number" && kind == "integer");
    match n.get("type") {
        Some(Value::String(t)) => fits(t),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).any(fits),
        _ => {
            if let Some(c) = n.get("const") {
                return type_name(c) == kind;
            }
            if let Some(e) = n.get("enum").and_then(Value::as_array) {
                return e.iter().any(|v| type_name(v) == kind);
            }
            !(n.get("anyOf").is_some() || n.get("oneOf").is_some() || n.get("allOf").is_some())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_checks_matches_is_a_property_a_bodys_is_data() {
        assert!(names_property("expect", "/text/matches"));
        assert!(names_property("expect", "/not/text/matches"));
        assert!(names_property("request", "/expect/body/matches"));
        assert!(!names_property("request", "/json/query/matches"));
        assert!(!names_property("request", "/json/matches"));
    }

    #[test]
    fn text_fields_take_a_rendered_number_as_text() {
        // An argv item, the full form's argv item, stdin: text only.
        assert!(wants_text("exec", "/2", &json!(8765)));
        assert!(wants_text("exec", "/command/1", &json!(true)));
        assert!(wants_text("exec", "/stdin", &json!(1.5)));
        assert!(wants_text("open", "", &json!(8080)));
        // Env values take numbers and booleans as they are (their type says so).
        assert!(!wants_text("exec", "/env/PORT", &json!(1)));
        // A count takes a number; `set` and `log` take anything.
        assert!(!wants_text("expect", "/count/equals", &json!(3)));
        assert!(!wants_text("set", "/x", &json!(3)));
        assert!(!wants_text("log", "", &json!(3)));
        // A boolean field keeps its boolean; an unknown place is left alone.
        assert!(!wants_text("exec", "/shell", &json!(true)));
        assert!(!wants_text("exec", "/nope/deeper", &json!(1)));
        assert!(!wants_text("exec", "/2", &json!("text")));
    }

    #[test]
    fn the_places_that_refuse_an_empty_value_are_the_schemas() {
        // A request check's url, an `open` url, a command, a selector: never empty.
        assert!(refuses_empty("expect", "/request/url", &json!("")));
        assert!(refuses_empty("open", "", &json!("")));
        assert!(refuses_empty("exec", "", &json!("")));
        assert!(refuses_empty("exec", "", &json!([])));
        assert!(refuses_empty("click", "", &json!("")));
        // A matcher that takes "" written out, a body, stdin: taken.
        assert!(!refuses_empty("expect", "/text/equals", &json!("")));
        // A `contains`, which every text holds when empty (attack 31, G9): refused.
        assert!(refuses_empty("expect", "/text/contains", &json!("")));
        assert!(refuses_empty("expect", "/not/url/contains", &json!("")));
        assert!(refuses_empty("expect", "/texts/contains/0", &json!("")));
        assert!(!refuses_empty("expect", "/texts/equals/0", &json!("")));
        assert!(!refuses_empty("request", "/body", &json!("")));
        assert!(!refuses_empty("exec", "/stdin", &json!("")));
        assert!(!refuses_empty("fill", "/value", &json!("")));
        // Blank where the schema wants more than whitespace; taken where it takes it.
        assert!(refuses_empty("wait", "/text", &json!(" \n\t")));
        assert!(refuses_empty("wait", "/text", &json!("\u{200b} ")));
        assert!(refuses_empty("expect", "/js", &json!(" ")));
        assert!(refuses_empty("dispatch", "/event", &json!(" ")));
        assert!(!refuses_empty("wait", "/text", &json!(" a ")));
        assert!(!refuses_empty("expect", "/js", &json!("\u{200b}")));
        assert!(!refuses_empty("expect", "/request/url", &json!(" ")));
        assert!(!refuses_empty("fill", "/value", &json!(" ")));
        assert!(!refuses_empty("keyboard", "/type", &json!(" ")));
        // Not empty, or an unknown place.
        assert!(!refuses_empty("expect", "/request/url", &json!("/x")));
        assert!(!refuses_empty("expect", "/nope/deeper", &json!("")));
    }
}
