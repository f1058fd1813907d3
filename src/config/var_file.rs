//! Var files (`--var-file FILE`): `KEY=VALUE` lines (`.env`, dotenv's `.env.local`, a name
//! without an extension), or a mapping of names to values in YAML, TOML or JSON, told apart by
//! the name. Read as every input is (a regular file of at most 10 MB, UTF-8, a leading BOM
//! dropped, no NUL, not UTF-16), and each problem said at its line and column with what a var
//! file takes, never with a flow's help. A var's name is a flow var's (`[A-Za-z_][A-Za-z0-9_]*`:
//! never empty, never two lines), given once in a `.env`; its value is used as written, so a
//! template in it is refused, as runner.toml's `[vars]` refuse one.

use std::ops::Range;
use std::path::Path;

use serde_json::{Map, Value};

use super::document::{self, Format};
use crate::source::{Diagnostic, SourceFile, SpanMap, pointer_push};

/// What a var file is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Env,
    Json,
    Document(Format),
}

impl Kind {
    fn of(path: &Path) -> Option<Kind> {
        let name = path.file_name()?.to_str()?;
        let ext = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        match ext.as_deref() {
            Some("yaml" | "yml") => Some(Kind::Document(Format::Yaml)),
            Some("toml") => Some(Kind::Document(Format::Toml)),
            Some("json") => Some(Kind::Json),
            Some("env") | None => Some(Kind::Env),
            Some(_) if name.starts_with(".env.") => Some(Kind::Env),
            Some(_) => None,
        }
    }
}

/// Whether `path` is named as a `.env` file: `.env`, `NAME.env`, `.env.NAME` (a name without an
/// extension is read as one by `--var-file`, but is no file `validate` can tell apart).
pub(crate) fn is_env_file(path: &Path) -> bool {
    let ext = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("env"));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase());
    ext || name.is_some_and(|n| n == ".env" || n.starts_with(".env."))
}

/// The vars of the file at `path`.
pub(crate) fn read(path: &Path) -> Result<Map<String, Value>, Vec<Diagnostic>> {
    let kind = Kind::of(path).ok_or_else(|| {
        vec![
            Diagnostic::file_error(
                path.display().to_string(),
                "a var file is .env (KEY=VALUE lines), .yaml, .yml, .toml or .json: the name says which",
            )
            .with_help("rename the file to end in the extension of its format"),
        ]
    })?;
    let file = document::decode(path, document::read_bytes(path)?)?;
    match kind {
        Kind::Env => env(&file),
        Kind::Json => {
            json_syntax(&file)?;
            // JSON is YAML: the YAML reader gives the spans.
            mapping(&file, document::load(&file, Format::Yaml)?)
        }
        Kind::Document(format) => mapping(&file, document::load(&file, format)?),
    }
}

/// Whether `name` is a var's name, as a flow's `vars:` takes them.
pub(crate) fn is_var_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The problem with a var's name, when it is not one (empty, two lines, `a-b`).
pub(crate) fn name_problem(name: &str) -> Option<String> {
    (!is_var_name(name)).then(|| format!("the var name `{}` is not a name", name.escape_debug()))
}

/// The help that goes with [`name_problem`].
pub(crate) const NAME_HELP: &str =
    "a var's name is letters, digits and `_`, not starting with a digit (as in a flow's `vars:`)";

/// The help that goes with a template refused in a var's value.
pub(crate) const TEMPLATE_HELP: &str =
    "write the value itself; a var built with a template belongs in a flow's `vars:`";

/// The refusal of a template in a var file's value (`var`'s).
fn template_refused(file: &SourceFile, at: Range<usize>, var: &str) -> Diagnostic {
    Diagnostic::error(
        file,
        at,
        format!("the value of `{var}` is used as written: a var file takes no templates"),
    )
    .with_help(TEMPLATE_HELP)
}

/// `KEY=VALUE` lines, read as python-dotenv and Docker Compose read them: `#` comments, blank
/// lines and an `export ` prefix are skipped; a value is unquoted (up to a `#` after a space or
/// a tab, which starts a comment, and trimmed), in single quotes (as written) or in double quotes
/// (`\\`, `\"`, `\n` and the other escapes read), with only a comment after its closing quote.
/// A name is given once (a second is refused with both lines: which one wins is not something
/// to guess).
fn env(file: &SourceFile) -> Result<Map<String, Value>, Vec<Diagnostic>> {
    let mut out = Map::new();
    let mut lines: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut errors = Vec::new();
    let mut start = 0;
    for raw in file.text().split_inclusive('\n') {
        let span = start..start + raw.trim_end().len();
        let line_start = start;
        start += raw.len();
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let line = line.strip_prefix("export ").unwrap_or(line);
        let Some((k, _)) = line.split_once('=').filter(|(k, _)| !k.trim().is_empty()) else {
            errors.push(
                Diagnostic::error(file, span, "expected KEY=VALUE")
                    .with_help("a .env file holds one `NAME=value` a line"),
            );
            continue;
        };
        let k = k.trim();
        let line_no = file.line_col(line_start).0;
        if let Some(problem) = name_problem(k) {
            errors.push(Diagnostic::error(file, span, problem).with_help(NAME_HELP));
            continue;
        }
        if let Some(first) = lines.insert(k.to_string(), line_no) {
            errors.push(
                Diagnostic::error(
                    file,
                    span,
                    format!("`{k}` is given twice: on line {first} and on line {line_no}"),
                )
                .with_help("give each name once"),
            );
            continue;
        }
        // The value's place: after the `=` of the line.
        let at = raw.find('=').map_or(line_start, |i| line_start + i + 1);
        let after = raw[at - line_start..].trim_end_matches(['\n', '\r']);
        let v = match env_value(after) {
            Ok(v) => v,
            Err(p) => {
                errors.push(
                    Diagnostic::error(file, at + p.at..at + p.at + 1, p.message).with_help(p.help),
                );
                continue;
            }
        };
        match expanded(file, at..at + after.trim().len(), after, v, k, &out) {
            Ok(v) => {
                out.insert(k.to_string(), Value::String(v));
            }
            Err(d) => errors.push(*d),
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// The value `v` of the `.env` var `k` (written as `after`, at `here`) with its `${NAME}`s
/// expanded (not in single quotes) by the names above in the file (`earlier`) or the
/// environment; a template, written or brought in by an expansion, refused.
fn expanded(
    file: &SourceFile,
    here: Range<usize>,
    after: &str,
    v: String,
    k: &str,
    earlier: &Map<String, Value>,
) -> Result<String, Box<Diagnostic>> {
    if crate::template::is_template(&v) {
        return Err(Box::new(template_refused(file, here, k)));
    }
    // `${NAME}` is expanded as python-dotenv and Compose do, but not in single quotes.
    if after.trim_start().starts_with('\'') {
        return Ok(v);
    }
    let v = expand(&v, earlier, &|n| std::env::var(n).ok()).map_err(|message| {
        Box::new(Diagnostic::error(file, here.clone(), message).with_help(EXPAND_HELP))
    })?;
    // What a `${NAME}` brought in is data too: a template in it (an environment variable set
    // from a branch name or a pull request's title) is refused as one written here is.
    if crate::template::is_template(&v) {
        return Err(Box::new(Diagnostic::error(
            file,
            here,
            format!("the value of `{k}` is a template once its `${{…}}` are expanded: a var file takes no templates (nothing is used with `{{{{` in it)"),
        )
        .with_help("the value a `${NAME}` takes (from the file or the environment) must hold no `{{`, `{%` or `{#`; in single quotes ('${NAME}') it is kept as written")));
    }
    Ok(v)
}

/// The help that goes with a `${NAME}` that cannot be expanded.
const EXPAND_HELP: &str = "`${NAME}` is the value of a name given above in the file, or of the environment; `${NAME:-default}` gives a default; in single quotes ('${NAME}') it is kept as written";

/// `v` with each `${NAME}` and `${NAME:-default}` replaced, as python-dotenv reads them: by the
/// value of a name given earlier in the file (`earlier`), else of the environment (`env`), else
/// by the default. A name that has no value and no default is an error (dotenv would make it
/// empty without a word); so is a `${` that is not closed.
fn expand(
    v: &str,
    earlier: &Map<String, Value>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = v;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        let inside = &rest[i + 2..];
        let Some(end) = inside.find('}') else {
            return Err("`${` is not closed by a `}`".to_string());
        };
        let (name, default) = match inside[..end].split_once(":-") {
            Some((n, d)) => (n, Some(d)),
            None => (&inside[..end], None),
        };
        let value = earlier
            .get(name)
            .and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| env(name))
            .filter(|v| default.is_none() || !v.is_empty());
        match (value, default) {
            (Some(v), _) => out.push_str(&v),
            (None, Some(d)) => out.push_str(d),
            (None, None) => {
                return Err(format!(
                    "`${{{name}}}` has no value: no `{name}` above in the file nor in the environment"
                ));
            }
        }
        rest = &inside[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// What is wrong with a `.env` value, `at` a byte of it.
struct ValueProblem {
    at: usize,
    message: String,
    help: &'static str,
}

/// A `.env` value: what follows the `=` of its line (see [`env`]).
fn env_value(after: &str) -> Result<String, ValueProblem> {
    let lead = after.len() - after.trim_start().len();
    let v = &after[lead..];
    let Some(quote) = v.chars().next().filter(|c| *c == '"' || *c == '\'') else {
        // Unquoted: a `#` after whitespace starts a comment.
        let end = v
            .char_indices()
            .find(|&(i, c)| c == '#' && i > 0 && v[..i].ends_with([' ', '\t']))
            .map_or(v.len(), |(i, _)| i);
        return Ok(v[..end].trim_end().to_string());
    };
    let mut value = String::new();
    let mut chars = v.char_indices().skip(1);
    let mut closed = None;
    while let Some((i, c)) = chars.next() {
        if c == quote {
            closed = Some(i + 1);
            break;
        }
        if c == '\\' && quote == '"' {
            let Some((_, e)) = chars.next() else { break };
            match e {
                '\\' | '"' | '\'' => value.push(e),
                'n' => value.push('\n'),
                'r' => value.push('\r'),
                't' => value.push('\t'),
                'a' => value.push('\u{7}'),
                'b' => value.push('\u{8}'),
                'f' => value.push('\u{c}'),
                'v' => value.push('\u{b}'),
                other => {
                    value.push('\\');
                    value.push(other);
                }
            }
        } else {
            value.push(c);
        }
    }
    let Some(end) = closed else {
        return Err(ValueProblem {
            at: lead,
            message: format!(
                "the quote `{quote}` that starts this value is not closed on its line"
            ),
            help: "close it on the same line (a=\"a b\"); a value with one quote in it goes without quotes around it (a=it's) or in the other quotes",
        });
    };
    let rest = &v[end..];
    let trimmed = rest.trim_start();
    if !trimmed.is_empty() && !trimmed.starts_with('#') {
        return Err(ValueProblem {
            at: lead + end + (rest.len() - trimmed.len()),
            message: format!("text after the closing quote `{quote}` of this value"),
            help: "put all of the value inside the quotes; after them only a `# comment` may follow",
        });
    }
    Ok(value)
}

/// A JSON file's syntax, checked by a JSON parser (the YAML reader would take more).
fn json_syntax(file: &SourceFile) -> Result<(), Vec<Diagnostic>> {
    let Err(e) = serde_json::from_str::<serde::de::IgnoredAny>(file.text()) else {
        return Ok(());
    };
    let text = file.text();
    let line_start: usize = text
        .split_inclusive('\n')
        .take(e.line().saturating_sub(1))
        .map(str::len)
        .sum();
    let mut at = (line_start + e.column().saturating_sub(1)).min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let message = e.to_string();
    let message = message.split(" at line ").next().unwrap_or(&message);
    Err(vec![
        Diagnostic::error(file, at..at, format!("invalid JSON: {message}"))
            .with_help("a JSON var file holds one object: {\"name\": \"value\"}"),
    ])
}

/// The vars of a loaded YAML, TOML or JSON file: a mapping (nothing for a file of comments).
fn mapping(
    file: &SourceFile,
    (value, spans): (Value, SpanMap),
) -> Result<Map<String, Value>, Vec<Diagnostic>> {
    let map = match value {
        Value::Null => return Ok(Map::new()),
        Value::Object(m) => m,
        other => {
            let what = match other {
                Value::Array(_) => "a list",
                Value::String(_) => "a string",
                Value::Number(_) => "a number",
                _ => "a boolean",
            };
            return Err(vec![
                Diagnostic::error(
                    file,
                    span(&spans, ""),
                    format!("a var file holds a mapping of names to values, not {what}"),
                )
                .with_help("write one `name: value` a line (YAML), `name = \"value\"` (TOML) or {\"name\": \"value\"} (JSON)"),
            ]);
        }
    };
    let mut errors = Vec::new();
    for (name, v) in &map {
        let ptr = pointer_push("", name);
        if let Some(problem) = name_problem(name) {
            let at = spans.get(&ptr).and_then(|s| s.key.clone()).unwrap_or(0..0);
            errors.push(Diagnostic::error(file, at, problem).with_help(NAME_HELP));
            continue;
        }
        nul_free(file, &spans, name, &ptr, v, &mut errors);
        templates_refused(file, &spans, name, &ptr, v, &mut errors);
    }
    if errors.is_empty() {
        Ok(map)
    } else {
        Err(errors)
    }
}

/// A NUL character (`"\0"`, `"\u0000"`) in a var's value or a name: it would end the value
/// where runner passes it on (a command's argument, a field of the page).
fn nul_free(
    file: &SourceFile,
    spans: &SpanMap,
    var: &str,
    pointer: &str,
    v: &Value,
    errors: &mut Vec<Diagnostic>,
) {
    let help = "remove it: a NUL ends the text where runner passes it on (a command, the page)";
    match v {
        Value::String(s) if s.contains('\0') => errors.push(
            Diagnostic::error(
                file,
                span(spans, pointer),
                format!(
                    "the value of `{}` holds a NUL character",
                    var.replace('\0', "\\0")
                ),
            )
            .with_help(help),
        ),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                nul_free(
                    file,
                    spans,
                    var,
                    &pointer_push(pointer, &i.to_string()),
                    item,
                    errors,
                );
            }
        }
        Value::Object(m) => {
            for (k, item) in m {
                nul_free(file, spans, var, &pointer_push(pointer, k), item, errors);
            }
        }
        _ => {}
    }
    let key = pointer.rsplit('/').next().unwrap_or_default();
    if key.contains('\0') {
        let at = spans
            .get(pointer)
            .and_then(|s| s.key.clone())
            .unwrap_or(0..0);
        errors.push(Diagnostic::error(file, at, "a name holds a NUL character").with_help(help));
    }
}

/// Every template in the strings of `v` (var `var`'s value, at `pointer`), refused.
fn templates_refused(
    file: &SourceFile,
    spans: &SpanMap,
    var: &str,
    pointer: &str,
    v: &Value,
    errors: &mut Vec<Diagnostic>,
) {
    match v {
        Value::String(s) if crate::template::is_template(s) => {
            errors.push(template_refused(file, span(spans, pointer), var));
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let p = pointer_push(pointer, &i.to_string());
                templates_refused(file, spans, var, &p, item, errors);
            }
        }
        Value::Object(m) => {
            for (k, item) in m {
                templates_refused(file, spans, var, &pointer_push(pointer, k), item, errors);
            }
        }
        _ => {}
    }
}

fn span(spans: &SpanMap, pointer: &str) -> Range<usize> {
    spans.get(pointer).map_or(0..0, |s| s.value.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_name_says_the_format() {
        let k = |n: &str| Kind::of(Path::new(n));
        assert_eq!(k(".env"), Some(Kind::Env));
        assert_eq!(k("ci.env"), Some(Kind::Env));
        assert_eq!(k(".env.production"), Some(Kind::Env));
        assert_eq!(k("vars"), Some(Kind::Env));
        assert_eq!(k("v.JSON"), Some(Kind::Json));
        assert_eq!(k("v.yml"), Some(Kind::Document(Format::Yaml)));
        assert_eq!(k("v.toml"), Some(Kind::Document(Format::Toml)));
        assert_eq!(k("v.txt"), None);
    }

    #[test]
    fn env_lines_and_their_mistakes() {
        let f = SourceFile::new(
            Path::new("v.env"),
            "# c\nexport A=\"x y\"\n\nB='z'\nnope\n=1\n".into(),
        );
        let errs = env(&f).unwrap_err();
        let at: Vec<_> = errs.iter().map(Diagnostic::line_col).collect();
        assert_eq!(at, [Some((5, 1)), Some((6, 1))]);
        let f = SourceFile::new(Path::new("v.env"), "export A=\"x y\"\nB='z'\n".into());
        let vars = env(&f).unwrap();
        assert_eq!(vars["A"], "x y");
        assert_eq!(vars["B"], "z");
    }

    #[test]
    fn env_values_are_read_as_dotenv_reads_them() {
        for (after, want) in [
            ("1 # c", "1"),
            ("1\t#c", "1"),
            ("b#c", "b#c"),
            (" #c", "#c"),
            ("\"a # b\" # c", "a # b"),
            ("'a\\n # b'", "a\\n # b"),
            ("\"a\\\"b\\\\c\\nd\\qe\"", "a\"b\\c\nd\\qe"),
            ("\"it's\"", "it's"),
            ("it's", "it's"),
            ("  x y  ", "x y"),
            ("\"\"", ""),
        ] {
            assert_eq!(env_value(after).ok().as_deref(), Some(want), "{after}");
        }
        for (after, at) in [
            ("\"abc", 0),
            ("  'abc", 2),
            ("\"a\\\"", 0),
            ("\"a\" b", 4),
            ("'a'b", 3),
        ] {
            assert_eq!(env_value(after).err().map(|p| p.at), Some(at), "{after}");
        }
    }

    #[test]
    fn dollar_braces_are_expanded_as_dotenv_expands_them() {
        let home = |n: &str| (n == "HOME").then(|| "/home/u".to_string());
        let mut earlier = Map::new();
        earlier.insert("A".into(), Value::String("a".into()));
        for (v, want) in [
            ("${HOME}/x", "/home/u/x"),
            ("${A}-${HOME}", "a-/home/u"),
            ("${NOPE:-d}", "d"),
            ("$HOME", "$HOME"),
            ("no", "no"),
        ] {
            assert_eq!(expand(v, &earlier, &home).as_deref(), Ok(want), "{v}");
        }
        assert!(expand("${NOPE}", &earlier, &home).is_err());
        assert!(expand("${HOME", &earlier, &home).is_err());
        let f = SourceFile::new(
            Path::new("v.env"),
            "A='${HOME}'\nB=\"${A}/b\"\nC=${B}c\n".into(),
        );
        let vars = env(&f).unwrap();
        assert_eq!(vars["A"], "${HOME}");
        assert_eq!(vars["B"], "${HOME}/b");
        assert_eq!(vars["C"], "${HOME}/bc");
    }

    #[test]
    fn escaped_nul_characters_are_refused_where_they_are() {
        let f = SourceFile::new(
            Path::new("v.json"),
            "{\"a\": [\"ok\", \"x\\u0000\"]}".into(),
        );
        let loaded = document::load(&f, Format::Yaml).unwrap();
        let errs = mapping(&f, loaded).unwrap_err();
        assert_eq!(errs[0].message, "the value of `a` holds a NUL character");
        assert_eq!(errs[0].line_col(), Some((1, 14)));
    }
}
