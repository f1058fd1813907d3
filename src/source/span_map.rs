//! The map from a JSON pointer in a loaded document to where that node stands in its file.

use std::collections::HashMap;
use std::ops::Range;

/// Where one node of a document stands: its value and, for a map entry, its key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NodeSpan {
    /// Byte range of the value.
    pub(crate) value: Range<usize>,
    /// Byte range of the key, when the node is a map entry.
    pub(crate) key: Option<Range<usize>>,
    /// Byte offset where a string's content starts (after an opening quote), when the value is a
    /// string written on one line whose characters map one to one to the source.
    pub(crate) content_start: Option<usize>,
}

/// JSON pointer (RFC 6901) -> span of the node.
#[derive(Debug, Clone, Default)]
pub(crate) struct SpanMap {
    nodes: HashMap<String, NodeSpan>,
}

impl SpanMap {
    /// Records where the node at `pointer` stands.
    pub(crate) fn insert(&mut self, pointer: String, span: NodeSpan) {
        self.nodes.insert(pointer, span);
    }

    /// Every recorded node, in no order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, &NodeSpan)> {
        self.nodes.iter().map(|(p, s)| (p.as_str(), s))
    }

    /// The node at exactly `pointer`.
    pub(crate) fn get(&self, pointer: &str) -> Option<&NodeSpan> {
        self.nodes.get(pointer)
    }

    /// The node at `pointer`, or its nearest recorded ancestor (nodes that came from a YAML
    /// alias have no span of their own).
    pub(crate) fn nearest(&self, pointer: &str) -> Option<&NodeSpan> {
        let mut p = pointer;
        loop {
            if let Some(s) = self.nodes.get(p) {
                return Some(s);
            }
            match p.rfind('/') {
                Some(i) => p = &p[..i],
                None => return None,
            }
        }
    }
}

/// Escapes one reference token of a JSON pointer.
pub(crate) fn pointer_escape(token: &str) -> String {
    if token.contains(['~', '/']) {
        token.replace('~', "~0").replace('/', "~1")
    } else {
        token.to_string()
    }
}

/// `base` + `/` + escaped `token`.
pub(crate) fn pointer_push(base: &str, token: &str) -> String {
    let mut s = String::with_capacity(base.len() + token.len() + 1);
    s.push_str(base);
    s.push('/');
    s.push_str(&pointer_escape(token));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_walks_up() {
        let mut m = SpanMap::default();
        let span = NodeSpan {
            value: 1..2,
            key: None,
            content_start: None,
        };
        m.insert("/steps/0".into(), span.clone());
        assert_eq!(m.nearest("/steps/0/exec/command"), Some(&span));
        assert_eq!(m.nearest("/vars"), None);
        assert_eq!(pointer_push("/a", "b/c~"), "/a/b~1c~0");
    }
}
