//! The secrets a set of flow files declare, read before (and whether or not) they load: what
//! runner says about a run before it starts (a var file's error quoting its line, an override's
//! type error) is masked with them, and it may be said because a flow does not load.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::document;

/// The most files followed through `run_flow` (a guard: the flows of a suite are far fewer).
const MAX_FILES: usize = 10_000;

/// The names under a `secrets:` anywhere in the flow files `files` and in the sub-flows their
/// `run_flow` steps name (a path with no template, at any depth), each once. A file that does
/// not parse gives none.
pub(crate) fn declared(files: &[PathBuf]) -> Vec<String> {
    let mut seen: HashSet<PathBuf> = HashSet::new();
    let mut todo: Vec<PathBuf> = files.to_vec();
    let mut names: Vec<String> = Vec::new();
    while let Some(path) = todo.pop() {
        if seen.len() >= MAX_FILES || !seen.insert(super::flows::absolute(&path)) {
            continue;
        }
        let Ok(doc) = document::read(&path) else {
            continue;
        };
        let dir = path.parent().unwrap_or(Path::new("."));
        walk(&doc.value, dir, &mut names, &mut todo);
    }
    names
}

/// Gathers `secrets:` names and `run_flow` paths (relative to `dir`) inside `v`.
fn walk(v: &Value, dir: &Path, names: &mut Vec<String>, todo: &mut Vec<PathBuf>) {
    match v {
        Value::Object(m) => {
            for (k, item) in m {
                match (k.as_str(), item) {
                    ("secrets", Value::Array(list)) => {
                        for n in list.iter().filter_map(Value::as_str) {
                            if !names.iter().any(|x| x == n) {
                                names.push(n.to_string());
                            }
                        }
                    }
                    ("run_flow", target) => {
                        let path = target
                            .as_str()
                            .or_else(|| target.get("path").and_then(Value::as_str));
                        if let Some(p) = path.filter(|p| !crate::template::is_template(p)) {
                            todo.push(dir.join(p));
                        }
                        walk(item, dir, names, todo);
                    }
                    _ => walk(item, dir, names, todo),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|i| walk(i, dir, names, todo)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::declared;

    #[test]
    fn the_secrets_of_flows_and_their_sub_flows_are_found() {
        let d = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let write = |n: &str, t: &str| {
            std::fs::write(d.path().join(n), t).unwrap_or_else(|e| panic!("{e}"));
        };
        write(
            "a.yaml",
            "name: a\nsecrets: [T]\nsteps:\n  - run_flow: { path: _b.yaml }\n",
        );
        write(
            "_b.yaml",
            "name: b\nsecrets: [U, T]\nsteps:\n  - run_flow: a.yaml\n",
        );
        write("bad.yaml", "name: [\n");
        let found = declared(&[d.path().join("a.yaml"), d.path().join("bad.yaml")]);
        assert_eq!(found, ["T", "U"]);
    }
}
