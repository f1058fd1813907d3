//! The architecture STYLE.md promises ("Which way the arrows point"), checked on the whole of
//! `src/`: every `use` and every `crate::`/`super::`/`self::` path, in every file at every
//! folder depth, resolved to the module it names (through re-exports such as `mod.rs`'s). Test
//! code is left out: `#[cfg(test)] mod x { .. }` blocks, and the files of `#[cfg(test)] mod x;`
//! or named `tests.rs`. The rules are the tables below; a failure names the file, the line and
//! the rule.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::common::root;

mod read;

use read::{Import, Module, Tree, tree};

/// Top-level modules in layers, highest first: a module imports only from layers below its own.
/// `report` sits beside the engine: the commands print through it, while the engine and the
/// families below it never print (the engine hands out events instead).
const LAYERS: &[(&str, &[&str])] = &[
    ("the commands", &["cli"]),
    ("the interpreter and the output", &["engine", "report"]),
    ("the step families", &["browser", "agent", "atlas", "http"]),
    (
        "the shared step types and config",
        &["step", "process", "config"],
    ),
    ("templates", &["template"]),
    ("sources and files", &["source", "fs"]),
];

/// The imports allowed inside one layer: each exists today and together they make no cycle.
const SAME_LAYER: &[(&str, &str)] = &[("atlas", "browser"), ("atlas", "agent")];

/// The layer folders of `src/browser/`, highest first: a file in one imports only from folders
/// of lower layers (`browser/mod.rs` re-exports from any). Folders that do not exist are skipped.
const BROWSER_LAYERS: &[&[&str]] = &[&["steps"], &["page", "pool"], &["driver"]];

/// The most lines a file under `src/` may have, its unit tests included.
const MAX_LINES: usize = 600;

/// Rule 5: no function (test code aside) is longer than this ...
const MAX_FN_LINES: usize = 80;
/// ... except these plain dispatch tables (one short `match` arm per kind), by file and name.
const DISPATCH_TABLES: &[(&str, &str)] = &[];

impl Tree {
    /// `src/x.rs:12: `crate::engine::X``: where an import is.
    fn at(&self, i: &Import) -> String {
        format!("{}:{}: `{}`", self.files[i.file].rel, i.line, i.written)
    }
}

fn layer_of(m: &str) -> Option<usize> {
    LAYERS.iter().position(|(_, ms)| ms.contains(&m))
}

/// Rule 1: top-level modules import only from layers below theirs (or along `SAME_LAYER`).
fn layer_violations(t: &Tree) -> Vec<String> {
    let mut out: Vec<String> = t
        .modules
        .iter()
        .filter(|m| m.len() == 1 && layer_of(&m[0]).is_none())
        .map(|m| {
            format!(
                "src/{}: rule LAYERS: the module `{}` is in no layer",
                m[0], m[0]
            )
        })
        .collect();
    for i in &t.imports {
        let (Some(a), Some(b)) = (t.files[i.file].module.first(), i.target.first()) else {
            continue;
        };
        let (Some(la), Some(lb)) = (layer_of(a), layer_of(b)) else {
            continue;
        };
        if a != b && !(la < lb || (la == lb && SAME_LAYER.contains(&(a.as_str(), b.as_str())))) {
            out.push(format!(
                "{}: rule LAYERS: `{a}` ({}) must not import `{b}` ({}): imports point down{}",
                t.at(i),
                LAYERS[la].0,
                LAYERS[lb].0,
                if la == lb { " or along SAME_LAYER" } else { "" }
            ));
        }
    }
    out
}

/// Rule 2: a layer folder of `browser/` imports only from the folders below it.
fn browser_violations(t: &Tree) -> Vec<String> {
    let layer = |m: &Module| {
        let folder = m.get(1).filter(|_| m[0] == "browser")?;
        let rank = BROWSER_LAYERS
            .iter()
            .position(|l| l.contains(&folder.as_str()))?;
        Some((rank, folder.clone()))
    };
    let mut out = Vec::new();
    for i in &t.imports {
        let (Some((rf, from)), Some((rt, to))) = (layer(&t.files[i.file].module), layer(&i.target))
        else {
            continue;
        };
        if from != to && rf >= rt {
            out.push(format!(
                "{}: rule BROWSER_LAYERS: browser/{from}/ must not import browser/{to}/: \
                 imports point down ({})",
                t.at(i),
                BROWSER_LAYERS
                    .iter()
                    .map(|l| l.join(", "))
                    .collect::<Vec<_>>()
                    .join(" > ")
            ));
        }
    }
    out
}

/// Rule 3: the files (and sub-folders) of one folder import each other without a cycle.
fn cycle_violations(t: &Tree) -> Vec<String> {
    // folder -> (child, child) -> where the first such import is.
    let mut folders: BTreeMap<Module, BTreeMap<(String, String), String>> = BTreeMap::new();
    for i in &t.imports {
        let from = &t.files[i.file].module;
        let p = from
            .iter()
            .zip(&i.target)
            .take_while(|(a, b)| a == b)
            .count();
        if p < from.len() && p < i.target.len() {
            folders
                .entry(from[..p].to_vec())
                .or_default()
                .entry((from[p].clone(), i.target[p].clone()))
                .or_insert_with(|| t.at(i));
        }
    }
    let mut out = Vec::new();
    for (folder, edges) in &folders {
        let mut g = Graph::new();
        for (a, b) in edges.keys() {
            g.entry(a.clone()).or_default().insert(b.clone());
        }
        if let Some(c) = cycle(&g) {
            let why: Vec<&str> = c
                .windows(2)
                .map(|w| edges[&(w[0].clone(), w[1].clone())].as_str())
                .collect();
            out.push(format!(
                "src/{}: rule no cycle in a folder: {}\n  {}",
                folder.join("/"),
                c.join(" -> "),
                why.join("\n  ")
            ));
        }
    }
    out
}

/// Rule 4: every file under `src` (page scripts too) is at most `MAX_LINES` long.
fn size_violations(src: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for entry in walkdir::WalkDir::new(src).sort_by_file_name() {
        let entry = entry.expect("src/ is readable");
        let Ok(text) = std::fs::read_to_string(entry.path()) else {
            continue; // a directory
        };
        let lines = text.lines().count();
        if lines > MAX_LINES {
            out.push(format!(
                "src/{}:{lines}: rule MAX_LINES: {lines} lines, more than {MAX_LINES}",
                entry.path().strip_prefix(src).expect("under src").display()
            ));
        }
    }
    out
}

/// Rule 5: every function outside test code is at most `MAX_FN_LINES` long, from its `fn` line
/// to its closing brace, unless `DISPATCH_TABLES` names it.
fn function_violations(t: &Tree) -> Vec<String> {
    let mut out = Vec::new();
    for f in &t.files {
        for (name, line, lines) in functions(&f.code) {
            let allowed = DISPATCH_TABLES
                .iter()
                .any(|(file, n)| f.rel == *file && name == *n);
            if lines > MAX_FN_LINES && !allowed {
                out.push(format!(
                    "{}:{line}: `{name}`: rule MAX_FN_LINES: {lines} lines long, more than {MAX_FN_LINES}",
                    f.rel
                ));
            }
        }
    }
    out
}

/// The functions with bodies in `code` (comments and strings blanked): name, first line and
/// length in lines.
fn functions(code: &str) -> Vec<(String, usize, usize)> {
    let b = code.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let line_at = |i: usize| code[..i].matches('\n').count() + 1;
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(at) = code[i..].find("fn ") {
        let start = i + at;
        i = start + 3;
        if start > 0 && word(b[start - 1]) {
            continue;
        }
        let name: String = code[i..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if name.is_empty() {
            continue; // `fn(` as a type
        }
        // The body opens at the first `{` before any `;` (a declaration without body).
        let Some(open) = code[i..].find(['{', ';']).map(|k| i + k) else {
            break;
        };
        if b[open] == b';' {
            continue;
        }
        let mut depth = 0usize;
        let mut close = open;
        for (k, c) in code[open..].bytes().enumerate() {
            match c {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        close = open + k;
                        break;
                    }
                }
                _ => {}
            }
        }
        out.push((name, line_at(start), line_at(close) - line_at(start) + 1));
        // Nested functions are counted on their own too.
        i = open + 1;
    }
    out
}

type Graph = BTreeMap<String, BTreeSet<String>>;

/// A cycle in `g`, if there is one, as the list of its nodes (the first one again at the end).
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

/// Fails with every violation of one rule, one per line.
fn assert_none(violations: &[String]) {
    assert!(
        violations.is_empty(),
        "{} violation(s):\n{}",
        violations.len(),
        violations.join("\n")
    );
}

/// The library, read: it must see the modules and the files at every depth.
fn library() -> Tree {
    let t = tree(&root().join("src"));
    let top = t.modules.iter().filter(|m| m.len() == 1).count();
    assert!(
        top >= 10 && t.files.len() >= 80 && t.imports.len() >= 500,
        "the check must see the code: {top} modules, {} files, {} imports",
        t.files.len(),
        t.imports.len()
    );
    t
}

#[test]
fn imports_point_down_the_layers() {
    assert_none(&layer_violations(&library()));
}

#[test]
fn browser_folders_import_only_down() {
    assert_none(&browser_violations(&library()));
}

#[test]
fn no_cycle_between_the_files_of_a_folder() {
    assert_none(&cycle_violations(&library()));
}

#[test]
fn every_source_file_is_at_most_600_lines() {
    assert_none(&size_violations(&root().join("src")));
}

#[test]
fn no_function_is_over_80_lines_but_dispatch_tables() {
    assert_none(&function_violations(&library()));
}

/// The checks themselves, on a small tree that breaks each rule once (and hides imports
/// where only a careless reader would count them).
#[test]
fn the_checks_catch_what_they_are_for() {
    let d = tempfile::tempdir().unwrap();
    let src = d.path().join("src");
    let files = [
        ("lib.rs", "mod browser;\nmod engine;\nmod source;\n"),
        (
            "engine/mod.rs",
            "pub(crate) struct X;\npub(crate) struct Y;\n",
        ),
        (
            "browser/mod.rs",
            "mod driver;\nmod page;\nmod pool;\nmod steps;\npub(crate) use steps::{Run as Go};\n",
        ),
        (
            "browser/driver/mod.rs",
            "mod cdp;\n#[cfg(test)]\nmod helpers;\n",
        ),
        // Through the re-export in browser/mod.rs: driver imports steps.
        ("browser/driver/cdp.rs", "\nuse super::super::Go;\n"),
        ("browser/page/mod.rs", "pub(crate) struct Find;\n"),
        // Siblings: neither imports the other.
        ("browser/pool/mod.rs", "use crate::browser::page::Find;\n"),
        ("browser/driver/helpers.rs", "use crate::engine::X;\n"),
        ("browser/driver/tests.rs", "use crate::engine::X;\n"),
        (
            "browser/steps/mod.rs",
            "//! `crate::engine::X` in a comment\n\
             #[cfg(test)]\n\
             mod tests {\n    use crate::engine::X;\n    fn f() { let _ = \"}\"; }\n}\n\
             pub(crate) struct Run;\n\
             fn g() -> [&'static str; 2] { [\"crate::engine::X\", r##\"\"# crate::engine::X\"##] }\n\
             use crate::{source::{a, b::{self}}, engine::{X, Y}};\n",
        ),
        ("source/mod.rs", "mod a;\nmod b;\n"),
        ("source/a.rs", "fn f() { crate::source::b::g(); }\n"),
        ("source/b.rs", "pub(crate) fn g() { self::super::a::f() }\n"),
    ];
    for (path, text) in files {
        let p = src.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    std::fs::write(src.join("long.js"), "x\n".repeat(MAX_LINES + 1)).unwrap();
    let long_fn = format!(
        "fn short() {{}}\nfn long() {{\n{}}}\n#[cfg(test)]\nmod tests {{\n    fn long_test() {{\n{}    }}\n}}\n",
        "    let _ = 1;\n".repeat(MAX_FN_LINES - 1),
        "    let _ = 1;\n".repeat(MAX_FN_LINES)
    );
    std::fs::write(
        src.join("source/a.rs"),
        format!("fn f() {{ crate::source::b::g(); }}\n{long_fn}"),
    )
    .unwrap();
    let t = tree(&src);
    let at = |v: Vec<String>| -> Vec<String> {
        v.iter()
            .map(|m| m.split(": rule").next().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        at(layer_violations(&t)),
        [
            "src/browser/steps/mod.rs:9: `crate::engine::X`",
            "src/browser/steps/mod.rs:9: `crate::engine::Y`",
        ]
    );
    assert_eq!(
        at(browser_violations(&t)),
        [
            "src/browser/driver/cdp.rs:2: `super::super::Go`",
            "src/browser/pool/mod.rs:1: `crate::browser::page::Find`",
        ]
    );
    assert_eq!(at(cycle_violations(&t)), ["src/source"]);
    assert!(cycle_violations(&t)[0].contains("a -> b -> a"));
    assert_eq!(at(function_violations(&t)), ["src/source/a.rs:3: `long`"]);
    assert_eq!(
        at(size_violations(&src)),
        [format!("src/long.js:{}", MAX_LINES + 1)]
    );
}
