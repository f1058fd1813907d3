//! Ordering values as Jinja2 (Python) does: of one kind only. minijinja orders across kinds
//! (every number before every text, and none), so `steps.count.stdout >= 1` would be true for a
//! stdout of `0`, and `[7, "0", 3] | min` was 3. The comparison operators ([`super::compile`]'s
//! guard, and [`super::folded`] for literals), the `lt`/`gt`/... tests and the filters that
//! order ([`super::filters`]) check the kinds here first.
//!
//! Two texts that both read as numbers (as a `--var` given for a number is read: `"9"`, `"10"`)
//! are not ordered either: `"9" >= "10"` is true as text, so a check that a count taken by a
//! command did not fall would pass when it fell from 10 to 9. `==`, `!=` and `in` between a
//! text and a number (or a boolean) are errors too, not always false: `steps.code.stdout != 500`
//! held for a stdout of `500`; so are two lists or maps that hold such a pair at one place
//! (`[7] != ['7']` held), and the `sameas` test of such a pair.

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
    defined(a)?;
    defined(b)?;
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
    // Texts: any two of them that read as numbers may be compared, wherever they are (those
    // that order alike as texts do so with the first, or not: see `orders_alike`).
    let numbers: Vec<&Value> = items
        .iter()
        .filter(|v| v.as_str().and_then(read_number).is_some())
        .collect();
    if let Some((a, rest)) = numbers.split_first()
        && let Some(b) = rest
            .iter()
            .find(|b| !orders_alike(a.as_str().unwrap_or(""), b.as_str().unwrap_or("")))
    {
        orderable(a, "with", b).map_err(named)?;
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
        ("text", "text") => NUMBER_TEXTS,
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
    if let (Some(x), Some(y)) = (a.as_str(), b.as_str()) {
        if read_number(x).is_some() && read_number(y).is_some() && !orders_alike(x, y) {
            return Some((a.clone(), b.clone()));
        }
        return None;
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

/// Whether two texts that read as numbers order as texts the way their numbers do: both only
/// digits, and as many (years `"2023" < "2024"`, JSON keys, three-digit status codes); `"9"`
/// and `"10"`, `"-1"` and `"-2"`, `"1.5"` and `"1.25"` do not.
fn orders_alike(x: &str, y: &str) -> bool {
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    x.len() == y.len() && digits(x) && digits(y)
}

/// The help of an ordering of two texts that read as numbers.
const NUMBER_TEXTS: &str = ": both texts read as numbers, and as texts \"9\" > \"10\": use `| int` or \
     `| float` on them (to order them as texts, put a letter before each: `('v' ~ a) < ('v' ~ b)`)";

/// The number a text reads as, as a `--var` given for a number is read: an integer, else a
/// finite float, around blanks (`" 10\n"` is 10); none for anything else.
pub(crate) fn read_number(text: &str) -> Option<serde_json::Value> {
    let t = text.trim();
    if let Ok(i) = t.parse::<i64>() {
        return Some(serde_json::Value::from(i));
    }
    t.parse::<f64>()
        .ok()
        .filter(|f| f.is_finite() && !t.is_empty())
        .and_then(serde_json::Number::from_f64)
        .map(serde_json::Value::Number)
}

/// `a == b` (`op` `==`) or `a != b` (`op` `!=`), as minijinja works them out, but an error when
/// one is a text and the other a number or a boolean (always unequal, whatever the text holds),
/// or two lists or maps hold such a pair at one place (see [`unlike`]), and an undefined error
/// when either is undefined (as minijinja's strict undefined makes it).
pub(crate) fn equal(a: &Value, op: &str, b: &Value) -> Result<bool, Error> {
    defined(a)?;
    defined(b)?;
    if let Some(u) = unlike(a, b, 0) {
        return Err(cannot(a, op, b, &u.inside(), u.help));
    }
    Ok((a == b) == (op == "=="))
}

/// `a is sameas b` as minijinja (Jinja2) tells it: the same object, or two plain values of one
/// kind that are equal; an error for a text and a number (or a boolean), as `==` (it was always
/// false, whatever the text held).
pub(crate) fn same_as(a: &Value, b: &Value) -> Result<bool, Error> {
    defined(a)?;
    defined(b)?;
    if let Some(help) = across(a, b) {
        return Err(cannot(a, "sameas", b, "", help));
    }
    Ok(minijinja::tests::is_sameas(a, b))
}

/// Two values at one place of two values compared for equality, one a text and the other a
/// number or a boolean (never equal, whatever the text holds).
struct Unlike {
    /// The two values, and where they are: `None` when they are the values compared, else
    /// whether they are two maps' values of the key given (or two lists' items).
    pair: Option<(Value, Value, Option<Value>)>,
    help: &'static str,
}

impl Unlike {
    /// The part of the message that names the two values found inside those compared.
    fn inside(&self) -> String {
        let Some((x, y, key)) = &self.pair else {
            return String::new();
        };
        let place = match key {
            Some(k) => format!("values of {}", shown(k)),
            None => "items".to_string(),
        };
        format!(
            ": their {place} {} ({}) and {} ({}) are of different kinds",
            shown(x),
            kind(x),
            shown(y),
            kind(y)
        )
    }
}

/// The first place at which `a` and `b` hold a text and a number or a boolean: themselves, else
/// (two lists) the items at one index, else (two maps) the values of one key, to a depth of
/// 100. A list a template makes lazily (`map`'s) is not gone through (it can be only once), as
/// for an ordering (see [`mismatch`]).
fn unlike(a: &Value, b: &Value, depth: usize) -> Option<Unlike> {
    if let Some(help) = across(a, b) {
        return Some(Unlike { pair: None, help });
    }
    if depth > 100 {
        return None;
    }
    let at = |x: Value, y: Value, key: Option<Value>| {
        let u = unlike(&x, &y, depth + 1)?;
        Some(Unlike {
            pair: u.pair.or(Some((x, y, key))),
            help: u.help,
        })
    };
    match (a.kind(), b.kind()) {
        (ValueKind::Seq, ValueKind::Seq) => a
            .try_iter()
            .ok()?
            .zip(b.try_iter().ok()?)
            .find_map(|(x, y)| at(x, y, None)),
        (ValueKind::Map, ValueKind::Map) => a.try_iter().ok()?.find_map(|k| {
            let y = b.get_item(&k).ok().filter(|y| !y.is_undefined())?;
            at(a.get_item(&k).ok()?, y, Some(k))
        }),
        _ => None,
    }
}

/// `item in container`, as minijinja works it out (an item of a list, a key of a map, a part of
/// a text), but an error when the item is a text and the list holds a number or a boolean (or
/// the keys of the map one), or the other way round, or a number is looked for in a text.
pub(crate) fn contains(item: &Value, container: &Value) -> Result<bool, Error> {
    defined(item)?;
    defined(container)?;
    let container = match container.kind() {
        ValueKind::Iterable => container.try_iter()?.collect::<Value>(),
        _ => container.clone(),
    };
    match container.kind() {
        ValueKind::String => {
            if let Some(help) = across(item, &container) {
                return Err(cannot(item, "in", &container, "", help));
            }
            let text = container.as_str().unwrap_or_default();
            Ok(match item.as_str() {
                Some(part) => text.contains(part),
                None => text.contains(&item.to_string()),
            })
        }
        ValueKind::Seq | ValueKind::Map => {
            let is_map = container.kind() == ValueKind::Map;
            let mut found = false;
            for x in container.try_iter()? {
                // An undefined item (`map('attr', 'status')` of items without it) is never
                // found: what Jinja2's strict undefined makes an error.
                if x.is_undefined() && !is_map {
                    return Err(Error::new(
                        ErrorKind::UndefinedError,
                        format!(
                            "cannot look for {} in a list that holds undefined",
                            shown(item)
                        ),
                    ));
                }
                if let Some(u) = unlike(item, &x, 0) {
                    let holds = if is_map { "its keys" } else { "its items" };
                    let why = format!(": {holds} include {} ({})", shown(&x), kind(&x));
                    let why = why + &u.inside();
                    return Err(cannot(item, "in", &container, &why, u.help));
                }
                found = found || (!is_map && x == *item);
            }
            if is_map {
                found = container.get_item(item).is_ok_and(|v| !v.is_undefined());
            }
            Ok(found)
        }
        ValueKind::Plain => Ok(false),
        _ => Err(Error::new(
            ErrorKind::InvalidOperation,
            format!(
                "cannot look for {} in {} ({})",
                shown(item),
                shown(&container),
                kind(&container)
            ),
        )),
    }
}

/// The help of comparing `a` with `b` for equality when one is a text and the other a number
/// or a boolean: they are never equal, whatever the text holds.
fn across(a: &Value, b: &Value) -> Option<&'static str> {
    let text = |v: &Value| v.kind() == ValueKind::String;
    let (t, other) = if text(a) { (a, b) } else { (b, a) };
    if !text(t) {
        return None;
    }
    match other.kind() {
        ValueKind::Number => {
            Some(": use `| int` or `| float` on the text, or `| string` on the number")
        }
        ValueKind::Bool => Some(": compare the text with a text (`'true'`, `'false'`)"),
        _ => None,
    }
}

/// The error of `a op b` that cannot be worked out.
fn cannot(a: &Value, op: &str, b: &Value, why: &str, help: &str) -> Error {
    Error::new(
        ErrorKind::InvalidOperation,
        format!(
            "cannot compare {} ({}) {op} {} ({}){why}{help}",
            shown(a),
            kind(a),
            shown(b),
            kind(b)
        ),
    )
}

/// An undefined error when `v` is undefined: what minijinja's comparison instructions give
/// under strict undefined, which the guarded ones are called in place of.
fn defined(v: &Value) -> Result<(), Error> {
    if v.is_undefined() {
        return Err(Error::from(ErrorKind::UndefinedError));
    }
    Ok(())
}

/// A value in a message: its repr, cut at 40 characters.
pub(crate) fn shown(v: &Value) -> String {
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
