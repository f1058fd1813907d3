//! Reading a config file from disk into `Value` + span map, whatever its format.

use std::path::Path;

use serde_json::Value;

use crate::source::{Diagnostic, SourceFile, SpanMap};

/// Largest config file accepted.
pub(crate) const MAX_FILE_SIZE: u64 = 10 * 1024 * 1024;

/// A parsed config document.
#[derive(Debug, Clone)]
pub(crate) struct Document {
    pub(crate) file: SourceFile,
    pub(crate) value: Value,
    pub(crate) spans: SpanMap,
}

/// The formats a config file can be in, by extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    Yaml,
    Toml,
}

impl Format {
    /// `.yaml`/`.yml` or `.toml`.
    pub(crate) fn of(path: &Path) -> Option<Format> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "yaml" | "yml" => Some(Format::Yaml),
            "toml" => Some(Format::Toml),
            _ => None,
        }
    }
}

/// Reads and parses a file.
pub(crate) fn read(path: &Path) -> Result<Document, Vec<Diagnostic>> {
    let format = Format::of(path).ok_or_else(|| {
        vec![
            Diagnostic::file_error(
                path.display().to_string(),
                "not a flow file: the name must end in .yaml, .yml or .toml",
            )
            .with_help("rename the file, or point runner at the right one"),
        ]
    })?;
    parse_bytes(path, read_bytes(path)?, format)
}

/// The bytes of a file runner reads as input: a regular file, of at most [`MAX_FILE_SIZE`]
/// (the size it reports is checked first, the bytes read by [`crate::fs::read_regular`]).
pub(crate) fn read_bytes(path: &Path) -> Result<Vec<u8>, Vec<Diagnostic>> {
    let name = path.display().to_string();
    let cannot = |e: &std::io::Error| {
        vec![Diagnostic::file_error(
            &name,
            format!("cannot read the file: {}", io_reason(e)),
        )]
    };
    let meta = std::fs::metadata(path).map_err(|e| cannot(&e))?;
    if meta.is_file() && meta.len() > MAX_FILE_SIZE {
        return Err(vec![Diagnostic::file_error(
            &name,
            format!(
                "the file is {} bytes; config files may be at most 10 MB",
                meta.len()
            ),
        )]);
    }
    crate::fs::read_regular(path, MAX_FILE_SIZE).map_err(|e| cannot(&e))
}

/// Parses file contents already in memory into a map of keys: a flow, a suite, a profile or
/// the project file.
pub(crate) fn parse_bytes(
    path: &Path,
    bytes: Vec<u8>,
    format: Format,
) -> Result<Document, Vec<Diagnostic>> {
    let file = decode(path, bytes)?;
    if file.text().trim().is_empty() {
        return Err(vec![
            Diagnostic::error(&file, 0..0, "the file is empty")
                .with_help("a flow needs at least `name` and `steps`"),
        ]);
    }
    let (value, spans) = load(&file, format)?;
    if value.is_null() || value.as_object().is_some_and(serde_json::Map::is_empty) {
        let help = match format {
            Format::Yaml => "a flow needs at least `name:` and `steps:`",
            Format::Toml => "a flow needs at least `name` and `[[steps]]`",
        };
        return Err(vec![
            Diagnostic::error(&file, 0..0, "the file is empty").with_help(help),
        ]);
    }
    if !value.is_object() {
        let span = spans.get("").map_or(0..0, |s| s.value.clone());
        return Err(vec![
            Diagnostic::error(
                &file,
                span,
                "the file must hold a map of keys (`name:`, `steps:`, ...)",
            )
            .with_help("start with `name: my flow` and a `steps:` list"),
        ]);
    }
    Ok(Document { file, value, spans })
}

/// The value of a text in `format`, any value (null for a YAML file of comments, an empty map
/// for an empty TOML file): what it must hold is the caller's to say.
pub(crate) fn load(file: &SourceFile, format: Format) -> Result<(Value, SpanMap), Vec<Diagnostic>> {
    match format {
        Format::Yaml => super::yaml::load(file),
        Format::Toml => super::toml::load(file),
    }
}

/// Whether `bytes` are UTF-16: a UTF-16 byte-order mark, or ASCII text with a NUL beside each
/// character (what Windows tools write without a mark).
fn utf16(bytes: &[u8]) -> bool {
    let wide = |b: &[u8], zero: usize| {
        b.len() >= 4
            && b.chunks(2)
                .take(8)
                .all(|c| c.len() == 2 && c[zero] == 0 && c[1 - zero] != 0 && c[1 - zero].is_ascii())
    };
    bytes.starts_with(&[0xFF, 0xFE])
        || bytes.starts_with(&[0xFE, 0xFF])
        || wide(bytes, 1)
        || wide(bytes, 0)
}

/// The text of a file's bytes: at most [`MAX_FILE_SIZE`] of UTF-8 (UTF-16 said so, at the
/// file's start), a leading byte order mark dropped (editors on Windows write one; it is no
/// part of the first key), no NUL byte.
pub(crate) fn decode(path: &Path, bytes: Vec<u8>) -> Result<SourceFile, Vec<Diagnostic>> {
    let name = path.display().to_string();
    if bytes.len() as u64 > MAX_FILE_SIZE {
        return Err(vec![Diagnostic::file_error(
            &name,
            "config files may be at most 10 MB",
        )]);
    }
    if utf16(&bytes) {
        // Placed at its start: an editor jumps there, and the message says what is wrong.
        let file = SourceFile::new(path, String::new());
        return Err(vec![
            Diagnostic::error(&file, 0..0, "the file is UTF-16 text: runner reads UTF-8")
                .with_help("save it as UTF-8 (Windows PowerShell 5 writes UTF-16 with `>`: use `Out-File -Encoding utf8`)"),
        ]);
    }
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let before = String::from_utf8_lossy(&e.as_bytes()[..at]).to_string();
            let line = before.matches('\n').count() + 1;
            return Err(vec![
                Diagnostic::file_error(
                    &name,
                    format!("the file is not valid UTF-8 (byte {at}, line {line})"),
                )
                .with_help("save the file as UTF-8 text"),
            ]);
        }
    };
    let text = text
        .strip_prefix('\u{feff}')
        .map(str::to_string)
        .unwrap_or(text);
    let file = SourceFile::new(path, text);
    if let Some(at) = file.text().find('\0') {
        return Err(vec![
            Diagnostic::error(
                &file,
                at..at + 1,
                "the file holds a NUL byte: it looks like a binary file",
            )
            .with_help("runner reads text: YAML, TOML, JSON or .env lines"),
        ]);
    }
    Ok(file)
}

fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}
