//! Where a text may be cut: never inside a form found. [`Masker::kept_start`] is the one way
//! runner keeps the start of a text that may hold a secret (a command's output, a response's
//! body, an agent's answer, a page's HTML): what it keeps, masked where it is shown, shows no
//! head of a secret the cut split.

use super::Masker;

impl Masker {
    /// The start of `text` runner keeps of it when it keeps at most `max` bytes (`more`: `text`
    /// is itself only the start of a longer text, which was cut): all of it when it fits and
    /// there is no more; else cut at a character's boundary, then before any secret the cut
    /// could split, as a stream's piece is ([`Masker::settled`]).
    pub(crate) fn kept_start<'a>(&self, text: &'a str, max: usize, more: bool) -> &'a str {
        if text.len() <= max && !more {
            return text;
        }
        let mut end = max.min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        &text[..self.settled(&text[..end])]
    }
}

/// `cut`, or the start of the run of overlapping `spans` it falls strictly inside (a form found
/// is never cut): the spans merged once, in order, so that many overlapping ones (a secret of
/// one repeated character in a long run of it: each position starts a match) cost their
/// sorting, not a look over all of them per move (that took minutes for 1 MB).
pub(super) fn outside(mut spans: Vec<(usize, usize)>, cut: usize) -> usize {
    spans.sort_unstable();
    let mut run: Option<(usize, usize)> = None;
    for (s, e) in spans {
        run = match run {
            Some((rs, re)) if s < re => Some((rs, re.max(e))),
            Some((rs, re)) if rs < cut && cut < re => return rs,
            _ => Some((s, e)),
        };
    }
    match run {
        Some((rs, re)) if rs < cut && cut < re => rs,
        _ => cut,
    }
}

#[cfg(test)]
mod tests {
    use super::outside;

    /// What moving the cut to the start of a span it is inside, again while one is, gives.
    fn naive(spans: &[(usize, usize)], mut cut: usize) -> usize {
        while let Some(&(s, _)) = spans.iter().find(|(s, e)| *s < cut && cut < *e) {
            cut = s;
        }
        cut
    }

    #[test]
    fn the_cut_moves_to_the_start_of_the_run_of_spans_it_is_inside() {
        let cases: &[&[(usize, usize)]] = &[
            &[],
            &[(5, 20)],
            &[(0, 10), (5, 20)],
            &[(10, 20), (0, 10)],
            &[(3, 8), (12, 30), (25, 40), (1, 4)],
            &[(20, 30), (0, 5)],
        ];
        for spans in cases {
            for cut in 0..45 {
                assert_eq!(
                    outside(spans.to_vec(), cut),
                    naive(spans, cut),
                    "{spans:?} {cut}"
                );
            }
        }
        // Overlapping spans at every position of a long run cost their sorting.
        let many: Vec<(usize, usize)> = (0..500_000).map(|s| (s, s + 15)).collect();
        assert_eq!(outside(many, 400_000), 0);
    }
}
