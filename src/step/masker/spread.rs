//! A secret the page or a file writes with separators between its characters: a card number
//! as `4929 1736 5021 8342`, a key as `Kx7W-q2Rn-8Lp5-Vb3M`, a download named after one
//! (`receipt-4929-1736-5021-8342.txt`), a `.env` line with a `-` put in. Rather than a pattern
//! for each place a separator can fall, each secret (and its cases and reverses) is also looked
//! for without its separators in a view of the text without its separators
//! ([`crate::step::shown::without`]), and the whole range a match was made of is masked (the
//! separators inside it too). One more search of the text, linear in its length whatever the
//! number of secrets.
//!
//! Only a secret of at least [`SPREAD_MIN`] characters once its separators are out is looked
//! for so: a shorter one (`1234`, `abc`) would be found across ordinary words and numbers
//! (`version 1.2.3.4`, `a b c`).

use aho_corasick::AhoCorasick;

use super::super::secret_forms::transforms;
use super::super::shown::{View, without};

/// The fewest characters a secret has, its separators out, for it to be looked for with
/// separators between them.
pub(crate) const SPREAD_MIN: usize = 8;

/// Whether `c` is a separator a formatter puts between a secret's characters: a space (also
/// a no-break one, a tab), `-`, `.`, `/`, `_`.
pub(super) fn is_separator(c: char) -> bool {
    matches!(c, ' ' | '\u{a0}' | '\t' | '-' | '.' | '/' | '_')
}

/// `text` without its separators.
fn unspread(text: &str) -> String {
    text.chars().filter(|&c| !is_separator(c)).collect()
}

/// What secret `v` is looked for as with separators in it: it and its cases and reverses,
/// each without its separators, those of at least [`SPREAD_MIN`] characters.
pub(super) fn spread_forms(v: &str) -> Vec<String> {
    let mut out: Vec<String> = std::iter::once(v.to_string())
        .chain(transforms(v))
        .map(|f| unspread(&f))
        .filter(|f| f.chars().count() >= SPREAD_MIN)
        .collect();
    out.sort();
    out.dedup();
    out
}

/// A masker's matcher: of every form as it is, and (`spread`) of the spread forms, looked for
/// in the text without its separators.
#[derive(Debug)]
pub(crate) struct Forms {
    pub(super) all: AhoCorasick,
    pub(super) spread: Option<AhoCorasick>,
    /// The longest spread form, in bytes.
    pub(super) longest: usize,
}

impl Forms {
    /// Whether a form is in `text`, as it is or spread.
    pub(super) fn is_match(&self, text: &str) -> bool {
        self.all.is_match(text) || !self.spread_matches(text).is_empty()
    }

    /// The ranges of `text` a spread form was found in (the separators inside it included).
    pub(super) fn spread_matches(&self, text: &str) -> Vec<(usize, usize)> {
        let Some(s) = &self.spread else {
            return Vec::new();
        };
        match without(text, is_separator) {
            Some(v) => found(s, &v),
            None => s
                .find_overlapping_iter(text)
                .map(|f| (f.start(), f.end()))
                .collect(),
        }
    }
}

/// Where `s` matches view `v`, as ranges of the text it is a view of.
fn found(s: &AhoCorasick, v: &View) -> Vec<(usize, usize)> {
    s.find_overlapping_iter(&v.text)
        .map(|f| v.original(f.start(), f.end()))
        .collect()
}

/// How much of `text` a stream may pass on as far as spread secrets go: not the last bytes of
/// it without its separators that a spread form less one byte takes (a secret the rest
/// completes may begin there). All of it with no spread forms.
pub(super) fn settled(forms: &Forms, text: &str) -> usize {
    if forms.spread.is_none() {
        return text.len();
    }
    let keep = forms.longest.saturating_sub(1);
    match without(text, is_separator) {
        Some(v) => v.original_at(v.text.len().saturating_sub(keep), text.len()),
        None => text.len().saturating_sub(keep),
    }
}

#[cfg(test)]
mod tests {
    use super::super::Masker;

    fn card() -> Masker {
        Masker::new([
            "4929173650218342".to_string(),
            "Kx7Wq2Rn8Lp5Vb3M".to_string(),
        ])
    }

    #[test]
    fn a_secret_with_separators_between_its_characters_is_masked() {
        let m = card();
        for text in [
            "made it `4929 1736 5021 8342`",
            "made it `4929-1736-5021-8342`",
            "made it `4929.1736.5021.8342`",
            "made it `4929/1736/5021/8342`",
            "made it `4929_1736_5021_8342`",
            "made it `4 9 2 9 1 7 3 6 5 0 2 1 8 3 4 2`",
            "made it `4929 - 1736 -- 5021  8342`",
            "made it `Kx7W-q2Rn-8Lp5-Vb3M`",
            "made it `KX7W-Q2RN-8LP5-VB3M`",
            "Z=\"Kx7Wq2Rn-8Lp5Vb3M",
        ] {
            let masked = m.mask(text);
            for piece in ["4929", "8342", "Kx7W", "Vb3M", "KX7W", "VB3M", "8LP5"] {
                assert!(!masked.contains(piece), "{text} → {masked}");
            }
            assert!(masked.contains("***"), "{masked}");
            assert!(m.holds_secret(text), "{text}");
        }
        assert_eq!(m.mask("receipt-4929-1736-5021-8342.txt"), "receipt-***.txt");
        assert_eq!(m.mask("a 4929 1736 5021 8342 b"), "a *** b");
    }

    #[test]
    fn a_secret_written_with_separators_is_masked_without_them() {
        let m = Masker::new(["Kx7W-q2Rn-8Lp5".to_string()]);
        assert_eq!(m.mask("got Kx7Wq2Rn8Lp5 here"), "got *** here");
        assert_eq!(m.mask("got Kx7W q2Rn 8Lp5 here"), "got *** here");
    }

    #[test]
    fn a_short_secret_is_not_looked_for_spread() {
        // Seven characters: spread, they would be found across ordinary words and numbers.
        let m = Masker::new(["1234567".to_string(), "abc".to_string()]);
        assert_eq!(m.mask("version 1.2.3.4.5.6.7"), "version 1.2.3.4.5.6.7");
        assert_eq!(m.mask("a b c"), "a b c");
        assert_eq!(m.mask("x 1234567 abc"), "x *** ***");
    }

    #[test]
    fn a_stream_keeps_back_a_spread_secret_it_may_complete() {
        let m = card();
        let text = "card: 4 -- 9 -- 2 -- 9 -- 1 -- 7 -- 3 -- 6 -- 5 -- 0 -- 2 -- 1 -- 8 -- 3";
        let cut = m.settled(text);
        assert!(cut <= text.find('4').unwrap(), "{cut}: {}", &text[..cut]);
    }

    /// Masking a 1 MB text (words, digits, separators) with two 16-character secrets (looked for
    /// spread too), and with two of 7 characters (not looked for spread), in turns:
    /// `cargo test --lib masking_a_megabyte -- --ignored --nocapture` prints the times.
    #[test]
    #[ignore = "a measurement, printed with --nocapture"]
    fn masking_a_megabyte() {
        let line = "order 1234-5678 at 2026/11/28 by some_user.name - total 42.50 EUR\n";
        let text = line.repeat(1024 * 1024 / line.len());
        let spread = card();
        let short = Masker::new(["4929173".to_string(), "Kx7Wq2R".to_string()]);
        let mut took = [std::time::Duration::ZERO; 2];
        for _ in 0..10 {
            for (i, m) in [&spread, &short].into_iter().enumerate() {
                let t = std::time::Instant::now();
                assert_eq!(m.mask(&text).len(), text.len());
                took[i] += t.elapsed();
            }
        }
        let leaked = format!("{text}4929 1736 5021 8342");
        assert!(!spread.mask(&leaked).contains("8342"));
        eprintln!(
            "mask of {} bytes: {:?} a run looking for spread secrets, {:?} without",
            text.len(),
            took[0] / 10,
            took[1] / 10
        );
    }
}
