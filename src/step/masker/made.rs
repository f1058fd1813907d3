//! What a masker learns of values made of a secret: derived values, what a template made of
//! one (values, shapes, spans, pieces), within their budgets.

use std::collections::HashSet;

use super::{
    Kind, LEARN_BUDGET, MAX_LEARNED, MAX_UNTOLD, MIN_PART, Masker, Matcher, SPAN_BUDGET,
    SPAN_COUNT, UNTOLD_BUDGET, matches, replaced_by,
};

/// The longest run of a secret's punctuation and white space that its [`sentinel`] keeps: a
/// longer one could be the same in both evaluations for long enough (`changed` cuts a
/// difference at 8 bytes both share) that what is learned of the secret leaves it out.
const KEPT_RUN: usize = 7;

impl Masker {
    /// Adds values made of a secret (`{{ secrets.T | upper }}`, a URL holding one), with their
    /// forms: each at least `MIN_PART` characters long (a shorter one, a length or a slice of
    /// two characters, would mask the same text wherever it is) and at most `MAX_LEARNED` bytes.
    pub(crate) fn add_derived(&self, values: impl IntoIterator<Item = String>) {
        let (kept, _) = self.learnable(values, MIN_PART, false);
        self.learn(kept, Kind::Derived);
    }

    /// [`Masker::add_derived`] of values a template made of a secret, learned whole while
    /// `LEARN_BUDGET` lasts when `told` (what the secret became in them is known, to be learned
    /// with [`Masker::add_spans`] instead). Whether each was learned whole (or was too short to).
    /// One not `told` past the budget is learned only as it is and in a JSON string (cheap),
    /// and so is one not `told` too long to learn whole ([`Masker::add_untold`]).
    pub(crate) fn add_made(&self, values: impl IntoIterator<Item = String>, told: bool) -> bool {
        let values: Vec<String> = values.into_iter().collect();
        if !told {
            self.add_untold(&values);
        }
        let spent = self.learned() >= LEARN_BUDGET;
        let (kept, whole) = self.learnable(values, MIN_PART, told);
        let kind = match (told, spent) {
            (true, _) => Kind::Whole,
            (false, true) => Kind::Plain,
            (false, false) => Kind::Derived,
        };
        self.learn(kept, kind);
        whole
    }

    /// Adds the shapes of a list or map a template made of a secret (`["a", "b"]` as it
    /// prints, its JSON), as [`Masker::add_made`] adds texts: masked, but not where pieces are
    /// looked for (a map holding a token holds other texts too).
    pub(crate) fn add_shapes(&self, shapes: impl IntoIterator<Item = String>, told: bool) -> bool {
        let shapes: Vec<String> = shapes.into_iter().collect();
        if !told {
            self.add_untold(&shapes);
        }
        let (kept, whole) = self.learnable(shapes, MIN_PART, told);
        self.learn(kept, Kind::Shape);
        whole
    }

    /// Adds what the secrets became in values made of them, all that is learned of a value not
    /// learned whole (a text of more than `MAX_LEARNED` bytes, or past `LEARN_BUDGET`): the spans
    /// of each that change when every secret in the template's inputs is a sentinel
    /// (`Kestrel Vault` where `| replace('-', ' ')` of a whole output made it of
    /// `Kestrel-Vault`). Each of at least `MIN_PART` characters and at most `MAX_LEARNED` bytes,
    /// whatever was learned before: a loop of values made of a secret the same way learns the
    /// same span, never each whole text. Past `SPAN_BUDGET` bytes of forms or `SPAN_COUNT`
    /// spans learned with all their forms, a span is learned only as it is and in a JSON string.
    /// A span already masked (a value learned whole that is all the secret became in it:
    /// `{{ secrets.T.split('-')[0] }}`) is learned all the same, to be hidden
    /// ([`Masker::hidden`]) where a later template reads it: else a value made of it and of a
    /// secret is told apart only where the secret is, and what the span became in it shows.
    pub(crate) fn add_spans(&self, spans: impl IntoIterator<Item = String>) {
        let spans: Vec<String> = {
            let Ok(inner) = self.inner.read() else {
                return;
            };
            let mut seen = HashSet::new();
            spans
                .into_iter()
                .filter(|v| v.len() <= MAX_LEARNED && v.trim().chars().count() >= MIN_PART)
                .filter(|v| !inner.made_known.contains(v) && seen.insert(v.clone()))
                .collect()
        };
        let mut plain = Vec::new();
        for span in spans {
            let spent = self.inner.read().map_or(true, |i| {
                i.span_bytes >= SPAN_BUDGET || i.span_count >= SPAN_COUNT
            });
            if spent {
                plain.push(span);
                continue;
            }
            let before = self.learned();
            self.learn([span], Kind::Derived);
            if let Ok(mut inner) = self.inner.write() {
                inner.span_count += 1;
                inner.span_bytes += inner.learned - before;
            }
        }
        self.learn(plain, Kind::Plain);
    }

    /// Of values (texts, shapes) made of a secret whose second evaluation told nothing of what
    /// the secrets became (its template failed with them hidden: `| int` of a PIN, a key of a
    /// secret's JSON; or what differs is too short to learn), those too long to be learned with
    /// all their forms (past `MAX_LEARNED` bytes, where a value's whole output beside is too):
    /// each learned whole (fails closed), as it is and in a JSON string, up to `MAX_UNTOLD`
    /// bytes while `UNTOLD_BUDGET` lasts. Past either, the value is not learned: what the secret
    /// became in it shows as the template made it.
    fn add_untold(&self, values: &[String]) {
        let long = values
            .iter()
            .filter(|v| v.len() > MAX_LEARNED && v.len() <= MAX_UNTOLD);
        for v in long {
            let spent = self
                .inner
                .read()
                .map_or(true, |i| i.untold >= UNTOLD_BUDGET);
            if spent {
                return;
            }
            self.learn([v.clone()], Kind::Untold);
        }
    }

    /// The bytes of forms of values made of a secret learned so far.
    pub(crate) fn learned(&self) -> usize {
        self.inner.read().map_or(0, |i| i.learned)
    }

    /// `text` with each secret and value made of one in it (each form masked, found as
    /// [`Masker::mask`] finds them) replaced by a sentinel of as many characters, private-use
    /// ones no text shows: the input a template is evaluated again with, to tell what it made
    /// of the secrets. None when it holds none; all of it when the secrets cannot be looked for
    /// ([`Matcher::All`]).
    pub(crate) fn hidden(&self, text: &str) -> Option<String> {
        let made = self.matcher_of(
            |i| (&i.made, &i.made_matcher),
            |i| (&i.made, &[][..], &mut i.made_matcher),
        )?;
        let Matcher::Forms(made) = made else {
            return Some(sentinel(text));
        };
        let spans = matches(&made, text);
        (!spans.is_empty()).then(|| replaced_by(text, spans, &sentinel))
    }

    /// Adds the texts inside a list or map a template made of a secret that are pieces of a
    /// secret, in any of its forms (`.split('-')`, `| batch(6)`, in another case or reversed),
    /// each of at least `MIN_PART` characters. Not pieces of a text made of one: `user` is a
    /// piece of `user:<password>`, and stays as it is beside the password in a list.
    /// One already masked is learned all the same, to be hidden, as [`Masker::add_spans`] does.
    pub(crate) fn add_pieces(&self, pieces: impl IntoIterator<Item = String>) {
        let pieces: Vec<String> = {
            let Ok(inner) = self.inner.read() else {
                return;
            };
            let mut seen = HashSet::new();
            pieces
                .into_iter()
                .filter(|p| p.chars().count() <= inner.longest)
                .filter(|p| p.trim().chars().count() >= MIN_PART)
                .filter(|p| !inner.made_known.contains(p) && seen.insert(p.clone()))
                .filter(|p| {
                    let lower = p.to_lowercase();
                    let reversed: String = lower.chars().rev().collect();
                    inner.secrets.contains(&lower) || inner.secrets.contains(&reversed)
                })
                .collect()
        };
        self.learn(pieces, Kind::Derived);
    }

    /// Adds the texts inside a list or map a template made of a secret that the secrets made
    /// (those that differ when the secrets are hidden: `token=Kestrel`, a piece of `.split('-')`
    /// across the secret's edge, which is no piece of the secret): each learned whole, as
    /// [`Masker::add_spans`] learns, while `LEARN_BUDGET` lasts; of one longer than
    /// `MAX_LEARNED` bytes (the rest of a long output after the secret), and of each past the
    /// budget (a loop splitting another output each time), the parts of a secret at its ends
    /// ([`Masker::edges`]). A piece inside a secret is one [`Masker::add_pieces`] learns.
    pub(crate) fn add_made_pieces(&self, pieces: impl IntoIterator<Item = String>) {
        let spent = self.inner.read().map_or(0, |i| i.learned) >= LEARN_BUDGET;
        let (short, long): (Vec<String>, Vec<String>) = pieces
            .into_iter()
            .partition(|p| !spent && p.len() <= MAX_LEARNED);
        self.add_spans(short);
        let edges: Vec<String> = long.iter().flat_map(|p| self.edges(p)).collect();
        self.add_spans(edges);
    }

    /// The parts of `piece` at its ends that are the other end of a secret (in any of its
    /// forms; letters in any ASCII case): its longest head that ends one, its longest tail that
    /// starts one. Each of at least `MIN_PART` characters. Found where a form holds the
    /// piece's first characters, and where the piece's end holds a form's first ones: a few
    /// searches of the forms, whatever the piece's length.
    fn edges(&self, piece: &str) -> Vec<String> {
        let Ok(inner) = self.inner.read() else {
            return Vec::new();
        };
        let lower = piece.to_ascii_lowercase();
        let start = |s: &str| s.char_indices().nth(MIN_PART).map(|(i, _)| i);
        let Some(first) = start(&lower) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let secrets = &inner.secrets;
        let head = secrets
            .match_indices(&lower[..first])
            .map(|(p, _)| &secrets[p..secrets[p..].find('\0').map_or(secrets.len(), |e| p + e)])
            .filter(|rest| lower.starts_with(rest))
            .map(str::len)
            .max();
        out.extend(head.map(|n| piece[..n].to_string()));
        let mut tail = None;
        for form in secrets.split('\0') {
            let Some(k) = start(form) else { continue };
            let mut from = lower.len().saturating_sub(form.len());
            while !lower.is_char_boundary(from) {
                from += 1;
            }
            let found = lower[from..]
                .match_indices(&form[..k])
                .map(|(q, _)| from + q)
                .find(|&q| form.starts_with(&lower[q..]));
            if let Some(q) = found {
                tail = Some(tail.map_or(q, |t: usize| t.min(q)));
            }
        }
        out.extend(tail.map(|q| piece[q..].to_string()));
        out
    }
}

/// `s` hidden, as many characters as it has: a private-use one (U+E000 on, each differing from
/// the one before) for each letter, digit or other character, and its ASCII punctuation and
/// white space kept where they are between two of those, in runs of at most `KEPT_RUN`. A
/// template whose result hangs on them (`.split('-')[1:]`, `.find('-')`, `| replace('-', ' ')`)
/// then makes the same structure of the sentinel as of the secret, so what differs is what the
/// secret became, not the whole rest of the value. At its ends a secret's punctuation is hidden
/// too (what differs then starts and ends with what the secret became, not inside it), and all
/// of it in a secret of fewer than `MIN_PART` other characters (mostly punctuation: what
/// differs would be too short to learn).
fn sentinel(s: &str) -> String {
    let kept = |c: char| c.is_ascii_punctuation() || c.is_whitespace();
    let chars: Vec<char> = s.chars().collect();
    let mut keep = vec![false; chars.len()];
    let first = chars.iter().position(|c| !kept(*c));
    let last = chars.iter().rposition(|c| !kept(*c));
    if let (Some(first), Some(last)) = (first, last)
        && chars.iter().filter(|c| !kept(**c)).count() >= MIN_PART
    {
        let mut i = first;
        while i < last {
            let end = (i..last).find(|&j| !kept(chars[j])).unwrap_or(last);
            if end - i <= KEPT_RUN {
                keep[i..end].fill(true);
            }
            i = end + 1;
        }
    }
    (0u32..)
        .zip(chars.into_iter().zip(keep))
        .map(|(i, (c, keep))| {
            if keep {
                c
            } else {
                char::from_u32(0xE000 + i % 64).unwrap_or('\u{e000}')
            }
        })
        .collect()
}
