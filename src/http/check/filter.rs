//! JSONPath filters that cannot be told exactly: serde_json_path compares every number as a
//! 64-bit float, where integers past 2^53 meet their neighbours (`$.items[?(@.id ==
//! 123456789012345678901236)]` found the items of ids ...234 and ...235). A filter that writes
//! such a number, or compares two of the body's values when the body holds such an integer, is
//! refused; one that compares text, or a value with a smaller number, is exact.

use crate::template::json_size::number_spans;

/// 2^53: past it, not every integer is a float.
const EXACT: f64 = 9_007_199_254_740_992.0;

/// Why the filters of `path` cannot be told exactly on `body`, if they cannot.
pub(super) fn inexact(path: &str, body: &str) -> Option<String> {
    let filter = filter_text(path)?;
    if let Some(n) = numbers(&filter).into_iter().find(|n| past_exact(n)) {
        return Some(format!(
            "cannot be compared exactly: the filter compares with {n}, past 2^53, and JSONPath filters compare numbers as floats, where such integers equal their neighbours; compare in a `that` with `fromjson`, which keeps them exact"
        ));
    }
    if !compares_two_values(&filter) {
        return None;
    }
    let big = number_spans(body)
        .into_iter()
        .map(|r| &body[r])
        .find(|t| is_integer(t) && past_exact(t))?;
    Some(format!(
        "cannot be compared exactly: the filter compares two of the body's values, and the body holds the integer {big}, past 2^53, which a JSONPath filter compares as the nearest float, where different integers are equal; compare in a `that` with `fromjson`, which keeps them exact"
    ))
}

/// What of `path` is filters (`?...`), its quoted texts taken out; none without a filter.
fn filter_text(path: &str) -> Option<String> {
    let mut out = String::new();
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in path.chars() {
        match quote {
            Some(_) if escaped => escaped = false,
            Some(_) if c == '\\' => escaped = true,
            Some(q) if c == q => {
                quote = None;
                out.push('\'');
            }
            Some(_) => {}
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                out.push('\'');
            }
            None => out.push(c),
        }
    }
    out.contains('?').then_some(out)
}

/// The number literals of a filter's text (its quoted texts out): runs of number characters
/// that do not continue a name (`@.a1`).
fn numbers(filter: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let bytes = filter.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let after_name = i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        if (b.is_ascii_digit() || b == b'-') && !after_name {
            let start = i;
            i += 1;
            while i < bytes.len()
                && (bytes[i].is_ascii_digit()
                    || matches!(bytes[i], b'.' | b'e' | b'E' | b'+' | b'-'))
            {
                i += 1;
            }
            out.push(&filter[start..i]);
        } else {
            i += 1;
        }
    }
    out
}

/// Whether the number `token` is 2^53 or more from zero.
fn past_exact(token: &str) -> bool {
    token.parse::<f64>().is_ok_and(|x| x.abs() >= EXACT)
}

fn is_integer(token: &str) -> bool {
    let digits = token.strip_prefix('-').unwrap_or(token);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// The filter with each function call (`value(@.x)`, `length(@.a)`) its arguments alone, so
/// its parentheses do not cut a comparison apart (review of session 26, F9: `value(@.x) ==
/// value(@.y)` was not seen to compare two values).
fn without_calls(filter: &str) -> String {
    let mut out = String::new();
    // For each open parenthesis, whether it opened a call (its closing one is dropped too).
    let mut opened = Vec::new();
    for c in filter.chars() {
        match c {
            '(' => {
                let name = out
                    .bytes()
                    .rev()
                    .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
                    .count();
                let call = name > 0 && out[..out.len() - name].ends_with(|p: char| p != '.');
                opened.push(call);
                if call {
                    out.truncate(out.len() - name);
                } else {
                    out.push(c);
                }
            }
            ')' => {
                if !opened.pop().unwrap_or(false) {
                    out.push(c);
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// Whether a comparison of the filter has a query (`@...`, `$...`) on both sides.
fn compares_two_values(filter: &str) -> bool {
    let ops = ["==", "!=", "<=", ">=", "<", ">"];
    without_calls(filter)
        .split(['&', '|', ',', '?', '(', ')'])
        .flat_map(|atom| {
            ops.iter().filter_map(move |op| {
                atom.split_once(op)
                    .filter(|_| !atom.contains(&format!("{op}=")))
            })
        })
        .any(|(l, r)| {
            let query = |s: &str| {
                s.trim_start()
                    .trim_start_matches('!')
                    .trim_start()
                    // (`]`: the rest of a query a filter inside it cut apart, `@.a[?@.k].x`.)
                    .starts_with(['@', '$', ']'])
            };
            query(l) && query(r.trim_start_matches('='))
        })
}

#[cfg(test)]
mod tests {
    use super::inexact;

    #[test]
    fn only_filters_that_meet_past_2_53_are_refused() {
        let body = r#"{"a": [{"x": 9007199254740993, "y": 9007199254740992, "n": "q"}]}"#;
        for refused in [
            "$.a[?(@.x == 9007199254740992)]",
            "$.a[?@.x == @.y]",
            "$.a[?(@.n == 'q' && @.x >= @.y)]",
            "$.a[?(@.x < -1e300)]",
            "$.a[?@.x != @.y]",
            "$.a[?!@.x == @.y]",
            "$.a[?value(@.x) == value(@.y)]",
            "$.a[?(value(@.x)==value(@.y))]",
            "$.a[?value(@.x) != @.y]",
            "$.a[?(@.n == 'q' && value(@.a[?(@.z == 1)].x) > value(@.y))]",
        ] {
            assert!(inexact(refused, body).is_some(), "{refused}");
        }
        for exact in [
            "$.a[0].x",
            "$.a[?(@.n == 'q')]",
            "$.a[?(@.n == '9007199254740993')]",
            "$.a[?(@.x > 5)]",
            "$['a9007199254740993']",
            "$.a[?(@.b1 == 1)]",
            "$.a[?(value(@.n) == 'q')]",
            "$.a[?value(@.x) > 5]",
        ] {
            assert!(inexact(exact, body).is_none(), "{exact}");
        }
        // Two values compared, in a body whose integers are all exact floats.
        assert!(inexact("$.a[?@.x == @.y]", r#"{"a": [{"x": 1, "y": 2}]}"#).is_none());
    }
}
