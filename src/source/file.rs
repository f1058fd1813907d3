//! A loaded text file and the conversions between byte offsets and `line:col`.

use std::path::Path;
use std::sync::Arc;

/// One source file held in memory. Cheap to clone: diagnostics keep a handle to it.
#[derive(Debug, Clone)]
pub(crate) struct SourceFile {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    display: String,
    text: String,
    /// Byte offset of the start of every line.
    line_starts: Vec<usize>,
}

impl SourceFile {
    /// Wraps `text` read from `path`; `display` is how messages name the file.
    pub(crate) fn new(path: &Path, text: String) -> SourceFile {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        SourceFile {
            inner: Arc::new(Inner {
                display: path.display().to_string(),
                text,
                line_starts,
            }),
        }
    }

    /// The file name as shown in messages.
    pub(crate) fn name(&self) -> &str {
        &self.inner.display
    }

    /// The whole text.
    pub(crate) fn text(&self) -> &str {
        &self.inner.text
    }

    /// 1-based line and 1-based column (in characters) of a byte offset.
    pub(crate) fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.inner.text.len());
        let line = match self.inner.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.inner.line_starts[line];
        let col = self.inner.text[start..floor_char(&self.inner.text, offset)]
            .chars()
            .count();
        (line + 1, col + 1)
    }
}

/// The largest char boundary at or before `offset`.
fn floor_char(text: &str, mut offset: usize) -> usize {
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_characters() {
        let f = SourceFile::new(Path::new("a.yaml"), "ab\nログc\n".to_string());
        assert_eq!(f.line_col(0), (1, 1));
        assert_eq!(f.line_col(3), (2, 1));
        assert_eq!(f.line_col(3 + "ログ".len()), (2, 3));
    }
}
