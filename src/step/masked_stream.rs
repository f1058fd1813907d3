//! A stream masked as it is read (a command's output), piece by piece with bounded memory: what
//! is passed on never ends inside a secret that the next piece completes, whether the secret is
//! whole or split by characters taken out where it is shown ([`Masker::settled`]).

use super::masker::Masker;

/// The text of a stream read so far and not yet passed on.
pub(crate) struct MaskedStream {
    masker: Masker,
    text: String,
    /// The bytes of a character the last piece ended inside.
    partial: Vec<u8>,
}

impl MaskedStream {
    /// A stream masked with `masker`.
    pub(crate) fn new(masker: Masker) -> MaskedStream {
        MaskedStream {
            masker,
            text: String::new(),
            partial: Vec::new(),
        }
    }

    /// Takes bytes read: UTF-8, each invalid sequence read as U+FFFD (a character cut by the
    /// end of the piece waits for the rest of it).
    pub(crate) fn push(&mut self, bytes: &[u8]) {
        let mut all = std::mem::take(&mut self.partial);
        all.extend_from_slice(bytes);
        let mut rest: &[u8] = &all;
        loop {
            match std::str::from_utf8(rest) {
                Ok(s) => {
                    self.text.push_str(s);
                    rest = &[];
                    break;
                }
                Err(e) => {
                    let (valid, after) = rest.split_at(e.valid_up_to());
                    // Valid up to there, as the error says.
                    self.text
                        .push_str(std::str::from_utf8(valid).unwrap_or_default());
                    let Some(bad) = e.error_len() else {
                        rest = after;
                        break;
                    };
                    self.text.push(char::REPLACEMENT_CHARACTER);
                    rest = &after[bad..];
                }
            }
        }
        self.partial = rest.to_vec();
    }

    /// How many bytes of text wait.
    pub(crate) fn waiting(&self) -> usize {
        self.text.len()
    }

    /// The text that can be passed on now, masked (all of it at the stream's `end`).
    pub(crate) fn take(&mut self, end: bool) -> String {
        let piece = self.take_raw(end);
        self.masker.mask(&piece)
    }

    /// The text that can be passed on now as it was read (all of it at the stream's `end`):
    /// it never ends inside a secret the rest completes, so masking it shows none's head.
    pub(crate) fn take_raw(&mut self, end: bool) -> String {
        if end && !self.partial.is_empty() {
            self.partial.clear();
            self.text.push(char::REPLACEMENT_CHARACTER);
        }
        let cut = if end {
            self.text.len()
        } else {
            self.masker.settled(&self.text)
        };
        self.text.drain(..cut).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text of `pieces` passed through a stream, taken after each piece.
    fn through(m: &Masker, pieces: &[&[u8]]) -> String {
        let mut s = MaskedStream::new(m.clone());
        let mut out = String::new();
        for p in pieces {
            s.push(p);
            out.push_str(&s.take(false));
        }
        out.push_str(&s.take(true));
        out
    }

    #[test]
    fn a_secret_cut_anywhere_between_pieces_is_masked_whole() {
        let m = Masker::new(["kestrel-Vault-9931".to_string()]);
        let longest = "%6B%65%73%74%72%65%6C%2D%56%61%75%6C%74%2D%39%39%33%31";
        let split = "kestrel-\u{1b}]0;a long window title\u{7}\u{1b}[1m\u{1b}[0mVault-9931";
        for text in [
            "kestrel-Vault-9931",
            longest,
            split,
            "kestrel-\u{1}Vault-9931",
        ] {
            let text = format!("before {text} after é");
            let bytes = text.as_bytes();
            for at in 0..bytes.len() {
                for at2 in at..bytes.len() {
                    let out = through(&m, &[&bytes[..at], &bytes[at..at2], &bytes[at2..]]);
                    assert_eq!(out, "before *** after é", "cut at {at}, {at2} of {text:?}");
                }
            }
        }
    }

    #[test]
    fn invalid_and_cut_characters_are_read_as_utf8_does() {
        let m = Masker::default();
        let e = "é".as_bytes();
        assert_eq!(
            through(&m, &[b"a", &e[..1], &e[1..], b"\xffb"]),
            "aé\u{fffd}b"
        );
        assert_eq!(through(&m, &[b"a", &e[..1]]), "a\u{fffd}");
    }
}
