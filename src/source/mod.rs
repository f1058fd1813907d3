//! Source files, byte spans and their line:column form, the JSON-pointer -> span map that every
//! loaded document carries, and the diagnostics that point into them.

mod diagnostic;
mod file;
mod shown;
mod span_map;
mod suggest;

pub(crate) use diagnostic::{Diagnostic, sorted_unique};
pub(crate) use file::SourceFile;
pub(crate) use span_map::{NodeSpan, SpanMap, pointer_escape, pointer_push};
pub(crate) use suggest::did_you_mean;
