//! Whole numbers from outside, said one way wherever they are read. A literal too large for a
//! 64-bit integer stays the number it is (a float, as large), so the range of the field it is
//! in refuses it as too large instead of as a string or a value of the wrong type; every
//! range is said as "must be between A and B", by the schema's messages and by the flags alike.

use std::fmt::Display;
use std::ops::RangeInclusive;

use serde_json::{Number, Value};

/// The value of a whole-number literal (`digits` in `radix`, no sign, no `_`): the integer
/// (signed, or unsigned up to 2^64 - 1, exact either way), or past that the float nearest to
/// it; `None` when a digit is not one of `radix`.
pub(crate) fn integer_literal(digits: &str, radix: u32, negative: bool) -> Option<Value> {
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let signed = if negative {
        format!("-{digits}")
    } else {
        digits.to_string()
    };
    if let Ok(n) = i64::from_str_radix(&signed, radix) {
        return Some(Value::Number(n.into()));
    }
    if let (false, Ok(n)) = (negative, u64::from_str_radix(digits, radix)) {
        return Some(Value::Number(n.into()));
    }
    // Decimal digits parse to the nearest float; a sum of digits would drift from it.
    let magnitude = if radix == 10 {
        digits.parse::<f64>().ok()?
    } else {
        digits.chars().fold(0f64, |acc, c| {
            acc * f64::from(radix) + f64::from(c.to_digit(radix).unwrap_or(0))
        })
    };
    let n = if negative { -magnitude } else { magnitude };
    Number::from_f64(n).map(Value::Number)
}

/// "must be between 1 and 64": what a whole number out of its range is told.
pub(crate) fn between(min: impl Display, max: impl Display) -> String {
    format!("must be between {min} and {max}")
}

/// A whole-number flag (`--jobs 4`) in `range`; the error says the range, whatever was wrong
/// (a word, a sign, a number too large for any integer type).
pub(crate) fn whole_in<T>(text: &str, range: RangeInclusive<T>) -> Result<T, String>
where
    T: TryFrom<u64> + Into<u64> + Copy + Display,
{
    let (min, max) = (*range.start(), *range.end());
    let text = text.trim();
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("must be a whole number between {min} and {max}"));
    }
    text.parse::<u64>()
        .ok()
        .filter(|n| (min.into()..=max.into()).contains(n))
        .and_then(|n| T::try_from(n).ok())
        .ok_or_else(|| between(min, max))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_past_64_bits_stay_as_large() {
        assert_eq!(integer_literal("42", 10, true), Some(Value::from(-42)));
        assert_eq!(integer_literal("1f", 16, false), Some(Value::from(31)));
        assert_eq!(
            integer_literal("9223372036854775808", 10, true),
            Some(Value::from(i64::MIN))
        );
        assert_eq!(
            integer_literal("18446744073709551615", 10, false),
            Some(Value::from(u64::MAX))
        );
        let big = integer_literal("99999999999999999999", 10, false).unwrap();
        assert_eq!(big.as_f64(), Some(1e20));
        let neg = integer_literal("ffffffffffffffffffff", 16, true).unwrap();
        assert!(neg.as_f64().unwrap() < -1e24, "{neg}");
        assert_eq!(integer_literal("12a", 10, false), None);
        assert_eq!(integer_literal("", 10, false), None);
    }

    #[test]
    fn flags_say_their_range() {
        assert_eq!(whole_in::<u16>("4", 1..=64), Ok(4));
        assert_eq!(
            whole_in::<u16>("99999999999999999999", 1..=64),
            Err("must be between 1 and 64".into())
        );
        assert_eq!(
            whole_in::<u16>("0", 1..=64),
            Err("must be between 1 and 64".into())
        );
        assert_eq!(
            whole_in::<u32>("-1", 0..=100),
            Err("must be a whole number between 0 and 100".into())
        );
        assert_eq!(
            whole_in::<u32>("two", 0..=100),
            Err("must be a whole number between 0 and 100".into())
        );
    }
}
