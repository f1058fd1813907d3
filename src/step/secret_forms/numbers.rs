//! A secret that is a number, as a program that parses it writes it back: a JSON parser's
//! number (`9931.50` is `9931.5`, `004217` is `4217`), JavaScript's (`9931.00` is `9931`),
//! Python's and serde's float (`9931.0`), minijinja's `| int`.

use super::MIN_PART;

/// The canonical forms of `v` when it is a decimal number (`[+-]digits[.digits]`): its sign
/// but a `+` kept, the leading zeros of its whole part and the trailing zeros of its fraction
/// dropped; a fraction of zeros gone (`9931`) or one `0` (`9931.0`). Only those unlike `v` and
/// of at least `MIN_PART` characters: a shorter one (`42` of `0042`) would mask the same digits
/// wherever they are. Worked out on the text, not through a float; an integer of more than 15
/// digits, which a float parser rounds, also as its float is written back.
pub(super) fn number_forms(v: &str) -> Vec<String> {
    let (sign, unsigned) = match v.strip_prefix(['+', '-']) {
        Some(rest) => (if v.starts_with('-') { "-" } else { "" }, rest),
        None => ("", v),
    };
    let (whole, fraction) = unsigned.split_once('.').unwrap_or((unsigned, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || !digits(whole) || !digits(fraction) || unsigned.ends_with('.') {
        return Vec::new();
    }
    let whole = whole.trim_start_matches('0');
    let whole = if whole.is_empty() { "0" } else { whole };
    let fraction = fraction.trim_end_matches('0');
    let sign = if whole == "0" && fraction.is_empty() {
        ""
    } else {
        sign
    };
    let mut out = if fraction.is_empty() {
        let mut forms = vec![format!("{sign}{whole}")];
        if unsigned.contains('.') {
            forms.push(format!("{sign}{whole}.0"));
        }
        forms
    } else {
        vec![format!("{sign}{whole}.{fraction}")]
    };
    // An integer past a float's 15-16 significant digits, as a JSON reader that makes it a
    // float writes it back (serde's, JavaScript's and Python's `9.876543210987654e+23`, ryu's
    // `e23`, Rust's digits): 16 of its digits (review 27, F8: report.json showed them).
    if fraction.is_empty()
        && whole.len() > 15
        && let Ok(f) = whole.parse::<f64>()
    {
        let serde = serde_json::to_string(&f).unwrap_or_default();
        let bare = serde.replacen("e+", "e", 1);
        for form in [serde, bare, format!("{f}")] {
            out.push(format!("{sign}{form}"));
        }
    }
    out.retain(|f| f != v && f.chars().count() >= MIN_PART);
    out.dedup();
    out
}
