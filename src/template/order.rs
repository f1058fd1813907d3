//! Ordering values as Jinja2 (Python) does: of one kind only. minijinja orders across kinds
//! (every number before every text, and none), so `steps.count.stdout >= 1` would be true for a
//! stdout of `0`, and `[7, "0", 3] | min` was 3. The comparison operators ([`super::compile`]'s
//! guard, and [`super::folded`] for literals), the `lt`/`gt`/... tests and the filters that
//! order ([`super::filters`]) check the kinds here first.

use minijinja::value::ValueKind;
use minijinja::{Error, ErrorKind, Value};

/// The kind of a value as a message names it.
fn kind(v: &Value) -> &'static str {
    match v.kind() {
        ValueKind::Number | ValueKind::Bool => "number",
        ValueKind::String => "text",
        ValueKind::None => "none",
        ValueKind::Undefined => "undefined",
        ValueKind::Seq | ValueKind::Iterable => "list",
        ValueKind::Map => "map",
        _ => "value",
    }
}

/// `a op b` when both are numbers (a boolean counts as one, as in Python), both texts or both
/// lists (whose first items that differ are of one kind); an error naming both values and
/// their kinds otherwise.
pub(crate) fn compare(a: &Value, op: &str, b: &Value) -> Result<bool, Error> {
    orderable(a, op, b)?;
    let ord = a.partial_cmp(b);
    Ok(match op {
        "<" => ord.is_some_and(std::cmp::Ordering::is_lt),
        "<=" => ord.is_some_and(std::cmp::Ordering::is_le),
        ">" => ord.is_some_and(std::cmp::Ordering::is_gt),
        _ => ord.is_some_and(std::cmp::Ordering::is_ge),
    })
}

/// Nothing when what `name` (a filter that orders: `min`, `sort`, `groupby`, ...) orders are
/// all numbers, all texts or all lists, and each two lists it compares first differ in items
/// of one kind; the error of an ordering comparison of the first two that are not otherwise
/// (minijinja orders every number before every text, so `[7, "0", 3] | min` was 3). Which
/// lists are compared is found by sorting them, as Python finds it: each two lists next to
/// each other once sorted are.
pub(crate) fn same_kinds(name: &str, items: impl Iterator<Item = Value>) -> Result<(), Error> {
    let mut items: Vec<Value> = items.collect();
    let named = |e: Error| {
        Error::new(
            ErrorKind::InvalidOperation,
            format!("`{name}`: {}", e.detail().unwrap_or_default()),
        )
    };
    let Some(first) = items.first() else {
        return Ok(());
    };
    for item in &items[1..] {
        orderable(first, "with", item).map_err(named)?;
    }
    if first.kind() == ValueKind::Seq {
        let mut refused = None;
        items.sort_by(|a, b| {
            if refused.is_none() {
                refused = orderable(a, "with", b).err();
            }
            a.cmp(b)
        });
        if let Some(e) = refused {
            return Err(named(e));
        }
    }
    Ok(())
}

/// Nothing when `a op b` orders two values of one kind (numbers, texts or lists, whose first
/// items that differ are of one kind: Python compares those, and `[1, 'a'] < [1, 2]` is its
/// `TypeError`); an error naming both values and their kinds otherwise.
fn orderable(a: &Value, op: &str, b: &Value) -> Result<(), Error> {
    let Some((x, y)) = mismatch(a, b, 0) else {
        return Ok(());
    };
    let (kx, ky) = (kind(&x), kind(&y));
    let help = match (kx, ky) {
        ("text", "number") | ("number", "text") => ": use `| int` or `| float` on the text",
        ("none", _) | (_, "none") => ": check `is none` first",
        _ => "",
    };
    let items = if x == *a {
        String::new()
    } else {
        format!(
            ": their items {} ({kx}) and {} ({ky}) are of different kinds",
            shown(&x),
            shown(&y)
        )
    };
    Err(Error::new(
        ErrorKind::InvalidOperation,
        format!(
            "cannot compare {} ({}) {op} {} ({}){items}{help}",
            shown(a),
            kind(a),
            shown(b),
            kind(b)
        ),
    ))
}

/// The two values that make `a` and `b` not orderable: themselves when their kinds differ or
/// do not order (none, maps), else, for two lists, what makes their first items that differ
/// not orderable (to a depth of 100; a list a template makes lazily, as `map`'s, is not gone
/// through: it can be only once).
fn mismatch(a: &Value, b: &Value, depth: usize) -> Option<(Value, Value)> {
    let (ka, kb) = (kind(a), kind(b));
    if ka != kb || !matches!(ka, "number" | "text" | "list") {
        return Some((a.clone(), b.clone()));
    }
    if depth > 100 || a.kind() != ValueKind::Seq || b.kind() != ValueKind::Seq {
        return None;
    }
    let (x, y) = a
        .try_iter()
        .ok()?
        .zip(b.try_iter().ok()?)
        .find(|(x, y)| x != y)?;
    mismatch(&x, &y, depth + 1)
}

/// A value in a message: its repr, cut at 40 characters.
fn shown(v: &Value) -> String {
    let s = match v.kind() {
        ValueKind::None => "none".to_string(),
        _ => format!("{v:?}"),
    };
    if s.chars().count() > 40 {
        format!("{}…", s.chars().take(40).collect::<String>())
    } else {
        s
    }
}
