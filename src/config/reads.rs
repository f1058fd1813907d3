//! The vars a flow reads, as its templates read them (not as its text happens to hold
//! `vars.K`: a longer name, a comment), each with the place of its first read in the file.

use std::ops::Range;

use serde_json::Value;

use super::flows::LoadedFlow;
use crate::source::pointer_push;
use crate::template::{Templates, is_template};

/// The vars the templates of `f` read (its `if:` and `expect.that` expressions without braces
/// too), each once, with the byte range of its first read in `f`'s file (the string's, when
/// the read cannot be placed closer). A template that reads `vars` as a whole (`vars[name]`,
/// `vars | items`) reads `*`, any var.
pub(crate) fn vars_read(t: &Templates, f: &LoadedFlow) -> Vec<(String, Range<usize>)> {
    let mut out = Vec::new();
    walk(t, f, "", &f.doc.value, false, &mut out);
    out
}

fn walk(
    t: &Templates,
    f: &LoadedFlow,
    ptr: &str,
    v: &Value,
    expression: bool,
    out: &mut Vec<(String, Range<usize>)>,
) {
    match v {
        Value::String(s) if is_template(s) || expression => {
            for (k, offset, len) in crate::template::check::vars_read(t, s, !is_template(s)) {
                if out.iter().any(|(o, _)| *o == k) {
                    continue;
                }
                let span = match f.doc.spans.get(ptr) {
                    Some(n) => n
                        .content_start
                        .map_or(n.value.clone(), |c| c + offset..c + offset + len),
                    None => f.doc.spans.nearest(ptr).map_or(0..0, |n| n.value.clone()),
                };
                out.push((k, span));
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                walk(t, f, &pointer_push(ptr, &i.to_string()), item, false, out);
            }
        }
        Value::Object(m) => {
            for (k, item) in m {
                let p = pointer_push(ptr, k);
                let bare = k == "if" || (k == "that" && ptr.ends_with("/expect"));
                walk(t, f, &p, item, bare, out);
            }
        }
        _ => {}
    }
}
