//! Base64 as it is wrapped: GNU `base64` and Python's `base64.encodebytes` break a line every 76
//! characters, MIME too (with `\r\n`), `openssl base64` and PEM every 64, `base64 -w N` every N;
//! YAML and other files indent the lines of such a block, and a quoted block (`> `), docker
//! compose's logs (`app-1  | `) or a logger (a timestamp) put a prefix on each. A secret's
//! base64 (or the part of a longer text's base64 its bytes decide: [`super::base64_inside`]) is
//! then cut by a line break wherever the column falls. Rather than a pattern for each place a
//! break can fall, the masker looks for every form in a view of the text without those breaks
//! and prefixes ([`wraps`], used by `super::super::shown::views`), and masks the whole range a
//! match was made of.

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

/// The longest prefix (in bytes) each line of a wrapped block may start with, shared with the
/// line before: a quoted block's `> `, docker compose's `app-1  | `, a timestamp.
const PREFIX_MAX: usize = 40;

/// The length of the line break `rest` starts with: `\r\n`, `\n`; either as a JSON string
/// writes it (`\n` of two characters: wrapped base64 inside a JSON text a command printed), as
/// a JSON string inside one writes that (`\\n`, and so on: any run of backslashes); a shell's
/// line continuation (`\` at a line's end, or ` \`); or ` | `, as runner's messages join a
/// command's last lines (`stderr: … | …`).
fn line_break(rest: &[u8]) -> Option<usize> {
    if let Some(b) = [&b"\r\n"[..], b"\n", b" | "]
        .into_iter()
        .find(|b| rest.starts_with(b))
    {
        return Some(b.len());
    }
    if let Some(after) = rest.strip_prefix(b" \\")
        && matches!(after.first(), Some(b'\r' | b'\n'))
    {
        return line_break(after).map(|len| len + 2);
    }
    let slashes = rest.iter().take_while(|&&b| b == b'\\').count();
    let after = &rest[slashes..];
    match after.first() {
        _ if slashes == 0 => None,
        Some(b'n') => Some(slashes + 1),
        Some(b'r')
            if after[1..].starts_with(&rest[..slashes])
                && after.get(1 + slashes) == Some(&b'n') =>
        {
            Some(2 * slashes + 2)
        }
        // A line continuation: one backslash, then a line break as written.
        Some(b'\r' | b'\n') if slashes == 1 => line_break(after).map(|len| len + 1),
        _ => None,
    }
}

/// The byte ranges of `text` a wrap put in a base64 text: each line break after a run of at
/// least `WRAP_MIN` base64 characters and before another one, with the spaces and tabs that
/// indent the next line, or the prefix it shares with the line before ([`shared_prefix`]).
/// Sorted, apart, at char boundaries (each starts at an ASCII line break and ends before an
/// ASCII base64 character).
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
            && let Some(end) = wrap_end(bytes, i, run)
        {
            if !found((i, end)) {
                return;
            }
            run = 0;
            i = end;
            continue;
        }
        run = if BASE64[usize::from(b)] { run + 1 } else { 0 };
        i += 1;
    }
}

/// Where the wrap that starts at `at`, after a run of `run` base64 characters, ends: past a
/// line break and what starts the next line ([`next_line`]), or past a single space that base64
/// follows, as the shell joins the lines of a word it splits (`echo Basic $B`).
fn wrap_end(bytes: &[u8], at: usize, run: usize) -> Option<usize> {
    if let Some(len) = line_break(&bytes[at..]) {
        return next_line(bytes, at - run, at + len);
    }
    (bytes[at] == b' ' && bytes.get(at + 1).is_some_and(|b| BASE64[usize::from(*b)]))
        .then_some(at + 1)
}

/// Where the base64 of the line that starts at `after` (past a line break) starts, if it goes on
/// the run that starts at `run` (on the line before): past a prefix the run's line shares
/// ([`shared_prefix`]; it may start with base64, `app-1  | `), else past the spaces and tabs
/// that indent it.
fn next_line(bytes: &[u8], run: usize, after: usize) -> Option<usize> {
    if let Some(len) = shared_prefix(&bytes[..run], &bytes[after..]) {
        return Some(after + len);
    }
    let mut end = after;
    while matches!(bytes.get(end), Some(b' ' | b'\t')) {
        end += 1;
    }
    bytes
        .get(end)
        .is_some_and(|b| BASE64[usize::from(*b)])
        .then_some(end)
}

/// The length of the prefix `next` (a line) starts with before its base64, if `before` (the
/// line before, up to its run of base64) ends with it: the same bytes but runs of digits, which
/// may differ, in their count too (a timestamp, a counter, a line number: `[9] `, `[10] `). At
/// most `PREFIX_MAX` bytes, with no line break in it. The run before starts after a byte that
/// is no base64 (`last`): the prefix ends with it too.
fn shared_prefix(before: &[u8], next: &[u8]) -> Option<usize> {
    let &last = before.last()?;
    let most = next.len().min(PREFIX_MAX + 1);
    // One pass, at about the cost of reading the prefix: a byte equal to `last` is looked at
    // closer only when base64 follows it.
    let mut len = 1;
    while len < most {
        let b = next[len - 1];
        if b == b'\r' || b == b'\n' {
            return None;
        }
        if b == last && BASE64[usize::from(next[len])] && ends_alike(before, &next[..len]) {
            return Some(len);
        }
        len += 1;
    }
    None
}

/// Whether `before` ends with `prefix`, but for runs of digits, which may differ in their
/// digits and their count (read from the end: each run of `prefix` stands for a whole run of
/// `before`).
fn ends_alike(before: &[u8], prefix: &[u8]) -> bool {
    let (mut i, mut j) = (before.len(), prefix.len());
    while j > 0 {
        let p = prefix[j - 1];
        if i == 0 || p.is_ascii_digit() != before[i - 1].is_ascii_digit() {
            return false;
        }
        if p.is_ascii_digit() {
            while j > 0 && prefix[j - 1].is_ascii_digit() {
                j -= 1;
            }
            while i > 0 && before[i - 1].is_ascii_digit() {
                i -= 1;
            }
        } else if before[i - 1] == p {
            (i, j) = (i - 1, j - 1);
        } else {
            return false;
        }
    }
    true
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

    /// A JSON string inside a JSON string writes a line break `\\n` (`\\\\n` once more); a shell
    /// line continuation ends a line with `\`.
    #[test]
    fn escaped_line_breaks_of_any_depth_are_wraps() {
        let line = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldY";
        let text = format!(
            r"{line}\\n{line}\\r\\n{line}\\\\n{line}\
{line}"
        );
        let cut: Vec<&str> = wraps(&text).iter().map(|&(a, b)| &text[a..b]).collect();
        assert_eq!(cut, [r"\\n", r"\\r\\n", r"\\\\n", "\\\n"]);
        // A backslash and another character is no break.
        assert!(wraps(&format!(r"{line}\t{line}\\x{line}")).is_empty());
    }

    /// Each line of a block may start with a prefix the line before shares: a quoted block's `> `,
    /// docker compose's `app-1  | `, a timestamp (its digits may differ), a box's `│ `, also after
    /// runner's ` | `.
    #[test]
    fn a_prefix_the_line_before_shares_is_looked_through() {
        let line = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldY";
        for (text, cut) in [
            (
                format!("> {line}\n> {line}\n> {line}"),
                vec!["\n> ", "\n> "],
            ),
            (format!("> > {line}\r\n> > {line}"), vec!["\r\n> > "]),
            (
                format!("x\napp-1  | {line}\napp-1  | {line}"),
                vec!["\napp-1  | "],
            ),
            (
                format!("2026-11-28T10:00:09Z {line}\n2026-11-28T10:00:10Z {line}"),
                vec!["\n2026-11-28T10:00:10Z "],
            ),
            (format!("stderr: > {line} | > {line}"), vec![" | > "]),
            (format!("│ {line}\n│ {line}"), vec!["\n│ "]),
            (format!(r#""> {line}\\n> {line}"#), vec![r"\\n> "]),
        ] {
            let got: Vec<&str> = wraps(&text).iter().map(|&(a, b)| &text[a..b]).collect();
            assert_eq!(got, cut, "{text}");
        }
        // A prefix the line before does not have, or with a line break in it, is none (a line
        // that starts with base64 is a wrap without one).
        for text in [
            format!("> {line}\n< {line}"),
            format!("- {line}\n* {line}"),
            format!("[app-1] | {line}\n[app-1] : {line}"),
            format!("> {line}\n\n> {line}"),
            format!("{}{line}\n{}{line}", "#".repeat(60), "#".repeat(60)),
        ] {
            assert!(wraps(&text).is_empty(), "{text}");
        }
    }

    /// The shell joins the lines of `base64` with a space (`echo Basic $B`: word splitting), a
    /// line may end with ` \` before its break, and a line number may grow a digit (`[9] ` then
    /// `[10] `): each is a wrap (thirteenth attack, B2).
    #[test]
    fn spaces_continuations_and_numbers_of_any_width_are_wraps() {
        let line = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldY";
        for (text, cut) in [
            (format!("Basic {line} {line} TQ=="), vec![" ", " "]),
            (format!("auth={line} {line}"), vec![" "]),
            (
                format!("{line} \\\n{line} \\\r\n  {line}"),
                vec![" \\\n", " \\\r\n  "],
            ),
            (
                format!("[9] {line}\n[10] {line}\n[11] {line}"),
                vec!["\n[10] ", "\n[11] "],
            ),
            (format!("[9] {line}\n[10] {line}"), vec!["\n[10] "]),
            (format!("x\n99: {line}\r\n100: {line}"), vec!["\r\n100: "]),
        ] {
            let got: Vec<&str> = wraps(&text).iter().map(|&(a, b)| &text[a..b]).collect();
            assert_eq!(got, cut, "{text}");
        }
        // A space after a short word, two spaces, a space before no base64; a number that is
        // the same but for what is around it.
        for text in [
            format!("a b {line}"),
            format!("{line}  {line}"),
            format!("{line} : {line}"),
            format!("[9] {line}\n(10) {line}"),
            format!("[9] {line}\n[1a] {line}"),
        ] {
            assert!(wraps(&text).is_empty(), "{text}");
        }
    }
}
