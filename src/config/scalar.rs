//! What a YAML scalar is: the YAML 1.2 core schema's plain forms (null, booleans, whole numbers
//! in decimal, hex and octal, floats, else a string), and the core tags that say which
//! (`!!str`, `!!int`, `!!float`, `!!bool`, `!!null`; `!!map` and `!!seq` on collections). Any
//! other tag (`!!binary`, `!!timestamp`, `!!set`, an application's `!secret`) is refused:
//! read as plain text, its value would be something other than what its writer meant.

use saphyr_parser::{ScalarStyle, Tag};
use serde_json::{Number, Value};

use super::numbers::integer_literal;

/// The handle `!!` stands for.
const CORE: &str = "tag:yaml.org,2002:";

/// A tag as it is written: `!!binary`, `!secret`, `!<tag:example.com,2000:x>`.
pub(super) fn tag_name(tag: &Tag) -> String {
    match tag.handle.as_str() {
        CORE => format!("!!{}", tag.suffix),
        "!" | "!!" => format!("{}{}", tag.handle, tag.suffix),
        handle => format!("!<{handle}{}>", tag.suffix),
    }
}

/// The message for a tag runner does not read.
pub(super) fn unread_tag(tag: &Tag) -> String {
    format!("runner does not read the YAML tag `{}`", tag_name(tag))
}

/// The help beside it.
pub(super) const UNREAD_TAG_HELP: &str = "write the value without the tag: runner's values are text, numbers, booleans, null, lists and maps";

/// Whether a list (`seq`) or a map may carry `tag`: none, the non-specific `!`, or its own core
/// tag.
pub(super) fn collection_tag_is_read(tag: Option<&Tag>, seq: bool) -> bool {
    match tag {
        None => true,
        Some(t) if t.handle == "!" && t.suffix.is_empty() => true,
        Some(t) => t.handle == CORE && t.suffix == if seq { "seq" } else { "map" },
    }
}

/// A scalar's value, or why its tag cannot give one.
pub(super) fn value(text: &str, style: ScalarStyle, tag: Option<&Tag>) -> Result<Value, String> {
    let Some(tag) = tag else {
        return Ok(untagged(text, style));
    };
    if tag.handle == "!" && tag.suffix.is_empty() {
        // The non-specific tag: a string, whatever it looks like.
        return Ok(Value::String(text.to_string()));
    }
    if tag.handle != CORE {
        return Err(unread_tag(tag));
    }
    let plain = untagged(text, ScalarStyle::Plain);
    let fits = match tag.suffix.as_str() {
        "str" => return Ok(Value::String(text.to_string())),
        "null" => plain.is_null(),
        "bool" => plain.is_boolean(),
        "int" => plain.is_i64() || plain.as_f64().is_some_and(|f| f.fract() == 0.0),
        "float" => {
            return plain
                .as_f64()
                .and_then(Number::from_f64)
                .map(Value::Number)
                .ok_or_else(|| format!("`{text}` is not a number, as `!!float` says"));
        }
        _ => return Err(unread_tag(tag)),
    };
    if fits {
        Ok(plain)
    } else {
        Err(format!("`{text}` is not what `{}` says", tag_name(tag)))
    }
}

/// A scalar with no tag, resolved by the core schema.
fn untagged(text: &str, style: ScalarStyle) -> Value {
    if style != ScalarStyle::Plain {
        return Value::String(text.to_string());
    }
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "true" | "True" | "TRUE" => return Value::Bool(true),
        "false" | "False" | "FALSE" => return Value::Bool(false),
        _ => {}
    }
    if let Some(n) = integer(text) {
        return n;
    }
    let looks_numeric = text
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'+' | b'e' | b'E'))
        && text.bytes().any(|b| b.is_ascii_digit());
    if looks_numeric && let Some(n) = text.parse::<f64>().ok().and_then(Number::from_f64) {
        return Value::Number(n);
    }
    Value::String(text.to_string())
}

/// A core-schema whole number (`12`, `-3`, `0x1f`, `0o17`), however large.
fn integer(text: &str) -> Option<Value> {
    let (negative, digits) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    if let Some(hex) = digits.strip_prefix("0x") {
        integer_literal(hex, 16, negative)
    } else if let Some(octal) = digits.strip_prefix("0o") {
        integer_literal(octal, 8, negative)
    } else {
        integer_literal(digits, 10, negative)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn core(suffix: &str) -> Tag {
        Tag {
            handle: CORE.into(),
            suffix: suffix.into(),
        }
    }

    #[test]
    fn plain_scalars_follow_the_core_schema() {
        let v = |t| untagged(t, ScalarStyle::Plain);
        assert_eq!(v("yes"), "yes");
        assert_eq!(v("1.5"), 1.5);
        assert_eq!(v("0x1f"), 31);
        assert_eq!(v("-0o17"), -15);
        assert!(v("~").is_null());
        assert_eq!(v("1.2.3"), "1.2.3");
        assert!(v("99999999999999999999999").as_f64().unwrap() > 9e22);
        assert_eq!(untagged("true", ScalarStyle::SingleQuoted), "true");
    }

    #[test]
    fn core_tags_are_read_and_others_refused() {
        let plain = ScalarStyle::Plain;
        let quoted = ScalarStyle::DoubleQuoted;
        assert_eq!(value("5", plain, Some(&core("str"))), Ok(Value::from("5")));
        assert_eq!(value("7", quoted, Some(&core("int"))), Ok(Value::from(7)));
        assert_eq!(
            value("2", quoted, Some(&core("float"))),
            Ok(Value::from(2.0))
        );
        assert!(value("x", plain, Some(&core("int"))).is_err());
        assert_eq!(
            value("aGk=", plain, Some(&core("binary"))),
            Err("runner does not read the YAML tag `!!binary`".into())
        );
        let local = Tag {
            handle: "!".into(),
            suffix: "secret".into(),
        };
        assert_eq!(
            value("x", plain, Some(&local)),
            Err("runner does not read the YAML tag `!secret`".into())
        );
        assert!(collection_tag_is_read(Some(&core("map")), false));
        assert!(!collection_tag_is_read(Some(&core("set")), false));
        assert!(!collection_tag_is_read(Some(&core("map")), true));
    }
}
