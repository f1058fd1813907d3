//! Fields runner uses as written. A template in one would reach a browser, a path or a report
//! with its `{{ }}` in it, so `validate` refuses it there, naming the field (SPEC 3.4: every
//! string is rendered, or refused).

use serde_json::Value;

use super::schema::at_value;
use crate::source::{Diagnostic, SourceFile, SpanMap, pointer_push};
use crate::template::is_template;

/// The refusal of the template `text` in the field at `ptr`, which takes none.
pub(crate) fn refused(file: &SourceFile, spans: &SpanMap, ptr: &str, text: &str) -> Diagnostic {
    at_value(
        file,
        spans,
        ptr,
        format!(
            "`{}` takes no templates: `{text}` would be used as written",
            field_name(ptr)
        ),
    )
}

/// The refusal of a template in a key (at `ptr`): keys are never rendered.
fn refused_key(file: &SourceFile, spans: &SpanMap, ptr: &str, key: &str) -> Diagnostic {
    let parent = ptr.rsplit_once('/').map_or("", |(p, _)| p);
    super::schema::at_key(
        file,
        spans,
        ptr,
        format!(
            "the names in `{}` take no templates: `{key}` would be used as written",
            field_name(parent)
        ),
    )
    .with_help("write the name itself; templates go in values")
}

/// A pointer as the field it names, from the step or suite flow it is in:
/// `/browser/headers/X-A` is `browser.headers.X-A`, `/tags/0` is `tags[0]`,
/// `/steps/2/run_flow/path` is `run_flow.path`.
pub(crate) fn field_name(ptr: &str) -> String {
    let tokens: Vec<&str> = ptr.split('/').skip(1).collect();
    let holders = ["steps", "finally", "before_each", "after_each", "flows"];
    let from = (1..tokens.len().saturating_sub(1))
        .rev()
        .find(|&i| holders.contains(&tokens[i - 1]) && tokens[i].parse::<usize>().is_ok())
        .map_or(0, |i| i + 1);
    let mut out = String::new();
    for token in &tokens[from..] {
        let token = token.replace("~1", "/").replace("~0", "~");
        if token.parse::<usize>().is_ok() {
            out.push_str(&format!("[{token}]"));
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(&token);
        }
    }
    out
}

/// Every template in the strings of `v` (at `ptr`), refused with `help`.
pub(crate) fn refuse_all(
    file: &SourceFile,
    spans: &SpanMap,
    ptr: &str,
    v: &Value,
    help: &str,
    out: &mut Vec<Diagnostic>,
) {
    match v {
        Value::String(s) if is_template(s) => {
            out.push(refused(file, spans, ptr, s).with_help(help));
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                refuse_all(
                    file,
                    spans,
                    &pointer_push(ptr, &i.to_string()),
                    item,
                    help,
                    out,
                );
            }
        }
        Value::Object(m) => {
            for (k, item) in m {
                refuse_all(file, spans, &pointer_push(ptr, k), item, help, out);
            }
        }
        _ => {}
    }
}

/// Every template in a key of `v` (at `ptr`), refused: no key of any file is rendered (a
/// header's name, a var's, an env variable's).
pub(crate) fn refuse_keys(
    file: &SourceFile,
    spans: &SpanMap,
    ptr: &str,
    v: &Value,
    out: &mut Vec<Diagnostic>,
) {
    match v {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                refuse_keys(file, spans, &pointer_push(ptr, &i.to_string()), item, out);
            }
        }
        Value::Object(m) => {
            for (k, item) in m {
                let at = pointer_push(ptr, k);
                if is_template(k) {
                    out.push(refused_key(file, spans, &at, k));
                }
                refuse_keys(file, spans, &at, item, out);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_named_as_written() {
        assert_eq!(field_name("/browser/headers/X-A"), "browser.headers.X-A");
        assert_eq!(field_name("/tags/0"), "tags[0]");
        assert_eq!(field_name("/steps/2/run_flow/path"), "run_flow.path");
        assert_eq!(field_name("/steps/2/each/steps/0/frame"), "frame");
        assert_eq!(field_name("/flows/1/description"), "description");
        assert_eq!(field_name("/flows/0"), "flows[0]");
        assert_eq!(field_name("/vars/a~1b"), "vars.a/b");
        assert_eq!(field_name("/$schema"), "$schema");
    }
}
