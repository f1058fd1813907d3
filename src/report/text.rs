//! Text from outside runner (pages, commands, agents, names in files) made safe to show: on a
//! terminal, in GitHub annotations, in the job summary.

use std::iter::Peekable;
use std::str::Chars;

const ESC: char = '\u{1b}';
const BEL: char = '\u{7}';

/// `text` without terminal escape sequences and control characters (line breaks and tabs
/// stay): an escape sequence in a page's text or a command's output must not recolour, move or
/// clear the terminal it is printed on, set its title, or reach an annotation. A sequence goes
/// whole: CSI (`ESC [` … a final byte), OSC and the other string sequences (`ESC ]` … BEL or
/// `ESC \`, ended too by a line break or the next escape, as a terminal drops them), and
/// two-byte escapes; 8-bit C1 controls go as the control characters they are.
pub(crate) fn clean(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == ESC {
            skip_escape(&mut chars);
        } else if !c.is_control() || c == '\n' || c == '\t' {
            out.push(c);
        }
    }
    out
}

/// Skips what follows an ESC, up to the end of its sequence.
fn skip_escape(chars: &mut Peekable<Chars<'_>>) {
    let Some(&first) = chars.peek() else { return };
    match first {
        '[' => {
            chars.next();
            // Parameter and intermediate bytes, then one final byte.
            while chars
                .next_if(|c| matches!(c, '\u{20}'..='\u{3f}'))
                .is_some()
            {}
            chars.next_if(|c| matches!(c, '\u{40}'..='\u{7e}'));
        }
        // OSC, DCS, SOS, PM, APC: a string up to its terminator.
        ']' | 'P' | 'X' | '^' | '_' => {
            chars.next();
            while let Some(c) = chars.next_if(|c| *c != ESC && *c != '\n') {
                if c == BEL {
                    break;
                }
            }
            // ST (`ESC \`) ends it; another ESC starts a sequence of its own.
            let mut ahead = chars.clone();
            if ahead.next() == Some(ESC) && ahead.next() == Some('\\') {
                chars.next();
                chars.next();
            }
        }
        // `ESC ( B` and the like: intermediate bytes, then a final byte; `ESC c`, `ESC 7`.
        '\u{20}'..='\u{7e}' => {
            while chars
                .next_if(|c| matches!(c, '\u{20}'..='\u{2f}'))
                .is_some()
            {}
            chars.next_if(|c| matches!(c, '\u{30}'..='\u{7e}'));
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::clean;

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
    }
}
