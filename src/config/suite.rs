//! How a flow file becomes tests. A one-flow file is one test, or one per combination of its
//! `matrix`; a suite (`flows:`) is one per flow (and combination). Each test gets a document
//! of its own, the one a one-flow file would be: the suite's shared keys merged into the flow,
//! `before_each` its first steps, `after_each` its last `finally` steps, the matrix values its
//! first vars. That document's span map points into the suite file, so every check and every
//! run-time error shows its line there; [`Origin`] turns its pointers back into the file's.

use std::collections::HashMap;

use indexmap::IndexMap;
use serde_json::{Map, Value};

use super::document::Document;
use super::literal::refuse_all;
use super::matrix::{self, Combination};
use super::merge::merged;
use super::origin::Origin;
use super::schema::{at_key, at_value};
use crate::source::{Diagnostic, NodeSpan, pointer_push};

/// The most tests one file may make (each is a document of its own).
const MAX_TESTS: usize = 1024;

/// One test of a file: its document, as a one-flow file's.
#[derive(Debug)]
pub(crate) struct TestDoc {
    pub(crate) doc: Document,
    /// Its matrix values (vars `--var` does not override: they are in its name).
    pub(crate) matrix: IndexMap<String, Value>,
    /// Where its nodes are in the file.
    pub(crate) origin: Origin,
}

/// A file's document, and its nodes by the flow of a suite they are in (each test's span map
/// is made from the nodes of its flow and the shared ones: not from all of them).
struct Source<'a> {
    doc: &'a Document,
    shared: Vec<(&'a str, &'a NodeSpan)>,
    by_flow: HashMap<&'a str, Vec<(&'a str, &'a NodeSpan)>>,
}

impl<'a> Source<'a> {
    fn of(doc: &'a Document) -> Source<'a> {
        let mut s = Source {
            doc,
            shared: Vec::new(),
            by_flow: HashMap::new(),
        };
        for (ptr, span) in doc.spans.iter() {
            let flow = ptr.strip_prefix("/flows/").map(|rest| {
                let end = rest.find('/').map_or(ptr.len(), |i| "/flows/".len() + i);
                &ptr[..end]
            });
            match flow {
                Some(f) => s.by_flow.entry(f).or_default().push((ptr, span)),
                None => s.shared.push((ptr, span)),
            }
        }
        s
    }

    /// The nodes a test of the flow at `base` may hold.
    fn nodes(&self, base: &str) -> impl Iterator<Item = &(&'a str, &'a NodeSpan)> {
        self.shared
            .iter()
            .chain(self.by_flow.get(base).into_iter().flatten())
    }
}

/// The tests of a document (valid, or cleaned of what is not), and the problems of the file as
/// a whole (a bad matrix, two tests of one name); a flow with a bad matrix makes no test.
pub(crate) fn tests(doc: &Document) -> (Vec<TestDoc>, Vec<Diagnostic>) {
    let mut out = Vec::new();
    let mut problems = Vec::new();
    let src = Source::of(doc);
    match doc.value.get("flows").and_then(Value::as_array) {
        None => {
            let flow = doc.value.as_object().cloned().unwrap_or_default();
            let mut origin = Origin::default();
            origin.add("", "");
            expand(&src, flow, origin, "", &mut out, &mut problems);
        }
        Some(flows) => {
            let title = suite_title(doc, &mut problems);
            let empty = Map::new();
            let suite = doc.value.as_object().unwrap_or(&empty);
            for (i, f) in flows.iter().enumerate() {
                let Some(f) = f.as_object() else { continue };
                let base = format!("/flows/{i}");
                let (flow, origin) = merged(suite, f, &base, title.as_deref());
                expand(&src, flow, origin, &base, &mut out, &mut problems);
                if out.len() > MAX_TESTS {
                    problems.push(
                        at_key(
                            &doc.file,
                            &doc.spans,
                            "/flows",
                            format!("the file makes more than {MAX_TESTS} tests"),
                        )
                        .with_help("split the suite into several files"),
                    );
                    out.clear();
                    break;
                }
            }
        }
    }
    unique_names(doc, &out, &mut problems);
    (out, problems)
}

/// The suite's `name` (the first part of its tests' names), `description` and `$schema`: its
/// own, used as written.
fn suite_title(doc: &Document, problems: &mut Vec<Diagnostic>) -> Option<String> {
    for (key, help) in [
        ("name", "write the suite's name itself"),
        ("description", "write the value itself"),
        ("$schema", "write the value itself"),
    ] {
        if let Some(v) = doc.value.get(key) {
            let ptr = pointer_push("", key);
            refuse_all(&doc.file, &doc.spans, &ptr, v, help, problems);
        }
    }
    doc.value
        .get("name")
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// One test per combination of `flow`'s matrix (at `base` in the file), or the flow as it is.
fn expand(
    src: &Source<'_>,
    mut flow: Map<String, Value>,
    origin: Origin,
    base: &str,
    out: &mut Vec<TestDoc>,
    problems: &mut Vec<Diagnostic>,
) {
    let doc = src.doc;
    let Some(m) = flow.remove("matrix") else {
        out.push(test(src, base, flow, origin, IndexMap::new()));
        return;
    };
    let at = format!("{base}/matrix");
    let combos = match m.as_object().map(|m| matrix::combinations(m, &at)) {
        Some(Ok(c)) => c,
        Some(Err(p)) => {
            problems.push(at_value(&doc.file, &doc.spans, &p.pointer, p.message).with_help(p.help));
            return;
        }
        None => return,
    };
    // A var the flow itself sets and the matrix sets too would never be used.
    let own_vars = doc.value.pointer(&format!("{base}/vars"));
    for (k, _, _) in combos.iter().flatten() {
        if own_vars.and_then(|v| v.get(k)).is_some() {
            let ptr = pointer_push(&format!("{base}/vars"), k);
            if !problems.iter().any(|d| d.pointer == ptr) {
                problems.push(
                    at_key(
                        &doc.file,
                        &doc.spans,
                        &ptr,
                        format!("`{k}` is set by the flow's `matrix`"),
                    )
                    .with_help("the matrix gives each test its value: remove it from `vars`"),
                );
            }
        }
    }
    for c in &combos {
        let (flow, origin) = with_combination(&flow, &origin, c);
        let values = c.iter().map(|(k, v, _)| (k.clone(), v.clone())).collect();
        out.push(test(src, base, flow, origin, values));
    }
}

/// The flow of one combination: its values the first vars, its name ending with them.
fn with_combination(
    flow: &Map<String, Value>,
    origin: &Origin,
    c: &Combination,
) -> (Map<String, Value>, Origin) {
    let mut flow = flow.clone();
    let mut origin = origin.clone();
    let mut vars: Map<String, Value> = Map::new();
    for (k, v, ptr) in c {
        vars.insert(k.clone(), v.clone());
        origin.add(pointer_push("/vars", k), ptr.clone());
    }
    if let Some(Value::Object(own)) = flow.get("vars") {
        for (k, v) in own {
            vars.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    flow.insert("vars".into(), Value::Object(vars));
    let name = flow.get("name").and_then(Value::as_str).unwrap_or_default();
    let name = format!("{name}{}", matrix::name_suffix(c));
    flow.insert("name".into(), Value::String(name));
    (flow, origin)
}

/// The test of `flow` (the flow at `base` in the file, or the file's).
fn test(
    src: &Source<'_>,
    base: &str,
    flow: Map<String, Value>,
    origin: Origin,
    matrix: IndexMap<String, Value>,
) -> TestDoc {
    let doc = src.doc;
    // A one-flow file without a matrix is its own test: nothing to map.
    let identity = origin.is_identity();
    let spans = if identity {
        doc.spans.clone()
    } else {
        origin.spans(src.nodes(base))
    };
    TestDoc {
        doc: Document {
            file: doc.file.clone(),
            value: Value::Object(flow),
            spans,
        },
        matrix,
        origin,
    }
}

/// Two tests of one file must not share a name: reports, `--grep` and `merge-reports` tell
/// tests apart by file and name.
fn unique_names(doc: &Document, tests: &[TestDoc], problems: &mut Vec<Diagnostic>) {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (i, t) in tests.iter().enumerate() {
        let Some(name) = t
            .doc
            .value
            .get("name")
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty())
        else {
            continue;
        };
        if let Some(first) = seen.insert(name, i) {
            let first_line = tests[first]
                .doc
                .spans
                .get("/name")
                .map_or(0, |s| doc.file.line_col(s.value.start).0);
            let ptr = t.origin.file_pointer("/name");
            problems.push(
                at_value(
                    &doc.file,
                    &doc.spans,
                    &ptr,
                    format!("two tests of this file are named `{name}`"),
                )
                .with_help(format!(
                    "the other is on line {first_line}: give each flow a name of its own"
                )),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::tests as made;
    use super::*;
    use serde_json::json;

    const SUITE: &str = "\
name: Shop
vars: { base: http://a, user: root }
tags: [shop]
browser: { timeout: 5s, locale: de-DE }
before_each:
  - log: before
after_each:
  - log: after
flows:
  - name: first
    tags: [slow, shop]
    browser: { locale: fr-FR }
    steps:
      - log: one
    finally:
      - log: own
  - name: second
    vars: { user: ada }
    matrix: { size: [s, m] }
    steps:
      - log: two
";

    fn parsed(text: &str) -> Document {
        crate::config::document::parse_bytes(
            std::path::Path::new("suite.yaml"),
            text.as_bytes().to_vec(),
            crate::config::document::Format::Yaml,
        )
        .unwrap()
    }

    /// The line (1-based) of the node at `ptr` in a test's document.
    fn line(t: &TestDoc, ptr: &str) -> usize {
        let s = t
            .doc
            .spans
            .get(ptr)
            .unwrap_or_else(|| panic!("no span at {ptr}"));
        t.doc.file.line_col(s.value.start).0
    }

    #[test]
    fn a_suite_flow_is_the_flow_a_file_would_hold() {
        let doc = parsed(SUITE);
        let (tests, problems) = made(&doc);
        assert!(problems.is_empty(), "{problems:?}");
        let names: Vec<&str> = tests
            .iter()
            .map(|t| t.doc.value["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "Shop > first",
                "Shop > second [size=s]",
                "Shop > second [size=m]"
            ]
        );
        let first = &tests[0].doc.value;
        assert_eq!(first["steps"], json!([{"log": "before"}, {"log": "one"}]));
        assert_eq!(first["finally"], json!([{"log": "own"}, {"log": "after"}]));
        assert_eq!(first["tags"], json!(["shop", "slow"]));
        assert_eq!(
            first["browser"],
            json!({"timeout": "5s", "locale": "fr-FR"})
        );
        assert_eq!(first.get("matrix"), None);
        let second = &tests[2].doc.value;
        assert_eq!(
            second["vars"],
            json!({"size": "m", "base": "http://a", "user": "ada"})
        );
        assert_eq!(
            tests[2].matrix,
            IndexMap::from([("size".to_string(), json!("m"))])
        );
    }

    #[test]
    fn each_node_keeps_its_line_in_the_suite() {
        let doc = parsed(SUITE);
        let (tests, _) = made(&doc);
        let t = &tests[0];
        assert_eq!(line(t, "/steps/0/log"), 6, "before_each");
        assert_eq!(line(t, "/steps/1/log"), 14, "the flow's step");
        assert_eq!(line(t, "/finally/0"), 16, "its own finally");
        assert_eq!(line(t, "/finally/1"), 8, "after_each");
        assert_eq!(line(t, "/browser/locale"), 12);
        assert_eq!(line(t, "/browser/timeout"), 4);
        assert_eq!(line(t, "/tags/1"), 11);
        let t = &tests[1];
        assert_eq!(line(t, "/vars/size"), 19, "the matrix value");
        assert_eq!(line(t, "/vars/user"), 18, "the flow's own var");
        assert_eq!(line(t, "/vars/base"), 2, "the suite's var");
        assert_eq!(line(t, "/steps/1"), 21);
        assert!(t.doc.spans.get("/steps/2").is_none());
        // And back: a problem found in a test names the node of the file.
        assert_eq!(
            t.origin.file_pointer("/steps/1/log"),
            "/flows/1/steps/0/log"
        );
        assert_eq!(t.origin.file_pointer("/steps/0"), "/before_each/0");
        assert_eq!(t.origin.file_pointer("/finally/0/log"), "/after_each/0/log");
        assert_eq!(
            t.origin.file_pointer("/vars/size"),
            "/flows/1/matrix/size/0"
        );
        assert_eq!(t.origin.file_pointer("/name"), "/flows/1/name");
        assert_eq!(
            t.origin.file_pointer("/browser/timeout"),
            "/browser/timeout"
        );
    }

    #[test]
    fn a_one_flow_file_is_its_own_test() {
        let doc = parsed("name: a\nsteps:\n  - log: x\n");
        let (tests, problems) = made(&doc);
        assert!(problems.is_empty());
        assert_eq!(tests.len(), 1);
        assert_eq!(tests[0].doc.value, doc.value);
        assert_eq!(line(&tests[0], "/steps/0/log"), 3);
        assert_eq!(tests[0].origin.file_pointer("/steps/0"), "/steps/0");
        let doc = parsed("name: a\nmatrix:\n  n: [1, 2]\nsteps:\n  - log: x\n");
        let (tests, _) = made(&doc);
        assert_eq!(tests[1].doc.value["name"], "a [n=2]");
        assert_eq!(line(&tests[1], "/steps/0/log"), 5);
        assert_eq!(tests[1].origin.file_pointer("/vars/n"), "/matrix/n/1");
    }

    #[test]
    fn a_file_makes_at_most_1024_tests() {
        let flow = "  - name: f{i}\n    matrix: { n: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] }\n    steps: [log: x]\n";
        let text: String = (0..103).fold("flows:\n".to_string(), |t, i| {
            t + &flow.replace("{i}", &i.to_string())
        });
        let (tests, problems) = made(&parsed(&text));
        assert!(tests.is_empty());
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].message, "the file makes more than 1024 tests");
        let text: String = (0..102).fold("flows:\n".to_string(), |t, i| {
            t + &flow.replace("{i}", &i.to_string())
        });
        assert_eq!(made(&parsed(&text)).0.len(), 1020);
    }

    #[test]
    fn names_are_unique_and_matrices_own_their_vars() {
        let doc = parsed(
            "flows:\n  - { name: a, steps: [log: x] }\n  - { name: a, steps: [log: y] }\n  - name: m\n    vars: { n: 0 }\n    matrix: { n: [1] }\n    steps: [log: z]\n",
        );
        let (_, problems) = made(&doc);
        let said: Vec<(String, usize)> = problems
            .iter()
            .map(|d| (d.message.clone(), d.line_col().unwrap().0))
            .collect();
        assert_eq!(
            said,
            [
                ("`n` is set by the flow's `matrix`".to_string(), 5),
                ("two tests of this file are named `a`".to_string(), 3),
            ]
        );
    }
}
