//! `fromjson` of a text that holds integers wider than 64 bits: JSON parsing would round each
//! to the nearest float, where two different ones are equal (attack 29, A15: `fromjson` of
//! 100000000000000000001 equalled 100000000000000000000). They are read as the 128-bit integers
//! they are, which minijinja compares exactly with the integers a template writes.

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::Value;

use super::json_size::wide_integer_spans;

/// What marks, in the text parsed, a wide integer put in a string (a NUL starts it: JSON text
/// holds one only escaped, and this one is written escaped too).
const MARK: &str = "\u{0}runner-wide-integer:";

/// The value of the JSON text `text`, its integers wider than 64 bits exact; `Ok(None)` when it
/// holds none (parse it as usual); `Err` for one wider than 128 bits, or text that is no JSON.
pub(crate) fn parse(text: &str) -> Result<Option<minijinja::Value>, String> {
    let spans = wide_integer_spans(text);
    if spans.is_empty() {
        return Ok(None);
    }
    let mut marked = String::with_capacity(text.len() + spans.len() * 32);
    let mut at = 0;
    for r in spans {
        let token = &text[r.clone()];
        if token.parse::<i128>().is_err() && token.parse::<u128>().is_err() {
            return Err(format!(
                "the text holds the integer {token}, wider than 128 bits: runner would round it (compare its digits as text)"
            ));
        }
        marked.push_str(&text[at..r.start]);
        marked.push_str(&format!("\"\\u0000runner-wide-integer:{token}\""));
        at = r.end;
    }
    marked.push_str(&text[at..]);
    let v: Value =
        serde_json::from_str(&marked).map_err(|e| format!("the text is not JSON ({e})"))?;
    Ok(Some(minijinja::Value::from_serialize(Exact(&v))))
}

/// A parsed value, serialized with its marked integers as the integers they are.
struct Exact<'a>(&'a Value);

impl Serialize for Exact<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Value::String(text) => match text.strip_prefix(MARK) {
                Some(token) => match token.parse::<i128>() {
                    Ok(i) => s.serialize_i128(i),
                    Err(_) => s.serialize_u128(token.parse::<u128>().unwrap_or(u128::MAX)),
                },
                None => s.serialize_str(text),
            },
            Value::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for i in items {
                    seq.serialize_element(&Exact(i))?;
                }
                seq.end()
            }
            Value::Object(m) => {
                let mut map = s.serialize_map(Some(m.len()))?;
                for (k, v) in m {
                    map.serialize_entry(k, &Exact(v))?;
                }
                map.end()
            }
            other => other.serialize(s),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse;

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
}
