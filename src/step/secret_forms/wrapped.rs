//! Base64 as it is wrapped: GNU `base64` and Python's `base64.encodebytes` break a line every 76
//! characters, MIME too (with `\r\n`), `openssl base64` and PEM every 64, `base64 -w N` every N;
//! YAML and other files indent the lines of such a block. A secret's base64 (or the part of a
//! longer text's base64 its bytes decide: [`super::base64_inside`]) is then cut by a line break
//! wherever the column falls. Rather than a pattern for each place a break can fall, the masker
//! looks for every form in a view of the text without those breaks ([`wraps`], used by
//! `super::super::shown::views`), and masks the whole range a match was made of.

/// The fewest base64 characters before a line break for it to be taken as a wrap: every line
/// of wrapped base64 but its last is as long as the wrap's width (64 or 76; a few tools go down
/// to 60), and a shorter run (a word at a line's end) is seldom one.
const WRAP_MIN: usize = 16;

/// Whether each byte is a character of standard or URL-safe base64, or its padding.
const BASE64: [bool; 256] = {
    let mut t = [false; 256];
    let mut c: u8 = 0;
    loop {
        t[c as usize] = c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=' | b'-' | b'_');
        if c == u8::MAX {
            break t;
        }
        c += 1;
    }
};

/// The length of the line break `rest` starts with: `\r\n`, `\n`, either as a JSON string
/// writes it (`\n` of two characters: wrapped base64 inside a JSON text a command printed), or
/// ` | `, as runner's messages join a command's last lines (`stderr: … | …`).
fn line_break(rest: &[u8]) -> Option<usize> {
    [&b"\r\n"[..], b"\n", b"\\r\\n", b"\\n", b" | "]
        .into_iter()
        .find(|b| rest.starts_with(b))
        .map(<[u8]>::len)
}

/// The byte ranges of `text` a wrap put in a base64 text: each line break after a run of at
/// least `WRAP_MIN` base64 characters and before another one, with the spaces and tabs that
/// indent the next line. Sorted, apart, at char boundaries (they are ASCII).
pub(crate) fn wraps(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    scan(text, |w| {
        out.push(w);
        true
    });
    out
}

/// Whether `text` has a [`wraps`] range (the first one found ends the search).
pub(crate) fn has_wraps(text: &str) -> bool {
    let mut found = false;
    scan(text, |_| {
        found = true;
        false
    });
    found
}

/// Calls `found` with each range [`wraps`] gives, while it returns true. A line break is
/// looked at closer only after a run long enough, at a byte one starts with: a long text is
/// scanned at about the speed of counting its runs.
fn scan(text: &str, mut found: impl FnMut((usize, usize)) -> bool) {
    let bytes = text.as_bytes();
    let mut run = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if run >= WRAP_MIN
            && matches!(b, b'\r' | b'\n' | b'\\' | b' ')
            && let Some(len) = line_break(&bytes[i..])
        {
            let mut end = i + len;
            while matches!(bytes.get(end), Some(b' ' | b'\t')) {
                end += 1;
            }
            if bytes.get(end).is_some_and(|b| BASE64[usize::from(*b)]) {
                if !found((i, end)) {
                    return;
                }
                run = 0;
                i = end;
                continue;
            }
        }
        run = if BASE64[usize::from(b)] { run + 1 } else { 0 };
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::wraps;

    #[test]
    fn line_breaks_inside_a_base64_run_are_wraps() {
        let line = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldY";
        let text =
            format!("{line}\n{line}\r\n    {line}\\n{line} | {line}\n\nshort\nword {line}\nend");
        let cut: Vec<&str> = wraps(&text).iter().map(|&(a, b)| &text[a..b]).collect();
        // The last break follows a run but ends a block (an empty line next); `short` is no run;
        // `end` follows a run.
        assert_eq!(cut, ["\n", "\r\n    ", "\\n", " | ", "\n"]);
        assert!(wraps("a line\nanother line\n").is_empty());
        assert!(wraps(&format!("{line}\n")).is_empty());
    }
}
