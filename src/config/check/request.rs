//! The checks of a `request` step the schema cannot make: one body at most, each JSONPath
//! parses, each `matches` is a regular expression (written with no template, so known before
//! the run), and no `equals`/`not_equals` of one value is given to a JSONPath that can select
//! several nodes (it finds their list, which is never that value: `not_equals: 0` always held).

use super::context::Ctx;
use crate::config::any_text::{CONTAINS_HELP, any_text_message, matches_any_text};
use crate::config::model::{Check, MANY_HELP, RequestAction, selects_many};
use crate::config::schema::{at_key, at_value};
use crate::source::{Diagnostic, pointer_escape};
use crate::template::is_template;

/// The diagnostics of the `request` step at `ptr`.
pub(super) fn check_request(c: &Ctx<'_>, ptr: &str, r: &RequestAction, out: &mut Vec<Diagnostic>) {
    let RequestAction::Full(o) = r else { return };
    let bodies: Vec<&str> = [
        ("json", o.json.is_some()),
        ("form", o.form.is_some()),
        ("body", o.body.is_some()),
    ]
    .into_iter()
    .filter_map(|(k, given)| given.then_some(k))
    .collect();
    if let [first, second, ..] = bodies[..] {
        out.push(
            at_key(
                c.file,
                c.spans,
                &format!("{ptr}/request/{second}"),
                format!("`{first}` and `{second}` are two ways to give the body: give one"),
            )
            .with_help("`json` sends a JSON value, `form` a form's fields, `body` text as it is"),
        );
    }
    let Some(checks) = &o.expect else { return };
    let base = format!("{ptr}/request/expect");
    for (path, check) in &checks.json {
        let at = format!("{base}/json/{}", pointer_escape(path));
        if let Err(e) = serde_json_path::JsonPath::parse(path) {
            out.push(
                at_key(
                    c.file,
                    c.spans,
                    &at,
                    format!("`{path}` is not a JSONPath: {e}"),
                )
                .with_help(
                    "write an RFC 9535 JSONPath: `$.items[0].name`, `$['a key']`, `$.items[*].id`",
                ),
            );
        }
        regex(c, &at, check, out);
        if selects_many(path) {
            one_value_on_many(c, &at, path, check, out);
        }
    }
    for (name, check) in &checks.headers {
        let at = format!("{base}/headers/{}", pointer_escape(name));
        regex(c, &at, check, out);
        empty_contains(c, &at, check, out);
    }
    if let Some(check) = &checks.body {
        empty_contains(c, &format!("{base}/body"), check, out);
    }
    for (key, check) in [
        ("status", &checks.status),
        ("body", &checks.body),
        ("duration_ms", &checks.duration_ms),
    ] {
        if let Some(check) = check {
            regex(c, &format!("{base}/{key}"), check, out);
        }
    }
}

/// An `equals` or `not_equals` of one value (not a list, not a template, which may render to
/// one), or a `matches`, on the JSONPath `path`, which can select several nodes.
fn one_value_on_many(c: &Ctx<'_>, at: &str, path: &str, check: &Check, out: &mut Vec<Diagnostic>) {
    // A regular expression tests the list's JSON text whole: it holds when any one node matches.
    if let Check::Predicates(p) = check
        && let Some(re) = &p.matches
    {
        let message = format!(
            "`{path}` can select several nodes, so it finds a list, whose JSON text `matches: {re}` \
             tests whole (it holds when any one node matches)"
        );
        out.push(at_value(c.file, c.spans, &format!("{at}/matches"), message).with_help(MANY_HELP));
        return;
    }
    let (key, value, at) = match check {
        Check::Equals(v) => ("equals", v, at.to_string()),
        Check::Predicates(p) => match (&p.equals, &p.not_equals) {
            (Some(v), _) if !v.is_array() => ("equals", v, format!("{at}/equals")),
            (_, Some(v)) => ("not_equals", v, format!("{at}/not_equals")),
            _ => return,
        },
    };
    if value.is_array() || value.as_str().is_some_and(is_template) {
        return;
    }
    out.push(
        at_value(
            c.file,
            c.spans,
            &at,
            format!(
                "`{path}` can select several nodes, so it finds a list, which `{key}: {value}` \
                 compares whole (`not_equals` would always hold, `equals` never)"
            ),
        )
        .with_help(MANY_HELP),
    );
}

/// A `contains: ""` on text (a header, the body), which every text contains: a check of
/// nothing (attack 31, G9). On a JSONPath it is kept: a list may hold `""`, a map that key.
fn empty_contains(c: &Ctx<'_>, at: &str, check: &Check, out: &mut Vec<Diagnostic>) {
    let Check::Predicates(p) = check else { return };
    if p.contains.as_ref().and_then(|v| v.as_str()) == Some("") {
        out.push(
            at_value(
                c.file,
                c.spans,
                &format!("{at}/contains"),
                "`contains` must not be empty: every text contains the empty one",
            )
            .with_help(CONTAINS_HELP),
        );
    }
}

/// A `matches` that is no regular expression, or one that matches any text.
fn regex(c: &Ctx<'_>, at: &str, check: &Check, out: &mut Vec<Diagnostic>) {
    let Check::Predicates(p) = check else { return };
    let Some(re) = &p.matches else { return };
    if is_template(re) {
        return;
    }
    if matches_any_text(re) {
        let (message, help) = any_text_message(re);
        let p = format!("{at}/matches");
        out.push(at_value(c.file, c.spans, &p, message).with_help(help));
    } else if let Err(err) = regex::Regex::new(re) {
        let msg = err.to_string();
        let last = msg.lines().last().unwrap_or("invalid regex").trim();
        let last = last.strip_prefix("error: ").unwrap_or(last);
        out.push(
            at_value(
                c.file,
                c.spans,
                &format!("{at}/matches"),
                format!("invalid regular expression: {last}"),
            )
            .with_help("`matches` takes a Rust regex; escape special characters with `\\`"),
        );
    }
}
