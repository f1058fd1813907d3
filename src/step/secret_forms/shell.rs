//! A secret as shells and quoting programs write it: what `set -x`, `printf %q`, `${x@Q}`,
//! `declare -p` and Python's `shlex.quote` print (bash's `$'...'` too), quotes doubled (YAML's
//! and SQL's single quotes, CSV's double quotes), and `\'` and `\\` as Python's `repr`, Perl's
//! `Data::Dumper` and PHP's `var_export` write them. Each form is listed only where it differs from the secret: a
//! secret of letters, digits and `-` adds none.

/// The characters bash's `printf %q` (and `sh_backslash_quote`) puts a backslash before
/// anywhere in a word; `#` and `~` only at its start.
const PRINTF_Q: &str = " \t!\"$&'()*,;<>?[\\]^`{|}";

/// The characters a backslash goes before inside double quotes (`declare -p`, `export -p`).
const DOUBLE_QUOTED: &str = "\"\\$`";

/// `v` with a backslash before each character of `set`.
fn backslashed(v: &str, set: &str) -> String {
    let mut out = String::with_capacity(v.len() * 2);
    for c in v.chars() {
        if set.contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The forms of `v` that quoting writes, each unlike `v`:
/// - `'` closed, escaped and opened again: `'\''` (bash's `set -x`, `${x@Q}`, `set`), and
///   `'"'"'` (Python's `shlex.quote`);
/// - a backslash before each special character: `printf %q` (also before a `#` or `~` that
///   begins the word: both ways, as the secret may begin it or not), and inside double quotes
///   (`\"`, `\\`, `` \` ``, `\$`: `declare -p`);
/// - quotes doubled: `''` (YAML and SQL single-quoted strings), `""` (CSV, SQL identifiers);
/// - a backslash before `\` and `'` only (Perl's `Data::Dumper`, PHP's `var_export`, MySQL),
///   and as Python's `repr` writes it ([`python_repr`]);
/// - inside bash's `$'...'` ([`ansi_c`]), in the C locale and in a UTF-8 one.
pub(super) fn shell_forms(v: &str) -> Vec<String> {
    let mut out = Vec::new();
    if v.contains('\'') {
        out.push(v.replace('\'', r"'\''"));
        out.push(v.replace('\'', r#"'"'"'"#));
        out.push(v.replace('\'', "''"));
    }
    if v.contains('"') {
        out.push(v.replace('"', "\"\""));
    }
    let printf = backslashed(v, PRINTF_Q);
    if v.starts_with(['#', '~']) {
        out.push(format!("\\{printf}"));
    }
    out.push(printf);
    out.push(backslashed(v, DOUBLE_QUOTED));
    out.push(backslashed(v, "\\'"));
    out.push(python_repr(v));
    out.push(ansi_c(v, true));
    out.push(ansi_c(v, false));
    out.retain(|f| f != v);
    out
}

/// `v` inside bash's `$'...'` (without the quotes), as `printf %q`, `${x@Q}` and `set -x` write
/// a word with a character that is not printable: `\\` and `\'`, `\E` (escape), `\a \b \t \n
/// \v \f \r`, another control character as three octal digits (`\001`, `\177`). Bash takes a
/// byte above 127 for not printable in the C or POSIX locale (LANG unset: most CI containers),
/// and writes each as octal (`é` as `\303\251`) when `octal` is set; in a UTF-8 locale it keeps
/// it as is.
pub(super) fn ansi_c(v: &str, octal: bool) -> String {
    let mut out = String::with_capacity(v.len() * 2);
    for c in v.chars() {
        let named = match c {
            '\\' => Some('\\'),
            '\'' => Some('\''),
            '\u{1b}' => Some('E'),
            '\u{7}' => Some('a'),
            '\u{8}' => Some('b'),
            '\t' => Some('t'),
            '\n' => Some('n'),
            '\u{b}' => Some('v'),
            '\u{c}' => Some('f'),
            '\r' => Some('r'),
            _ => None,
        };
        if let Some(n) = named {
            out.push('\\');
            out.push(n);
        } else if c.is_ascii_control() || (octal && !c.is_ascii()) {
            let mut bytes = [0u8; 4];
            for b in c.encode_utf8(&mut bytes).bytes() {
                out.push_str(&format!("\\{b:03o}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// `v` as Python's `repr` writes it (without the quotes): `\\`; `\'` when `v` holds both
/// quotes (else `repr` quotes with the one `v` lacks); `\t \n \r`; another character Python
/// takes for not printable as `\x1b`, `\xa0`, `\u2028` or `\U000e0001`. Not printable here:
/// control characters, separators but the space, and the common format characters (soft
/// hyphen, zero-width and direction marks, BOM); other format, private and unassigned
/// characters are kept, where Python escapes them.
pub(super) fn python_repr(v: &str) -> String {
    let quote = v.contains('\'') && v.contains('"');
    let mut out = String::with_capacity(v.len() * 2);
    for c in v.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' if quote => out.push_str("\\'"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if python_printable(c) => out.push(c),
            c if u32::from(c) < 0x100 => out.push_str(&format!("\\x{:02x}", u32::from(c))),
            c if u32::from(c) < 0x1_0000 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push_str(&format!("\\U{:08x}", u32::from(c))),
        }
    }
    out
}

/// Whether Python's `str.isprintable` holds for `c`, as far as [`python_repr`] says.
fn python_printable(c: char) -> bool {
    let format = matches!(c,
        '\u{ad}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}' | '\u{feff}');
    c == ' ' || !(c.is_control() || c.is_whitespace() || format)
}
