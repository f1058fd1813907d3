//! Rendering strings and whole values against a context.

use minijinja::value::ValueKind;
use minijinja::{Environment, UndefinedBehavior};
use serde_json::Value;

use super::tags::single_expression;

/// Whether a string holds template syntax at all; plain strings are used as they are.
pub(crate) fn is_template(s: &str) -> bool {
    s.contains("{{") || s.contains("{%") || s.contains("{#")
}

/// A template that failed to render, with the JSON pointer suffix of the string inside the
/// rendered value and the byte offset inside that string when minijinja knows it.
#[derive(Debug, Clone)]
pub(crate) struct RenderError {
    pub(crate) pointer: String,
    pub(crate) offset: Option<usize>,
    pub(crate) message: String,
    /// The message without the values it quotes, when it quotes some (see [`error`]).
    pub(crate) without_values: Option<String>,
}

impl RenderError {
    /// The error quoting no value: what the engine shows when the template read a value its
    /// masker holds as made of a secret (`vars.x` set to `{{ secrets.PIN[1:] }}`), which the
    /// template alone cannot tell.
    #[must_use]
    pub(crate) fn without_values(mut self) -> RenderError {
        if let Some(m) = self.without_values.take() {
            self.message = m;
        }
        self
    }
}

impl std::fmt::Display for RenderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// The shared minijinja environment.
pub(crate) struct Templates {
    env: Environment<'static>,
}

impl Default for Templates {
    fn default() -> Self {
        Templates::new()
    }
}

impl Templates {
    /// A strict environment: undefined names are errors.
    pub(crate) fn new() -> Templates {
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        env.set_keep_trailing_newline(true);
        env.set_recursion_limit(100);
        env.set_fuel(Some(5_000_000));
        // What Jinja2 users write: Python's str/dict/list methods and the contrib filters.
        env.set_unknown_method_callback(super::methods::call);
        minijinja_contrib::add_to_environment(&mut env);
        // Those of them that take arguments, taking them as Jinja2 does: by place or by name.
        super::filters::add_to(&mut env);
        // The filters that read an attribute of each item fail on an item without it.
        super::attrs::add_to(&mut env);
        // `debug()` prints the whole context without naming it — `secrets` and `env` included —
        // so nothing made of it could be told to be made of a secret (see `derived`).
        env.remove_global("debug");
        super::compile::register(&mut env);
        env.add_filter("fromjson", fromjson);
        // Booleans print as YAML and JSON write them (`true`), not as Python does (`True`).
        env.set_formatter(|out, state, value| {
            // A value past the bounds is not printed item by item (`[x] * 10**12`).
            super::compile::bounded(value)?;
            if value.kind() == minijinja::value::ValueKind::Bool {
                let text = if value.is_true() { "true" } else { "false" };
                return out.write_str(text).map_err(|e| {
                    minijinja::Error::new(minijinja::ErrorKind::WriteFailure, e.to_string())
                });
            }
            minijinja::escape_formatter(out, state, value)
        });
        Templates { env }
    }

    /// The environment, for static checks.
    pub(crate) fn env(&self) -> &Environment<'static> {
        &self.env
    }

    /// Renders one string.
    pub(crate) fn render_str(
        &self,
        src: &str,
        ctx: &minijinja::Value,
    ) -> Result<String, RenderError> {
        if !is_template(src) {
            return Ok(src.to_string());
        }
        super::compile::render(&self.env, src, ctx).map_err(|e| error(src, ctx, &e))
    }

    /// Renders a string; a string that is a single `{{ expression }}` keeps the expression's
    /// type (a number stays a number, a list a list).
    pub(crate) fn render_string_value(
        &self,
        src: &str,
        ctx: &minijinja::Value,
    ) -> Result<Value, RenderError> {
        self.render_string_as(src, ctx, Wide::Fail)
    }

    /// The value of `src` when it is one `{{ expression }}` whose value holds an integer wider
    /// than 64 bits (which a JSON value cannot hold exactly).
    pub(crate) fn wide_value(&self, src: &str, ctx: &minijinja::Value) -> Option<minijinja::Value> {
        let expr = single_expression(src)?;
        let v = super::compile::eval(&self.env, expr, ctx).ok()?;
        super::compile::bounded(&v).ok()?;
        super::wide_json::wide_integer_in(&v).map(|_| v)
    }

    /// [`Templates::render_string_value`]; `wide` says what an integer wider than 64 bits the
    /// expression gives becomes, which a value cannot hold.
    fn render_string_as(
        &self,
        src: &str,
        ctx: &minijinja::Value,
        wide: Wide,
    ) -> Result<Value, RenderError> {
        if !is_template(src) {
            return Ok(Value::String(src.to_string()));
        }
        if let Some(expr) = single_expression(src) {
            // minijinja's range is inside `expr`; the error's offset is inside `src`.
            let base = expr.as_ptr() as usize - src.as_ptr() as usize;
            let at_src = |e: minijinja::Error| {
                let mut r = error(expr, ctx, &e);
                r.offset = r.offset.map(|o| o + base);
                r
            };
            let v = super::compile::eval(&self.env, expr, ctx).map_err(at_src)?;
            if v.is_undefined() {
                return Err(RenderError {
                    pointer: String::new(),
                    offset: None,
                    message: format!("undefined value: `{}`", expr.trim()),
                    without_values: None,
                });
            }
            // Bounded first: `to_value` takes a lazily repeated list whole (`[x] * 10**13`).
            super::compile::bounded(&v).map_err(at_src)?;
            let place = wide;
            let wide = super::wide_json::wide_integer_in(&v);
            if let (Wide::Text, Some(n)) = (place, &wide) {
                // A list or map as JSON text, its integers exact (as `tojson` writes them).
                return Ok(Value::String(if v.kind() == ValueKind::Number {
                    n.clone()
                } else {
                    serde_json::to_string(&v).unwrap_or_default()
                }));
            }
            if let (Wide::Nearest, Some(_)) = (place, &wide) {
                return Ok(super::wide_json::nearest_json(&v));
            }
            return serde_json::to_value(&v).map_err(|e| RenderError {
                pointer: String::new(),
                offset: None,
                message: wide.map_or_else(|| e.to_string(), |n| {
                    format!("the value holds the integer {n}, wider than 64 bits, which runner holds exactly only inside a template (a var, a list to loop over, an output hold numbers of 64 bits): compare it where it is read (`{{{{ steps.ID.json.id == {n} }}}}`), or pass it on as text (`| string`)")
                }),
                without_values: None,
            });
        }
        self.render_str(src, ctx).map(Value::String)
    }

    /// Renders every string inside `value`.
    pub(crate) fn render_value(
        &self,
        value: &Value,
        ctx: &minijinja::Value,
    ) -> Result<Value, RenderError> {
        self.render_value_as(value, ctx, &|_| Wide::Fail, "")
    }

    /// [`Templates::render_value`], where `text` says what an integer wider than 64 bits
    /// becomes at each place (JSON pointers below `value`, `at` the one of `value`): its digits
    /// where only text goes (an `exec` argument `"{{ steps.r.json.id }}"`).
    pub(crate) fn render_value_as(
        &self,
        value: &Value,
        ctx: &minijinja::Value,
        text: &dyn Fn(&str) -> Wide,
        at: &str,
    ) -> Result<Value, RenderError> {
        match value {
            Value::String(s) => self.render_string_as(s, ctx, text(at)),
            Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    let at = format!("{at}/{i}");
                    self.render_value_as(v, ctx, text, &at).map_err(|mut e| {
                        e.pointer = format!("/{i}{}", e.pointer);
                        e
                    })
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Value::Array),
            Value::Object(map) => {
                let mut out = serde_json::Map::with_capacity(map.len());
                for (k, v) in map {
                    let at = format!("{at}/{}", crate::source::pointer_escape(k));
                    let r = self.render_value_as(v, ctx, text, &at).map_err(|mut e| {
                        e.pointer = format!("/{}{}", crate::source::pointer_escape(k), e.pointer);
                        e
                    })?;
                    out.insert(k.clone(), r);
                }
                Ok(Value::Object(out))
            }
            other => Ok(other.clone()),
        }
    }

    /// Evaluates a condition: a boolean, one `{{ expression }}`, or a bare expression. A
    /// template with text around or between its expressions is refused ([`not_one_expression`]):
    /// it renders to a text, which would always be true.
    pub(crate) fn condition(
        &self,
        cond: &Value,
        ctx: &minijinja::Value,
    ) -> Result<bool, RenderError> {
        match cond {
            Value::Bool(b) => Ok(*b),
            Value::String(s) => {
                if let Some(why) = self.not_one_expression(s) {
                    return Err(RenderError {
                        pointer: String::new(),
                        offset: None,
                        message: why.0,
                        without_values: None,
                    });
                }
                let v = if is_template(s) {
                    self.render_string_value(s, ctx)?
                } else {
                    let v = super::compile::eval(&self.env, s, ctx)
                        .and_then(|v| super::compile::bounded(&v).map(|()| v))
                        .map_err(|e| error(s, ctx, &e))?;
                    serde_json::to_value(&v).unwrap_or(Value::Null)
                };
                Ok(truthy(&v))
            }
            other => Ok(truthy(other)),
        }
    }
}

impl Templates {
    /// Why the condition `src` is not one expression, bare or in one `{{ }}` with only spaces
    /// around it — `"{{ a }} and {{ b }}"`, `"{{ x }}{{ y }}"`, `"x {{ false }}"` render to a
    /// text, which any reader takes as true (GitHub Actions' `${{ a }} && ${{ b }}` trap) —
    /// and, when the text without its braces is one expression, that expression in one `{{ }}`
    /// (for a help line); `None` for a condition that is one. A template with `{% %}`
    /// statements is the flow's own logic (`{% if a %}true{% endif %}` renders to `true` or
    /// nothing), as is one minijinja cannot read (its syntax error is reported on its own).
    pub(crate) fn not_one_expression(&self, src: &str) -> Option<(String, Option<String>)> {
        if !is_template(src) || single_expression(src).is_some() {
            return None;
        }
        let tags = super::tags::tags(src).ok()?;
        if tags.iter().any(|t| t.kind == super::tags::Kind::Block) {
            return None;
        }
        let unbraced = src.replace("{{", " ").replace("}}", " ");
        let joined = unbraced.split_whitespace().collect::<Vec<_>>().join(" ");
        // A quote outside the braces puts a template inside a string (`'{{ vars.a }}' != 'y'`):
        // unbraced, it would compare two fixed texts, a check that cannot fail; no help line.
        let quoted = src
            .split("{{")
            .enumerate()
            .map(|(i, part)| {
                if i == 0 {
                    part
                } else {
                    part.split_once("}}").map_or("", |p| p.1)
                }
            })
            .any(|outside| outside.contains(['\'', '"']));
        let one =
            (!quoted && !is_template(&joined) && self.env.compile_expression(&joined).is_ok())
                .then(|| format!("{{{{ {joined} }}}}"));
        Some((
            "this condition is not one expression (bare, or in one `{{ }}` with only spaces around it): the text around or between its templates makes it render to a text, which would always be true".to_string(),
            one,
        ))
    }
}

/// What an integer wider than 64 bits that a template gives becomes where a value is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wide {
    /// The template fails, saying so.
    Fail,
    /// Its digits (the place takes only text); a list or map holding it, its JSON text.
    Text,
    /// The nearest float: the caller keeps the exact value beside it ([`Templates::wide_value`]).
    Nearest,
}

/// `fromjson`: JSON text (a `request`'s body, an `exec`'s stdout) as the value it holds, the
/// inverse of `tojson`.
fn fromjson(text: &str) -> Result<minijinja::Value, minijinja::Error> {
    use super::json_size::{MAX_VALUES, more_values_than};
    if more_values_than(text.as_bytes(), MAX_VALUES) {
        return Err(minijinja::Error::new(
            minijinja::ErrorKind::InvalidOperation,
            format!(
                "`fromjson`: the text holds more than {MAX_VALUES} JSON values: runner does not parse it"
            ),
        ));
    }
    match super::wide_json::parse(text) {
        Ok(Some(exact)) => return Ok(exact),
        Ok(None) => {}
        Err(why) => {
            return Err(minijinja::Error::new(
                minijinja::ErrorKind::InvalidOperation,
                format!("`fromjson`: {why}"),
            ));
        }
    }
    let v: Value = serde_json::from_str(text).map_err(|e| {
        minijinja::Error::new(
            minijinja::ErrorKind::InvalidOperation,
            format!("`fromjson`: the text is not JSON ({e})"),
        )
    })?;
    Ok(minijinja::Value::from_serialize(&v))
}

/// Jinja truthiness, with the strings `false`, `no`, `0` and `` counting as false (a rendered
/// `{{ x }}` inside a longer string gives text).
fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !matches!(s.trim(), "" | "false" | "False" | "no" | "0"),
        Value::Array(a) => !a.is_empty(),
        Value::Object(m) => !m.is_empty(),
    }
}

/// A render error; `src` is the text minijinja's range points into. The error of a template
/// that reads a secret (`secrets.*`, or a value of `ctx` that holds one) quotes no value: its
/// detail is cut before the first value minijinja quotes (`unable to calculate 9312345 ** 100`
/// where `9312345` was made of a secret), and says why. The masker masks a secret where it
/// shows, but not what a template that failed made of one: nothing of it was learned.
fn error(src: &str, ctx: &minijinja::Value, e: &minijinja::Error) -> RenderError {
    let pointer = String::new();
    let mut message = e
        .detail()
        .map_or_else(|| e.kind().to_string(), str::to_string);
    let hidden = e
        .detail()
        .map(|d| format!("template error: {}", values_not_shown(e.kind(), d)));
    if e.detail().is_some() && reads_a_secret(src, ctx) {
        message = values_not_shown(e.kind(), &message);
    }
    if e.kind() == minijinja::ErrorKind::UndefinedError && e.detail().is_none() {
        // Name what is undefined: the expression the error points at.
        let what = e
            .range()
            .and_then(|r| src.get(r))
            .map(str::trim)
            .filter(|w| !w.is_empty());
        message = match what {
            Some(w) => format!("`{w}` is undefined"),
            None => "undefined value".to_string(),
        };
    }
    RenderError {
        pointer,
        offset: e.range().map(|r| r.start),
        message: format!("template error: {message}"),
        without_values: hidden,
    }
}

/// Whether the template `src` reads a secret: names `secrets`, or a value of `ctx` that holds a
/// secret's text (an `env` value, an output that shows one). Each name of the context in the
/// code (`steps.r.stdout`, with the attributes after it) is followed as far as `ctx` has it; a
/// name inside a string literal counts too (then values are hidden that need not be).
/// (minijinja's `undeclared_variables` leaves out a name under a slice: `secrets.T[1:]`.)
fn reads_a_secret(src: &str, ctx: &minijinja::Value) -> bool {
    let secrets: Vec<String> = ctx
        .get_attr("secrets")
        .ok()
        .and_then(|s| s.try_iter().ok().map(|keys| (s, keys)))
        .map(|(s, keys)| {
            keys.filter_map(|k| s.get_item(&k).ok())
                .filter_map(|v| v.as_str().map(str::to_string))
                .filter(|v| !v.is_empty())
                .collect()
        })
        .unwrap_or_default();
    let word = |c: char| c.is_alphanumeric() || c == '_';
    src.char_indices().any(|(i, _)| {
        if src[..i]
            .chars()
            .next_back()
            .is_some_and(|c| word(c) || c == '.')
        {
            return false;
        }
        let at = &src[i..];
        let Some(root) = super::ROOTS
            .iter()
            .find(|r| at.starts_with(**r) && !at[r.len()..].chars().next().is_some_and(word))
        else {
            return false;
        };
        if *root == "secrets" {
            return true;
        }
        let Ok(mut v) = ctx.get_attr(root) else {
            return false;
        };
        let mut rest = &at[root.len()..];
        while let Some(after) = rest.trim_start().strip_prefix('.') {
            let after = after.trim_start();
            let end = after.find(|c: char| !word(c)).unwrap_or(after.len());
            match v.get_attr(&after[..end]) {
                Ok(next) if end > 0 && !next.is_undefined() => v = next,
                _ => break,
            }
            rest = &after[end..];
        }
        let text = v.as_str().map_or_else(
            || serde_json::to_string(&v).unwrap_or_default(),
            str::to_string,
        );
        secrets.iter().any(|s| text.contains(s.as_str()))
    })
}

/// An error's detail without the values it quotes: the words before the first of them, the
/// error's kind, and why.
fn values_not_shown(kind: minijinja::ErrorKind, detail: &str) -> String {
    let words: String = detail
        .chars()
        .take_while(|c| c.is_ascii_lowercase() || *c == ' ' || *c == '-')
        .collect();
    let words = words.trim_end();
    let kind = kind.to_string();
    let head = if words.is_empty() || kind.ends_with(words) {
        kind
    } else {
        format!("{kind}: {words}")
    };
    format!("{head} (values not shown: the template reads a secret)")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ctx() -> minijinja::Value {
        minijinja::Value::from_serialize(json!({"vars": {"n": 3, "name": "x"}, "env": {}}))
    }

    #[test]
    fn single_expressions_keep_their_type() {
        let t = Templates::new();
        assert_eq!(
            t.render_string_value("{{ vars.n }}", &ctx()).unwrap(),
            json!(3)
        );
        assert_eq!(
            t.render_string_value("n={{ vars.n }}", &ctx()).unwrap(),
            json!("n=3")
        );
        assert_eq!(
            t.render_string_value("plain", &ctx()).unwrap(),
            json!("plain")
        );
    }

    #[test]
    fn strict_undefined_and_defaults() {
        let t = Templates::new();
        assert!(t.render_str("{{ vars.nope }}", &ctx()).is_err());
        assert!(t.render_str("{{ vars.nope.deeper }}", &ctx()).is_err());
        assert_eq!(
            t.render_str("{{ env.NOPE | default('d') }}", &ctx())
                .unwrap(),
            "d"
        );
    }

    #[test]
    fn fromjson_parses_json_text() {
        let t = Templates::new();
        let c = minijinja::Value::from_serialize(json!({"body": "{\"a\": [1, 2], \"b\": \"x\"}"}));
        assert_eq!(
            t.render_string_value("{{ (body | fromjson).a }}", &c)
                .unwrap(),
            json!([1, 2])
        );
        assert_eq!(
            t.render_str("{{ (body | fromjson)['b'] }}", &c).unwrap(),
            "x"
        );
        let err = t.render_str("{{ 'nope' | fromjson }}", &c).unwrap_err();
        assert!(err.message.contains("not JSON"), "{}", err.message);
    }

    #[test]
    fn the_error_of_a_template_that_reads_a_secret_quotes_no_value() {
        let t = Templates::new();
        let c = minijinja::Value::from_serialize(json!({
            "secrets": {"PIN": "99312345"}, "env": {"COPY": "99312345"}, "vars": {"n": 7}
        }));
        for src in [
            "{{ (secrets.PIN[1:] | int) ** 100 }}",
            "x {{ (env.COPY[1:] | int) // 0 }}",
        ] {
            let e = t.render_string_value(src, &c).unwrap_err();
            assert_eq!(
                e.message,
                "template error: invalid operation: unable to calculate (values not shown: the template reads a secret)",
                "{src}"
            );
            assert!(e.offset.is_some(), "{src}");
        }
        let e = t
            .render_str("{% include secrets.PIN[1:] %}", &c)
            .unwrap_err();
        assert!(!e.message.contains("9312345"), "{}", e.message);
        let e = t.render_str("{{ vars.n // 0 }}", &c).unwrap_err();
        assert!(e.message.contains("7 // 0"), "{}", e.message);
    }

    #[test]
    fn conditions() {
        let t = Templates::new();
        assert!(t.condition(&json!("vars.n == 3"), &ctx()).unwrap());
        assert!(!t.condition(&json!("{{ vars.n > 5 }}"), &ctx()).unwrap());
        assert!(t.condition(&json!(true), &ctx()).unwrap());
        assert!(t.condition(&json!(" {{ vars.n == 3 }} "), &ctx()).unwrap());
        // Text around or between its expressions: it would render to a text, always true.
        for text in [
            "{{ vars.n > 5 }} and {{ vars.n > 6 }}",
            "{{ false }}{{ false }}",
            "x {{ false }}",
        ] {
            let e = t.condition(&json!(text), &ctx()).unwrap_err();
            assert!(e.message.contains("not one expression"), "{text}: {e}");
        }
        assert_eq!(
            t.not_one_expression("{{ vars.n > 5 }} and {{ vars.n > 6 }}")
                .and_then(|w| w.1),
            Some("{{ vars.n > 5 and vars.n > 6 }}".to_string())
        );
        assert_eq!(
            t.not_one_expression("x {{ false }}").and_then(|w| w.1),
            None
        );
        // A template inside quotes has no one-expression rewrite: unbraced, it would compare
        // two fixed texts (review of session 25).
        for quoted in ["'{{ vars.a }}' != 'y'", "\"{{ vars.a }}\" == \"x\""] {
            let w = t.not_one_expression(quoted);
            assert!(w.is_some(), "{quoted}");
            assert_eq!(w.and_then(|w| w.1), None, "{quoted}");
        }
        // Statements are the flow's own logic: `true` or nothing.
        assert_eq!(
            t.not_one_expression("{% if vars.n > 5 %}true{% endif %}"),
            None
        );
        assert!(
            !t.condition(&json!("{% if vars.n > 5 %}true{% endif %}"), &ctx())
                .unwrap()
        );
    }
}
