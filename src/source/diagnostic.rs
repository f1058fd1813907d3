//! A problem found in a file: where it is, what is wrong, and how to fix it.

use std::fmt;
use std::ops::Range;

use super::SourceFile;

/// One problem in one file, with its location when the file could be read.
#[derive(Debug, Clone)]
pub(crate) struct Diagnostic {
    pub(crate) file: Option<SourceFile>,
    /// The file name when there is no readable source (unreadable files, CLI input).
    pub(crate) file_name: String,
    /// Byte range in the file.
    pub(crate) span: Option<Range<usize>>,
    /// JSON pointer of the node the problem is about ("" for the document).
    pub(crate) pointer: String,
    pub(crate) message: String,
    pub(crate) help: Option<String>,
}

impl Diagnostic {
    /// An error at `span` in `file`.
    pub(crate) fn error(
        file: &SourceFile,
        span: Range<usize>,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            file_name: file.name().to_string(),
            file: Some(file.clone()),
            span: Some(span),
            pointer: String::new(),
            message: message.into(),
            help: None,
        }
    }

    /// An error about a file as a whole, with no source to show (unreadable, not UTF-8, ...).
    pub(crate) fn file_error(
        file_name: impl Into<String>,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            file: None,
            file_name: file_name.into(),
            span: None,
            pointer: String::new(),
            message: message.into(),
            help: None,
        }
    }

    /// Sets the help line.
    pub(crate) fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    /// Sets the JSON pointer.
    pub(crate) fn with_pointer(mut self, pointer: impl Into<String>) -> Diagnostic {
        self.pointer = pointer.into();
        self
    }

    /// 1-based line and column, when the diagnostic has a location.
    pub(crate) fn line_col(&self) -> Option<(usize, usize)> {
        match (&self.file, &self.span) {
            (Some(f), Some(s)) => Some(f.line_col(s.start)),
            _ => None,
        }
    }

    /// `file:line:col` (or just `file`).
    pub(crate) fn location(&self) -> String {
        match self.line_col() {
            Some((l, c)) => format!("{}:{l}:{c}", self.file_name),
            None => self.file_name.clone(),
        }
    }
}

/// Problems in file order, each once (a suite's shared steps are checked with each flow, and a
/// rule may find what the schema found).
pub(crate) fn sorted_unique(mut problems: Vec<Diagnostic>) -> Vec<Diagnostic> {
    problems.sort_by_key(|d| d.span.as_ref().map(|s| s.start));
    let mut seen = std::collections::HashSet::new();
    problems.retain(|d| seen.insert((d.span.clone(), d.message.clone())));
    problems
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location(), self.message)
    }
}

impl std::error::Error for Diagnostic {}

impl miette::Diagnostic for Diagnostic {
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h.as_str()) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        self.file.as_ref().map(|f| f as &dyn miette::SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        let span = self.span.clone()?;
        self.file.as_ref()?;
        let len = span.end.saturating_sub(span.start).max(1);
        let label = miette::LabeledSpan::new(None, span.start, len);
        Some(Box::new(std::iter::once(label)))
    }
}

impl miette::SourceCode for SourceFile {
    fn read_span<'a>(
        &'a self,
        span: &miette::SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn miette::SpanContents<'a> + 'a>, miette::MietteError> {
        let inner = self
            .text()
            .read_span(span, context_lines_before, context_lines_after)?;
        Ok(Box::new(miette::MietteSpanContents::new_named(
            self.name().to_string(),
            inner.data(),
            *inner.span(),
            inner.line(),
            inner.column(),
            inner.line_count(),
        )))
    }
}
