//! Integer literals wider than 64 bits where a flow passes a value on (a var, a `set`, a
//! request's body): runner holds a number in 64 bits, so the YAML or TOML reader made such a
//! literal the nearest float, and the flow would pass a rounded number on
//! (`vars: { n: 123456789012345678901234 }` logged 123456789012345690000000.0). A field with a
//! range refuses it before (the schema's "must be between"); a `request`'s JSON check is
//! exempt: it says at run time that it cannot compare one exactly.

use serde_json::Value;

use crate::config::schema::at_value;
use crate::source::{Diagnostic, SourceFile, SpanMap, pointer_push};

/// Each integer literal of a document (a flow, runner.toml: `file`, its `spans` and `value`)
/// that was read as a float, as an error.
pub(crate) fn wide_literals(
    file: &SourceFile,
    spans: &SpanMap,
    value: &Value,
    out: &mut Vec<Diagnostic>,
) {
    walk(&(file, spans), value, "", out);
}

fn walk(c: &(&SourceFile, &SpanMap), v: &Value, ptr: &str, out: &mut Vec<Diagnostic>) {
    let (file, spans) = *c;
    match v {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                walk(c, item, &pointer_push(ptr, &i.to_string()), out);
            }
        }
        Value::Object(map) if !ptr.ends_with("/request/expect/json") => {
            for (k, item) in map {
                walk(c, item, &pointer_push(ptr, k), out);
            }
        }
        Value::Number(n) if n.is_f64() => {
            let Some(span) = spans.get(ptr) else {
                return;
            };
            let written = file.text().get(span.value.clone()).unwrap_or("");
            if integer_literal(written) {
                out.push(at_value(
                    file,
                    spans,
                    ptr,
                    format!(
                        "`{written}` is an integer wider than 64 bits, which runner holds as the nearest float ({n}): write it as text (`\"{written}\"`), or compare it in a template (`{{{{ steps.ID.json.id == {written} }}}}`)"
                    ),
                ));
            }
        }
        _ => {}
    }
}

/// Whether `text` is written as a whole number (`12`, `-3`, `0x1f`, `0o17`, `1_000`), not as a
/// float (`1e30`, `2.0`).
fn integer_literal(text: &str) -> bool {
    let t: String = text.chars().filter(|&ch| ch != '_').collect();
    let t = t.strip_prefix(['-', '+']).unwrap_or(&t);
    let (digits, radix) = match (t.strip_prefix("0x"), t.strip_prefix("0o")) {
        (Some(hex), _) => (hex, 16),
        (_, Some(octal)) => (octal, 8),
        _ => (t, 10),
    };
    !digits.is_empty() && digits.chars().all(|ch| ch.is_digit(radix))
}

#[cfg(test)]
mod tests {
    use super::integer_literal;

    #[test]
    fn whole_numbers_are_told_from_floats() {
        for whole in ["12", "-3", "+4", "0x1f", "0o17", "1_000"] {
            assert!(integer_literal(whole), "{whole}");
        }
        for not in ["1e30", "2.0", "0x", "-", "1f", "\"12\""] {
            assert!(!integer_literal(not), "{not}");
        }
    }
}
