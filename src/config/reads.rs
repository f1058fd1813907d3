//! The vars a flow reads, as its templates read them (not as its text happens to hold
//! `vars.K`: a longer name, a comment), each with the place of its first read in the file.

use std::ops::Range;

use serde_json::Value;

use super::flows::LoadedFlow;
use crate::source::pointer_push;
use crate::template::{Templates, is_template, var_reads};

/// The vars the templates of `f` read (its `if:` and `expect.that` expressions without braces
/// too), each once, with the byte range of its first read in `f`'s file (the string's, when
/// the read cannot be placed closer). A template that reads `vars` as a whole (`vars[name]`,
/// `vars | items`, `vars.items()`) reads `*`, any var.
pub(crate) fn vars_read(t: &Templates, f: &LoadedFlow) -> Vec<(String, Range<usize>)> {
    let mut out = Vec::new();
    walk(
        &|s, e| var_reads::vars_read(t, s, e),
        f,
        "",
        &f.doc.value,
        false,
        &mut out,
    );
    out
}

/// [`vars_read`], but only the reads where the var's type matters: not a tag that only prints
/// a var into a text ([`var_reads::typed_vars_read`]).
pub(crate) fn typed_vars_read(t: &Templates, f: &LoadedFlow) -> Vec<(String, Range<usize>)> {
    let mut out = Vec::new();
    let read = |s: &str, e| var_reads::typed_vars_read(t, s, e);
    walk(&read, f, "", &f.doc.value, false, &mut out);
    out
}

/// What a string reads (a bare expression when the flag says so): (var, offset, length).
type Reads<'a> = dyn Fn(&str, bool) -> Vec<(String, usize, usize)> + 'a;

fn walk(
    read: &Reads<'_>,
    f: &LoadedFlow,
    ptr: &str,
    v: &Value,
    expression: bool,
    out: &mut Vec<(String, Range<usize>)>,
) {
    match v {
        Value::String(s) if is_template(s) || expression => {
            for (k, offset, len) in read(s, !is_template(s)) {
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
                walk(
                    read,
                    f,
                    &pointer_push(ptr, &i.to_string()),
                    item,
                    false,
                    out,
                );
            }
        }
        Value::Object(m) => {
            for (k, item) in m {
                let p = pointer_push(ptr, k);
                let bare = k == "if" || (k == "that" && ptr.ends_with("/expect"));
                walk(read, f, &p, item, bare, out);
            }
        }
        _ => {}
    }
}
