//! YAML -> `serde_json::Value` + span map, on saphyr's event parser (which keeps positions).
//!
//! Anchors and aliases work; an alias that would blow the document up past a fixed node budget is
//! refused (the "billion laughs" attack). Duplicate keys are errors. `<<` merge keys are honoured.

// The error path runs once per bad file; boxing diagnostics would only add noise.
#![allow(clippy::result_large_err)]

use std::collections::HashMap;
use std::ops::Range;

use saphyr_parser::{Event, Parser, ScalarStyle, Span, Tag};
use serde_json::{Map, Value};

use super::scalar;

use crate::source::{Diagnostic, NodeSpan, SourceFile, SpanMap, pointer_push};

/// Most nodes a document may expand to, aliases included.
const MAX_NODES: usize = 1_000_000;
/// Deepest nesting accepted.
const MAX_DEPTH: usize = 200;

/// Parses `file` as one YAML document (null when it holds none).
pub(crate) fn load(file: &SourceFile) -> Result<(Value, SpanMap), Vec<Diagnostic>> {
    let text = file.text();
    let chars = CharIndex::new(text);
    let mut builder = Builder {
        file,
        chars: &chars,
        spans: SpanMap::default(),
        anchors: HashMap::new(),
        nodes: 0,
        stack: Vec::new(),
        root: None,
        docs: 0,
        errors: Vec::new(),
    };
    for item in Parser::new_from_str(text) {
        match item {
            Ok((event, span)) => {
                if let Err(d) = builder.event(event, span) {
                    return Err(vec![d]);
                }
            }
            Err(e) => {
                let off = chars.byte(e.marker().index());
                let msg = format!("invalid YAML: {}", e.info());
                return Err(vec![
                    Diagnostic::error(file, off..off, msg)
                        .with_help("check indentation, quoting and `:` after keys"),
                ]);
            }
        }
    }
    if !builder.errors.is_empty() {
        return Err(builder.errors);
    }
    // A file of comments is null: what a file must hold is its reader's to say.
    Ok((builder.root.unwrap_or(Value::Null), builder.spans))
}

/// Char index -> byte offset (saphyr counts characters).
struct CharIndex {
    /// Byte offset of each char, or empty when the text is ASCII (identity).
    offsets: Vec<usize>,
    len: usize,
}

impl CharIndex {
    fn new(text: &str) -> CharIndex {
        let offsets = if text.is_ascii() {
            Vec::new()
        } else {
            text.char_indices().map(|(i, _)| i).collect()
        };
        CharIndex {
            offsets,
            len: text.len(),
        }
    }

    fn byte(&self, char_index: usize) -> usize {
        if self.offsets.is_empty() {
            char_index.min(self.len)
        } else {
            self.offsets.get(char_index).copied().unwrap_or(self.len)
        }
    }
}

enum Frame {
    Seq {
        items: Vec<Value>,
        start: usize,
        anchor: usize,
        pointer: String,
        key: Option<Range<usize>>,
    },
    Map {
        map: Map<String, Value>,
        start: usize,
        anchor: usize,
        pointer: String,
        key: Option<Range<usize>>,
        /// The key waiting for its value, with its span.
        pending: Option<(String, Range<usize>)>,
        /// Keys of this map with their spans, for duplicate detection.
        seen: HashMap<String, Range<usize>>,
        /// Merged (`<<`) entries, applied at the end so explicit keys win.
        merges: Vec<Value>,
    },
}

struct Builder<'a> {
    file: &'a SourceFile,
    chars: &'a CharIndex,
    spans: SpanMap,
    anchors: HashMap<usize, (Value, usize)>,
    nodes: usize,
    stack: Vec<Frame>,
    root: Option<Value>,
    docs: usize,
    errors: Vec<Diagnostic>,
}

impl Builder<'_> {
    fn range(&self, span: &Span) -> Range<usize> {
        self.chars.byte(span.start.index())..self.chars.byte(span.end.index())
    }

    /// Pointer and key span for the next value to be placed in the current container.
    fn slot(&self) -> (String, Option<Range<usize>>) {
        match self.stack.last() {
            None => (String::new(), None),
            Some(Frame::Seq { items, pointer, .. }) => {
                (pointer_push(pointer, &items.len().to_string()), None)
            }
            Some(Frame::Map {
                pointer, pending, ..
            }) => match pending {
                Some((k, r)) => (pointer_push(pointer, k), Some(r.clone())),
                None => (pointer.clone(), None),
            },
        }
    }

    fn expecting_key(&self) -> bool {
        matches!(self.stack.last(), Some(Frame::Map { pending: None, .. }))
    }

    fn count(&mut self, n: usize, at: Range<usize>) -> Result<(), Diagnostic> {
        self.nodes += n;
        if self.nodes > MAX_NODES {
            return Err(Diagnostic::error(
                self.file,
                at,
                format!("the document expands to more than {MAX_NODES} nodes"),
            )
            .with_help("aliases that nest other aliases multiply; this looks like an alias bomb"));
        }
        Ok(())
    }

    /// One parser event: a dispatch on its kind.
    fn event(&mut self, event: Event<'_>, span: Span) -> Result<(), Diagnostic> {
        let range = self.range(&span);
        match event {
            Event::DocumentStart(_) => self.document_start(range),
            Event::Scalar(text, style, anchor, tag) => {
                self.scalar(&text, style, anchor, tag.as_deref(), range)
            }
            Event::Alias(id) => self.alias(id, range),
            Event::SequenceStart(anchor, tag) => self.open(true, anchor, tag.as_deref(), range),
            Event::MappingStart(anchor, tag) => self.open(false, anchor, tag.as_deref(), range),
            Event::SequenceEnd | Event::MappingEnd => {
                self.close(range);
                Ok(())
            }
            Event::StreamStart | Event::StreamEnd | Event::DocumentEnd | Event::Nothing => Ok(()),
        }
    }

    fn document_start(&mut self, range: Range<usize>) -> Result<(), Diagnostic> {
        self.docs += 1;
        if self.docs > 1 {
            return Err(Diagnostic::error(
                self.file,
                range,
                "a file holds one YAML document; found a second one",
            )
            .with_help("remove the `---` line or split the file"));
        }
        Ok(())
    }

    /// A scalar: a key of the current map, or a value (with its span, and where its content
    /// starts when the source text is exactly its value).
    fn scalar(
        &mut self,
        text: &str,
        style: ScalarStyle,
        anchor: usize,
        tag: Option<&Tag>,
        range: Range<usize>,
    ) -> Result<(), Diagnostic> {
        let value = match scalar::value(text, style, tag) {
            Ok(v) => v,
            Err(why) => {
                self.errors.push(
                    Diagnostic::error(self.file, range.clone(), why)
                        .with_help(scalar::UNREAD_TAG_HELP),
                );
                Value::Null
            }
        };
        if self.expecting_key() {
            self.key(text.to_string(), range);
            return Ok(());
        }
        self.count(1, range.clone())?;
        let (pointer, key) = self.slot();
        let content_start = match style {
            ScalarStyle::Plain => Some(range.start),
            ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted => Some(range.start + 1),
            _ => None,
        }
        .filter(|_| {
            // Only when the source text of the scalar is exactly its value.
            let src = &self.file.text()[range.clone()];
            let inner = match style {
                ScalarStyle::Plain => src,
                _ => src.get(1..src.len().saturating_sub(1)).unwrap_or(""),
            };
            inner == text
        });
        self.spans.insert(
            pointer,
            NodeSpan {
                value: range.clone(),
                key,
                content_start,
            },
        );
        if anchor > 0 {
            self.anchors.insert(anchor, (value.clone(), 1));
        }
        self.place(value);
        Ok(())
    }

    /// An alias: the anchored value again, counted at its full size against the node budget.
    fn alias(&mut self, id: usize, range: Range<usize>) -> Result<(), Diagnostic> {
        let Some((value, size)) = self.anchors.get(&id).cloned() else {
            return Err(Diagnostic::error(self.file, range, "unknown alias"));
        };
        if self.expecting_key() {
            let key = match value {
                Value::String(s) => s,
                other => other.to_string(),
            };
            self.key(key, range);
            return Ok(());
        }
        self.count(size, range.clone())?;
        let (pointer, key) = self.slot();
        self.spans.insert(
            pointer,
            NodeSpan {
                value: range.clone(),
                key,
                content_start: None,
            },
        );
        self.place(value);
        Ok(())
    }

    /// The start of a sequence (`seq`) or a map: a new frame on the stack.
    fn open(
        &mut self,
        seq: bool,
        anchor: usize,
        tag: Option<&Tag>,
        range: Range<usize>,
    ) -> Result<(), Diagnostic> {
        if let Some(t) = tag.filter(|_| !scalar::collection_tag_is_read(tag, seq)) {
            self.errors.push(
                Diagnostic::error(self.file, range.clone(), scalar::unread_tag(t))
                    .with_help(scalar::UNREAD_TAG_HELP),
            );
        }
        if self.expecting_key() {
            return Err(Diagnostic::error(
                self.file,
                range,
                "a map key must be a plain value, not a list or map",
            ));
        }
        if self.stack.len() >= MAX_DEPTH {
            return Err(Diagnostic::error(
                self.file,
                range,
                format!("nesting deeper than {MAX_DEPTH} levels"),
            ));
        }
        self.count(1, range.clone())?;
        let (pointer, key) = self.slot();
        let start = range.start;
        let frame = if seq {
            Frame::Seq {
                items: Vec::new(),
                start,
                anchor,
                pointer,
                key,
            }
        } else {
            Frame::Map {
                map: Map::new(),
                start,
                anchor,
                pointer,
                key,
                pending: None,
                seen: HashMap::new(),
                merges: Vec::new(),
            }
        };
        self.stack.push(frame);
        Ok(())
    }

    /// The end of a sequence or map: its value, merges applied, placed in its parent.
    fn close(&mut self, range: Range<usize>) {
        let frame = self
            .stack
            .pop()
            .expect("the parser balances start and end events");
        let (value, start, anchor, pointer, key) = match frame {
            Frame::Seq {
                items,
                start,
                anchor,
                pointer,
                key,
            } => (Value::Array(items), start, anchor, pointer, key),
            Frame::Map {
                mut map,
                start,
                anchor,
                pointer,
                key,
                merges,
                ..
            } => {
                merge(&mut map, merges);
                (Value::Object(map), start, anchor, pointer, key)
            }
        };
        let end = range.end.max(start);
        self.spans.insert(
            pointer,
            NodeSpan {
                value: start..end,
                key,
                content_start: None,
            },
        );
        if anchor > 0 {
            let size = node_count(&value);
            self.anchors.insert(anchor, (value.clone(), size));
        }
        self.place(value);
    }

    fn key(&mut self, key: String, range: Range<usize>) {
        let Some(Frame::Map { pending, seen, .. }) = self.stack.last_mut() else {
            unreachable!("expecting_key checked the frame");
        };
        if key != "<<" {
            if let Some(first) = seen.get(&key) {
                let (line, _) = self.file.line_col(first.start);
                self.errors.push(
                    Diagnostic::error(self.file, range.clone(), format!("duplicate key `{key}`"))
                        .with_help(format!("`{key}` is already defined on line {line}")),
                );
            } else {
                seen.insert(key.clone(), range.clone());
            }
        }
        *pending = Some((key, range));
    }

    fn place(&mut self, value: Value) {
        match self.stack.last_mut() {
            None => {
                self.root = Some(value);
            }
            Some(Frame::Seq { items, .. }) => items.push(value),
            Some(Frame::Map {
                map,
                pending,
                merges,
                ..
            }) => {
                let (key, _) = pending.take().expect("a value follows its key");
                if key == "<<" {
                    merges.push(value);
                } else {
                    map.insert(key, value);
                }
            }
        }
    }
}

/// Applies `<<` merge keys: each merged map (or list of maps) adds the keys `map` does not have,
/// so explicit keys win.
fn merge(map: &mut Map<String, Value>, merges: Vec<Value>) {
    for merged in merges {
        let sources = match merged {
            Value::Array(list) => list,
            other => vec![other],
        };
        for source in sources {
            if let Value::Object(m) = source {
                for (k, v) in m {
                    map.entry(k).or_insert(v);
                }
            }
        }
    }
}

fn node_count(v: &Value) -> usize {
    match v {
        Value::Array(a) => 1 + a.iter().map(node_count).sum::<usize>(),
        Value::Object(m) => 1 + m.values().map(node_count).sum::<usize>(),
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn load_str(s: &str) -> Result<(Value, SpanMap), Vec<Diagnostic>> {
        load(&SourceFile::new(Path::new("t.yaml"), s.to_string()))
    }

    #[test]
    fn builds_values_and_spans() {
        let (v, spans) = load_str("name: x\nsteps:\n  - log: hi\n  - n: 3\n").unwrap();
        assert_eq!(v["steps"][1]["n"], 3);
        let s = spans.get("/steps/0/log").unwrap();
        assert_eq!(s.value, 24..26);
        assert_eq!(s.key, Some(19..22));
    }

    #[test]
    fn anchors_and_merge_keys() {
        let (v, _) = load_str("a: &x {k: 1, j: 2}\nb:\n  <<: *x\n  j: 5\nc: *x\n").unwrap();
        assert_eq!(v["b"]["k"], 1);
        assert_eq!(v["b"]["j"], 5);
        assert_eq!(v["c"]["j"], 2);
    }

    #[test]
    fn refuses_alias_bombs() {
        let mut s = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..10 {
            let p = i - 1;
            s.push_str(&format!(
                "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
            ));
        }
        let errs = load_str(&s).unwrap_err();
        assert!(errs[0].message.contains("more than"), "{}", errs[0].message);
    }

    #[test]
    fn duplicate_keys_and_empty_files() {
        let errs = load_str("a: 1\nb: 2\na: 3\n").unwrap_err();
        assert_eq!(errs[0].message, "duplicate key `a`");
        assert_eq!(errs[0].line_col(), Some((3, 1)));
        assert!(load_str("# nothing\n").unwrap().0.is_null());
    }

    #[test]
    fn tags_runner_does_not_read_are_refused_at_the_tag() {
        let errs =
            load_str("a: !!binary aGk=\nb: !!set { x }\nc: [!x 1]\nd: !!str 5\n").unwrap_err();
        let said: Vec<_> = errs
            .iter()
            .map(|e| (e.line_col(), e.message.as_str()))
            .collect();
        assert_eq!(
            said,
            [
                (Some((1, 4)), "runner does not read the YAML tag `!!binary`"),
                (Some((2, 4)), "runner does not read the YAML tag `!!set`"),
                (Some((3, 5)), "runner does not read the YAML tag `!x`"),
            ]
        );
    }
}
