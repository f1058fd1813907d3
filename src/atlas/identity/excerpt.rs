//! The part of a long text that changed, word by word: a JSON or CSV body shown by a data
//! browser is one text of the page, and a row edit in it is a few words, not the whole body
//! twice. Each change is shown with a little of what is around it (`… "title": "Dune ->
//! Dune Messiah", "author": …`), the changes far apart joined by `…`, the whole cut short;
//! changes of numbers or dates alone (a clock, a count) are left out beside other changes.

use super::lcs::hunks;
use super::normalize::normalize_text;

/// Texts longer than this (in characters) are shown by the part that changed.
pub(super) const LONG: usize = 60;
/// The most characters of context on each side of a change.
const CONTEXT: usize = 24;
/// The most characters of one side of a change.
const SIDE: usize = 48;
/// The most characters of what an excerpt shows (past it, the changes left are counted).
const MAX: usize = 160;
/// Changes this few words apart (or fewer) are shown as one.
const JOIN: usize = 3;

/// What changed in a long text: each side's part around the changes, and the changes inline
/// (`context A -> B context`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Excerpt {
    pub(super) expected: String,
    pub(super) found: String,
    pub(super) change: String,
}

/// The words, runs of spaces and single other characters of a text (`"Dune",` is `"`, `Dune`,
/// `"`, `,`): what a change is made of.
fn tokens(s: &str) -> Vec<&str> {
    let word = |c: char| c.is_alphanumeric() || matches!(c, '_' | '.' | '-' | '@');
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = s.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let same = |d: char| (word(c) && word(d)) || (c.is_whitespace() && d.is_whitespace());
        if chars.peek().is_none_or(|&(_, d)| !same(d)) {
            out.push(&s[start..i + c.len_utf8()]);
            start = i + c.len_utf8();
        }
    }
    out
}

/// One change: the tokens `a[a0..a1]` became `b[b0..b1]`.
#[derive(Debug, Clone, Copy)]
struct Span {
    a0: usize,
    a1: usize,
    b0: usize,
    b1: usize,
}

/// The changes from `a` to `b`, each with both sides holding a word (an insertion takes in
/// the word before it, or after it at the start) and those a few words apart joined.
fn spans(a: &[&str], b: &[&str]) -> Vec<Span> {
    let mut out: Vec<Span> = Vec::new();
    let mut offset: isize = 0; // b's index minus a's, before the hunk
    for h in hunks(a, b) {
        let (a0, b0) = match (h.removed.first(), h.added.first()) {
            (Some(&i), _) => (i, i.saturating_add_signed(offset)),
            (None, Some(&j)) => (j.saturating_add_signed(-offset), j),
            (None, None) => continue,
        };
        let mut s = Span {
            a0,
            a1: a0 + h.removed.len(),
            b0,
            b1: b0 + h.added.len(),
        };
        offset += h.added.len().cast_signed() - h.removed.len().cast_signed();
        widen(&mut s, a);
        match out.last_mut() {
            Some(last) if s.a0 <= last.a1 + JOIN => {
                last.a1 = last.a1.max(s.a1);
                last.b1 = last.b1.max(s.b1);
            }
            _ => out.push(s),
        }
    }
    out
}

/// Takes into a change with an empty side the shared word next to it (before it, else after).
fn widen(s: &mut Span, a: &[&str]) {
    let blank = |t: &str| t.trim().is_empty();
    while s.a0 == s.a1 || s.b0 == s.b1 || a[s.a0..s.a1].iter().all(|t| blank(t)) {
        if s.a0 > 0 && s.b0 > 0 {
            s.a0 -= 1;
            s.b0 -= 1;
            if !blank(a[s.a0]) {
                break;
            }
        } else if s.a1 < a.len() {
            s.a1 += 1;
            s.b1 += 1;
            if !blank(a[s.a1 - 1]) {
                break;
            }
        } else {
            break;
        }
    }
}

/// `s` cut to `max` characters: its start (`…` after), or its end (`…` before).
fn cut(s: &str, max: usize, keep_end: bool) -> String {
    let n = s.chars().count();
    if n <= max {
        return s.to_string();
    }
    if keep_end {
        format!("…{}", s.chars().skip(n - max).collect::<String>())
    } else {
        format!("{}…", s.chars().take(max).collect::<String>())
    }
}

/// The context before token `at`: up to `CONTEXT` characters of whole tokens from `lo` on,
/// from a word's start (else the end of the one token before, cut); where it starts, and its
/// text.
fn before(toks: &[&str], lo: usize, at: usize) -> (usize, String) {
    let mut start = at;
    let mut len = 0;
    while start > lo && len + toks[start - 1].chars().count() <= CONTEXT {
        start -= 1;
        len += toks[start].chars().count();
    }
    if start == at && at > lo {
        return (at - 1, cut(toks[at - 1], CONTEXT, true));
    }
    // Text is left out before it: it starts at a word (after a space), when one is there.
    if start > lo
        && let Some(w) =
            (start..at).find(|&i| toks[i - 1].trim().is_empty() && !toks[i].trim().is_empty())
    {
        start = w;
    }
    (start, toks[start..at].concat())
}

/// The context after token `from`, up to token `hi`: up to `CONTEXT` characters of whole
/// tokens (else the start of the one token after, cut); where it ends, and its text.
fn after(toks: &[&str], from: usize, hi: usize) -> (usize, String) {
    let mut end = from;
    let mut len = 0;
    while end < hi && len + toks[end].chars().count() <= CONTEXT {
        len += toks[end].chars().count();
        end += 1;
    }
    if end == from && from < hi {
        return (from + 1, cut(toks[from], CONTEXT, false));
    }
    (end, toks[from..end].concat())
}

/// What changed from `a` to `b`, two long texts: the changes with their context, the first
/// ones that fit in `MAX` characters (then `(and N more changes)`); `…` where text is left
/// out.
pub(super) fn excerpt(a: &str, b: &str) -> Excerpt {
    let (ta, tb) = (tokens(a), tokens(b));
    let all = spans(&ta, &tb);
    // A change of numbers or dates alone (a clock, a count) is not drift, as for a short text:
    // shown only when nothing else changed.
    let real: Vec<Span> = all
        .iter()
        .filter(|s| {
            normalize_text(&ta[s.a0..s.a1].concat()) != normalize_text(&tb[s.b0..s.b1].concat())
        })
        .copied()
        .collect();
    let spans = if real.is_empty() { all } else { real };
    let mut out = Excerpt {
        expected: String::new(),
        found: String::new(),
        change: String::new(),
    };
    let mut shown = 0; // the first token of `a` not shown yet
    for (k, s) in spans.iter().enumerate() {
        let (start, pre) = before(&ta, shown, s.a0);
        let next = spans.get(k + 1).map_or(ta.len(), |n| n.a0);
        let (end, post) = after(&ta, s.a1, next);
        let gap = if start > shown && !pre.starts_with('…') {
            "…"
        } else {
            ""
        };
        let from = cut(&ta[s.a0..s.a1].concat(), SIDE, false);
        let to = cut(&tb[s.b0..s.b1].concat(), SIDE, false);
        let piece = |side: &str| format!("{gap}{pre}{side}{post}");
        let change = piece(&format!("{from} -> {to}"));
        if k > 0 && out.change.chars().count() + change.chars().count() > MAX {
            let more = spans.len() - k;
            let word = if more == 1 { "change" } else { "changes" };
            for t in [&mut out.expected, &mut out.found, &mut out.change] {
                if !t.ends_with('…') {
                    t.push('…');
                }
            }
            out.change.push_str(&format!(" (and {more} more {word})"));
            return out;
        }
        out.expected.push_str(&piece(&from));
        out.found.push_str(&piece(&to));
        out.change.push_str(&change);
        shown = end;
    }
    if shown < ta.len() {
        for t in [&mut out.expected, &mut out.found, &mut out.change] {
            if !t.ends_with('…') {
                t.push('…');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_edit_in_a_json_body_is_shown_by_the_words_that_changed() {
        let a = r#"{"database": "library", "rows": [[1, "Dune", "Frank Herbert", 1965], [2, "Emma", "Jane Austen", 1815], [3, "Neuromancer", "William Gibson", 1984]], "count": 3}"#;
        let b = a.replace("\"Dune\"", "\"Dune Messiah\"");
        let e = excerpt(a, &b);
        assert_eq!(
            e.change,
            r#"…"rows": [[1, "Dune -> Dune Messiah", "Frank Herbert", 1965…"#
        );
        assert_eq!(
            e.expected,
            r#"…"rows": [[1, "Dune", "Frank Herbert", 1965…"#
        );
        assert_eq!(
            e.found,
            r#"…"rows": [[1, "Dune Messiah", "Frank Herbert", 1965…"#
        );
        // Two values far apart: each with its context; a count beside them is left out.
        let b = a
            .replace("Emma", "Persuasion")
            .replace("Gibson", "Gibson Jr")
            .replace("\"count\": 3", "\"count\": 4");
        assert_eq!(
            excerpt(a, &b).change,
            r#"…Herbert", 1965], [2, "Emma -> Persuasion", "Jane Austen", 1815],…"Neuromancer", "William Gibson -> Gibson Jr", 1984]], "count": 3}"#
        );
        // Numbers alone changed: they are what is shown.
        let b = a.replace("1815", "1816");
        assert_eq!(
            excerpt(a, &b).change,
            r#"…"Emma", "Jane Austen", 1815 -> 1816], [3, "Neuromancer", "…"#
        );
    }

    #[test]
    fn a_csv_row_added_and_many_changes_are_cut_short() {
        let a = "id,title,author,year 1,Dune,Frank Herbert,1965 2,Emma,Jane Austen,1815";
        let b = format!("{a} 3,Neuromancer,William Gibson,1984");
        assert_eq!(
            excerpt(a, &b).change,
            "…2,Emma,Jane Austen,1815 -> 1815 3,Neuromancer,William Gibson,1984"
        );
        let words: Vec<String> = (0..40).map(|i| format!("w{i}")).collect();
        let a = words.join(" ");
        let b = words
            .iter()
            .enumerate()
            .map(|(i, w)| {
                if i % 5 == 0 {
                    format!("{w}x")
                } else {
                    w.clone()
                }
            })
            .collect::<Vec<_>>()
            .join(" ");
        let e = excerpt(&a, &b);
        assert!(
            e.change.starts_with("w0 -> w0x w1 w2 w3 w4 "),
            "{}",
            e.change
        );
        assert!(e.change.ends_with("more changes)"), "{}", e.change);
        assert!(e.change.chars().count() <= MAX + 30, "{}", e.change);
        assert!(e.expected.chars().count() <= MAX, "{}", e.expected);
    }

    #[test]
    fn texts_are_cut_into_words_spaces_and_signs() {
        assert_eq!(
            tokens(r#"[1, "Dune", 25.0]"#),
            [
                "[", "1", ",", " ", "\"", "Dune", "\"", ",", " ", "25.0", "]"
            ]
        );
        assert_eq!(tokens("a  b"), ["a", "  ", "b"]);
        assert!(tokens("").is_empty());
    }
}
