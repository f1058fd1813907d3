//! Where the nodes of a test's document (made from a suite or a matrix, see `suite`) are in
//! the file: its pointers mapped to the file's, both ways, and its span map made from the
//! file's.

use std::collections::HashMap;

use crate::source::{Diagnostic, NodeSpan, SpanMap};

/// The pointers of a test's document, mapped to the file's: each pair maps a node and what is
/// under it (the longest pair that applies wins).
#[derive(Debug, Clone, Default)]
pub(crate) struct Origin {
    to_file: HashMap<String, String>,
}

impl Origin {
    pub(super) fn add(&mut self, test: impl Into<String>, file: impl Into<String>) {
        self.to_file.insert(test.into(), file.into());
    }

    /// Whether it maps each node to itself (a one-flow file's own test).
    pub(super) fn is_identity(&self) -> bool {
        self.to_file.len() == 1 && self.to_file.get("").is_some_and(String::is_empty)
    }

    /// The file's pointer of a node of the test's document.
    pub(crate) fn file_pointer(&self, ptr: &str) -> String {
        rebase(ptr, &self.to_file).unwrap_or_else(|| ptr.to_string())
    }

    /// A diagnostic about the test, its pointer made the file's.
    pub(crate) fn in_file(&self, mut d: Diagnostic) -> Diagnostic {
        d.pointer = self.file_pointer(&d.pointer);
        d
    }

    /// The test's span map, made from the file's nodes that may be in it.
    pub(super) fn spans<'a>(
        &self,
        nodes: impl Iterator<Item = &'a (&'a str, &'a NodeSpan)>,
    ) -> SpanMap {
        let from_file: HashMap<String, String> = self
            .to_file
            .iter()
            .map(|(t, f)| (f.clone(), t.clone()))
            .collect();
        let mut out = SpanMap::default();
        for (ptr, span) in nodes {
            if let Some(t) = rebase(ptr, &from_file) {
                out.insert(t, (*span).clone());
            }
        }
        out
    }
}

/// `ptr` with its longest prefix found in `map` replaced by what it maps to.
fn rebase(ptr: &str, map: &HashMap<String, String>) -> Option<String> {
    let mut head = ptr;
    loop {
        if let Some(to) = map.get(head) {
            return Some(format!("{to}{}", &ptr[head.len()..]));
        }
        head = &head[..head.rfind('/')?];
    }
}
