//! Diagnostics at a node of a document, found by its JSON pointer in the span map.

use crate::source::{Diagnostic, SourceFile, SpanMap};

/// A diagnostic at the key of the node at `pointer` (its value when it has no key).
pub(crate) fn at_key(
    file: &SourceFile,
    spans: &SpanMap,
    pointer: &str,
    message: impl Into<String>,
) -> Diagnostic {
    let span = spans
        .get(pointer)
        .map(|s| s.key.clone().unwrap_or(s.value.clone()))
        .or_else(|| spans.nearest(pointer).map(|s| s.value.clone()))
        .unwrap_or(0..0);
    Diagnostic::error(file, span, message).with_pointer(pointer)
}

/// A diagnostic at the value of the node at `pointer`.
pub(crate) fn at_value(
    file: &SourceFile,
    spans: &SpanMap,
    pointer: &str,
    message: impl Into<String>,
) -> Diagnostic {
    let span = spans
        .nearest(pointer)
        .map(|s| s.value.clone())
        .unwrap_or(0..0);
    Diagnostic::error(file, span, message).with_pointer(pointer)
}
