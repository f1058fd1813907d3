//! The checks on a response: each query (the status, a header, a JSONPath, the body, the
//! duration) finds a value or nothing, and every predicate given must hold on it. A failure
//! says what was expected and what was found, at its check's own key.

use serde_json::Value;
use serde_json_path::JsonPath;

use super::send::Response;
use crate::config::model::{Check, Predicates, ResponseChecks};
use crate::source::pointer_escape;
use crate::step::Masker;

/// A check that did not hold: where it is (below the action's key) and why.
#[derive(Debug, Clone)]
pub(super) struct Failure {
    pub(super) part: String,
    pub(super) message: String,
}

/// Every check of `checks` on `r`, in the order written; the ones that failed, each value
/// they show masked with `m` before it is cut.
pub(super) fn run(checks: &ResponseChecks, r: &Response, m: &Masker) -> Vec<Failure> {
    let mut out = Vec::new();
    let one = |out: &mut Vec<Failure>,
               part: String,
               label: String,
               check: &Check,
               actual: Option<Value>| {
        if let Some(why) = failed(&check.predicates(), actual.as_ref(), kind_of(&part), m) {
            out.push(Failure {
                part,
                message: format!("{label}: {why}"),
            });
        }
    };
    if let Some(c) = &checks.status {
        one(
            &mut out,
            "expect/status".into(),
            "status".into(),
            c,
            Some(r.status.into()),
        );
    }
    for (name, c) in &checks.headers {
        let actual = r
            .headers
            .get(&name.to_ascii_lowercase())
            .map(|v| Value::String(v.clone()));
        one(
            &mut out,
            format!("expect/headers/{}", pointer_escape(name)),
            format!("header `{name}`"),
            c,
            actual,
        );
    }
    for (path, c) in &checks.json {
        let part = format!("expect/json/{}", pointer_escape(path));
        let label = format!("json `{path}`");
        match (JsonPath::parse(path), &r.json) {
            (Err(e), _) => out.push(Failure {
                part,
                message: format!("{label}: not a JSONPath: {e}"),
            }),
            (Ok(_), None) => out.push(Failure {
                part,
                message: format!(
                    "{label}: the body is not JSON ({}: {})",
                    r.headers
                        .get("content-type")
                        .map_or("no content type", String::as_str),
                    shown(&Value::String(r.body.clone()), m)
                ),
            }),
            (Ok(p), Some(doc)) => one(&mut out, part, label, c, query(&p, path, doc)),
        }
    }
    if let Some(c) = &checks.body {
        one(
            &mut out,
            "expect/body".into(),
            "body".into(),
            c,
            Some(Value::String(r.body.clone())),
        );
    }
    if let Some(c) = &checks.duration_ms {
        one(
            &mut out,
            "expect/duration_ms".into(),
            "duration_ms".into(),
            c,
            Some(r.duration_ms.into()),
        );
    }
    out
}

/// How the value of the check at `part` compares: headers and the body are text; the status,
/// the duration and JSON nodes are typed.
fn kind_of(part: &str) -> Kind {
    if part.starts_with("expect/headers/") || part == "expect/body" {
        Kind::Text
    } else {
        Kind::Typed
    }
}

/// What a JSONPath finds: the node a path that names one node finds (or nothing); the list of
/// nodes a path that can select several finds (wildcards, `..`, filters, slices, unions).
pub(super) fn query(p: &JsonPath, text: &str, doc: &Value) -> Option<Value> {
    let nodes = p.query(doc).all();
    if selects_many(text) {
        return Some(Value::Array(nodes.into_iter().cloned().collect()));
    }
    nodes.first().map(|v| (*v).clone())
}

/// Whether a JSONPath can select more than one node (RFC 9535: it is not a singular query).
fn selects_many(text: &str) -> bool {
    let mut in_quotes: Option<char> = None;
    let mut depth = 0;
    let mut prev = ' ';
    for c in text.chars() {
        match (in_quotes, c) {
            (Some(q), c) if c == q && prev != '\\' => in_quotes = None,
            (None, '\'' | '"') => in_quotes = Some(c),
            (None, '[') => depth += 1,
            (None, ']') => depth -= 1,
            (None, '*' | '?') => return true,
            (None, '.') if prev == '.' => return true,
            (None, ':' | ',') if depth > 0 => return true,
            // Inside quotes, and any other character.
            _ => {}
        }
        prev = c;
    }
    false
}

/// How a query's value compares with the value a check gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A JSON node, the status, the duration: equal only to a value of its own type, as in
    /// Hurl (the text "false" is not `false`, "12" is not 12); numbers as numbers (12 is 12.0).
    Typed,
    /// A header or the body: text, which also equals a number or a boolean written without
    /// quotes when it reads as it (`Content-Length: 12` equals 12, `X-Flag: true` equals true).
    Text,
}

/// Why the predicates do not hold on `actual` (`None`: the query found nothing).
fn failed(p: &Predicates, actual: Option<&Value>, kind: Kind, m: &Masker) -> Option<String> {
    match (p.exists, actual) {
        (Some(true), None) => return Some("expected it to exist, found nothing".into()),
        (Some(false), Some(a)) => return Some(format!("expected nothing, found {}", shown(a, m))),
        (Some(false), None) => return None,
        _ => {}
    }
    let has_value_checks = p.equals.is_some()
        || p.not_equals.is_some()
        || p.contains.is_some()
        || p.matches.is_some()
        || p.count.is_some()
        || p.min.is_some()
        || p.max.is_some();
    let Some(a) = actual else {
        return has_value_checks.then(|| format!("found nothing (expected {})", expected(p, m)));
    };
    let mut why = Vec::new();
    if let Some(e) = &p.equals
        && !same(a, e, kind)
    {
        why.push(format!("expected {}, actual {}", shown(e, m), shown(a, m)));
    }
    if let Some(e) = &p.not_equals
        && same(a, e, kind)
    {
        why.push(format!(
            "expected anything but {}, actual {}",
            shown(e, m),
            shown(a, m)
        ));
    }
    if let Some(e) = &p.contains
        && !contains(a, e)
    {
        why.push(format!(
            "expected it to contain {}, actual {}",
            shown(e, m),
            shown(a, m)
        ));
    }
    if let Some(re) = &p.matches {
        match regex::Regex::new(re) {
            Err(e) => why.push(format!("`{re}` is not a regular expression: {e}")),
            Ok(r) if !r.is_match(&text(a)) => {
                why.push(format!(
                    "expected it to match `{re}`, actual {}",
                    shown(a, m)
                ));
            }
            Ok(_) => {}
        }
    }
    if let Some(n) = p.count {
        match count(a) {
            Some(c) if c == n => {}
            Some(c) => why.push(format!("expected {n} item(s), actual {c}: {}", shown(a, m))),
            None => why.push(format!(
                "expected {n} item(s), but it is not a list or a map: {}",
                shown(a, m)
            )),
        }
    }
    if p.min.is_some() || p.max.is_some() {
        match number(a) {
            Some(v) if p.min.is_some_and(|m| v < m) || p.max.is_some_and(|m| v > m) => {
                why.push(format!("expected {}, actual {}", range(p), shown(a, m)));
            }
            Some(_) => {}
            None => why.push(format!(
                "expected a number {}, actual {}",
                range(p),
                shown(a, m)
            )),
        }
    }
    (!why.is_empty()).then(|| why.join("; "))
}

/// What the predicates expect, in words (for a query that found nothing).
fn expected(p: &Predicates, m: &Masker) -> String {
    if let Some(e) = &p.equals {
        return shown(e, m);
    }
    if let Some(e) = &p.contains {
        return format!("something containing {}", shown(e, m));
    }
    if let Some(re) = &p.matches {
        return format!("something matching `{re}`");
    }
    if let Some(n) = p.count {
        return format!("{n} item(s)");
    }
    if let Some(e) = &p.not_equals {
        return format!("anything but {}", shown(e, m));
    }
    format!("a value {}", range(p))
}

fn range(p: &Predicates) -> String {
    match (p.min, p.max) {
        (Some(lo), Some(hi)) => format!("between {lo} and {hi}"),
        (Some(lo), None) => format!("at least {lo}"),
        (None, Some(hi)) => format!("at most {hi}"),
        (None, None) => String::new(),
    }
}

/// Whether `a` (what the query found) equals `e` (what the check gives), as `kind` compares.
fn same(a: &Value, e: &Value, kind: Kind) -> bool {
    match (kind, a, e) {
        (Kind::Text, Value::String(s), Value::Number(n)) => {
            s.trim().parse::<f64>().ok() == n.as_f64()
        }
        (Kind::Text, Value::String(s), Value::Bool(b)) => s.trim() == b.to_string(),
        _ => typed_eq(a, e),
    }
}

/// Equal as JSON values of the same type, numbers by their value (`12` and `12.0`), lists item
/// by item and maps key by key.
fn typed_eq(a: &Value, e: &Value) -> bool {
    match (a, e) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| typed_eq(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| typed_eq(v, w)))
        }
        _ => a == e,
    }
}

/// A string holds the text; a list holds an item equal to it (of its type); a map has it as a
/// key.
fn contains(a: &Value, e: &Value) -> bool {
    match a {
        Value::String(s) => s.contains(&text(e)),
        Value::Array(items) => items.iter().any(|i| typed_eq(i, e)),
        Value::Object(m) => e.as_str().is_some_and(|k| m.contains_key(k)),
        _ => false,
    }
}

fn count(a: &Value) -> Option<u64> {
    match a {
        Value::Array(items) => Some(items.len() as u64),
        Value::Object(m) => Some(m.len() as u64),
        _ => None,
    }
}

fn number(a: &Value) -> Option<f64> {
    match a {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// A value as text: a string as it is, anything else as JSON.
fn text(v: &Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), str::to_string)
}

/// A value as a message shows it: JSON, masked, then cut after 200 characters.
fn shown(v: &Value, m: &Masker) -> String {
    let s = m.mask(&v.to_string());
    match s.char_indices().nth(200) {
        Some((i, _)) => format!("{}… ({} bytes)", &s[..i], s.len()),
        None => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn failed(p: &Predicates, actual: Option<&Value>, kind: Kind) -> Option<String> {
        super::failed(p, actual, kind, &Masker::default())
    }

    fn p(v: Value) -> Predicates {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn predicates_pass_and_fail_with_expected_and_actual() {
        assert_eq!(
            failed(&p(json!({"equals": 3})), Some(&json!(3)), Kind::Typed),
            None
        );
        assert_eq!(
            failed(&p(json!({"equals": 3})), Some(&json!("3")), Kind::Text),
            None
        );
        assert_eq!(
            failed(&p(json!({"equals": "a"})), Some(&json!("b")), Kind::Typed).unwrap(),
            r#"expected "a", actual "b""#
        );
        assert_eq!(
            failed(
                &p(json!({"contains": 2})),
                Some(&json!([1, 2])),
                Kind::Typed
            ),
            None
        );
        assert!(
            failed(
                &p(json!({"contains": "x"})),
                Some(&json!("abc")),
                Kind::Typed
            )
            .is_some()
        );
        assert_eq!(
            failed(&p(json!({"count": 2})), Some(&json!([1, 2])), Kind::Typed),
            None
        );
        assert!(failed(&p(json!({"count": 2})), Some(&json!("ab")), Kind::Typed).is_some());
        assert_eq!(
            failed(
                &p(json!({"min": 1, "max": 5})),
                Some(&json!("4")),
                Kind::Typed
            ),
            None
        );
        assert!(failed(&p(json!({"max": 5})), Some(&json!(6)), Kind::Typed).is_some());
        assert_eq!(
            failed(
                &p(json!({"matches": "^a.c$"})),
                Some(&json!("abc")),
                Kind::Typed
            ),
            None
        );
        assert_eq!(
            failed(&p(json!({"exists": false})), None, Kind::Typed),
            None
        );
        assert!(failed(&p(json!({"exists": true})), None, Kind::Typed).is_some());
        assert!(failed(&p(json!({"equals": 1})), None, Kind::Typed).is_some());
        assert!(failed(&p(json!({"not_equals": 1})), Some(&json!(1)), Kind::Typed).is_some());
    }

    #[test]
    fn typed_values_equal_only_their_own_type_and_text_reads_as_numbers_and_booleans() {
        let eq = |a: Value, e: Value, kind| same(&a, &e, kind);
        assert!(eq(json!(false), json!(false), Kind::Typed));
        assert!(!eq(json!(false), json!("false"), Kind::Typed));
        assert!(!eq(json!("false"), json!(false), Kind::Typed));
        assert!(!eq(json!(12), json!("12"), Kind::Typed));
        assert!(eq(json!(12), json!(12.0), Kind::Typed));
        assert!(eq(
            json!({"a": [1, 2.0]}),
            json!({"a": [1.0, 2]}),
            Kind::Typed
        ));
        assert!(!eq(json!({"a": [1]}), json!({"a": ["1"]}), Kind::Typed));
        assert!(!eq(json!(null), json!("null"), Kind::Typed));
        // A header is text: a number or a boolean written without quotes reads against it.
        assert!(eq(json!("12"), json!(12), Kind::Text));
        assert!(eq(json!("true"), json!(true), Kind::Text));
        assert!(!eq(json!("yes"), json!(true), Kind::Text));
        assert!(contains(&json!([false, 12]), &json!(12.0)));
        assert!(!contains(&json!([false, 12]), &json!("false")));
    }

    #[test]
    fn paths_that_select_many_give_a_list() {
        for many in [
            "$.items[*]",
            "$..name",
            "$.items[?@.n > 1]",
            "$.a[0:2]",
            "$.a[0,1]",
        ] {
            assert!(selects_many(many), "{many}");
        }
        for one in ["$.items", "$.items[0].name", "$['a.b']", "$['x:y']"] {
            assert!(!selects_many(one), "{one}");
        }
        let doc = json!({"items": [{"n": 1}]});
        let all = JsonPath::parse("$.items[*].n").unwrap();
        assert_eq!(query(&all, "$.items[*].n", &doc), Some(json!([1])));
        let one = JsonPath::parse("$.items[0].n").unwrap();
        assert_eq!(query(&one, "$.items[0].n", &doc), Some(json!(1)));
        let none = JsonPath::parse("$.nope").unwrap();
        assert_eq!(query(&none, "$.nope", &doc), None);
    }
}
