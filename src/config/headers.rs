//! HTTP header maps (a flow's and runner.toml's `browser.headers`, a `request`'s and a
//! `route`'s `headers`): a CR or LF in a value would end the header there and start another
//! (header injection: `X-A: "a\r\nSet-Cookie: ..."`), and a name must be an HTTP token. Checked
//! by `validate` where the text is written, and again on a rendered value.

use serde_json::Value;

use super::schema::{at_key, at_value};
use crate::source::{Diagnostic, SourceFile, SpanMap, pointer_push};

/// What is wrong with a header's value, if anything: a line break, or another control
/// character (a tab is allowed, as HTTP allows it).
pub(crate) fn value_problem(value: &str) -> Option<&'static str> {
    if value.contains(['\r', '\n']) {
        Some("a line break")
    } else if value.chars().any(|c| c.is_control() && c != '\t') {
        Some("a control character")
    } else {
        None
    }
}

/// Whether `name` is an HTTP header name (RFC 9110's token).
fn is_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// The problems of the header map at `ptr` of a document (none when there is no map there).
pub(crate) fn problems(
    file: &SourceFile,
    spans: &SpanMap,
    doc: &Value,
    ptr: &str,
    out: &mut Vec<Diagnostic>,
) {
    let Some(map) = doc.pointer(ptr).and_then(Value::as_object) else {
        return;
    };
    for (name, v) in map {
        let at = pointer_push(ptr, name);
        let shown = name.escape_debug();
        // (A template in a name is refused as such: names are never rendered.)
        if !is_name(name) && !crate::template::is_template(name) {
            out.push(
                at_key(file, spans, &at, format!("`{shown}` is not a header name"))
                    .with_help("a header's name is letters, digits and `-` (an HTTP token)"),
            );
        }
        if let Some(what) = v.as_str().and_then(value_problem) {
            out.push(
                at_value(file, spans, &at, format!("the header `{shown}` holds {what}"))
                    .with_help("a header's value is one line: a line break would end the header there and start another"),
            );
        }
    }
}
