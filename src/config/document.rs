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
    let name = path.display().to_string();
    let format = Format::of(path).ok_or_else(|| {
        vec![
            Diagnostic::file_error(
                &name,
                "not a flow file: the name must end in .yaml, .yml or .toml",
            )
            .with_help("rename the file, or point runner at the right one"),
        ]
    })?;
    let meta = std::fs::metadata(path).map_err(|e| {
        vec![Diagnostic::file_error(
            &name,
            format!("cannot read the file: {}", io_reason(&e)),
        )]
    })?;
    if meta.is_dir() {
        return Err(vec![Diagnostic::file_error(
            &name,
            "is a directory, not a file",
        )]);
    }
    if meta.len() > MAX_FILE_SIZE {
        return Err(vec![Diagnostic::file_error(
            &name,
            format!(
                "the file is {} bytes; config files may be at most 10 MB",
                meta.len()
            ),
        )]);
    }
    let bytes = read_capped(path).map_err(|e| {
        vec![Diagnostic::file_error(
            &name,
            format!("cannot read the file: {}", io_reason(&e)),
        )]
    })?;
    parse_bytes(path, bytes, format)
}

/// Reads at most one byte more than [`MAX_FILE_SIZE`]: the size a file reports is not what it
/// gives (`/dev/urandom`, a FIFO, a file that grows), so the cap counts the bytes read.
pub(crate) fn read_capped(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(MAX_FILE_SIZE + 1)
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Parses file contents already in memory.
pub(crate) fn parse_bytes(
    path: &Path,
    bytes: Vec<u8>,
    format: Format,
) -> Result<Document, Vec<Diagnostic>> {
    let name = path.display().to_string();
    if bytes.len() as u64 > MAX_FILE_SIZE {
        return Err(vec![Diagnostic::file_error(
            &name,
            "config files may be at most 10 MB",
        )]);
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
    if let Some(at) = text.find('\0') {
        let file = SourceFile::new(path, text.clone());
        return Err(vec![
            Diagnostic::error(
                &file,
                at..at + 1,
                "the file holds a NUL byte: it looks like a binary file",
            )
            .with_help("flows are YAML or TOML text"),
        ]);
    }
    let file = SourceFile::new(path, text);
    if file.text().trim().is_empty() {
        return Err(vec![
            Diagnostic::error(&file, 0..0, "the file is empty")
                .with_help("a flow needs at least `name` and `steps`"),
        ]);
    }
    let (value, spans) = match format {
        Format::Yaml => super::yaml::load(&file)?,
        Format::Toml => super::toml::load(&file)?,
    };
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

fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}
