//! A secret as shells and quoting programs write it: what `set -x`, `printf %q`, `${x@Q}`,
//! `declare -p` and Python's `shlex.quote` print, and quotes doubled (YAML's and SQL's single
//! quotes, CSV's double quotes). Each form is listed only where it differs from the secret: a
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
/// - quotes doubled: `''` (YAML and SQL single-quoted strings), `""` (CSV, SQL identifiers).
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
    out.retain(|f| f != v);
    out
}
