//! Source files, byte spans and their line:column form, the JSON-pointer -> span map that every
//! loaded document carries, and the diagnostics that point into them.

mod diagnostic;
mod file;
mod span_map;
mod suggest;

pub use diagnostic::Diagnostic;
pub use file::SourceFile;
pub use span_map::{NodeSpan, SpanMap, pointer_escape, pointer_push};
pub use suggest::did_you_mean;
