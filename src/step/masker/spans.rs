//! Where a text may be cut: never inside a form found. [`Masker::kept_start`] is the one way
//! runner keeps the start of a text that may hold a secret (a command's output, a response's
//! body, an agent's answer, a page's HTML): what it keeps, masked where it is shown, shows no
//! head of a secret the cut split.

use super::{MAX_HELD, Masker, Matcher, has_hidden, matches, matches_in, replaced, spread, views};

impl Masker {
    /// How much of `text`, a stream's text so far with more to come, can be masked and passed
    /// on now: not the last `longest - 1` bytes (as written, and as shown: a secret the rest
    /// of the stream completes may begin there), and never part of a form found. The rest waits
    /// for the next piece. A char boundary of `text`.
    pub(crate) fn settled(&self, text: &str) -> usize {
        self.settled_spans(text).0
    }

    /// [`Masker::settled`], and the forms found in `text` (in any order, overlapping).
    fn settled_spans(&self, text: &str) -> (usize, Vec<(usize, usize)>) {
        let keep = self.longest().saturating_sub(1);
        let mut cut = text.len().saturating_sub(keep);
        let matcher = self.matcher();
        let forms = match &matcher {
            Some(Matcher::Forms(m)) => Some(m),
            _ => None,
        };
        // The views of the text as shown, made once: for the cut and for the forms found.
        let views = if (text.len() <= MAX_HELD || forms.is_some()) && has_hidden(text) {
            views(text)
        } else {
            Vec::new()
        };
        if text.len() <= MAX_HELD {
            for v in &views {
                cut = cut.min(v.original_at(v.text.len().saturating_sub(keep), text.len()));
            }
        }
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        let Some(m) = forms else {
            return (cut, Vec::new());
        };
        if text.len() <= MAX_HELD {
            cut = cut.min(spread::settled(m, text));
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
        }
        let spans = matches_in(m, text, &views);
        (outside(spans.clone(), cut), spans)
    }

    /// [`Masker::settled`] of `text`, and the text up to there masked, in one look for the forms
    /// in it: a stream's piece costs one search, not two. The forms found in the whole text
    /// that end before the cut are those the part before it holds (a form the cut would split
    /// is left after it), masked as [`Masker::mask`] masks them.
    pub(crate) fn mask_settled(&self, text: &str) -> (usize, String) {
        let (cut, spans) = self.settled_spans(text);
        let before = &text[..cut];
        let Some(Matcher::Forms(m)) = self.matcher() else {
            return (cut, self.mask(before));
        };
        let spans: Vec<(usize, usize)> = spans.into_iter().filter(|&(_, e)| e <= cut).collect();
        if spans.is_empty() {
            return (cut, before.to_string());
        }
        let mut out = replaced(before, spans);
        // As `mask_with`: a `***` put where part of an escape sequence was changes what the
        // rest of it leaves.
        if has_hidden(before) {
            for _ in 0..3 {
                let spans = matches(&m, &out);
                if spans.is_empty() {
                    break;
                }
                out = replaced(&out, spans);
            }
        }
        (cut, out)
    }

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
    use crate::step::Masker;

    /// One search for the cut and the mask gives what the two did: the part before the cut
    /// masked as it is masked alone, for texts with the secret as it is, spread, wrapped,
    /// split by escapes and cut anywhere.
    #[test]
    fn a_piece_masked_with_its_cut_is_masked_as_alone() {
        let m = Masker::new([
            "Kx7Wq2Rn8Lp5Vb3M".to_string(),
            "4929173650218342".to_string(),
        ]);
        let texts = [
            "log Kx7Wq2Rn8Lp5Vb3M and 4929 1736 5021 8342 end\n",
            "a Kx7Wq2Rn\u{1b}[1m8Lp5Vb3M b \u{1b}]0;title\u{7} 4929-1736-5021-8342 c",
            "S3g3V3EyUm44THA1VmIzTQ==\nS3g3V3EyUm44\nTHA1VmIzTQ== kx7wq2rn8lp5vb3m x\n",
            "12-34-56 4929 1736 5021 834",
        ];
        for text in texts {
            for end in (0..=text.len()).filter(|&e| text.is_char_boundary(e)) {
                let piece = &text[..end];
                let (cut, masked) = m.mask_settled(piece);
                assert_eq!(cut, m.settled(piece), "{piece:?}");
                assert_eq!(masked, m.mask(&piece[..cut]), "{piece:?}");
            }
        }
    }

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
