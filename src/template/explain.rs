//! Why a condition is false: the values of its operands, as pytest and Playwright show them
//! (`expected steps.total.value == 36.5, but the left side is 36.0`).

use serde_json::Value;

use super::Templates;
use super::tags::single_expression;

/// Operators a condition is split at, longest first so `<=` is not read as `<`.
const COMPARISONS: &[&str] = &[" not in ", "==", "!=", "<=", ">=", " in ", "<", ">"];

/// The top-level operands of a condition and what each evaluates to, for a message; `None` when
/// the condition has no operator to split at (then its own value is all there is to show).
/// Each value is masked with `mask(operand, text)` before it is cut: the flow's masker, once it
/// has learned what the operand's code makes of a secret (its value is shown, so it is a value
/// a template made, as a rendered template's is).
pub(crate) fn explain(
    t: &Templates,
    cond: &str,
    ctx: &minijinja::Value,
    mask: &dyn Fn(&str, &str) -> String,
) -> Option<String> {
    let expr = single_expression(cond).unwrap_or(cond).trim();
    // An operand in braces of its own (`{{ a }} and {{ b }}`, which validate refuses) is its code.
    let code = |src: &str| single_expression(src).unwrap_or(src).trim().to_string();
    let value = |src: &str| -> String {
        super::compile::eval(t.env(), &code(src), ctx)
            .ok()
            .map_or_else(
                || "an error (it cannot be evaluated)".to_string(),
                |v| {
                    if v.is_undefined() {
                        "undefined".to_string()
                    } else {
                        let mask = |text: &str| mask(src, text);
                        serde_json::to_value(&v)
                            .map_or_else(|_| mask(&v.to_string()), |j| show(&j, &mask))
                    }
                },
            )
    };
    for joiner in [" and ", " or "] {
        let parts = split_top(expr, joiner);
        if parts.len() > 1 {
            let shown: Vec<String> = parts
                .iter()
                .map(|p| format!("`{}` is {}", code(p), value(p)))
                .collect();
            return Some(shown.join(", "));
        }
    }
    for op in COMPARISONS {
        let parts = split_top(expr, op);
        if parts.len() == 2 {
            return Some(format!(
                "the left side `{}` is {} and the right side `{}` is {}",
                code(parts[0]),
                value(parts[0]),
                code(parts[1]),
                value(parts[1])
            ));
        }
    }
    let v = value(expr);
    (!expr.is_empty()).then(|| format!("it is {v}"))
}

/// A value as a message shows it: strings quoted, the rest as JSON, masked, long ones cut.
fn show(v: &Value, mask: &dyn Fn(&str) -> String) -> String {
    let s = mask(&v.to_string());
    if s.chars().count() > 200 {
        let cut: String = s.chars().take(200).collect();
        format!("{cut}…")
    } else {
        s
    }
}

/// `src` split at `sep` where it stands outside quotes, parentheses and brackets.
fn split_top<'a>(src: &'a str, sep: &str) -> Vec<&'a str> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    let mut start = 0;
    let bytes = src.as_bytes();
    let mut i = 0;
    while i < src.len() {
        let c = src[i..].chars().next().unwrap_or(' ');
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                '\'' | '"' => quote = Some(c),
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth -= 1,
                _ if depth == 0 && src[i..].starts_with(sep) => {
                    // `<` must not be half of `<=`, nor `=` of `==` etc.
                    let after = bytes.get(i + sep.len()).copied();
                    let before = i.checked_sub(1).and_then(|j| bytes.get(j)).copied();
                    let glued =
                        |b: Option<u8>| b.is_some_and(|b| matches!(b, b'=' | b'<' | b'>' | b'!'));
                    if !(sep.len() == 1 && (glued(after) || glued(before))) {
                        parts.push(&src[start..i]);
                        i += sep.len();
                        start = i;
                        continue;
                    }
                }
                _ => {}
            },
        }
        i += c.len_utf8();
    }
    parts.push(&src[start..]);
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operands_are_shown_with_their_values() {
        let t = Templates::new();
        let ctx = minijinja::Value::from_serialize(serde_json::json!({
            "steps": { "total": { "value": 36.0 }, "a": { "ok": true }, "b": { "ok": false } },
            "vars": { "name": "Ann" }
        }));
        assert_eq!(
            explain(&t, "{{ steps.total.value == 36.5 }}", &ctx, &|_, s| s
                .to_string())
            .unwrap(),
            "the left side `steps.total.value` is 36.0 and the right side `36.5` is 36.5"
        );
        assert_eq!(
            explain(&t, "steps.a.ok and steps.b.ok", &ctx, &|_, s| s.to_string()).unwrap(),
            "`steps.a.ok` is true, `steps.b.ok` is false"
        );
        assert_eq!(
            explain(&t, "vars.name <= 'Al'", &ctx, &|_, s| s.to_string()).unwrap(),
            "the left side `vars.name` is \"Ann\" and the right side `'Al'` is \"Al\""
        );
        assert_eq!(
            explain(&t, "'x' in vars.name", &ctx, &|_, s| s.to_string()).unwrap(),
            "the left side `'x'` is \"x\" and the right side `vars.name` is \"Ann\""
        );
        assert_eq!(
            explain(&t, "steps.b.ok", &ctx, &|_, s| s.to_string()).unwrap(),
            "it is false"
        );
        // Operands in braces of their own are their code, with their values (attack 29, A6:
        // "`{{ vars.a == 5 }}` is (cannot be evaluated)" for a comparison that is false).
        assert_eq!(
            explain(
                &t,
                "{{ steps.a.ok }} and {{ steps.b.ok == true }}",
                &ctx,
                &|_, s| s.to_string()
            )
            .unwrap(),
            "`steps.a.ok` is true, `steps.b.ok == true` is false"
        );
        assert_eq!(
            explain(&t, "steps.a.ok and steps.a.ok.x.y", &ctx, &|_, s| s
                .to_string())
            .unwrap(),
            "`steps.a.ok` is true, `steps.a.ok.x.y` is an error (it cannot be evaluated)"
        );
        assert_eq!(
            split_top("f(a == b) == [1, 2]", "=="),
            vec!["f(a == b) ", " [1, 2]"]
        );
    }
}
