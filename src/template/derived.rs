//! The values a template makes of a secret, so that they are masked as secrets too (GitHub
//! Actions' `add-mask` model: what is made of a secret is a secret). A template reads a secret
//! when it names `secrets`, or a value that holds one: a var made of a secret, a step's output
//! or an `env` value that shows it. So a var built from a secret makes whatever is built from
//! that var a secret in turn.

use minijinja::value::ValueKind;

use super::render::{Templates, is_template};

/// Tells whether a text holds a secret (the flow's masker, in the engine).
pub(crate) type HoldsSecret<'a> = &'a dyn Fn(&str) -> bool;

impl Templates {
    /// What the parts of `src` that read a secret render to: the value of each `{{ expr }}` that
    /// reads one (`{{ secrets.T | upper }}` -> `S3CRET`, `{{ vars.creds | reverse }}` where
    /// `vars.creds` holds a secret), so those derived values can be masked without masking the
    /// text around them. A `{% %}` block that reads a secret cannot be split out: then the
    /// whole rendering is returned. A boolean or none is no secret (one bit; masking it would
    /// blank out every `true`).
    pub(crate) fn secret_parts(
        &self,
        src: &str,
        ctx: &minijinja::Value,
        holds_secret: HoldsSecret<'_>,
    ) -> Vec<String> {
        if !is_template(src) {
            return Vec::new();
        }
        let mut out = Vec::new();
        let mut rest = src;
        while let Some(i) = rest.find("{{") {
            let Some(j) = rest[i..].find("}}") else { break };
            let expr = rest[i + 2..i + j].trim().trim_matches('-').trim();
            if reads_a_secret(expr, ctx, holds_secret)
                && let Ok(e) = self.env().compile_expression(expr)
                && let Ok(v) = e.eval(ctx)
                && !matches!(
                    v.kind(),
                    ValueKind::Bool | ValueKind::None | ValueKind::Undefined
                )
            {
                match v.as_str() {
                    Some(s) => out.push(s.to_string()),
                    None => out.push(v.to_string()),
                }
            }
            rest = &rest[i + j + 2..];
        }
        let blocks_read_secrets = src.split("{%").skip(1).any(|b| {
            b.split("%}")
                .next()
                .is_some_and(|b| reads_a_secret(b, ctx, holds_secret))
        });
        if blocks_read_secrets && let Ok(all) = self.render_str(src, ctx) {
            out.push(all);
        }
        out
    }
}

/// Whether template code (an expression, a block's text) reads a secret: names `secrets`, or a
/// value of the context that holds one (`vars.creds`; `vars` alone, as in `vars[name]`, is the
/// whole map). The names are found in the text, so that a name inside a slice
/// (`secrets.T[2:8]`), which minijinja's list of a template's variables leaves out, counts. A
/// name is followed as far as the context has it: `steps.login.url` is that URL, not the whole
/// of `steps.login` (which may hold a token); `vars.creds.upper()` is `vars.creds`.
fn reads_a_secret(code: &str, ctx: &minijinja::Value, holds_secret: HoldsSecret<'_>) -> bool {
    named_values(code).any(|(root, attrs)| {
        if root == "secrets" {
            return true;
        }
        let mut v = match ctx.get_attr(root) {
            Ok(v) if !v.is_undefined() => v,
            _ => return false,
        };
        for a in attrs {
            match v.get_attr(a) {
                Ok(next) if !next.is_undefined() => v = next,
                _ => break,
            }
        }
        match v.as_str() {
            Some(s) => holds_secret(s),
            None => serde_json::to_string(&v).is_ok_and(|t| holds_secret(&t)),
        }
    })
}

/// The context values `code` names: each root (`vars`, `steps`, ...) that starts a word, with
/// the attributes after it (`steps.login.url` -> `("steps", ["login", "url"])`).
fn named_values(code: &str) -> impl Iterator<Item = (&'static str, Vec<&str>)> {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    code.char_indices()
        .filter(move |&(i, _)| {
            // Not inside a longer name, nor an attribute of something else (`x.vars`).
            !code[..i]
                .chars()
                .next_back()
                .is_some_and(|c| word(c) || c == '.')
        })
        .filter_map(move |(i, _)| {
            let at = &code[i..];
            let root = super::ROOTS
                .iter()
                .find(|r| at.starts_with(**r) && !at[r.len()..].chars().next().is_some_and(word))?;
            let mut attrs = Vec::new();
            let mut rest = &at[root.len()..];
            while let Some(a) = rest.trim_start().strip_prefix('.') {
                let a = a.trim_start();
                let end = a.find(|c: char| !word(c)).unwrap_or(a.len());
                if end == 0 {
                    break;
                }
                attrs.push(&a[..end]);
                rest = &a[end..];
            }
            Some((*root, attrs))
        })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::Templates;

    fn parts(src: &str) -> Vec<String> {
        let t = Templates::new();
        let ctx = minijinja::Value::from_serialize(json!({
            "secrets": { "T": "s3cret" },
            "vars": { "creds": "user:s3cret", "plain": "hello", "list": ["a-s3cret", "b"] },
            "steps": { "login": { "token": "xs3cretx", "ok": true, "url": "http://h/login" } },
        }));
        let holds = |text: &str| text.contains("s3cret");
        t.secret_parts(src, &ctx, &holds)
    }

    #[test]
    fn the_parts_of_a_template_that_read_a_secret_are_found() {
        assert_eq!(
            parts("the token is {{ secrets.T | upper }} ({{ 1 + 1 }})"),
            ["S3CRET"]
        );
        assert_eq!(parts("{{ secrets['T'] | reverse }}"), ["terc3s"]);
        assert!(parts("no secret {{ 1 }} {{ vars.plain | upper }}").is_empty());
        assert!(parts("plain text").is_empty());
        // minijinja's list of variables leaves out a slice's: the name is found in the text.
        assert_eq!(parts("{{ secrets.T[1:5] }}"), ["3cre"]);
        assert_eq!(
            super::named_values("x.vars + vars . a.b + steps[1] + myvars.b + secrets")
                .collect::<Vec<_>>(),
            [
                ("vars", vec!["a", "b"]),
                ("steps", vec![]),
                ("secrets", vec![])
            ]
        );
    }

    #[test]
    fn values_made_of_a_value_made_of_a_secret_are_found() {
        assert_eq!(
            parts("{{ vars.creds | upper }} {{ steps.login.token[1:5] }}"),
            ["USER:S3CRET", "s3cr"]
        );
        // `steps.login` holds a secret, but a boolean is no secret, nor its other outputs.
        assert!(parts("{{ steps.login.ok }} {{ vars.creds == 'x' }}").is_empty());
        assert!(parts("{{ steps.login.url }}").is_empty());
        assert_eq!(parts("{{ vars.creds.upper() }}"), ["USER:S3CRET"]);
        // A block that reads one: the whole rendering.
        assert_eq!(
            parts("{% for c in vars.list %}[{{ c | upper }}]{% endfor %}"),
            ["[A-S3CRET][B]"]
        );
        assert!(parts("{% for c in vars.plain %}{{ c }}{% endfor %}").is_empty());
    }
}
