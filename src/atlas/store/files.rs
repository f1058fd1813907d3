//! Reading and writing an atlas's files: JSON read and written atomically (write, then
//! rename), and I/O errors named by the file they happened on.

use std::path::Path;

use serde::Serialize;

use super::error::AtlasError;

pub(super) fn io(path: &Path, e: std::io::Error) -> AtlasError {
    AtlasError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

/// Writes `bytes` to `path` atomically.
pub(super) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), AtlasError> {
    crate::fs::write_atomic(path, bytes).map_err(|e| io(path, e))
}

/// Reads a JSON file; what is not JSON is a broken atlas.
pub(super) fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, AtlasError> {
    let text = std::fs::read_to_string(path).map_err(|e| io(path, e))?;
    serde_json::from_str(&text).map_err(|e| AtlasError::Broken {
        path: path.display().to_string(),
        message: format!("invalid JSON: {e}"),
    })
}

/// Writes `value` as pretty JSON, atomically.
pub(super) fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<(), AtlasError> {
    let text = serde_json::to_string_pretty(value).map_err(|e| AtlasError::Broken {
        path: path.display().to_string(),
        message: e.to_string(),
    })?;
    write_atomic(path, text.as_bytes())
}

/// The time now, as the metadata records it (RFC 3339, seconds).
pub(super) fn now() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}
