//! A regular expression that matches any text (`""`, `.*`, `a*`, `^|x`, `(?:)`): a `matches`
//! of it is a check that cannot fail, refused as `contains: ""` is (attack 31, G9). One that
//! matches only the empty text (`^$`, `^\s*$`) is a real check and is kept.

/// The help of a `contains: ""`.
pub(crate) const CONTAINS_HELP: &str =
    "write what the text must hold; `equals: \"\"` checks that it is empty";

/// Texts unlike each other: a regex that matches all of them, the empty one first, matches any.
const PROBES: [&str; 7] = ["", "x", "0", " ", "\n", "Zz é\t9\n-", "\u{200b}"];

/// Whether regular expression `re` (Rust syntax) matches any text; `false` when it does not
/// compile (that is said elsewhere).
pub(crate) fn matches_any_text(re: &str) -> bool {
    regex::Regex::new(re).is_ok_and(|r| PROBES.iter().all(|p| r.is_match(p)))
}

/// The diagnostic's message and help for a `matches` of `re`, which matches any text.
pub(crate) fn any_text_message(re: &str) -> (String, &'static str) {
    (
        format!("`matches: {re:?}` matches any text, so the check cannot fail"),
        "write what the text must hold (`^Order \\d+`); `equals: \"\"` or `matches: \"^$\"` checks that it is empty",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regexes_that_match_every_text_match_any() {
        for re in [
            "", "(?:)", ".*", "a*", "^|x", "x?", "(?s).*", "$", "^", "(?m)^", "[^x]*",
        ] {
            assert!(matches_any_text(re), "{re}");
        }
        for re in ["^$", "^\\s*$", "x", "^a", ".", "\\S", "(", "\\b", "^.*$"] {
            assert!(!matches_any_text(re), "{re}");
        }
    }
}
