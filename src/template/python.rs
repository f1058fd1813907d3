//! A template runner writes into a recorded step (`{{ secrets.PW }}-2fa`) as the Python
//! expression that makes the same text from the environment (`os.environ["PW"] + "-2fa"`), for
//! `atlas export --format playwright-python`: the script reads the secret where the flow does.

use minijinja::machinery::Token;

/// `src` as a Python expression: its text as string literals, each `{{ secrets.NAME }}` (or
/// `secrets['NAME']`) as `os.environ["NAME"]`, with a slice of literal integers and the
/// filters `upper`, `lower` and `trim` after it, all joined by `+`; a `{{ '...' }}` as its
/// text. `None` for any other template: the export cannot write it, and must not write it as
/// text.
pub(crate) fn as_python(src: &str) -> Option<String> {
    let tokens: Vec<Token<'_>> = super::tags::tokens_of(src).ok()?;
    let mut parts = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            Token::TemplateData(t) => {
                if !t.is_empty() {
                    parts.push(literal(t));
                }
                i += 1;
            }
            Token::VariableStart => {
                let end = i + tokens[i..]
                    .iter()
                    .position(|t| matches!(t, Token::VariableEnd))?;
                parts.push(expression(&tokens[i + 1..end])?);
                i = end + 1;
            }
            _ => return None,
        }
    }
    Some(if parts.is_empty() {
        literal("")
    } else {
        parts.join(" + ")
    })
}

/// `s` as a Python string literal (a JSON string is one).
fn literal(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// A string token's text.
fn text(t: &Token<'_>) -> Option<String> {
    match t {
        Token::Str(s) => Some((*s).to_string()),
        Token::String(s) => Some(s.to_string()),
        _ => None,
    }
}

/// The code of one `{{ }}` as Python (see [`as_python`]).
fn expression(tokens: &[Token<'_>]) -> Option<String> {
    let (name, mut rest) = match tokens {
        [
            Token::Ident("secrets"),
            Token::Dot,
            Token::Ident(n),
            rest @ ..,
        ] => ((*n).to_string(), rest),
        [
            Token::Ident("secrets"),
            Token::BracketOpen,
            s,
            Token::BracketClose,
            rest @ ..,
        ] => (text(s)?, rest),
        [s] => return text(s).map(|t| literal(&t)),
        _ => return None,
    };
    let mut out = format!("os.environ[{}]", literal(&name));
    loop {
        match rest {
            [] => return Some(out),
            [Token::Pipe, Token::Ident(filter), more @ ..] => {
                out.push_str(match *filter {
                    "upper" => ".upper()",
                    "lower" => ".lower()",
                    "trim" => ".strip()",
                    _ => return None,
                });
                rest = more;
            }
            [Token::BracketOpen, more @ ..] => {
                let close = more.iter().position(|t| matches!(t, Token::BracketClose))?;
                let mut index = String::new();
                for t in &more[..close] {
                    match t {
                        Token::Int(n) => index.push_str(&n.to_string()),
                        Token::Minus => index.push('-'),
                        Token::Colon => index.push(':'),
                        _ => return None,
                    }
                }
                out.push_str(&format!("[{index}]"));
                rest = &more[close + 1..];
            }
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::as_python;

    #[test]
    fn a_secret_template_is_python_that_reads_the_environment() {
        assert_eq!(
            as_python("{{ secrets.PW }}-2fa").as_deref(),
            Some("os.environ[\"PW\"] + \"-2fa\"")
        );
        assert_eq!(
            as_python("x{{ secrets['A'][2:-1] | upper }}{{ '{{' }}").as_deref(),
            Some("\"x\" + os.environ[\"A\"][2:-1].upper() + \"{{\"")
        );
        for other in [
            "{{ secrets.PW | b64encode }}",
            "{{ (secrets).PW }}",
            "{{ vars.x }}",
            "{% if secrets.PW %}a{% endif %}",
            "{{ secrets.PW ",
        ] {
            assert_eq!(as_python(other), None, "{other}");
        }
    }
}
