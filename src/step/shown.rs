//! Text as it is shown: what a terminal, an annotation, JUnit or the HTML report leaves of a text
//! from outside runner once its escape sequences and control characters are taken out. One
//! scanner makes both [`clean`] (what the reports print) and the *views* the masker also looks
//! for secrets in ([`views`]), so that a secret split by a character that is taken out before it
//! is shown (`kestrel-\x01Vault`, `kestrel-ESC[0mVault`, a `\r`, a zero-width space) is masked
//! whole, the characters between its parts too: masking comes before cleaning, and after it the
//! text shown holds no secret.

use std::iter::Peekable;
use std::str::CharIndices;

use super::secret_forms::wrapped::{has_wraps, wraps};

const ESC: char = '\u{1b}';
const BEL: char = '\u{7}';

/// `text` without terminal escape sequences, control characters (line breaks and tabs
/// stay) and bidirectional overrides: an escape sequence in a page's text or a command's output must not recolour, move or
/// clear the terminal it is printed on, set its title, or reach an annotation. A sequence goes
/// whole: CSI (`ESC [` … a final byte), OSC and the other string sequences (`ESC ]` … BEL or
/// `ESC \`, ended too by a line break or the next escape, as a terminal drops them), and
/// two-byte escapes; 8-bit C1 controls go as the control characters they are.
pub(crate) fn clean(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    scan(text, true, false, |c, _| out.push(c));
    out
}

/// A name as it is shown (a flow's, a step's, an atlas's title or action): [`clean`], on one
/// line. Its line feeds, carriage returns and the other line breaks (vertical tab, form feed,
/// NEL, Unicode's line and paragraph separators) become spaces: a name from a template (`check
/// {{ steps.a.stdout }}`) must not start a line of its own, where GitHub Actions would read
/// `::stop-commands::` as a command. Its bidirectional controls (overrides, embeddings,
/// isolates, marks) go: U+202E would show the rest of the line, what runner wrote after the
/// name too, right to left (as Trojan Source makes code read otherwise than it runs).
pub(crate) fn one_line(text: &str) -> String {
    let breaks = [
        '\n', '\r', '\u{b}', '\u{c}', '\u{85}', '\u{2028}', '\u{2029}',
    ];
    let bidi = |c: char| matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{61c}');
    clean(&text.replace("\r\n", "\n").replace(breaks, " ")).replace(bidi, "")
}

/// A text or name as runner compares it, as Playwright does (the look-ups, the suggestions,
/// `expect: text` and the other checks of a page's text, which say what they got so): zero-width
/// spaces and soft hyphens dropped, every run of whitespace (NBSP and newlines included) one
/// space, trimmed. The page scripts (`css_elements.js`, `text_elements.js`) do the same.
pub(crate) fn normalize(s: &str) -> String {
    s.chars()
        .filter(|c| !matches!(c, '\u{200b}' | '\u{ad}'))
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// What a secret's value is shown as besides itself, each once: without the line breaks
/// around it (`token\n` read from a file, `token\r\n` pasted into a CI settings page, printed
/// by `$(cat f)` or `printf %s | tr -d '\n'`, typed into an `<input>`, which drops them, as
/// GitHub Actions masks a secret trimmed of them too), and as runner and agent-browser's
/// snapshot show a page's text ([`normalize`]: `pass  word` and `pass\tword` as `pass word`).
pub(crate) fn secret_shown(value: &str) -> Vec<String> {
    let mut out = vec![value.to_string()];
    for form in [
        value.trim_matches(['\r', '\n']).to_string(),
        normalize(value),
    ] {
        if !out.contains(&form) {
            out.push(form);
        }
    }
    out
}

/// Whether some character of `text` is taken out of one of its [`views`] (most text has none:
/// then it has no views to look in): a character not shown, or a line break that wraps base64.
pub(crate) fn has_hidden(text: &str) -> bool {
    text.chars().any(|c| dropped(c, true)) || has_wraps(text)
}

/// A text as it is shown, with where each of its bytes came from in the text it was made of.
pub(crate) struct View {
    pub(crate) text: String,
    from: Origin,
}

/// Where the bytes of a [`View`] come from.
enum Origin {
    /// For each byte: the range of the character of the original it is a byte of.
    Chars(Vec<(usize, usize)>),
    /// Where whole runs of the original are left out (a view of a long text that takes out a
    /// few line breaks, kept small): from each of these offsets of the view on, the original is
    /// that many bytes further; sorted.
    Skips(Vec<(usize, usize)>),
}

impl View {
    /// The range of the original that the bytes `start..end` of the view were made of (the
    /// characters taken out between them included).
    pub(crate) fn original(&self, start: usize, end: usize) -> (usize, usize) {
        match &self.from {
            Origin::Chars(from) => (from[start].0, from[end - 1].1),
            Origin::Skips(_) => (self.skipped(start), self.skipped(end - 1) + 1),
        }
    }

    /// Where in the original the byte `at` of the view comes from (the original's end past
    /// the view's).
    pub(crate) fn original_at(&self, at: usize, original_len: usize) -> usize {
        match &self.from {
            Origin::Chars(from) => from.get(at).map_or(original_len, |r| r.0),
            Origin::Skips(_) if at >= self.text.len() => original_len,
            Origin::Skips(_) => self.skipped(at),
        }
    }

    /// The original's offset of the byte `at` of a view of [`Origin::Skips`].
    fn skipped(&self, at: usize) -> usize {
        let Origin::Skips(skips) = &self.from else {
            return at;
        };
        let i = skips.partition_point(|&(from, _)| from <= at);
        at + i.checked_sub(1).map_or(0, |i| skips[i].1)
    }

    /// Adds `c`, the character at `at` in the original (a view of [`Origin::Chars`]).
    fn push(&mut self, c: char, at: usize) {
        self.text.push(c);
        if let Origin::Chars(from) = &mut self.from {
            for _ in 0..c.len_utf8() {
                from.push((at, at + c.len_utf8()));
            }
        }
    }
}

/// The ways `text` is shown, each without what it takes out: as [`clean`] leaves it (escape
/// sequences whole), and as the HTML report and JUnit leave it (each control character alone,
/// so `ESC V` leaves a `V`); both without the characters that show as nothing either
/// (zero-width spaces and joiners, direction marks and overrides, a soft hyphen, a BOM), which
/// would hold a secret together to a reader's eye. And as base64 is read: without the line
/// breaks that wrap it ([`wraps`]). Only the views that take something out.
pub(crate) fn views(text: &str) -> Vec<View> {
    let mut out = Vec::new();
    if text.chars().any(|c| dropped(c, true)) {
        out.extend([true, false].map(|escapes| {
            let mut v = View {
                text: String::new(),
                from: Origin::Chars(Vec::new()),
            };
            scan(text, escapes, true, |c, at| v.push(c, at));
            v
        }));
    }
    let wraps = wraps(text);
    if !wraps.is_empty() {
        let mut joined = String::with_capacity(text.len());
        let mut skips = Vec::with_capacity(wraps.len());
        let mut at = 0;
        for (start, end) in wraps {
            joined.push_str(&text[at..start]);
            skips.push((joined.len(), end - joined.len()));
            at = end;
        }
        joined.push_str(&text[at..]);
        out.push(View {
            text: joined,
            from: Origin::Skips(skips),
        });
    }
    out
}

/// A view of `text` without each run of the characters `drop` takes out, mapping back as a
/// view without base64's wraps does; none when it has none (the view is `text` itself).
pub(crate) fn without(text: &str, drop: impl Fn(char) -> bool) -> Option<View> {
    let mut joined = String::with_capacity(text.len());
    let mut skips = Vec::new();
    let mut at = 0;
    let mut run: Option<usize> = None;
    for (i, c) in text.char_indices() {
        match (drop(c), run) {
            (true, None) => run = Some(i),
            (false, Some(start)) => {
                joined.push_str(&text[at..start]);
                skips.push((joined.len(), i - joined.len()));
                at = i;
                run = None;
            }
            _ => {}
        }
    }
    if skips.is_empty() && run.is_none() {
        return None;
    }
    joined.push_str(&text[at..run.unwrap_or(text.len())]);
    Some(View {
        text: joined,
        from: Origin::Skips(skips),
    })
}

/// Whether `c` is taken out: a control character but a line break or a tab, a bidirectional
/// override, embedding or isolate (U+202A–U+202E, U+2066–U+2069: from outside, they would make
/// what follows, runner's own words too, read in another order, as Trojan Source does), or
/// (with `invisible`) a character that shows as nothing.
fn dropped(c: char, invisible: bool) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        || (invisible
            && matches!(c, '\u{ad}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{feff}'))
}

/// Calls `keep` with each character of `text` that is shown, and its byte offset: escape
/// sequences go whole (with `escapes`; else only the ESC goes, as every other control
/// character), and characters that show as nothing go with `invisible`.
fn scan(text: &str, escapes: bool, invisible: bool, mut keep: impl FnMut(char, usize)) {
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if c == ESC && escapes {
            skip_escape(&mut chars);
        } else if !dropped(c, invisible) {
            keep(c, at);
        }
    }
}

/// Skips what follows an ESC, up to the end of its sequence.
fn skip_escape(chars: &mut Peekable<CharIndices<'_>>) {
    let Some(&(_, first)) = chars.peek() else {
        return;
    };
    match first {
        '[' => {
            chars.next();
            // Parameter and intermediate bytes, then one final byte.
            while chars
                .next_if(|(_, c)| matches!(c, '\u{20}'..='\u{3f}'))
                .is_some()
            {}
            chars.next_if(|(_, c)| matches!(c, '\u{40}'..='\u{7e}'));
        }
        // OSC, DCS, SOS, PM, APC: a string up to its terminator.
        ']' | 'P' | 'X' | '^' | '_' => {
            chars.next();
            while let Some((_, c)) = chars.next_if(|(_, c)| *c != ESC && *c != '\n') {
                if c == BEL {
                    break;
                }
            }
            // ST (`ESC \`) ends it; another ESC starts a sequence of its own.
            let mut ahead = chars.clone();
            if ahead.next().map(|x| x.1) == Some(ESC) && ahead.next().map(|x| x.1) == Some('\\') {
                chars.next();
                chars.next();
            }
        }
        // `ESC ( B` and the like: intermediate bytes, then a final byte; `ESC c`, `ESC 7`.
        '\u{20}'..='\u{7e}' => {
            while chars
                .next_if(|(_, c)| matches!(c, '\u{20}'..='\u{2f}'))
                .is_some()
            {}
            chars.next_if(|(_, c)| matches!(c, '\u{30}'..='\u{7e}'));
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::{clean, has_hidden, one_line, views};

    #[test]
    fn escape_sequences_go_whole_and_control_characters_go() {
        assert_eq!(
            clean("red \u{1b}[31mtext\u{1b}[0m\u{7}\r\nnext\tcol"),
            "red text\nnext\tcol"
        );
        // A screen clear, a window title (ended by BEL, by ST), a raw byte, a charset switch.
        assert_eq!(
            clean(
                "\u{1b}[2J\u{1b}[1;31;4mA\u{1b}]0;title\u{7}B\u{1b}]2;t\u{1b}\\C\u{1}D\u{1b}(BE\u{1b}cF"
            ),
            "ABCDEF"
        );
        // An unended string sequence stops at the line's end or the next escape.
        assert_eq!(
            clean("x\u{1b}]0;title\nkept\u{1b}]8;;\u{1b}[1mbold"),
            "x\nkeptbold"
        );
        // 8-bit controls go; text, emoji and CJK stay; a lone ESC at the end goes.
        assert_eq!(clean("\u{9b}31m 日本 ✓ \u{1b}"), "31m 日本 ✓ ");
        // What shows as nothing stays on a terminal (an emoji's joiner); only views drop it.
        assert_eq!(clean("a\u{200d}b"), "a\u{200d}b");
        // Bidirectional overrides, embeddings and isolates go (attack 29, A11).
        assert_eq!(clean("x\u{202e}rtl\u{202a}y\u{2066}z\u{2069}"), "xrtlyz");
    }

    #[test]
    fn a_name_is_one_line() {
        assert_eq!(
            one_line("a\r\n::b\n::c\r::d\u{2028}e\u{2029}f\u{85}g\u{b}h\u{c}i\u{1b}[0m\u{1}\tj"),
            "a ::b ::c ::d e f g h i\tj"
        );
        // Nor a bidirectional control, which would make it read otherwise (an override, an
        // isolate, a mark); an emoji's joiner stays.
        assert_eq!(
            one_line("x\u{202e}cba\u{202c} \u{2066}y\u{2069}\u{200f}\u{61c} 👩\u{200d}💻"),
            "xcba y 👩\u{200d}💻"
        );
    }

    #[test]
    fn views_map_back_to_the_original() {
        let text = "k\u{1b}[0mé\u{1}\u{200b}ü\u{1b}Vx";
        assert!(has_hidden(text) && !has_hidden("plain é\n\t"));
        let [cleaned, controls] = <[_; 2]>::try_from(views(text)).ok().unwrap();
        // Escapes whole: the `V` of `ESC V` goes with it; each control alone: it stays.
        assert_eq!(cleaned.text, "kéüx");
        assert_eq!(controls.text, "k[0méüVx");
        // `éü` in the view is made of everything from `é` to `ü` in the original.
        let start = cleaned.text.find('é').unwrap();
        let (a, b) = cleaned.original(start, start + "éü".len());
        assert_eq!(&text[a..b], "é\u{1}\u{200b}ü");
        assert_eq!(
            controls.original_at(controls.text.len(), text.len()),
            text.len()
        );
    }

    #[test]
    fn the_view_of_wrapped_base64_maps_back_across_its_breaks() {
        let line = "QUJDREVGR0hJSktMTU5PUFFS";
        // A JSON string's `\n` (a `\r` is a control character: other views take it out).
        let text = format!("é {line}\n  {line}\\n{line}");
        assert!(has_hidden(&text) && !has_hidden(&format!("{line}\n")));
        let [joined] = <[_; 1]>::try_from(views(&text)).ok().unwrap();
        assert_eq!(joined.text, format!("é {line}{line}{line}"));
        // The last two characters of the first line and the first two of the second are the
        // characters of the original from them, the line break and indentation between too.
        let at = "é ".len() + line.len() - 2;
        let (a, b) = joined.original(at, at + 4);
        assert_eq!(&text[a..b], "FS\n  QU");
        let third = joined.text.len() - line.len();
        assert_eq!(&text[joined.original_at(third, text.len())..], line);
        assert_eq!(
            joined.original_at(joined.text.len(), text.len()),
            text.len()
        );
    }
}
