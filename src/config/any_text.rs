//! A regular expression that matches any text (`""`, `.*`, `a*`, `^|x`, `(?:)`): a `matches`
//! of it is a check that cannot fail, refused as `contains: ""` is (attack 31, G9). One that
//! matches only the empty text (`^$`, `^\s*$`) is a real check and is kept.

/// The help of a `contains: ""`.
pub(crate) const CONTAINS_HELP: &str =
    "write what the text must hold; `equals: \"\"` checks that it is empty";

/// Whether regular expression `re` (Rust syntax) matches any text; `false` when it does not
/// compile (that is said elsewhere). Told from its structure: it does when it can match the
/// empty text at the start of every text (through nothing but start anchors: `""`, `.*`, `^`,
/// `^|x`) or at the end of every text (end anchors alone: `$`). A check of a text's length or
/// of the characters it must not hold (`(?s)^.{0,40}$`, `^[^<>]*$`) can fail, and is kept
/// (review 28, #6: seven sample texts took those for checks of nothing).
pub(crate) fn matches_any_text(re: &str) -> bool {
    if regex::Regex::new(re).is_err() {
        return false;
    }
    match regex_syntax::Parser::new().parse(re) {
        Ok(hir) => {
            let (at_start, at_end) = empty_match(&hir);
            at_start || at_end
        }
        Err(_) => false,
    }
}

/// Whether `hir` can match the empty text through start anchors alone (so at the start of any
/// text), and through end anchors alone (at the end of any text).
fn empty_match(hir: &regex_syntax::hir::Hir) -> (bool, bool) {
    use regex_syntax::hir::{HirKind, Look};
    match hir.kind() {
        HirKind::Empty => (true, true),
        HirKind::Literal(l) => (l.0.is_empty(), l.0.is_empty()),
        HirKind::Look(Look::Start | Look::StartLF | Look::StartCRLF) => (true, false),
        HirKind::Look(Look::End | Look::EndLF | Look::EndCRLF) => (false, true),
        HirKind::Look(_) | HirKind::Class(_) => (false, false),
        HirKind::Repetition(r) if r.min == 0 => (true, true),
        HirKind::Repetition(r) => empty_match(&r.sub),
        HirKind::Capture(c) => empty_match(&c.sub),
        HirKind::Concat(parts) => parts
            .iter()
            .map(empty_match)
            .fold((true, true), |a, b| (a.0 && b.0, a.1 && b.1)),
        HirKind::Alternation(parts) => parts
            .iter()
            .map(empty_match)
            .fold((false, false), |a, b| (a.0 || b.0, a.1 || b.1)),
    }
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
        // Checks of length and of characters a text must not hold (review 28, #6).
        for re in [
            "^[^<>]*$",
            "^[^@]*$",
            "(?s)^.{0,40}$",
            "\\A[^\\x00]*\\z",
            "(?m)^$",
            "^(x|)$",
        ] {
            assert!(!matches_any_text(re), "{re}");
        }
        for re in ["(x|)", "^(?:x*)", "(?i)(a|b?)+", "(?m)$", "\\z"] {
            assert!(matches_any_text(re), "{re}");
        }
    }
}
