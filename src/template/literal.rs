//! Text kept as text. Every string of a flow is a template, so text runner takes from outside
//! (a page's names and values, an agent's answer) is written into the steps it records or
//! exports as the template that renders to exactly that text: each `{{`, `{%` and `{#` as
//! `{{ '{{' }}`, `{{ '{%' }}`, `{{ '{#' }}`. And the steps runner reads back from where it
//! stored them (an atlas, the agent cache) may hold no other template than those escapes and
//! the secret references a recorded flow kept (`{{ secrets.X | upper }}`): anything else was
//! not written by runner, and is refused rather than rendered.

use serde_json::Value;

use super::Templates;
use super::render::is_template;
use super::tags::{Kind, names_read, tags};

/// The pairs that open a template tag, and what runner writes for each in text.
const ESCAPES: [(&str, &str); 3] = [
    ("{{", "{{ '{{' }}"),
    ("{%", "{{ '{%' }}"),
    ("{#", "{{ '{#' }}"),
];

/// The template that renders to `text` exactly (`Press {{ x }}` -> `Press {{ '{{' }} x }}`).
pub(crate) fn literal(text: &str) -> String {
    if !is_template(text) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if let Some((pair, escaped)) = ESCAPES.iter().find(|(pair, _)| rest.starts_with(pair)) {
            out.push_str(escaped);
            rest = &rest[pair.len()..];
        } else {
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// Every string in `v` (not its keys) made [`literal`].
pub(crate) fn literal_value(v: &mut Value) {
    match v {
        Value::String(s) if is_template(s) => *s = literal(s),
        Value::Array(items) => items.iter_mut().for_each(literal_value),
        Value::Object(m) => m.values_mut().for_each(literal_value),
        _ => {}
    }
}

/// The text a [`literal`] renders to: its escapes made the pairs again (for what is not a
/// flow, such as a Playwright script). Anything else is left as it is.
pub(crate) fn text_of(template: &str) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(c) = rest.chars().next() {
        if let Some((pair, escaped)) = ESCAPES.iter().find(|(_, e)| rest.starts_with(e)) {
            out.push_str(pair);
            rest = &rest[escaped.len()..];
        } else {
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// Every string in `v` made the text its [`literal`] renders to (see [`text_of`]).
pub(crate) fn text_value(v: &mut Value) {
    match v {
        Value::String(s) => *s = text_of(s),
        Value::Array(items) => items.iter_mut().for_each(text_value),
        Value::Object(m) => m.values_mut().for_each(text_value),
        _ => {}
    }
}

/// `text` with every pair that would open a template split by a space (`{ {`): for the names
/// runner makes of page text in fields that take no templates (a flow's `name`).
pub(crate) fn unbraced(text: &str) -> String {
    text.replace("{{", "{ {")
        .replace("{%", "{ %")
        .replace("{#", "{ #")
}

/// The first template in `s` that runner does not write into what it stores: a `{% %}` block,
/// a comment, or an expression that is neither an escape of [`literal`] nor one that reads
/// `secrets` and nothing else (what a recorded flow keeps of a value made of a secret). `None`
/// when there is none.
pub(crate) fn foreign_template(t: &Templates, s: &str) -> Option<String> {
    if !is_template(s) {
        return None;
    }
    let Ok(found) = tags(s) else {
        return Some(s.to_string());
    };
    for tag in found {
        let code = s.get(tag.code.clone()).unwrap_or_default();
        if tag.kind == Kind::Block {
            return Some(format!("{{% {code} %}}"));
        }
        let escape = ESCAPES
            .iter()
            .any(|(_, e)| e.get(3..e.len() - 3) == Some(code));
        if !escape && !reads_only_secrets(t, code) {
            return Some(format!("{{{{ {code} }}}}"));
        }
    }
    // A comment has no tag: it is what is left once the escapes are taken out.
    let mut rest = s.to_string();
    for (_, escaped) in ESCAPES {
        rest = rest.replace(escaped, "");
    }
    rest.contains("{#").then(|| "{#".to_string())
}

/// Whether the expression `code` reads some secret, and no other name (no var, step output,
/// environment variable, nor a global such as `range`). The names are its lexer's (minijinja's
/// own list of them leaves out those read inside a slice, `secrets.T[2:8]`), checked against
/// minijinja's where it has them.
fn reads_only_secrets(t: &Templates, code: &str) -> bool {
    let Ok(expr) = t.env().compile_expression(code) else {
        return false;
    };
    let Ok(read) = names_read(&format!("{{{{ {code} }}}}")) else {
        return false;
    };
    !read.is_empty()
        && read.iter().all(|n| n == "secrets")
        && expr
            .undeclared_variables(true)
            .iter()
            .all(|n| n == "secrets" || n.starts_with("secrets."))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn renders(t: &Templates, s: &str) -> String {
        t.render_str(s, &minijinja::Value::from(())).unwrap()
    }

    #[test]
    fn a_literal_renders_to_its_text() {
        let t = Templates::new();
        for text in [
            "plain",
            "Press {{ env.HOME }}",
            "{% raw %}{{ x }}{% endraw %}",
            "{# note #} {{{ }}} {{'{{'}}",
            "{{ '{{' }}",
            "a {",
            "{",
            "日本 {{ 語 }}",
        ] {
            let l = literal(text);
            assert_eq!(renders(&t, &l), text, "{l}");
            assert_eq!(text_of(&l), text, "{l}");
            assert_eq!(foreign_template(&t, &l), None, "{l}");
        }
        assert_eq!(literal("no braces"), "no braces");
    }

    #[test]
    fn only_escapes_and_secret_references_are_runners_templates() {
        let t = Templates::new();
        for ours in [
            "{{ secrets.T }}",
            "user:{{ secrets.T | upper }}",
            "{{ secrets.T[2:8] }} and {{ '{{' }}",
        ] {
            assert_eq!(foreign_template(&t, ours), None, "{ours}");
        }
        for (theirs, found) in [
            ("{{ env.HOME }}", "{{ env.HOME }}"),
            ("x {{ secrets.T ~ vars.x }}", "{{ secrets.T ~ vars.x }}"),
            ("{{ range(3) | join }}", "{{ range(3) | join }}"),
            ("{{ 7 * 7 }}", "{{ 7 * 7 }}"),
            ("{% if true %}x{% endif %}", "{% if true %}"),
            ("a {# hidden #} b", "{#"),
            ("{{ unclosed", "{{ unclosed"),
        ] {
            assert_eq!(
                foreign_template(&t, theirs).as_deref(),
                Some(found),
                "{theirs}"
            );
        }
    }

    #[test]
    fn names_lose_their_template_pairs() {
        assert_eq!(
            unbraced("Docs {{ x }} {% y %} {# z #}"),
            "Docs { { x }} { % y %} { # z #}"
        );
    }
}
