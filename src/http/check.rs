//! The checks on a response: each query (the status, a header, a JSONPath, the body, the
//! duration) finds a value or nothing, and every predicate given must hold on it. A failure
//! says what was expected and what was found, at its check's own key.

use serde_json::Value;
use serde_json_path::JsonPath;

use super::send::Response;
use crate::config::model::{Check, MANY_HELP, Predicates, ResponseChecks, selects_many};
use crate::source::pointer_escape;
use crate::step::Masker;
use crate::template::json_size::MAX_VALUES;

/// Why a check of the body is not made on a body runner cut (at [`MAX_BODY`]).
fn cut() -> String {
    let mib = super::send::MAX_BODY / (1024 * 1024);
    format!(
        "the body is longer than {mib} MiB and was cut at {mib} MiB (truncated: true): runner does not check a part of it (check the status and headers, or ask for a smaller answer)"
    )
}

/// The check of the body, which fails on a body runner cut: whatever a check finds in a part,
/// a negative one above all, is no answer about the whole (attack 26, C15: `matches: "^a+$"`
/// held on the part kept).
fn body(c: &Check, r: &Response, m: &Masker) -> Option<Failure> {
    let why = if r.truncated {
        Some(cut())
    } else {
        let text = Queried::of(Some(Value::String(r.body.clone())));
        failed(&c.predicates(), &text, kind_of("expect/body"), m)
    };
    why.map(|why| Failure {
        part: "expect/body".into(),
        message: format!("body: {why}"),
    })
}

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
    let one = |out: &mut Vec<Failure>, part: String, label: String, c: &Check, q: Queried| {
        one_check(out, part, label, c, q, m);
    };
    if let Some(c) = &checks.status {
        one(
            &mut out,
            "expect/status".into(),
            "status".into(),
            c,
            Queried::of(Some(r.status.into())),
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
            Queried::of(actual),
        );
    }
    json(checks, r, m, &mut out);
    if let Some(c) = &checks.body {
        out.extend(body(c, r, m));
    }
    if let Some(c) = &checks.duration_ms {
        one(
            &mut out,
            "expect/duration_ms".into(),
            "duration_ms".into(),
            c,
            Queried::of(Some(r.duration_ms.into())),
        );
    }
    out
}

/// The `json` checks of `checks` on `r`, each failure into `out`.
fn json(checks: &ResponseChecks, r: &Response, m: &Masker, out: &mut Vec<Failure>) {
    // The body's integers that JSON parsing rounded (a check on them may not be told).
    let wide: Vec<String> = match (&r.json, checks.json.is_empty()) {
        (Some(_), false) => crate::template::json_size::wide_integers(&r.body)
            .into_iter()
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    };
    for (path, c) in &checks.json {
        let part = format!("expect/json/{}", pointer_escape(path));
        let label = format!("json `{path}`");
        match (JsonPath::parse(path), &r.json) {
            (Err(e), _) => out.push(Failure {
                part,
                message: format!("{label}: not a JSONPath: {e}"),
            }),
            (Ok(_), _) if r.truncated => out.push(Failure {
                part,
                message: format!("{label}: {}", cut()),
            }),
            (Ok(_), None) if r.too_many => out.push(Failure {
                part,
                message: format!("{label}: the body holds more than {MAX_VALUES} JSON values: runner does not parse it (check a smaller answer, or the body's text)"),
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
            (Ok(_), Some(_)) if let Some(why) = filter::inexact(path, &r.body) => {
                out.push(Failure {
                    part,
                    message: format!("{label}: {why}"),
                });
            }
            (Ok(p), Some(doc)) => {
                let mut q = query(&p, path, doc);
                q.wide.clone_from(&wide);
                one_check(out, part, label, c, q, m);
            }
        }
    }
}

/// The failure of `check` on what a query found, if it failed, into `out`.
fn one_check(
    out: &mut Vec<Failure>,
    part: String,
    label: String,
    check: &Check,
    actual: Queried,
    m: &Masker,
) {
    if let Some(why) = failed(&check.predicates(), &actual, kind_of(&part), m) {
        out.push(Failure {
            part,
            message: format!("{label}: {why}"),
        });
    }
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

/// What a query found, as the checks read it.
pub(super) struct Queried {
    /// What the checks compare: the node (`None`: nothing), or the list of the nodes selected.
    pub(super) value: Option<Value>,
    /// Whether it found anything, as `exists` asks: a path that can select several nodes and
    /// selected none found nothing, though `count: 0` and `equals: []` read the empty list.
    pub(super) found: bool,
    /// Whether it is the list of the nodes a path that can select several selected.
    pub(super) many: bool,
    /// The integers of the body wider than 64 bits, as written: JSON parsing rounded them.
    pub(super) wide: Vec<String>,
}

impl Queried {
    /// A value found, or nothing.
    pub(super) fn of(value: Option<Value>) -> Queried {
        Queried {
            found: value.is_some(),
            value,
            many: false,
            wide: Vec::new(),
        }
    }
}

/// What a JSONPath finds: the node a path that names one node finds (or nothing); the list of
/// nodes a path that can select several finds (wildcards, `..`, filters, slices, unions).
pub(super) fn query(p: &JsonPath, text: &str, doc: &Value) -> Queried {
    let nodes = p.query(doc).all();
    if selects_many(text) {
        return Queried {
            found: !nodes.is_empty(),
            value: Some(Value::Array(nodes.into_iter().cloned().collect())),
            many: true,
            wide: Vec::new(),
        };
    }
    Queried::of(nodes.first().map(|v| (*v).clone()))
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

/// Why the predicates do not hold on what the query found.
fn failed(p: &Predicates, q: &Queried, kind: Kind, m: &Masker) -> Option<String> {
    match p.exists.map(|e| (e, exists_failed(e, q, m))) {
        Some((_, Some(why))) => return Some(why),
        Some((false, None)) => return None,
        _ => {}
    }
    let Some(a) = q.value.as_ref() else {
        return has_value_checks(p).then(|| format!("found nothing (expected {})", expected(p, m)));
    };
    let many = || q.many.then(|| one_value_on_many(p, a, m)).flatten();
    if let Some(why) = many().or_else(|| inexact(p, a, kind, &q.wide, m)) {
        return Some(why);
    }
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
    why.extend(text_failures(p, a, m));
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
            Some(v)
                if p.min.as_ref().is_some_and(|m| v < Num::of(m))
                    || p.max.as_ref().is_some_and(|m| v > Num::of(m)) =>
            {
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

/// Why `equals`/`not_equals` of one value (a template may give one `validate` did not see)
/// cannot be checked on `a`, the list of the nodes a path that can select several found: the
/// list is never that value, so `not_equals` would always hold.
fn one_value_on_many(p: &Predicates, a: &Value, m: &Masker) -> Option<String> {
    let [eq, ne] = [("equals", &p.equals), ("not_equals", &p.not_equals)];
    let (key, e) = [eq, ne]
        .into_iter()
        .find_map(|(k, e)| e.as_ref().filter(|e| !e.is_array()).map(|e| (k, e)))?;
    Some(format!(
        "the path can select several nodes, so it finds a list ({}), which `{key}: {}` compares \
         whole: {MANY_HELP}",
        shown(a, m),
        shown(e, m)
    ))
}

/// Why the predicates cannot be told on `a` exactly: a number of the check and one found meet
/// past 64 bits, where runner holds integers only as rounded floats — a flow's integer wider
/// than 64 bits, or one of the body's (`wide`), would equal its neighbours (attack 29, A15:
/// `$.amount: 100000000000000000000` held on 100000000000000000001).
fn inexact(p: &Predicates, a: &Value, kind: Kind, wide: &[String], m: &Masker) -> Option<String> {
    let mut given = Vec::new();
    for v in [&p.equals, &p.not_equals, &p.contains]
        .into_iter()
        .flatten()
    {
        numbers(v, Kind::Typed, &mut given);
    }
    given.extend(p.min.iter().chain(&p.max).map(Num::of));
    let mut found = Vec::new();
    numbers(a, kind, &mut found);
    let body_wide = !wide.is_empty();
    let big = |i: i128| i.unsigned_abs() >= 1 << 53;
    let clash = found.iter().any(|f| {
        given.iter().any(|g| match (*f, *g) {
            (Num::Wide(_), Num::Wide(_)) => body_wide,
            (Num::Wide(_), Num::Int(i)) => body_wide && big(i),
            (Num::Int(i), Num::Wide(_)) => big(i),
            _ => false,
        })
    });
    if !clash {
        return None;
    }
    // The body's integers that read as a number found (else the first few).
    let rounded_to = |t: &&String| {
        t.parse::<f64>().is_ok_and(|x| {
            found
                .iter()
                .any(|n| matches!(n, Num::Wide(w) if w.to_bits() == x.to_bits()))
        })
    };
    let mut named: Vec<&str> = wide.iter().filter(rounded_to).map(String::as_str).collect();
    if named.is_empty() {
        named = wide.iter().map(String::as_str).collect();
    }
    named.truncate(3);
    let body = if named.is_empty() {
        String::new()
    } else {
        format!(" (the body's {})", m.mask(&named.join(", ")))
    };
    Some(format!(
        "cannot be compared exactly: it meets an integer wider than 64 bits{body}, which a JSON check reads as the nearest float, where different integers are equal (actual {}, expected {}); `fromjson` keeps them exact: compare in a `that` (`{{{{ (steps.ID.body | fromjson).amount == 100000000000000000001 }}}}`)",
        shown(a, m),
        expected(p, m)
    ))
}

/// The numbers in `v`, at any depth (in a header's or the body's text, the number it reads as).
fn numbers(v: &Value, kind: Kind, out: &mut Vec<Num>) {
    match v {
        Value::Number(n) => out.push(Num::of(n)),
        Value::String(s) if kind == Kind::Text => out.extend(Num::parse(s)),
        Value::Array(items) => items.iter().for_each(|i| numbers(i, kind, out)),
        Value::Object(map) => map.values().for_each(|i| numbers(i, kind, out)),
        _ => {}
    }
}

/// Whether the predicates check a value (beyond `exists`).
fn has_value_checks(p: &Predicates) -> bool {
    p.equals.is_some()
        || p.not_equals.is_some()
        || p.contains.is_some()
        || p.matches.is_some()
        || p.count.is_some()
        || p.min.is_some()
        || p.max.is_some()
}

/// Why `exists` does not hold on what the query found (`exists: false` is then the whole check;
/// after `exists: true` holds, the other predicates are checked).
fn exists_failed(exists: bool, q: &Queried, m: &Masker) -> Option<String> {
    match (exists, &q.value) {
        (true, _) if !q.found => Some("expected it to exist, found nothing".into()),
        (false, Some(a)) if q.found => Some(format!("expected nothing, found {}", shown(a, m))),
        _ => None,
    }
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
    match (&p.min, &p.max) {
        (Some(lo), Some(hi)) => format!("between {lo} and {hi}"),
        (Some(lo), None) => format!("at least {lo}"),
        (None, Some(hi)) => format!("at most {hi}"),
        (None, None) => String::new(),
    }
}

/// Whether `a` (what the query found) equals `e` (what the check gives), as `kind` compares.
fn same(a: &Value, e: &Value, kind: Kind) -> bool {
    match (kind, a, e) {
        (Kind::Text, Value::String(s), Value::Number(n)) => Num::parse(s) == Some(Num::of(n)),
        (Kind::Text, Value::String(s), Value::Bool(b)) => s.trim() == b.to_string(),
        _ => typed_eq(a, e),
    }
}

/// Equal as JSON values of the same type, numbers by their value (`12` and `12.0`), lists item
/// by item and maps key by key.
fn typed_eq(a: &Value, e: &Value) -> bool {
    match (a, e) {
        (Value::Number(x), Value::Number(y)) => Num::of(x) == Num::of(y),
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

/// Why `contains` and `matches` do not hold on `a`; a `contains: ""` on text and a `matches`
/// that matches any text are checks of nothing (attack 31, G9), never a pass.
fn text_failures(p: &Predicates, a: &Value, m: &Masker) -> Vec<String> {
    let mut why = Vec::new();
    // Every text contains the empty one (a template that rendered to nothing; attack 31, G9).
    if let (Some(e), Value::String(_)) = (&p.contains, a)
        && text(e).is_empty()
    {
        why.push("`contains` is empty, which every text contains: the check cannot fail".into());
    } else if let Some(e) = &p.contains
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
            Ok(_) if crate::config::any_text::matches_any_text(re) => {
                why.push(crate::config::any_text::any_text_message(re).0);
            }
            Ok(r) if !r.is_match(&text(a)) => {
                why.push(format!(
                    "expected it to match `{re}`, actual {}",
                    shown(a, m)
                ));
            }
            Ok(_) => {}
        }
    }
    why
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

fn number(a: &Value) -> Option<Num> {
    match a {
        Value::Number(n) => Some(Num::of(n)),
        Value::String(s) => Num::parse(s),
        _ => None,
    }
}

/// A number as checks compare it: an integer exactly (past 2^53 too: 64-bit ids, snowflakes,
/// nanosecond times, which an `f64` would make equal to their neighbours), else a float; `12`
/// equals `12.0`. A whole float past 64 bits may be an integer JSON parsing rounded: `Wide`
/// (compared as the float it is, once [`inexact`] found it need not be told exactly).
#[derive(Debug, Clone, Copy)]
enum Num {
    Int(i128),
    Float(f64),
    Wide(f64),
}

impl Num {
    fn of(n: &serde_json::Number) -> Num {
        if let Some(i) = n.as_i64() {
            return Num::Int(i.into());
        }
        if let Some(u) = n.as_u64() {
            return Num::Int(u.into());
        }
        Num::Float(n.as_f64().unwrap_or(f64::NAN)).exact()
    }

    fn parse(s: &str) -> Option<Num> {
        let s = s.trim();
        match s.parse::<i128>() {
            Ok(i) => Some(Num::Int(i)),
            Err(_) => s.parse::<f64>().ok().map(|f| Num::Float(f).exact()),
        }
    }

    /// A float that is a whole number within 64 bits as the integer it is, exactly; one past
    /// them as `Wide`.
    fn exact(self) -> Num {
        const TWO_63: f64 = 9_223_372_036_854_775_808.0;
        match self {
            #[allow(clippy::cast_possible_truncation)]
            Num::Float(f) if f.fract() == 0.0 && f.abs() < TWO_63 => Num::Int(f as i128),
            Num::Float(f) if f.fract() == 0.0 && f.is_finite() => Num::Wide(f),
            n => n,
        }
    }

    /// The value as a float (an integer past 2^53 rounded).
    #[allow(clippy::cast_precision_loss)]
    fn float(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(f) | Num::Wide(f) => f,
        }
    }
}

impl PartialEq for Num {
    fn eq(&self, o: &Num) -> bool {
        self.partial_cmp(o) == Some(std::cmp::Ordering::Equal)
    }
}

impl PartialOrd for Num {
    fn partial_cmp(&self, o: &Num) -> Option<std::cmp::Ordering> {
        match (*self, *o) {
            (Num::Int(a), Num::Int(b)) => Some(a.cmp(&b)),
            (a, b) => a.float().partial_cmp(&b.float()),
        }
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

mod filter;
#[cfg(test)]
mod tests;
