//! How many values a JSON text holds, counted before it is parsed: a parsed value takes far
//! more memory than its text (~80 bytes for the `1,` of a list of numbers, each number kept as
//! written), so a large body of small values would take tens of times its size.

/// The most values runner parses in one JSON text (a `request`'s body, `fromjson`): ~80 MB
/// parsed at most.
pub(crate) const MAX_VALUES: usize = 1_000_000;

/// Whether the JSON text `text` holds more than `max` values (counted by the commas and
/// brackets outside strings: an upper bound for valid JSON).
pub(crate) fn more_values_than(text: &[u8], max: usize) -> bool {
    let mut values = 1usize;
    for (_, b) in outside_strings(text) {
        if matches!(b, b',' | b'[' | b'{') {
            values += 1;
            if values > max {
                return true;
            }
        }
    }
    false
}

/// The bytes of the JSON text `text` (with their offsets) outside its strings: each string's
/// opening quote is one, what follows up to its closing quote (that included) is not.
fn outside_strings(text: &[u8]) -> impl Iterator<Item = (usize, u8)> + '_ {
    let (mut in_string, mut escaped) = (false, false);
    text.iter().copied().enumerate().filter(move |&(_, b)| {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            return false;
        }
        in_string = b == b'"';
        true
    })
}

/// The integers of the JSON text `text` (outside strings) that fit neither `i64` nor `u64`, as
/// written: JSON parsing rounds them to the nearest float, where two different ones meet.
pub(crate) fn wide_integers(text: &str) -> Vec<&str> {
    wide_integer_spans(text)
        .into_iter()
        .map(|r| &text[r])
        .collect()
}

/// Where [`wide_integers`] are in `text`.
pub(crate) fn wide_integer_spans(text: &str) -> Vec<std::ops::Range<usize>> {
    let wide = |r: &std::ops::Range<usize>| {
        let token = &text[r.clone()];
        let digits = token.strip_prefix('-').unwrap_or(token);
        let integer = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
        integer && token.parse::<i64>().is_err() && token.parse::<u64>().is_err()
    };
    number_spans(text).into_iter().filter(wide).collect()
}

/// Where the numbers of the JSON text `text` are (outside its strings), in order: each value
/// a JSON parser reads as a number is one.
pub(crate) fn number_spans(text: &str) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    // A run of number characters that starts as a number does (not the `e` of `true`).
    let number = |r: std::ops::Range<usize>| {
        let first = text.as_bytes()[r.start];
        (first.is_ascii_digit() || first == b'-').then_some(r)
    };
    for (i, b) in outside_strings(text.as_bytes()) {
        let numeric = b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E');
        match (start, numeric) {
            (None, true) => start = Some(i),
            (Some(s), false) => {
                out.extend(number(s..i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.extend(number(s..text.len()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{more_values_than, wide_integers};

    #[test]
    fn wide_integers_are_found_outside_strings() {
        assert_eq!(
            wide_integers(
                r#"{"a": 100000000000000000001, "b": [18446744073709551615, -9223372036854775809], "c": "100000000000000000002", "d": 1e400, "e": 1.00000000000000000000001}"#
            ),
            vec!["100000000000000000001", "-9223372036854775809"]
        );
        assert!(wide_integers("[1, 2, -3, 18446744073709551615]").is_empty());
        assert_eq!(
            wide_integers("123456789012345678901234567890"),
            vec!["123456789012345678901234567890"]
        );
    }

    #[test]
    fn values_are_counted_outside_strings() {
        assert!(!more_values_than(b"[1,2,3]", 4));
        assert!(more_values_than(b"[1,2,3,4,5]", 4));
        // Commas and brackets inside a string are text.
        assert!(!more_values_than(br#"["a,b,c,[d],{e}", "x\",y"]"#, 4));
        assert!(!more_values_than(br#"{"k": [1, 2]}"#, 4));
    }
}
