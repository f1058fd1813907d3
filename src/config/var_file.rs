//! Var files (`--var-file FILE`): `KEY=VALUE` lines (`.env`, dotenv's `.env.local`, a name
//! without an extension), or a mapping of names to values in YAML, TOML or JSON, told apart by
//! the name. Read as every input is (a regular file of at most 10 MB, UTF-8, a leading BOM
//! dropped, no NUL), and each problem said at its line and column with what a var file takes,
//! never with a flow's help.

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

/// `KEY=VALUE` lines; `#` comments, blank lines and an `export ` prefix are skipped, and one
/// pair of quotes around a value is dropped.
fn env(file: &SourceFile) -> Result<Map<String, Value>, Vec<Diagnostic>> {
    let mut out = Map::new();
    let mut errors = Vec::new();
    let mut start = 0;
    for raw in file.text().split_inclusive('\n') {
        let span = start..start + raw.trim_end().len();
        start += raw.len();
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let line = line.strip_prefix("export ").unwrap_or(line);
        match line.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => {
                let v = v.trim();
                let v = v
                    .strip_prefix('"')
                    .and_then(|x| x.strip_suffix('"'))
                    .or_else(|| v.strip_prefix('\'').and_then(|x| x.strip_suffix('\'')))
                    .unwrap_or(v);
                out.insert(k.trim().to_string(), Value::String(v.to_string()));
            }
            _ => errors.push(
                Diagnostic::error(file, span, "expected KEY=VALUE")
                    .with_help("a .env file holds one `NAME=value` a line"),
            ),
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
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
        nul_free(file, &spans, name, &pointer_push("", name), v, &mut errors);
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
