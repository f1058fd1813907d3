//! The values a template makes of a secret, so that they are masked as secrets too (GitHub
//! Actions' `add-mask` model: what is made of a secret is a secret). A template reads a secret
//! when it names `secrets`, or a value that holds one: a var made of a secret, a step's output
//! or an `env` value that shows it. So a var built from a secret makes whatever is built from
//! that var a secret in turn. What the secrets became in each such value is told apart from the
//! text around them by evaluating it again with the secrets in its inputs hidden
//! ([`SecretParts::made`]).

use minijinja::value::ValueKind;

use super::render::{Templates, is_template};
use super::tags::{Kind, tags};

mod changed;
mod hidden;

use hidden::hidden_context;

/// Tells whether a text holds a secret (the flow's masker, in the engine).
pub(crate) type HoldsSecret<'a> = &'a dyn Fn(&str) -> bool;

/// A text with each secret in it (and each value made of one) replaced by a sentinel of as
/// many characters, none when it holds none (the flow's masker, in the engine).
pub(crate) type Hide<'a> = &'a dyn Fn(&str) -> Option<String>;

/// What the parts of a template that read a secret render to.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct SecretParts {
    /// Texts made of a secret: an expression's value (`{{ secrets.T | upper }}`), a block's
    /// whole rendering.
    pub(crate) texts: Vec<String>,
    /// A list or map made of one as it shows: minijinja's `["a", "b"]`, JSON's `["a","b"]`.
    pub(crate) shapes: Vec<String>,
    /// The texts (and numbers) inside such a list or map, its map keys too, at any depth: the
    /// masker keeps those that are pieces of a secret (`.split('-')`, `| batch(6)`) and leaves
    /// the rest (a user name beside a token).
    pub(crate) pieces: Vec<String>,
    /// Of those pieces, the ones the secrets made: each that is not among the pieces of the
    /// same value made with the secrets hidden (`token=Kestrel` and `Zulu user=bob` of
    /// `.split('-')` of `token=Kestrel-Vault-9931-Zulu user=bob`, each a piece across the
    /// secret's edge; not `bob` beside a token in a map).
    pub(crate) made_pieces: Vec<String>,
    /// What the secrets became in the texts and shapes: the spans of each that change when the
    /// template is evaluated again with each secret in its inputs replaced by a sentinel
    /// (`Kestrel Vault` in the whole output `| replace('-', ' ')` made). What is learned of a
    /// value too long to learn whole.
    pub(crate) made: Vec<String>,
    /// Whether what the secrets became in some value could not be told (its template failed
    /// with the sentinels: `| int` of a numeric secret): that value is learned whole.
    pub(crate) untold: bool,
}

impl Templates {
    /// What the parts of `src` that read a secret render to: the value of each `{{ expr }}` that
    /// reads one (`{{ secrets.T | upper }}` -> `S3CRET`, `{{ vars.creds | reverse }}` where
    /// `vars.creds` holds a secret), so those derived values can be masked without masking the
    /// text around them. The tags are minijinja's own (`tags`): a `}}` in a map or string
    /// literal is no tag's end. Where a part's value cannot be told on its own, the whole
    /// rendering is returned (it fails closed): a `{% %}` block that reads a secret, an
    /// expression that reads one and does not evaluate alone (`{% set n = 2 %}{{ secrets.T[n:]
    /// }}`), and any that reads one in a template with blocks (a block can give a name another
    /// value there). A boolean or none is no secret (one bit; masking it would blank out every
    /// `true`). Each value is evaluated again in a context whose secrets (and texts made of
    /// one) are hidden by `hide`: what differs is what the secrets became ([`SecretParts::made`]).
    /// Templates are pure (no filter or function has effects, reads the clock or draws at
    /// random), so evaluating one twice does nothing twice.
    pub(crate) fn secret_parts(
        &self,
        src: &str,
        ctx: &minijinja::Value,
        holds_secret: HoldsSecret<'_>,
        hide: Hide<'_>,
    ) -> SecretParts {
        let mut out = SecretParts::default();
        if !is_template(src) {
            return out;
        }
        // What minijinja cannot read does not render either: nothing of it is shown.
        let Ok(tags) = tags(src) else {
            return out;
        };
        let has_blocks = tags.iter().any(|t| t.kind == Kind::Block);
        let hidden = std::cell::OnceCell::new();
        let hidden = || hidden.get_or_init(|| hidden_context(src, ctx, hide));
        let mut whole = false;
        for tag in &tags {
            let code = &src[tag.code.clone()];
            if !reads_a_secret(code, ctx, holds_secret) {
                continue;
            }
            whole |= has_blocks;
            match tag.kind {
                Kind::Block => whole = true,
                Kind::Expression => match self.eval_alone(code, ctx) {
                    // A bare path to a text (`{{ steps.dump.stdout }}`) shows the text as it
                    // is: each secret in it is one the masker found there, masked where it
                    // shows. The whole text is not made a secret (a command's whole output
                    // would show as `***` for the token in it). Not in a template with blocks,
                    // where a name may be given another value.
                    Some(v) if !has_blocks && v.as_str().is_some() && bare_path(code) => {}
                    Some(v) => {
                        let again = hidden().as_ref().and_then(|h| self.eval_alone(code, h));
                        out.add(&v, again.as_ref());
                    }
                    None => whole = true,
                },
            }
        }
        if whole && let Ok(all) = self.render_str(src, ctx) {
            let again = hidden().as_ref().and_then(|h| self.render_str(src, h).ok());
            out.told(&all, again.as_deref());
            out.texts.push(all);
        }
        out
    }

    /// Whether a part of `src` reads a secret: names `secrets`, or a value that `holds_secret`
    /// (the flow's masker: a var made of a secret, an output that shows one). What a template
    /// that failed may not quote (see [`super::RenderError::without_values`]).
    pub(crate) fn reads_secret(
        src: &str,
        ctx: &minijinja::Value,
        holds_secret: HoldsSecret<'_>,
    ) -> bool {
        is_template(src)
            && tags(src).is_ok_and(|tags| {
                tags.iter()
                    .any(|t| reads_a_secret(&src[t.code.clone()], ctx, holds_secret))
            })
    }

    /// The value of the expression `code` evaluated on its own, when it has one.
    fn eval_alone(&self, code: &str, ctx: &minijinja::Value) -> Option<minijinja::Value> {
        let v = self.env().compile_expression(code).ok()?.eval(ctx).ok()?;
        (!v.is_undefined()).then_some(v)
    }
}

impl SecretParts {
    /// Adds a value made of a secret: a text as it is; a list or map as its shapes, with what
    /// it holds as pieces. `again` is its value with the secrets hidden, when it has one.
    fn add(&mut self, v: &minijinja::Value, again: Option<&minijinja::Value>) {
        match v.kind() {
            ValueKind::Bool | ValueKind::None | ValueKind::Undefined => {}
            ValueKind::Seq | ValueKind::Map | ValueKind::Iterable => {
                let Ok(json) = serde_json::to_value(v) else {
                    return;
                };
                let again_json = again.and_then(|a| serde_json::to_value(a).ok());
                // One of booleans and nones only (`[true]`, `{"ok": false}`) tells a bit each.
                if informative(&json) {
                    self.add_pieces(&json, again_json.as_ref());
                    for (shape, other) in [
                        (v.to_string(), again.map(ToString::to_string)),
                        (json.to_string(), again_json.map(|j| j.to_string())),
                    ] {
                        self.told(&shape, other.as_deref());
                        self.shapes.push(shape);
                    }
                }
            }
            _ => {
                let text =
                    |v: &minijinja::Value| v.as_str().map_or_else(|| v.to_string(), str::to_string);
                let t = text(v);
                self.told(&t, again.map(text).as_deref());
                self.texts.push(t);
            }
        }
    }

    /// Adds the pieces of `json`, a list or map made of a secret, and of those the ones that
    /// are not among the pieces of `again` (the same made with the secrets hidden) as made of
    /// the secrets.
    fn add_pieces(&mut self, json: &serde_json::Value, again: Option<&serde_json::Value>) {
        let before = self.pieces.len();
        pieces(json, &mut self.pieces);
        if let Some(a) = again {
            let mut hidden = Vec::new();
            pieces(a, &mut hidden);
            let hidden: std::collections::HashSet<String> = hidden.into_iter().collect();
            let made = self.pieces[before..]
                .iter()
                .filter(|p| !hidden.contains(*p));
            self.made_pieces.extend(made.cloned());
        }
    }

    /// Adds what the secrets became in `text`, a value made of them: what differs from
    /// `again`, the same made with the secrets hidden (when it could be made). One that differs
    /// nowhere, or only in spans too short to learn, tells nothing: the secrets came into it
    /// through what the sentinels do not hide (single characters, numbers).
    fn told(&mut self, text: &str, again: Option<&str>) {
        let Some(again) = again else {
            self.untold = true;
            return;
        };
        let spans = changed::changed(text, again);
        self.untold |= !spans
            .iter()
            .any(|s| s.trim().chars().count() >= changed::SHORTEST);
        self.made.extend(spans);
    }
}

/// Whether `v` holds a text or a number (a map's keys aside).
fn informative(v: &serde_json::Value) -> bool {
    match v {
        serde_json::Value::String(_) | serde_json::Value::Number(_) => true,
        serde_json::Value::Array(a) => a.iter().any(informative),
        serde_json::Value::Object(m) => m.values().any(informative),
        _ => false,
    }
}

/// Every text and number inside `v` (map keys too), at any depth.
fn pieces(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::String(s) => out.push(s.clone()),
        serde_json::Value::Number(n) => out.push(n.to_string()),
        serde_json::Value::Array(a) => a.iter().for_each(|v| pieces(v, out)),
        serde_json::Value::Object(m) => {
            for (k, v) in m {
                out.push(k.clone());
                pieces(v, out);
            }
        }
        _ => {}
    }
}

/// Whether template code (an expression, a block's text) reads a secret: names `secrets`, or a
/// value of the context that holds one (`vars.creds`; `vars` alone, as in `vars[name]`, is the
/// whole map). The names are found in the text, so that a name inside a slice
/// (`secrets.T[2:8]`), which minijinja's list of a template's variables leaves out, counts. A
/// name is followed as far as the context has it, through attributes and constant subscripts:
/// `steps.login.url` is that URL, not the whole of `steps.login` (which may hold a token);
/// `steps.r.json['items'][0]` is that item, not the whole answer; `vars.creds.upper()` is
/// `vars.creds`, and `vars.m.values()` is `vars.m` (a key `values` of it aside).
fn reads_a_secret(code: &str, ctx: &minijinja::Value, holds_secret: HoldsSecret<'_>) -> bool {
    named_values(code).any(|path| {
        if path.root == "secrets" {
            return true;
        }
        let mut v = match ctx.get_attr(path.root) {
            Ok(v) if !v.is_undefined() => v,
            _ => return false,
        };
        for key in path.keys {
            let next = match key {
                Key::Name(a) => v.get_attr(a),
                Key::Index(i) => v.get_item(&minijinja::Value::from(i)),
            };
            match next {
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

/// Whether `code` is only a path into the context other than `secrets` (`steps.dump.stdout`).
fn bare_path(code: &str) -> bool {
    let code = code.trim();
    let mut named = named_values(code);
    match (named.next(), named.next()) {
        (Some(p), None) => p.root != "secrets" && !p.keys.is_empty() && p.span == (0..code.len()),
        _ => false,
    }
}

/// A path into the context that a template names: `steps.r.json['items'][0]`.
#[derive(Debug, PartialEq)]
struct Path<'a> {
    root: &'static str,
    /// The attributes and constant subscripts after the root.
    keys: Vec<Key<'a>>,
    /// Where the path is written in the code.
    span: std::ops::Range<usize>,
}

/// One step of a [`Path`]: `.name` or `['name']`, or `[0]`.
#[derive(Debug, PartialEq)]
enum Key<'a> {
    Name(&'a str),
    Index(i64),
}

/// The context values `code` names: each root (`vars`, `steps`, ...) that starts a word, with
/// the attributes and constant subscripts after it (`steps.login['url']` -> `steps`, `login`,
/// `url`). A subscript that is not a constant (`vars[name]`, a slice) ends the path, and so does
/// a method call (`vars.m.values()` -> `vars`, `m`).
fn named_values(code: &str) -> impl Iterator<Item = Path<'_>> {
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
            let mut keys = Vec::new();
            let mut rest = &at[root.len()..];
            while let Some((key, after)) = next_key(rest) {
                keys.push(key);
                rest = after;
            }
            Some(Path {
                root,
                keys,
                span: i..code.len() - rest.len(),
            })
        })
}

/// The attribute or constant subscript `rest` starts with, and the code after it.
fn next_key(rest: &str) -> Option<(Key<'_>, &str)> {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let rest = rest.trim_start();
    if let Some(a) = rest.strip_prefix('.') {
        let a = a.trim_start();
        let end = a.find(|c: char| !word(c)).unwrap_or(a.len());
        // A name called is a method (`.values()`, `.items()`: minijinja calls a map's method
        // even when it has a key of that name), not an attribute: the path ends before it,
        // at the object it is called on.
        let called = a[end..].trim_start().starts_with('(');
        return (end > 0 && !called).then(|| (Key::Name(&a[..end]), &a[end..]));
    }
    let inside = rest.strip_prefix('[')?.trim_start();
    let quote = inside.chars().next().filter(|c| matches!(c, '\'' | '"'));
    let (key, after) = if let Some(q) = quote {
        let end = inside[1..].find(q)? + 1;
        let name = &inside[1..end];
        // An escape would make the name another text than it is written.
        (!name.contains('\\')).then_some(())?;
        (Key::Name(name), &inside[end + 1..])
    } else {
        let end = inside
            .char_indices()
            .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && c == '-')))
            .map_or(inside.len(), |(i, _)| i);
        (Key::Index(inside[..end].parse().ok()?), &inside[end..])
    };
    let after = after.trim_start().strip_prefix(']')?;
    Some((key, after))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::Templates;

    fn parts(src: &str) -> Vec<String> {
        all(src).texts
    }

    fn all(src: &str) -> super::SecretParts {
        let t = Templates::new();
        let ctx = minijinja::Value::from_serialize(json!({
            "secrets": { "T": "s3cret" },
            "vars": {
                "creds": "user:s3cret", "plain": "hello", "list": ["a-s3cret", "b"],
                "m": { "token": "s3cret", "items": "x", "values": "y" },
            },
            "steps": {
                "login": { "token": "xs3cretx", "ok": true, "url": "http://h/login" },
                "r": { "json": { "token": "s3cret", "items": [{ "n": "alpha" }, { "n": "bravo" }] } },
            },
        }));
        let holds = |text: &str| text.contains("s3cret");
        let hide = |text: &str| {
            text.contains("s3cret")
                .then(|| text.replace("s3cret", "\u{e000}".repeat(6).as_str()))
        };
        t.secret_parts(src, &ctx, &holds, &hide)
    }

    #[test]
    fn the_parts_of_a_template_that_read_a_secret_are_found() {
        use super::Key::{Index, Name};
        assert_eq!(
            parts("the token is {{ secrets.T | upper }} ({{ 1 + 1 }})"),
            ["S3CRET"]
        );
        assert_eq!(parts("{{ secrets['T'] | reverse }}"), ["terc3s"]);
        assert!(parts("no secret {{ 1 }} {{ vars.plain | upper }}").is_empty());
        assert!(parts("plain text").is_empty());
        // minijinja's list of variables leaves out a slice's: the name is found in the text.
        assert_eq!(parts("{{ secrets.T[1:5] }}"), ["3cre"]);
        // A bare path to a text shows it as it is (the secret in it masked as it shows); what
        // is made of it is a secret.
        assert!(parts("out: {{ steps.login.token }}").is_empty());
        assert_eq!(parts("{{ steps.login.token | upper }}"), ["XS3CRETX"]);
        assert_eq!(parts("{{ steps.login.token ~ 'a' }}"), ["xs3cretxa"]);
        assert_eq!(parts("{{ secrets.T }}"), ["s3cret"]);
        assert_eq!(
            parts("{% if 1 %}{{ steps.login.token }}{% endif %}"),
            ["xs3cretx", "xs3cretx"]
        );
        let named = |code| {
            super::named_values(code)
                .map(|p| (p.root, p.keys, p.span))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            named("x.vars + vars . a.b + steps[x] + myvars.b + secrets"),
            [
                ("vars", vec![Name("a"), Name("b")], 9..19),
                ("steps", vec![], 22..27),
                ("secrets", vec![], 44..51)
            ]
        );
        assert_eq!(
            named("steps.r.json['items'] [ -1 ][\"n\"][0:2] + vars['a\\'']"),
            [
                (
                    "steps",
                    vec![Name("r"), Name("json"), Name("items"), Index(-1), Name("n")],
                    0..33
                ),
                ("vars", vec![], 41..45)
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

    #[test]
    fn constant_subscripts_are_followed_as_attributes_are() {
        // The items beside a token in an answer hold no secret: nothing of them is learned.
        assert_eq!(
            all("{{ steps.r.json['items'] }}"),
            super::SecretParts::default()
        );
        assert!(parts("{{ steps.r.json[\"items\"][0].n | upper }}").is_empty());
        assert!(parts("{{ steps.r.json['items'][-1]['n'] ~ '!' }}").is_empty());
        // The token is a secret, and so is what is made of it; a subscript that is not a
        // constant ends the path: the whole answer is judged.
        assert_eq!(parts("{{ steps.r.json['token'] | upper }}"), ["S3CRET"]);
        assert_eq!(parts("{{ steps['login'].token[1:5] }}"), ["s3cr"]);
        let p = all("{{ steps.r.json[vars.plain[0:0] ~ 'items'] }}");
        assert!(p.pieces.contains(&"alpha".to_string()), "{p:?}");
        // A bare path through subscripts shows the text as it is.
        assert!(parts("{{ steps.r.json['token'] }}").is_empty());
    }

    #[test]
    fn tags_are_read_as_minijinja_reads_them() {
        // A `}}` closing a map literal, or inside a string literal, is no tag's end.
        let p = all("A {{ {'a': {'b': secrets.T | reverse}} }}");
        assert_eq!(p.shapes[1], r#"{"a":{"b":"terc3s"}}"#, "{p:?}");
        assert!(p.pieces.contains(&"terc3s".to_string()), "{p:?}");
        assert_eq!(parts("B {{ (secrets.T ~ '}}') | reverse }}"), ["}}terc3s"]);
        assert_eq!(
            parts("{{ '{{' ~ secrets.T | upper ~ '}}' }} {# {{ secrets.T }} #}"),
            ["{{S3CRET}}"]
        );
        // Inside a block: the value, and the whole rendering (a block may rename things).
        assert_eq!(
            parts("{% if true %}{{ secrets.T | upper }}{% endif %}!"),
            ["S3CRET", "S3CRET!"]
        );
        // An expression that does not evaluate alone fails closed: the whole rendering.
        assert_eq!(
            parts("x {% set n = 2 %}{{ secrets.T[n:] | upper }}"),
            ["x CRET"]
        );
        // Nothing reads a secret: nothing, blocks or not; what minijinja cannot read: nothing.
        assert!(parts("{% set n = 2 %}{{ n }} {{ '}}' }}").is_empty());
        assert!(parts("{{ secrets.T ").is_empty());
    }

    #[test]
    fn a_list_or_map_made_of_a_secret_gives_its_shapes_and_pieces() {
        let p = all("{{ secrets.T | batch(4) }}");
        assert!(p.texts.is_empty(), "{p:?}");
        assert_eq!(
            p.shapes,
            [
                r#"[["s", "3", "c", "r"], ["e", "t"]]"#,
                r#"[["s","3","c","r"],["e","t"]]"#
            ]
        );
        assert_eq!(p.pieces, ["s", "3", "c", "r", "e", "t"]);
        // An iterator (`| reverse` of a list) shows as the list it gives.
        let p = all("{{ vars.list | reverse }}");
        assert_eq!(p.shapes[1], r#"["b","a-s3cret"]"#, "{p:?}");
        let p = all("{{ {'user': 'alice', 'pw': secrets.T, 'n': [12345]} }}");
        assert_eq!(p.pieces, ["n", "12345", "pw", "s3cret", "user", "alice"]);
        assert_eq!(
            all("{{ {'ok': secrets.T == 'x'} }}"),
            super::SecretParts::default()
        );
    }

    #[test]
    fn a_method_call_ends_a_path_at_the_object_it_is_called_on() {
        use super::Key::Name;
        let named = super::named_values("vars.m.values() | list").collect::<Vec<_>>();
        assert_eq!(named.len(), 1);
        assert_eq!((named[0].root, &named[0].keys), ("vars", &vec![Name("m")]));
        // The map holds the token: what `.values()` and `.items()` make of it is made of it,
        // whatever its keys `values` and `items` hold.
        for src in [
            "{{ vars.m.values() | map('upper') | list }}",
            "{{ vars.m.items() | map('last') | map('upper') | list }}",
            "{{ vars.m . values ( ) | map('upper') | list }}",
        ] {
            let p = all(src);
            assert!(
                p.made_pieces.contains(&"S3CRET".to_string()),
                "{src}: {p:?}"
            );
        }
        assert!(all("{{ vars.m['values'] | upper }}").texts.is_empty());
    }

    #[test]
    fn the_pieces_a_secret_made_are_told_from_those_beside_it() {
        // Across the secret's edge: pieces of neither the secret nor the text around it.
        let p = all("{{ ('token=' ~ secrets.T ~ ' user=bob').split('c') }}");
        assert_eq!(p.made_pieces, ["token=s3", "ret user=bob"], "{p:?}");
        let p = all("{{ vars.creds.split('3') }}");
        assert_eq!(p.made_pieces, ["user:s", "cret"], "{p:?}");
        // Beside it in a map: only the secret.
        let p = all("{{ {'user': 'alice', 'pw': secrets.T} }}");
        assert_eq!(p.made_pieces, ["s3cret"], "{p:?}");
        // The lines of a text that do not hold it are no pieces it made.
        let p = all("{{ ('a line\\n' ~ secrets.T ~ '\\nlast line').split('\\n') }}");
        assert_eq!(p.made_pieces, ["s3cret"], "{p:?}");
    }
}
