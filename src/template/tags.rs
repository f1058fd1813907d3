//! The tags of a template — each `{{ expression }}` and `{% block %}`, with where its code is —
//! as minijinja's own lexer reads them, so that every part of runner that looks inside a
//! template sees the tags minijinja renders: a `}}` that closes a map literal
//! (`{{ {'a': {'b': 1}} }}`) or sits in a string literal (`{{ x ~ '}}' }}`) is code, not the
//! tag's end; comments and `{% raw %}` hold no tag.
//!
//! The lexer is minijinja's `unstable_machinery` (no semver promise: Cargo.toml pins the minor
//! version, and the tests below fail if its tokens change meaning).

use std::ops::Range;

use minijinja::machinery::{Token, WhitespaceConfig, tokenize};
use minijinja::syntax::SyntaxConfig;

/// What a tag is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `{{ expression }}`: its value is printed.
    Expression,
    /// `{% statement %}`: `if`, `for`, `set`, ...
    Block,
}

/// One tag of a template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Tag {
    pub(crate) kind: Kind,
    /// The byte range of its code in the template, from its first token to its last (the
    /// delimiters, their `-`/`+` and the spaces inside them left out); empty for `{{ }}`.
    pub(crate) code: Range<usize>,
}

/// The tags of `src` in order, or minijinja's error when it cannot read `src` (then it does
/// not render either).
pub(crate) fn tags(src: &str) -> Result<Vec<Tag>, minijinja::Error> {
    let mut out = Vec::new();
    // The tag being read: its kind and the range of its tokens so far.
    let mut open: Option<(Kind, Option<Range<usize>>)> = None;
    // A unit struct unless minijinja's `custom_syntax` is on (a dependency may turn it on).
    #[allow(clippy::default_constructed_unit_structs)]
    let tokens = tokenize(
        src,
        false,
        SyntaxConfig::default(),
        WhitespaceConfig::default(),
    );
    for token in tokens {
        let (token, span) = token?;
        // Byte offsets into `src` (a `u32`: a template is far shorter than 4 GiB).
        let (start, end) = (span.start_offset as usize, span.end_offset as usize);
        match token {
            Token::VariableStart => open = Some((Kind::Expression, None)),
            Token::BlockStart => open = Some((Kind::Block, None)),
            Token::VariableEnd | Token::BlockEnd => {
                if let Some((kind, code)) = open.take() {
                    let code = code.unwrap_or(start..start);
                    out.push(Tag { kind, code });
                }
            }
            Token::TemplateData(_) => {}
            _ => {
                if let Some((_, code)) = &mut open {
                    let from = code.as_ref().map_or(start, |c| c.start);
                    *code = Some(from..end);
                }
            }
        }
    }
    // The lexer leaves a tag that never ends to the parser: it is minijinja's error too.
    if open.is_some() {
        return Err(minijinja::Error::new(
            minijinja::ErrorKind::SyntaxError,
            "a tag is not closed",
        ));
    }
    Ok(out)
}

/// Words the lexer reads as names that are the language's own.
const KEYWORDS: &[&str] = &[
    "and", "or", "not", "in", "is", "if", "else", "true", "false", "none", "True", "False", "None",
];

/// The names the tags of `src` read at their top level (`secrets` of `secrets.T | upper`), as
/// minijinja's lexer reads them: each identifier but an attribute (after `.`), a filter's or a
/// test's name (after `|`, `is`, `is not`), a keyword argument's (before `=`) and a keyword.
pub(crate) fn names_read(src: &str) -> Result<Vec<String>, minijinja::Error> {
    let tokens = tokens_of(src)?;
    Ok(top_level_names(&tokens)
        .into_iter()
        .map(|(_, name)| name.to_string())
        .collect())
}

/// What the tags of `src` read of `secrets`, one item per read of it at the top level (as
/// [`names_read`] tells one): the secret it names right after it (`secrets.T`, `secrets['T']`,
/// whatever follows), or `None` where which secret is read is not written there
/// (`(secrets).T`, `secrets[k]`, `secrets | attr('T')`, `{% set s = secrets %}`).
pub(crate) fn secrets_read(src: &str) -> Result<Vec<Option<String>>, minijinja::Error> {
    let tokens = tokens_of(src)?;
    Ok(top_level_names(&tokens)
        .into_iter()
        .filter(|(_, name)| *name == "secrets")
        .map(|(i, _)| match &tokens[i + 1..] {
            [Token::Dot, Token::Ident(key), ..]
            | [Token::BracketOpen, Token::Str(key), Token::BracketClose, ..] => {
                Some((*key).to_string())
            }
            [
                Token::BracketOpen,
                Token::String(key),
                Token::BracketClose,
                ..,
            ] => Some(key.to_string()),
            _ => None,
        })
        .collect())
}

/// The tokens of `src`, as minijinja's lexer reads them.
pub(super) fn tokens_of(src: &str) -> Result<Vec<Token<'_>>, minijinja::Error> {
    #[allow(clippy::default_constructed_unit_structs)]
    tokenize(
        src,
        false,
        SyntaxConfig::default(),
        WhitespaceConfig::default(),
    )
    .map(|t| t.map(|(token, _)| token))
    .collect()
}

/// The names `tokens` read at their top level, each with its index (see [`names_read`]).
fn top_level_names<'a>(tokens: &[Token<'a>]) -> Vec<(usize, &'a str)> {
    let mut out = Vec::new();
    for (i, token) in tokens.iter().enumerate() {
        let Token::Ident(name) = token else {
            continue;
        };
        let before = i.checked_sub(1).map(|j| &tokens[j]);
        let named_by_what_precedes = match before {
            Some(Token::Dot | Token::Pipe | Token::Ident("is")) => true,
            Some(Token::Ident("not")) => {
                matches!(
                    i.checked_sub(2).map(|j| &tokens[j]),
                    Some(Token::Ident("is"))
                )
            }
            _ => false,
        };
        let keyword_argument = matches!(tokens.get(i + 1), Some(Token::Assign));
        if !named_by_what_precedes && !keyword_argument && !KEYWORDS.contains(name) {
            out.push((i, *name));
        }
    }
    out
}

/// Whether `src` (a template, or a bare expression: one with no tag) reads `key` of the name
/// `root`, however it is spelled, as minijinja's lexer reads it: `root.key`, `root['key']`,
/// `(root)["key"]`, `root | attr('key')`. (A key that is computed,
/// `root['po' ~ 'rt']`, or a name set to `root` first, is not seen.)
pub(crate) fn reads_key(src: &str, root: &str, key: &str) -> bool {
    let bare = !src.contains("{{") && !src.contains("{%");
    #[allow(clippy::default_constructed_unit_structs)]
    let tokens: Vec<Token<'_>> = tokenize(
        src,
        bare,
        SyntaxConfig::default(),
        WhitespaceConfig::default(),
    )
    .filter_map(|t| t.ok().map(|(token, _)| token))
    .collect();
    let is_key = |t: Option<&Token<'_>>| match t {
        Some(Token::Str(s)) => *s == key,
        Some(Token::String(s)) => &**s == key,
        _ => false,
    };
    let ident =
        |t: Option<&Token<'_>>, name: &str| matches!(t, Some(Token::Ident(n)) if *n == name);
    tokens.iter().enumerate().any(|(i, t)| {
        let after_dot = matches!(i.checked_sub(1).map(|j| &tokens[j]), Some(Token::Dot));
        if !ident(Some(t), root) || after_dot {
            return false;
        }
        let mut at = i + 1;
        while matches!(tokens.get(at), Some(Token::ParenClose)) {
            at += 1;
        }
        let next = |n: usize| tokens.get(at + n);
        let call = |name: &str| {
            ident(next(1), name) && matches!(next(2), Some(Token::ParenOpen)) && is_key(next(3))
        };
        match next(0) {
            Some(Token::Dot) => ident(next(1), key),
            Some(Token::BracketOpen) => {
                is_key(next(1)) && matches!(next(2), Some(Token::BracketClose))
            }
            Some(Token::Pipe) => call("attr"),
            _ => false,
        }
    })
}

/// The code of the one `{{ expression }}` that `src` is, with only whitespace around it and no
/// other tag (`{{ x }}` -> `x`); `None` for anything else, a template minijinja cannot read
/// included.
pub(crate) fn single_expression(src: &str) -> Option<&str> {
    let t = src.trim();
    if !t.starts_with("{{") || !t.ends_with("}}") {
        return None;
    }
    match tags(src).ok()?.as_slice() {
        [
            Tag {
                kind: Kind::Expression,
                code,
            },
        ] => src.get(code.clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::{Kind, single_expression, tags};

    /// Each tag's kind and code.
    fn codes(src: &str) -> Vec<(Kind, &str)> {
        tags(src)
            .unwrap()
            .into_iter()
            .map(|t| (t.kind, &src[t.code]))
            .collect()
    }

    #[test]
    fn a_tag_ends_where_minijinja_ends_it() {
        use Kind::{Block, Expression};
        assert_eq!(
            codes("a {{ {'x': {'y': 1}} }} b {{- 'q}}' ~ \"{{\" -}}{%+ if z %}c{% endif %}"),
            [
                (Expression, "{'x': {'y': 1}}"),
                (Expression, "'q}}' ~ \"{{\""),
                (Block, "if z"),
                (Block, "endif"),
            ]
        );
        // Comments and raw blocks hold no tag; an empty tag has empty code.
        assert_eq!(
            codes("{# {{ secrets.T }} #}{% raw %}{{ x }}{% endraw %}{{ }}"),
            [(Expression, "")]
        );
        assert!(tags("{{ 'unclosed }}").is_err());
        assert!(tags("{{ x ").is_err());
    }

    #[test]
    fn a_read_of_secrets_names_its_key_or_none() {
        let read = |s: &str| super::secrets_read(s).unwrap();
        assert_eq!(
            read("a {{ secrets.A | lower }} {{ secrets['B'][2:8] }} {{ x.secrets }} secrets.C"),
            [Some("A".to_string()), Some("B".to_string())]
        );
        for other in [
            "{{ (secrets).PW }}",
            "{{ secrets[k] }}",
            "{{ secrets | attr('PW') }}",
            "{% set s = secrets %}{{ s.PW }}",
        ] {
            assert_eq!(read(other), [None], "{other}");
        }
        assert!(super::secrets_read("{{ secrets.A ~ 'unclosed }}").is_err());
    }

    #[test]
    fn a_single_expression_is_the_whole_text() {
        assert_eq!(single_expression(" {{ x | y }}\n"), Some("x | y"));
        assert_eq!(
            single_expression("{{- {'a': {'b': 1}} -}}"),
            Some("{'a': {'b': 1}}")
        );
        assert_eq!(single_expression("{{ '}}' }}"), Some("'}}'"));
        assert_eq!(single_expression("{{ a }} {{ b }}"), None);
        assert_eq!(single_expression("{{ a }}{% if b %}{% endif %}"), None);
        assert_eq!(single_expression("x {{ a }}"), None);
        assert_eq!(single_expression("{{ a }"), None);
    }
}
