//! The refs a snapshot returned, with the document they belong to, the order the snapshot
//! shows them in (document order: agent-browser numbers refs in the order it first met their
//! elements, which is not it), and for a snapshot of one element's subtree, that element.

use std::collections::BTreeMap;

use serde_json::Value;

use super::adapter::{RefInfo, parse_snapshot_refs, ref_number};

/// The refs a snapshot returned and the document they belong to.
#[derive(Debug, Clone, Default)]
pub(crate) struct RefTable {
    pub(crate) refs: BTreeMap<String, RefInfo>,
    /// `performance.timeOrigin` of the document: a new one after every navigation.
    pub(crate) document: String,
    /// The refs as the snapshot's text shows them, in document order.
    pub(crate) order: Vec<String>,
    /// The element whose subtree the snapshot showed, when it showed one.
    pub(crate) scope: Option<RefScope>,
    /// The row each ref's element sat in when the snapshot was taken (its nearest ancestor's
    /// text, `scripts::REF_CONTEXT`), for the refs that had one: a ref whose element is gone
    /// follows its like in its place only when that like is in the same row.
    pub(crate) contexts: BTreeMap<String, String>,
}

/// The element a scoped snapshot showed the subtree of.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RefScope {
    /// Runner's handle on it (`[data-runner-sel="…"]`), put on it when the snapshot was taken.
    pub(crate) handle: String,
    /// The iframe (CSS in the page) it is in, when it is in one.
    pub(crate) frame: Option<String>,
    /// How the user wrote it, for messages.
    pub(crate) described: String,
}

impl RefTable {
    /// The table of a snapshot's answer (`data`), taken of `document`.
    pub(crate) fn of_snapshot(data: &Value, document: String) -> RefTable {
        let text = data.get("snapshot").and_then(Value::as_str).unwrap_or("");
        RefTable {
            refs: parse_snapshot_refs(data),
            document,
            order: text_order(text),
            scope: None,
            contexts: BTreeMap::new(),
        }
    }

    /// Only the refs its text shows: agent-browser's answer to a snapshot of one element's
    /// subtree lists the refs of the whole page.
    pub(crate) fn keep_shown(&mut self) {
        let shown: std::collections::HashSet<&String> = self.order.iter().collect();
        self.refs.retain(|k, _| shown.contains(k));
    }

    /// Where ref `r` is in document order: its place in the snapshot's text, then (a ref the
    /// text does not show) after all of those, by number.
    pub(crate) fn place(&self, r: &str) -> (usize, u64) {
        let at = self.order.iter().position(|k| k == r);
        (at.unwrap_or(usize::MAX), ref_number(r))
    }
}

/// The refs a snapshot's text shows (`- button "Go" [ref=e7]`, `[level=2, ref=e6]`), in the
/// order it shows them, each once.
fn text_order(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in text.lines() {
        // The attributes are in the last brackets of the line; a name (in quotes) comes before.
        let Some(open) = line.rfind(" [") else {
            continue;
        };
        for attr in line[open + 2..].split([',', ']']) {
            let Some(r) = attr.trim().strip_prefix("ref=") else {
                continue;
            };
            if r.starts_with('e')
                && r.len() > 1
                && r[1..].bytes().all(|b| b.is_ascii_digit())
                && !out.iter().any(|k| k == r)
            {
                out.push(r.to_string());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_gives_the_document_order() {
        let text = "- heading \"First\" [level=2, ref=e2]\n- button \"Go [ref=e9]\" [ref=e3]\n  - StaticText \"Go\"\n- checkbox \"Agree\" [checked=false, ref=e5]\n- link \"x\" [ref=e12]:\n  - /url: /x\n- button \"Other\" [ref=e1]\n- button \"Again\" [ref=e3]";
        assert_eq!(text_order(text), ["e2", "e3", "e5", "e12", "e1"]);
    }

    #[test]
    fn places_follow_the_text_then_the_numbers() {
        let data = serde_json::json!({
            "snapshot": "- button \"B\" [ref=e10]\n- button \"A\" [ref=e1]",
            "refs": {
                "e1": {"role": "button", "name": "A"},
                "e10": {"role": "button", "name": "B"},
                "e2": {"role": "button", "name": "C"},
            },
        });
        let mut t = RefTable::of_snapshot(&data, "d".into());
        assert!(t.place("e10") < t.place("e1"));
        assert!(t.place("e1") < t.place("e2"));
        t.keep_shown();
        assert_eq!(t.refs.keys().collect::<Vec<_>>(), ["e1", "e10"]);
    }
}
