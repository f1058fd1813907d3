//! Python's str, dict and list methods in templates (`s.split('.')`, `d.items()`), as Jinja2
//! users write them: minijinja-contrib's pycompat, plus the two it lacks (`str.rsplit`,
//! `list.index`).

use minijinja::value::{Value, ValueKind, from_args};
use minijinja::{Error, ErrorKind, State};

/// The unknown-method callback of the environment.
pub(crate) fn call(
    state: &State,
    value: &Value,
    method: &str,
    args: &[Value],
) -> Result<Value, Error> {
    // A method makes its whole value at once (`.split('-')` of a long text: one value per
    // piece), where no fuel is spent: what it is called on, and what it makes, are bounded.
    if let Some(s) = value.as_str() {
        if s.len() > super::compile::MAX_BYTES {
            return Err(super::compile::too_large(
                "bytes",
                super::compile::MAX_BYTES,
            ));
        }
        if pieces(s, method, args) > super::compile::MAX_ITEMS {
            return Err(super::compile::too_large(
                "items",
                super::compile::MAX_ITEMS,
            ));
        }
    }
    let made = match (value.kind(), method) {
        (ValueKind::String, "rsplit") => rsplit(value, args),
        (ValueKind::Seq, "index") => index(value, args),
        _ => minijinja_contrib::pycompat::unknown_method_callback(state, value, method, args),
    }?;
    super::compile::bounded(&made)?;
    Ok(made)
}

/// How many pieces (up to one past the bound) `s.split(sep)`, `rsplit` or `splitlines` would
/// make, counted without making them; 0 for another method.
fn pieces(s: &str, method: &str, args: &[Value]) -> usize {
    let most = super::compile::MAX_ITEMS + 1;
    match (method, args.first().and_then(Value::as_str)) {
        ("split" | "rsplit", Some(sep)) if !sep.is_empty() => s.matches(sep).take(most).count() + 1,
        ("split" | "rsplit", _) => s.split_whitespace().take(most).count(),
        ("splitlines", _) => s.lines().take(most).count(),
        _ => 0,
    }
}

/// `str.rsplit(sep=None, maxsplit=-1)`: like `split`, but the `maxsplit` cuts are taken from the
/// right.
fn rsplit(value: &Value, args: &[Value]) -> Result<Value, Error> {
    let s = value.as_str().unwrap_or_default();
    let (sep, maxsplit): (Option<&str>, Option<i64>) = from_args(args)?;
    let max = maxsplit.and_then(|m| usize::try_from(m).ok());
    let mut parts: Vec<&str> = match (sep, max) {
        (Some(""), _) => {
            return Err(Error::new(ErrorKind::InvalidOperation, "empty separator"));
        }
        (Some(sep), Some(m)) => s.rsplitn(m + 1, sep).collect(),
        (Some(sep), None) => s.rsplit(sep).collect(),
        (None, None) => s.split_whitespace().rev().collect(),
        (None, Some(m)) => {
            let mut out = Vec::new();
            let mut rest = s.trim_end();
            while out.len() < m {
                let Some((i, c)) = rest.char_indices().rev().find(|(_, c)| c.is_whitespace())
                else {
                    break;
                };
                out.push(&rest[i + c.len_utf8()..]);
                rest = rest[..i].trim_end();
            }
            if !rest.is_empty() {
                out.push(rest);
            }
            out
        }
    };
    parts.reverse();
    Ok(Value::from(
        parts.into_iter().map(str::to_string).collect::<Vec<_>>(),
    ))
}

/// `list.index(x)`.
fn index(value: &Value, args: &[Value]) -> Result<Value, Error> {
    let (what,): (&Value,) = from_args(args)?;
    let found = value.try_iter()?.position(|x| &x == what).ok_or_else(|| {
        // Not quoted: what a template asks for may be made of a secret, and an error is shown
        // before anything the template made is learned.
        Error::new(ErrorKind::InvalidOperation, "the value is not in the list")
    })?;
    Ok(Value::from(found))
}

#[cfg(test)]
mod tests {
    use crate::template::Templates;

    fn eval(expr: &str) -> serde_json::Value {
        let t = Templates::new();
        let ctx = minijinja::Value::from_serialize(serde_json::json!({
            "s": "v1.2.3", "d": {"a": 1}, "l": ["x", "y"], "flag": true,
        }));
        t.render_string_value(&format!("{{{{ {expr} }}}}"), &ctx)
            .unwrap_or_else(|e| panic!("{expr}: {e}"))
    }

    #[test]
    fn python_methods_work_as_jinja2_users_write_them() {
        use serde_json::json;
        assert_eq!(eval("s.split('.')[0]"), json!("v1"));
        assert_eq!(eval("s.rsplit('.', 1)"), json!(["v1.2", "3"]));
        assert_eq!(eval("'a b  c'.rsplit(None, 1)"), json!(["a b", "c"]));
        assert_eq!(eval("' x '.strip()"), json!("x"));
        assert_eq!(eval("s.startswith('v1') and s.endswith('3')"), json!(true));
        assert_eq!(
            eval("s.lstrip('v').replace('.', '-').upper()"),
            json!("1-2-3")
        );
        assert_eq!(eval("s.count('.')"), json!(2));
        assert_eq!(eval("s.find('2')"), json!(3));
        assert_eq!(eval("'-'.join(l)"), json!("x-y"));
        assert_eq!(eval("'{} {}'.format('a', 'b')"), json!("a b"));
        assert_eq!(eval("'hello world'.title()"), json!("Hello World"));
        assert_eq!(eval("'a\nb'.splitlines()"), json!(["a", "b"]));
        assert_eq!(eval("d.items() | list"), json!([["a", 1]]));
        assert_eq!(eval("d.keys() | list"), json!(["a"]));
        assert_eq!(eval("d.get('b', 5)"), json!(5));
        assert_eq!(eval("l.index('y')"), json!(1));
        assert_eq!(eval("l.count('x')"), json!(1));
        assert_eq!(eval("range(3) | list"), json!([0, 1, 2]));
        assert_eq!(eval("dict(a=1).a"), json!(1));
    }

    #[test]
    fn booleans_render_lowercase() {
        let t = Templates::new();
        let ctx =
            minijinja::Value::from_serialize(serde_json::json!({ "flag": true, "no": false }));
        assert_eq!(
            t.render_str("{{ flag }} and {{ no }} and {{ 1 == 1 }}", &ctx)
                .unwrap(),
            "true and false and true"
        );
    }

    /// What may be made of a secret is never quoted by an error (errors are shown before what
    /// a template made is learned), and `debug()`, which prints the whole context without
    /// naming it, is no function.
    #[test]
    fn errors_quote_no_value_and_debug_is_not_a_function() {
        let t = Templates::new();
        let ctx = minijinja::Value::from_serialize(serde_json::json!({ "s": "Kestrel-Vault" }));
        let e = t
            .render_str("{{ ['a'].index(s | replace('-', '.')) }}", &ctx)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("not in the list") && !e.contains("Kestrel"),
            "{e}"
        );
        let e = t.render_str("{{ debug() }}", &ctx).unwrap_err().to_string();
        assert!(!e.contains("Kestrel"), "{e}");
    }
}
