//! How many values a JSON text holds, counted before it is parsed: a parsed value takes far
//! more memory than its text (~80 bytes for the `1,` of a list of numbers, each number kept as
//! written), so a large body of small values would take tens of times its size.

/// The most values runner parses in one JSON text (a `request`'s body, `fromjson`): ~80 MB
/// parsed at most.
pub(crate) const MAX_VALUES: usize = 1_000_000;

/// Whether the JSON text `text` holds more than `max` values (counted by the commas and
/// brackets outside strings: an upper bound for valid JSON).
pub(crate) fn more_values_than(text: &[u8], max: usize) -> bool {
    let (mut values, mut in_string, mut escaped) = (1usize, false, false);
    for &b in text {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b',' | b'[' | b'{' => {
                values += 1;
                if values > max {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::more_values_than;

    #[test]
    fn values_are_counted_outside_strings() {
        assert!(!more_values_than(b"[1,2,3]", 4));
        assert!(more_values_than(b"[1,2,3,4,5]", 4));
        // Commas and brackets inside a string are text.
        assert!(!more_values_than(br#"["a,b,c,[d],{e}", "x\",y"]"#, 4));
        assert!(!more_values_than(br#"{"k": [1, 2]}"#, 4));
    }
}
