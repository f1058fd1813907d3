//! The module graph, derived from the `crate::` and `super::` paths in `src/`, has no cycle:
//! neither between top-level modules (`engine` may use the families, no family uses `engine`)
//! nor between the files of one module. Test code (`#[cfg(test)]` modules) is left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::common::root;

type Graph = BTreeMap<String, BTreeSet<String>>;

/// The text of a file without its test module (everything from `#[cfg(test)]` on).
fn code(text: &str) -> &str {
    text.find("#[cfg(test)]").map_or(text, |i| &text[..i])
}

/// The first segment of every `crate::` path, and the first segment of every `super::` path.
fn paths(text: &str, prefix: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = text;
    while let Some(i) = rest.find(prefix) {
        // `foo_crate::x` is not `crate::x`.
        let before = rest[..i].chars().last();
        rest = &rest[i + prefix.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            // `use crate::{a::X, b}`: each item's first segment.
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                let first: String = item
                    .trim()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !first.is_empty() {
                    out.insert(first);
                }
            }
        } else {
            let first: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !first.is_empty() {
                out.insert(first);
            }
        }
    }
    out
}

/// A cycle in `g`, if there is one, as the list of its nodes.
fn cycle(g: &Graph) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        g: &Graph,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(n.to_string(), 1);
        stack.push(n.to_string());
        for m in g.get(n).into_iter().flatten() {
            match state.get(m.as_str()) {
                Some(1) => {
                    let from = stack.iter().position(|s| s == m).unwrap_or(0);
                    let mut c = stack[from..].to_vec();
                    c.push(m.clone());
                    return Some(c);
                }
                Some(_) => {}
                None => {
                    if let Some(c) = visit(m, g, state, stack) {
                        return Some(c);
                    }
                }
            }
        }
        stack.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in g.keys() {
        if !state.contains_key(n.as_str())
            && let Some(c) = visit(n, g, &mut state, &mut Vec::new())
        {
            return Some(c);
        }
    }
    None
}

/// (module graph, file graph per module) of the tree at `src`.
fn graphs(src: &Path) -> (Graph, BTreeMap<String, Graph>) {
    let mut modules = Graph::new();
    let mut files: BTreeMap<String, Graph> = BTreeMap::new();
    for entry in walkdir::WalkDir::new(src) {
        let entry = entry.expect("src/ is readable");
        let p = entry.path();
        if p.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let rel = p.strip_prefix(src).expect("under src");
        let parts: Vec<String> = rel
            .iter()
            .map(|c| c.to_string_lossy().trim_end_matches(".rs").to_string())
            .collect();
        if parts.len() < 2 {
            continue; // lib.rs, main.rs: the crate root
        }
        let module = parts[0].clone();
        let file = parts[1..].join("/");
        let text = std::fs::read_to_string(p).expect("a source file");
        let text = code(&text);
        let siblings: BTreeSet<String> = std::fs::read_dir(p.parent().expect("a directory"))
            .expect("a module directory")
            .flatten()
            .filter_map(|e| {
                let n = e.file_name().to_string_lossy().into_owned();
                n.strip_suffix(".rs").map(str::to_string)
            })
            .filter(|n| n != "mod")
            .collect();
        for target in paths(text, "crate::") {
            if target != module {
                modules.entry(module.clone()).or_default().insert(target);
            }
        }
        modules.entry(module.clone()).or_default();
        // `mod.rs` only declares and re-exports; its files' own uses make the file graph.
        if file == "mod" || parts.len() != 2 {
            continue;
        }
        let mut uses: BTreeSet<String> = paths(text, "super::");
        uses.extend(paths(text, &format!("crate::{module}::")));
        let g = files.entry(module.clone()).or_default();
        g.entry(file.clone()).or_default();
        for u in uses {
            if siblings.contains(&u) && u != file {
                g.entry(file.clone()).or_default().insert(u);
            }
        }
    }
    (modules, files)
}

#[test]
fn the_module_graph_has_no_cycle() {
    let (modules, files) = graphs(&root().join("src"));
    assert!(
        modules.len() >= 10,
        "the graph must see the modules: {modules:?}"
    );
    if let Some(c) = cycle(&modules) {
        panic!("module cycle: {}\ngraph: {modules:#?}", c.join(" -> "));
    }
    for (m, g) in &files {
        if let Some(c) = cycle(g) {
            panic!("file cycle in {m}/: {}", c.join(" -> "));
        }
    }
    // The direction the architecture promises (README, "Architecture").
    for family in [
        "browser", "agent", "atlas", "config", "template", "source", "step", "process",
    ] {
        let uses = &modules[family];
        assert!(
            !uses.contains("engine") && !uses.contains("cli") && !uses.contains("report"),
            "{family} must not depend on engine, cli or report: {uses:?}"
        );
    }
    assert!(
        !modules["report"].contains("cli") && !modules["report"].contains("engine"),
        "report depends on neither cli nor engine: {:?}",
        modules["report"]
    );
}

#[test]
fn the_cycle_check_finds_cycles() {
    // The check itself: a graph with a cycle is caught, and the parser reads grouped paths.
    let mut g = Graph::new();
    g.entry("a".into()).or_default().insert("b".into());
    g.entry("b".into()).or_default().insert("c".into());
    g.entry("c".into()).or_default().insert("a".into());
    assert_eq!(cycle(&g).map(|c| c.len()), Some(4));
    g.get_mut("c").unwrap().clear();
    assert_eq!(cycle(&g), None);
    let found = paths(
        "use crate::{engine::X, step};\nlet y = crate::atlas::f(); my_crate::nope;",
        "crate::",
    );
    assert_eq!(
        found,
        ["atlas", "engine", "step"]
            .into_iter()
            .map(String::from)
            .collect()
    );
}
