//! What differs between a value a template made and the same template's value with each secret
//! in its inputs replaced by a sentinel: the spans of the first that the secrets made.

use std::collections::HashMap;
use std::ops::Range;

/// How many equal bytes (or the rest of both texts) end a difference: two texts that differ
/// where a secret was are the same again after it, for longer than this.
const ANCHOR: usize = 16;

/// How far (in bytes, on each side) the end of one difference is looked for, growing: most end
/// within the first; past the last, the rest of the text is one difference.
const WINDOWS: [usize; 3] = [256, 4096, 64 * 1024];

/// Up to how many bytes skipped on both sides together the end of a difference is looked for
/// position by position, before a window's positions are indexed: a secret and its sentinel
/// are the same again within a few dozen bytes, found so without building anything.
const NEAR: usize = 64;

/// The fewest bytes of text outside the sentinels' characters that both values share inside a
/// difference (a counter between two tokens less than `ANCHOR` bytes apart) at which it is cut
/// in two: what is between is no secret's.
const SHARED: usize = 8;

/// The fewest bytes of a span the masker learns (its `MIN_PART` characters): a difference is
/// not cut where all its parts would be shorter.
pub(super) const SHORTEST: usize = 4;

/// The spans of `a` that are not in `b`, where `b` is `a` made with other inputs (a sentinel
/// for each secret): each text that stands in `a` where `b` has another (or nothing). Spans
/// are widened to whole characters. Linear in the texts' length, plus the search of each
/// difference's end within [`WINDOWS`].
pub(super) fn changed(a: &str, b: &str) -> Vec<String> {
    let (x, y) = (a.as_bytes(), b.as_bytes());
    let suffix = x
        .iter()
        .rev()
        .zip(y.iter().rev())
        .take_while(|(p, q)| p == q)
        .count();
    let (x_end, y_end) = (x.len() - suffix, y.len() - suffix);
    let mut spans = Vec::new();
    let (mut i, mut j) = (0, 0);
    loop {
        while i < x_end && j < y_end && x[i] == y[j] {
            i += 1;
            j += 1;
        }
        if i >= x_end || j >= y_end {
            if i < x_end {
                spans.extend(cut(x, i..x_end, &y[j..y_end]));
            }
            break;
        }
        let Some((di, dj)) = resync(&x[i..x_end], &y[j..y_end]) else {
            spans.extend(cut(x, i..x_end, &y[j..y_end]));
            break;
        };
        if di > 0 {
            spans.extend(cut(x, i..i + di, &y[j..j + dj]));
        }
        i += di;
        j += dj;
    }
    spans
        .into_iter()
        .map(|r| a[widened(a, r)].to_string())
        .collect()
}

/// The difference `r` of `x`, where the other value has `other`, cut at each run of at least
/// `SHARED` ASCII bytes of `other` (the sentinels are not ASCII) that `x` has there too, in
/// order: `Kestrel Vault id=000123 Kestrel Vault` is two spans, not one with the counter. Not cut
/// when every part would be too short to be learned (`| join(' -------- ')` of single
/// characters).
fn cut(x: &[u8], r: Range<usize>, other: &[u8]) -> Vec<Range<usize>> {
    let mut parts = Vec::new();
    let mut at = r.start;
    for run in other
        .split(|b| !b.is_ascii())
        .filter(|run| run.len() >= SHARED)
    {
        let Some(found) = find(&x[at..r.end], run) else {
            continue;
        };
        if found > 0 {
            parts.push(at..at + found);
        }
        at += found + run.len();
    }
    if at < r.end {
        parts.push(at..r.end);
    }
    let short = |p: &Range<usize>| p.len() < SHORTEST;
    if parts.len() > 1 && !parts.iter().all(short) {
        parts
    } else {
        vec![r]
    }
}

/// Where `needle` first is in `hay`.
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The next `ANCHOR` bytes of `s` from `at` (fewer at its end).
fn key(s: &[u8], at: usize) -> &[u8] {
    &s[at..(at + ANCHOR).min(s.len())]
}

/// Where `x` and `y`, which differ at their start, are the same again: the fewest bytes
/// `(di, dj)` to skip on each side so that the next `ANCHOR` bytes (or the rest of both) are
/// equal (of two as few, the one that skips less of `x`). None when they are not within the
/// last window. Within `NEAR` bytes each pair of positions is compared; past it, the
/// positions of `y` in a window are indexed by their anchor (borrowed, not copied).
fn resync(x: &[u8], y: &[u8]) -> Option<(usize, usize)> {
    for d in 0..=NEAR {
        for di in d.saturating_sub(y.len())..=d.min(x.len()) {
            if key(x, di) == key(y, d - di) {
                return Some((di, d - di));
            }
        }
    }
    for (n, &w) in WINDOWS.iter().enumerate() {
        #[cfg(test)]
        INDEXED.with(|c| c.set(c.get() + w.min(y.len()) + 1));
        let mut firsts: HashMap<&[u8], usize> = HashMap::new();
        for dj in 0..=w.min(y.len()) {
            firsts.entry(key(y, dj)).or_insert(dj);
        }
        let mut best: Option<(usize, usize)> = None;
        for di in 0..=w.min(x.len()) {
            if best.is_some_and(|(bi, bj)| di >= bi + bj) {
                break;
            }
            if let Some(&dj) = firsts.get(key(x, di))
                && best.is_none_or(|(bi, bj)| di + dj < bi + bj)
            {
                best = Some((di, dj));
            }
        }
        match best {
            Some((di, dj)) if di + dj <= w || n + 1 == WINDOWS.len() => return best,
            _ => {}
        }
    }
    None
}

#[cfg(test)]
thread_local! {
    /// How many positions [`resync`] has indexed on this thread: the work a difference costs
    /// past `NEAR`.
    static INDEXED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// `r` widened to the char boundaries of `s` around it.
fn widened(s: &str, r: Range<usize>) -> Range<usize> {
    let (mut start, mut end) = (r.start, r.end);
    while !s.is_char_boundary(start) {
        start -= 1;
    }
    while !s.is_char_boundary(end) {
        end += 1;
    }
    start..end
}

#[cfg(test)]
mod tests {
    use super::changed;

    #[test]
    fn the_spans_a_secret_made_are_told_apart_from_the_text_around_them() {
        let text = |t: &str| format!("token={t} user=bob\n{}\n last={t} end", "a".repeat(6000));
        let s = "\u{e000}".repeat(23);
        // What `| replace('-', ' ')` made of the token, twice; the sentinel as it was.
        assert_eq!(
            changed(&text("Kestrel Vault 9931 Zulu"), &text(&s)),
            ["Kestrel Vault 9931 Zulu", "Kestrel Vault 9931 Zulu"]
        );
        // Longer or shorter than the sentinel's form (`| urlencode`), at either end.
        assert_eq!(
            changed("Kestrel%20Vault x", "%EE%80%80%EE%80%80 x"),
            ["Kestrel%20Vault"]
        );
        assert_eq!(changed("ab XY", "ab \u{e000}\u{e001}"), ["XY"]);
        assert_eq!(changed("ab é", "ab è"), ["é"]);
        // Nothing made of it (a length, a replace that took it out): nothing.
        assert!(changed("n=23 ok", "n=23 ok").is_empty());
        assert!(changed("a  b", "a \u{e000}\u{e001} b").is_empty());
        // Equal for less than the anchor between two: one difference.
        assert_eq!(
            changed("x ABCD-EFGH y", "x \u{e000}-\u{e001} y"),
            ["ABCD-EFGH"]
        );
    }

    /// A 1 MiB output where a 4-character secret shows every 21 bytes: the end of each
    /// difference is found next to it, no window of positions is indexed for each (a map of
    /// 257 entries per difference: seconds per template).
    #[test]
    fn a_dense_text_costs_no_index_per_difference() {
        let text = |t: &str| format!("{t} padding-padding ").repeat(50_000);
        super::INDEXED.with(|c| c.set(0));
        let spans = changed(&text("k9Zq"), &text("\u{e000}\u{e001}\u{e002}\u{e003}"));
        assert_eq!(spans.len(), 50_000);
        assert!(spans.iter().all(|s| s == "k9Zq"));
        assert_eq!(super::INDEXED.with(std::cell::Cell::get), 0);
    }

    #[test]
    fn text_both_values_share_inside_a_difference_cuts_it() {
        let s = "\u{e000}".repeat(13);
        // A counter between two tokens less than the anchor apart: two spans, not one with it.
        assert_eq!(
            changed(
                "token=Kestrel Vault id=000123 Kestrel Vault\n",
                &format!("token={s} id=000123 {s}\n")
            ),
            ["Kestrel Vault", "Kestrel Vault"]
        );
        // Not where the parts would be too short to learn: single characters joined.
        assert_eq!(
            changed(
                "K -------- e -------- y!",
                "\u{e000} -------- \u{e001} -------- \u{e002}!"
            ),
            ["K -------- e -------- y"]
        );
    }
}
