//! TOML -> `serde_json::Value` + span map, on `toml`'s spanned document tables.

use serde_json::{Map, Number, Value};
use toml::de::{DeTable, DeValue};

use crate::source::{Diagnostic, NodeSpan, SourceFile, SpanMap, pointer_push};

/// Parses `file` as a TOML document (an empty map when it holds no key).
pub(crate) fn load(file: &SourceFile) -> Result<(Value, SpanMap), Vec<Diagnostic>> {
    let (table, errors) = DeTable::parse_recoverable(file.text());
    if !errors.is_empty() {
        return Err(errors
            .iter()
            .map(|e| {
                let span = e.span().unwrap_or(0..0);
                let message = e.message().trim().to_string();
                let (message, help) = split_help(&message);
                let d = Diagnostic::error(file, span, format!("invalid TOML: {message}"));
                match help {
                    Some(h) => d.with_help(h),
                    None => d,
                }
            })
            .collect());
    }
    let mut spans = SpanMap::default();
    let root_span = table.span();
    let mut map = Map::new();
    for (k, v) in table.get_ref() {
        let key = k.get_ref().to_string();
        let pointer = pointer_push("", &key);
        let value = convert(file, v, &pointer, Some(k.span()), &mut spans);
        map.insert(key, value);
    }
    spans.insert(
        String::new(),
        NodeSpan {
            value: root_span,
            key: None,
            content_start: None,
        },
    );
    Ok((Value::Object(map), spans))
}

fn split_help(message: &str) -> (String, Option<String>) {
    let first = message.lines().next().unwrap_or("").to_string();
    let rest: Vec<&str> = message
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .collect();
    (
        first,
        (!rest.is_empty()).then(|| rest.join(" ").trim().to_string()),
    )
}

fn convert(
    file: &SourceFile,
    node: &toml::Spanned<DeValue<'_>>,
    pointer: &str,
    key: Option<std::ops::Range<usize>>,
    spans: &mut SpanMap,
) -> Value {
    let span = node.span();
    let text = file.text();
    let mut content_start = None;
    let value = match node.get_ref() {
        DeValue::String(s) => {
            // Basic and literal one-line strings map one to one to the source after the quote.
            let src = text.get(span.clone()).unwrap_or("");
            if src.len() >= 2 && &src[1..src.len() - 1] == s.as_ref() && !src.starts_with("\"\"\"")
            {
                content_start = Some(span.start + 1);
            }
            Value::String(s.to_string())
        }
        DeValue::Integer(i) => {
            let digits: String = i.as_str().chars().filter(|c| *c != '_').collect();
            let (negative, unsigned) = match digits.strip_prefix('-') {
                Some(rest) => (true, rest),
                None => (false, digits.strip_prefix('+').unwrap_or(&digits)),
            };
            // Past 64 bits, the number as large (a float): its field's range refuses it.
            super::numbers::integer_literal(unsigned, i.radix(), negative)
                .unwrap_or(Value::String(digits))
        }
        DeValue::Float(f) => {
            let digits: String = f.as_str().chars().filter(|c| *c != '_').collect();
            digits
                .parse::<f64>()
                .ok()
                .and_then(Number::from_f64)
                .map_or(Value::String(digits), Value::Number)
        }
        DeValue::Boolean(b) => Value::Bool(*b),
        DeValue::Datetime(d) => Value::String(d.to_string()),
        DeValue::Array(items) => Value::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, item)| {
                    convert(
                        file,
                        item,
                        &pointer_push(pointer, &i.to_string()),
                        None,
                        spans,
                    )
                })
                .collect(),
        ),
        DeValue::Table(t) => {
            let mut map = Map::new();
            for (k, v) in t {
                let name = k.get_ref().to_string();
                let child = pointer_push(pointer, &name);
                let value = convert(file, v, &child, Some(k.span()), spans);
                map.insert(name, value);
            }
            Value::Object(map)
        }
    };
    spans.insert(
        pointer.to_string(),
        NodeSpan {
            value: span,
            key,
            content_start,
        },
    );
    value
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn tables_arrays_and_spans() {
        let src = "name = \"x\"\n\n[[steps]]\nlog = \"hi\"\n\n[[steps]]\nset = { a = 1 }\n";
        let f = SourceFile::new(Path::new("t.toml"), src.to_string());
        let (v, spans) = load(&f).unwrap();
        assert_eq!(v["steps"][0]["log"], "hi");
        assert_eq!(v["steps"][1]["set"]["a"], 1);
        let s = spans.get("/steps/0/log").unwrap();
        assert_eq!(&src[s.value.clone()], "\"hi\"");
        assert_eq!(&src[s.key.clone().unwrap()], "log");
        assert_eq!(s.content_start, Some(s.value.start + 1));
    }

    #[test]
    fn duplicate_keys_are_errors() {
        let f = SourceFile::new(Path::new("t.toml"), "a = 1\na = 2\n".to_string());
        let errs = load(&f).unwrap_err();
        assert!(errs[0].message.contains("duplicate"), "{}", errs[0].message);
        assert_eq!(errs[0].line_col().unwrap().0, 2);
    }

    #[test]
    fn integers_past_64_bits_stay_numbers() {
        let f = SourceFile::new(
            Path::new("t.toml"),
            "a = 99_999_999_999_999_999_999\nb = 0xff\nc = -9223372036854775808\n".to_string(),
        );
        let (v, _) = load(&f).unwrap();
        assert!(v["a"].as_f64().unwrap() > 9.9e19, "{}", v["a"]);
        assert_eq!(v["b"], 255);
        assert_eq!(v["c"], i64::MIN);
    }
}
