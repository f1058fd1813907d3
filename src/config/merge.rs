//! A suite's flow merged with the suite: the one flow a file would hold — the suite's shared
//! keys under the flow's own, `before_each` its first steps, `after_each` its last `finally`
//! steps — and where each of its nodes is in the file.

use serde_json::{Map, Value};

use super::origin::Origin;
use crate::source::pointer_push;

/// The keys a flow replaces as a whole.
const WHOLE: &[&str] = &["description", "atlas", "agent", "web_server", "outputs"];
/// The maps a flow's keys override key by key.
const BY_KEY: &[&str] = &["vars", "env", "browser", "defaults"];
/// The lists a flow's items add to.
const ADDED: &[&str] = &["tags", "secrets"];

/// Suite flow `f` (at `base`) with the suite's shared keys and steps: the one flow a file
/// would hold, and where each of its nodes is.
pub(super) fn merged(
    suite: &Map<String, Value>,
    f: &Map<String, Value>,
    base: &str,
    title: Option<&str>,
) -> (Map<String, Value>, Origin) {
    let mut m = Merging {
        suite,
        flow: f,
        base,
        out: Map::new(),
        origin: Origin::default(),
    };
    m.origin.add("", base);
    if let Some(Value::String(n)) = f.get("name") {
        // (An empty name is a flow cleaned of a bad matrix: left empty, unjudged.)
        let name = match title.filter(|_| !n.is_empty()) {
            Some(t) => format!("{t} > {n}"),
            None => n.clone(),
        };
        m.out.insert("name".into(), Value::String(name));
    }
    for k in WHOLE {
        m.whole(k);
    }
    for k in BY_KEY {
        m.by_key(k);
    }
    for k in ADDED {
        m.added(k);
    }
    m.steps();
    if let Some(v) = f.get("matrix") {
        m.out.insert("matrix".into(), v.clone());
    }
    (m.out, m.origin)
}

/// A suite flow being merged with its suite.
struct Merging<'a> {
    suite: &'a Map<String, Value>,
    flow: &'a Map<String, Value>,
    /// The flow's pointer in the file.
    base: &'a str,
    out: Map<String, Value>,
    origin: Origin,
}

impl Merging<'_> {
    /// The flow's pointer of its key `k`.
    fn own(&self, k: &str) -> String {
        pointer_push(self.base, k)
    }

    /// A key the flow sets as a whole, else the suite's (but what is the suite's own).
    fn whole(&mut self, k: &str) {
        if let Some(v) = self.flow.get(k) {
            self.out.insert(k.into(), v.clone());
        } else if let Some(v) = self
            .suite
            .get(k)
            .filter(|_| !matches!(k, "outputs" | "description"))
        {
            self.out.insert(k.into(), v.clone());
            self.origin.add(pointer_push("", k), pointer_push("", k));
        }
    }

    /// A map whose keys the flow sets one by one over the suite's.
    fn by_key(&mut self, k: &str) {
        let (theirs, mine) = (
            self.suite.get(k).and_then(Value::as_object),
            self.flow.get(k).and_then(Value::as_object),
        );
        let top = pointer_push("", k);
        let mut m = theirs.cloned().unwrap_or_default();
        for sub in theirs.into_iter().flat_map(Map::keys) {
            let at = pointer_push(&top, sub);
            self.origin.add(at.clone(), at);
        }
        for (sub, v) in mine.into_iter().flatten() {
            m.insert(sub.clone(), v.clone());
            self.origin
                .add(pointer_push(&top, sub), pointer_push(&self.own(k), sub));
        }
        if theirs.is_some() && mine.is_none() {
            self.origin.add(top.clone(), top);
        }
        if theirs.is_some() || mine.is_some() {
            self.out.insert(k.into(), Value::Object(m));
        }
    }

    /// A list the flow's items add to the suite's (each item once).
    fn added(&mut self, k: &str) {
        let mut list: Vec<Value> = Vec::new();
        let sources = [
            (self.suite.get(k), pointer_push("", k)),
            (self.flow.get(k), self.own(k)),
        ];
        for (items, at) in sources {
            for (i, v) in items
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
            {
                if !list.contains(v) {
                    self.origin
                        .add(format!("/{k}/{}", list.len()), format!("{at}/{i}"));
                    list.push(v.clone());
                }
            }
        }
        if !list.is_empty() {
            self.out.insert(k.into(), Value::Array(list));
        }
    }

    /// `before_each` then the flow's steps; the flow's `finally` then `after_each`.
    fn steps(&mut self) {
        let steps = self.list("steps", [("before_each", ""), ("steps", self.base)]);
        self.origin.add("/steps", self.own("steps"));
        self.out.insert("steps".into(), Value::Array(steps));
        let fin = self.list("finally", [("finally", self.base), ("after_each", "")]);
        let at = if self.flow.contains_key("finally") {
            self.own("finally")
        } else {
            "/after_each".into()
        };
        self.origin.add("/finally", at);
        if !fin.is_empty() {
            self.out.insert("finally".into(), Value::Array(fin));
        }
    }

    /// The items of the lists `parts` (each a key, and the flow's pointer or "" for the
    /// suite's), one after the other, as the test's list `name`.
    fn list(&mut self, name: &str, parts: [(&str, &str); 2]) -> Vec<Value> {
        let mut items = Vec::new();
        for (key, from) in parts {
            let v = if from.is_empty() {
                self.suite
            } else {
                self.flow
            };
            for (i, s) in v
                .get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
            {
                self.origin.add(
                    format!("/{name}/{}", items.len()),
                    format!("{from}/{key}/{i}"),
                );
                items.push(s.clone());
            }
        }
        items
    }
}
