//! `fromjson` of a text that holds integers wider than 64 bits: JSON parsing would round each
//! to the nearest float, where two different ones are equal (attack 29, A15: `fromjson` of
//! 100000000000000000001 equalled 100000000000000000000). They are read as the 128-bit integers
//! they are, which minijinja compares exactly with the integers a template writes.
//!
//! The text is read straight into template values: each number the parser meets is the next
//! number token of the text (outside its strings), so a wide one is taken from its digits, and
//! nothing the data holds (a string that spells anything) can pass for one.

use std::cell::Cell;
use std::fmt;
use std::ops::Range;

use minijinja::Value;
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use super::json_size::{number_spans, wide_integer_spans};

/// The value of the JSON text `text`, its integers wider than 64 bits exact; `Ok(None)` when it
/// holds none (parse it as usual); `Err` for one wider than 128 bits, or text that is no JSON.
pub(crate) fn parse(text: &str) -> Result<Option<Value>, String> {
    let wide = wide_integer_spans(text);
    if wide.is_empty() {
        return Ok(None);
    }
    if let Some(token) = wide
        .into_iter()
        .map(|r| &text[r])
        .find(|t| integer(t).is_none())
    {
        return Err(format!(
            "the text holds the integer {token}, wider than 128 bits: runner would round it (compare its digits as text)"
        ));
    }
    read(text).map(Some)
}

/// The value of the JSON text `text`, its integers of up to 128 bits exact and wider ones the
/// nearest floats (what JSON parsing makes of them).
fn read(text: &str) -> Result<Value, String> {
    let reader = Reader {
        text,
        numbers: number_spans(text),
        next: Cell::new(0),
    };
    let not_json = |e: serde_json::Error| format!("the text is not JSON ({e})");
    let mut de = serde_json::Deserializer::from_str(text);
    let v = (&reader).deserialize(&mut de).map_err(not_json)?;
    de.end().map_err(not_json)?;
    Ok(v)
}

/// The `json` output of a `request` step (`outputs`) as its `body` output spells it, when the
/// body holds integers wider than 64 bits, which the parsed `json` holds as the nearest floats;
/// none when it holds none (or no JSON). One wider than 128 bits is the nearest float, as JSON
/// parsing makes it: the rest of the body is read all the same (review of session 26, F4: the
/// whole `json` was none, and `steps.r.json.error is not defined` passed on a body with one).
pub(crate) fn exact_json(outputs: &serde_json::Value) -> Option<Value> {
    if outputs.get("json").is_none_or(serde_json::Value::is_null) {
        return None;
    }
    let body = outputs.get("body")?.as_str()?;
    if wide_integer_spans(body).is_empty() {
        return None;
    }
    read(body).ok()
}

/// `v` as JSON for where runner keeps values as JSON (a var's stored form, a report), each
/// integer wider than 64 bits the nearest float; templates read the exact value kept beside it.
pub(crate) fn nearest_json(v: &Value) -> serde_json::Value {
    use minijinja::value::ValueKind;
    if wide_integer_in(v).is_none() {
        return serde_json::to_value(v).unwrap_or(serde_json::Value::Null);
    }
    match v.kind() {
        ValueKind::Number => v
            .to_string()
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map_or(serde_json::Value::Null, serde_json::Value::Number),
        ValueKind::Seq => v
            .try_iter()
            .map(|items| items.map(|i| nearest_json(&i)).collect())
            .unwrap_or_default(),
        ValueKind::Map => v
            .try_iter()
            .map(|keys| {
                keys.map(|k| {
                    let item = v.get_item(&k).unwrap_or_default();
                    let k = k.as_str().map_or_else(|| k.to_string(), str::to_string);
                    (k, nearest_json(&item))
                })
                .collect::<serde_json::Map<_, _>>()
                .into()
            })
            .unwrap_or_default(),
        _ => serde_json::Value::Null,
    }
}

/// The first integer in `v` (at any depth) wider than 64 bits, as its digits.
pub(crate) fn wide_integer_in(v: &minijinja::Value) -> Option<String> {
    use minijinja::value::ValueKind;
    match v.kind() {
        ValueKind::Number => {
            let digits = v.to_string();
            let integer = digits.strip_prefix('-').unwrap_or(&digits);
            let wide = !integer.is_empty()
                && integer.bytes().all(|b| b.is_ascii_digit())
                && digits.parse::<i64>().is_err()
                && digits.parse::<u64>().is_err();
            wide.then_some(digits)
        }
        ValueKind::Seq => v.try_iter().ok()?.find_map(|i| wide_integer_in(&i)),
        ValueKind::Map => v
            .try_iter()
            .ok()?
            .find_map(|k| v.get_item(&k).ok().and_then(|i| wide_integer_in(&i))),
        _ => None,
    }
}

/// The integer `token` spells, in 128 bits, if it fits.
fn integer(token: &str) -> Option<Value> {
    token
        .parse::<i128>()
        .map(Value::from)
        .or_else(|_| token.parse::<u128>().map(Value::from))
        .ok()
}

/// Reads a JSON text into template values, taking each number's token from the text.
struct Reader<'t> {
    text: &'t str,
    /// The text's number tokens, in order.
    numbers: Vec<Range<usize>>,
    /// How many of them the parser has met.
    next: Cell<usize>,
}

impl Reader<'_> {
    /// The token of the number the parser meets now.
    fn token(&self) -> &str {
        let i = self.next.get();
        self.next.set(i + 1);
        self.numbers.get(i).map_or("", |r| &self.text[r.clone()])
    }
}

impl<'de> DeserializeSeed<'de> for &Reader<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for &Reader<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::from(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
        self.token();
        Ok(Value::from(n))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
        self.token();
        Ok(Value::from(n))
    }

    /// A float, or an integer too wide for 64 bits, which the parser rounded: its digits.
    fn visit_f64<E>(self, n: f64) -> Result<Value, E> {
        Ok(integer(self.token()).unwrap_or(Value::from(n)))
    }

    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::from(s))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::from(()))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(v) = seq.next_element_seed(self)? {
            items.push(v);
        }
        Ok(Value::from(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut entries = Vec::new();
        while let Some(k) = map.next_key::<String>()? {
            entries.push((k, map.next_value_seed(self)?));
        }
        Ok(Value::from_iter(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::{exact_json, parse};

    /// A body with an integer wider than 128 bits is read all the same, that integer the
    /// nearest float (review of session 26, F4: the whole `json` was none).
    #[test]
    fn a_body_with_an_integer_past_128_bits_is_read_whole() {
        let big = "1".repeat(78);
        let body = format!(
            r#"{{"error": "payment declined", "id": 123456789012345678901234, "max": {big}}}"#
        );
        let outputs = serde_json::json!({ "body": body, "json": { "error": "payment declined" } });
        let v = exact_json(&outputs).unwrap();
        assert_eq!(
            v.get_attr("error").unwrap().as_str(),
            Some("payment declined")
        );
        assert_eq!(
            v.get_attr("id").unwrap().to_string(),
            "123456789012345678901234"
        );
        let max = v.get_attr("max").unwrap();
        assert_eq!(max.kind(), minijinja::value::ValueKind::Number);
        assert_eq!(f64::try_from(max).ok(), big.parse::<f64>().ok());
        // fromjson still refuses it, saying so (a template that reads it fails).
        assert!(parse(&body).unwrap_err().contains("wider than 128 bits"));
    }

    #[test]
    fn wide_integers_stay_exact_and_strings_stay_text() {
        assert!(parse(r#"{"a": 1, "b": [2.5, "x"]}"#).unwrap().is_none());
        let v = parse(r#"{"a": 100000000000000000001, "s": "100000000000000000002", "l": [-123456789012345678901234567890]}"#)
            .unwrap()
            .unwrap();
        assert_eq!(
            v.get_attr("a").unwrap().to_string(),
            "100000000000000000001"
        );
        assert_eq!(
            v.get_attr("s").unwrap().as_str(),
            Some("100000000000000000002")
        );
        assert_eq!(
            v.get_attr("l")
                .unwrap()
                .get_item_by_index(0)
                .unwrap()
                .to_string(),
            "-123456789012345678901234567890"
        );
        let e = parse(&format!("[{}]", "9".repeat(50))).unwrap_err();
        assert!(e.contains("wider than 128 bits"), "{e}");
    }

    #[test]
    fn a_string_is_never_read_as_a_wide_integer() {
        // A string that spells what once marked a wide integer stays the string it is.
        let text = r#"{"a": 100000000000000000001, "s": "\u0000runner-wide-integer:5", "t": "\u0000runner-wide-integer:100000000000000000001"}"#;
        let v = parse(text).unwrap().unwrap();
        for (k, want) in [
            ("s", "\u{0}runner-wide-integer:5"),
            ("t", "\u{0}runner-wide-integer:100000000000000000001"),
        ] {
            let got = v.get_attr(k).unwrap();
            assert_eq!(
                got.kind(),
                minijinja::value::ValueKind::String,
                "{k}: {got:?}"
            );
            assert_eq!(got.as_str(), Some(want), "{k}");
        }
        assert_eq!(
            v.get_attr("a").unwrap().kind(),
            minijinja::value::ValueKind::Number
        );
        // Numbers of every form beside the wide one keep their values and order.
        let v = parse(
            r#"[1.5, -0, 7, 100000000000000000001, true, 2e3, {"k": -18446744073709551617}, null]"#,
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            v.to_string(),
            "[1.5, 0, 7, 100000000000000000001, True, 2000.0, {\"k\": -18446744073709551617}, None]"
        );
        let e = parse(r#"[100000000000000000001, "#).unwrap_err();
        assert!(e.contains("not JSON"), "{e}");
    }
}
