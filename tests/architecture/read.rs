//! How the architecture test reads `src/`: comments, strings and test modules blanked, `use`
//! trees and `crate::`/`super::`/`self::` paths found with their lines, each resolved to the
//! module it names (through re-exports).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A module path, `["browser", "page", "locate"]`; the crate root is empty.
pub(super) type Module = Vec<String>;

/// A source file of the library, test code blanked out.
pub(super) struct File {
    /// `src/browser/page/locate.rs`.
    pub(super) rel: String,
    pub(super) module: Module,
    /// The text with comments, string literals and test modules blanked (lines kept).
    pub(super) code: String,
}

/// One path a file uses, resolved.
pub(super) struct Import {
    pub(super) file: usize,
    pub(super) line: usize,
    /// The path as written, `super::super::steps::Run`.
    pub(super) written: String,
    /// The module the path ends in.
    pub(super) target: Module,
}

/// The library's files and what they import.
pub(super) struct Tree {
    pub(super) files: Vec<File>,
    pub(super) modules: BTreeSet<Module>,
    pub(super) imports: Vec<Import>,
}

/// Replaces comments, string and char literals by spaces (newlines kept), so neither a path in
/// a doc comment nor a brace in a string counts.
fn blank(text: &str) -> String {
    let b: Vec<char> = text.chars().collect();
    let mut out: Vec<char> = b.clone();
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let wipe = |from: usize, to: usize, out: &mut Vec<char>| {
        for c in &mut out[from..to.min(b.len())] {
            if *c != '\n' {
                *c = ' ';
            }
        }
    };
    let mut i = 0;
    while i < b.len() {
        let at = |k: usize| b.get(k).copied();
        let start = i;
        if b[i] == '/' && at(i + 1) == Some('/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if b[i] == '/' && at(i + 1) == Some('*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && at(i + 1) == Some('*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == '*' && at(i + 1) == Some('/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if (i == 0 || !ident(b[i - 1])) && (b[i] == 'r' || b[i] == 'b' || b[i] == '"') {
            // `"..."`, `b"..."`, `r#"..."#`, `br"..."`.
            let mut j = i;
            if b[j] == 'b' {
                j += 1;
            }
            let raw = at(j) == Some('r');
            if raw {
                j += 1;
            }
            let hashes = b[j..].iter().take_while(|c| **c == '#').count();
            j += hashes;
            if at(j) != Some('"') || (!raw && hashes > 0) {
                i += 1;
                continue;
            }
            j += 1;
            while j < b.len() {
                if !raw && b[j] == '\\' {
                    j += 2;
                } else if b[j] == '"'
                    && b[j + 1..].iter().take_while(|c| **c == '#').count() >= hashes
                {
                    // The closing quote and as many `#` as opened the raw string.
                    j += 1 + hashes;
                    break;
                } else {
                    j += 1;
                }
            }
            i = j;
        } else if b[i] == '\'' && at(i + 1) == Some('\\') {
            i = (i + 3..b.len())
                .find(|k| b[*k] == '\'')
                .map_or(b.len(), |k| k + 1);
        } else if b[i] == '\'' && at(i + 2) == Some('\'') {
            i += 3;
        } else {
            i += 1;
            continue;
        }
        wipe(start, i, &mut out);
    }
    out.into_iter().collect()
}

/// Blanks the `#[cfg(test)] mod x { .. }` blocks of `code` (braces matched) and returns the
/// names of the `#[cfg(test)] mod x;` it declares, whose files are test code.
fn strip_tests(code: &str) -> (String, Vec<String>) {
    let mut b: Vec<char> = code.chars().collect();
    let mut test_files = Vec::new();
    let attr: Vec<char> = "#[cfg(test)]".chars().collect();
    let mut i = 0;
    while i + attr.len() <= b.len() {
        if b[i..i + attr.len()] != attr[..] {
            i += 1;
            continue;
        }
        let start = i;
        let mut j = i + attr.len();
        let skip_ws = |j: &mut usize, b: &[char]| {
            while *j < b.len() && b[*j].is_whitespace() {
                *j += 1;
            }
        };
        let word = |j: &mut usize, b: &[char]| {
            let from = *j;
            while *j < b.len() && (b[*j].is_alphanumeric() || b[*j] == '_') {
                *j += 1;
            }
            b[from..*j].iter().collect::<String>()
        };
        skip_ws(&mut j, &b);
        // Further attributes, then a visibility, then `mod name`.
        while b.get(j) == Some(&'#') {
            j = (j..b.len())
                .find(|k| b[*k] == ']')
                .map_or(b.len(), |k| k + 1);
            skip_ws(&mut j, &b);
        }
        let mut w = word(&mut j, &b);
        if w == "pub" {
            if b.get(j) == Some(&'(') {
                j = (j..b.len())
                    .find(|k| b[*k] == ')')
                    .map_or(b.len(), |k| k + 1);
            }
            skip_ws(&mut j, &b);
            w = word(&mut j, &b);
        }
        if w != "mod" {
            i = j.max(i + 1);
            continue;
        }
        skip_ws(&mut j, &b);
        let name = word(&mut j, &b);
        skip_ws(&mut j, &b);
        match b.get(j) {
            Some(';') => test_files.push(name),
            Some('{') => {
                let mut depth = 0;
                while j < b.len() {
                    match b[j] {
                        '{' => depth += 1,
                        '}' => depth -= 1,
                        _ => {}
                    }
                    j += 1;
                    if depth == 0 {
                        break;
                    }
                }
                for c in &mut b[start..j] {
                    if *c != '\n' {
                        *c = ' ';
                    }
                }
            }
            _ => {}
        }
        i = j.max(i + 1);
    }
    (b.into_iter().collect(), test_files)
}

/// A token of blanked code: a word, `::`, or one punctuation character; with its line.
#[derive(Clone, PartialEq, Debug)]
struct Token {
    text: String,
    line: usize,
}

fn tokens(code: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut line = 1;
    let mut chars = code.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\n' {
            line += 1;
        } else if c.is_alphanumeric() || c == '_' {
            let mut text = c.to_string();
            while let Some(&n) = chars.peek().filter(|n| n.is_alphanumeric() || **n == '_') {
                text.push(n);
                chars.next();
            }
            out.push(Token { text, line });
        } else if c == ':' && chars.peek() == Some(&':') {
            chars.next();
            out.push(Token {
                text: "::".into(),
                line,
            });
        } else if !c.is_whitespace() {
            out.push(Token {
                text: c.to_string(),
                line,
            });
        }
    }
    out
}

fn is_word(t: Option<&Token>) -> bool {
    t.is_some_and(|t| t.text.starts_with(|c: char| c.is_alphabetic() || c == '_'))
}

/// The leaves of the use tree at `t[*i..]`, each as (segments, alias, line), prefixed by
/// `prefix`: `crate::{a::{b, c as d}, e}` gives `crate::a::b`, `crate::a::c` as `d`, `crate::e`.
fn use_tree(
    t: &[Token],
    i: &mut usize,
    prefix: &[String],
    out: &mut Vec<(Vec<String>, Option<String>, usize)>,
) {
    let mut path = prefix.to_vec();
    let mut line = t.get(*i).map_or(0, |t| t.line);
    loop {
        match t.get(*i).map(|t| t.text.as_str()) {
            Some("{") => {
                *i += 1;
                while t.get(*i).is_some_and(|t| t.text != "}") {
                    use_tree(t, i, &path, out);
                    if t.get(*i).is_some_and(|t| t.text == ",") {
                        *i += 1;
                    }
                }
                *i += 1;
                return;
            }
            Some("*") => {
                *i += 1;
                out.push((path, None, line));
                return;
            }
            Some("::") => *i += 1,
            _ if is_word(t.get(*i)) => {
                line = t[*i].line;
                path.push(t[*i].text.clone());
                *i += 1;
                if t.get(*i).is_some_and(|t| t.text == "::") {
                    continue;
                }
                let mut alias = None;
                if t.get(*i).is_some_and(|t| t.text == "as") {
                    alias = t.get(*i + 1).map(|t| t.text.clone());
                    *i += 2;
                }
                out.push((path, alias, line));
                return;
            }
            _ => {
                // Not a use tree after all (`,` `}` `;` or the end): stop without a leaf.
                return;
            }
        }
    }
}

/// `segments` as written in `module`, made absolute; `None` for another crate's path.
fn absolute(module: &[String], segments: &[String], modules: &BTreeSet<Module>) -> Option<Module> {
    let mut base: Module = module.to_vec();
    let mut rest = segments;
    match rest.first().map(String::as_str) {
        Some("crate") => {
            base.clear();
            rest = &rest[1..];
        }
        Some("self") => rest = &rest[1..],
        Some("super") => {}
        Some(first) => {
            // A child module of this one (2018 paths); anything else is another crate.
            let mut child = base.clone();
            child.push(first.to_string());
            if !modules.contains(&child) {
                return None;
            }
        }
        None => return None,
    }
    while rest.first().is_some_and(|s| s == "super") {
        base.pop()?;
        rest = &rest[1..];
    }
    // `use a::{self, X}`: the `self` leaf is `a` itself.
    base.extend(rest.iter().filter(|s| *s != "self").cloned());
    Some(base)
}

/// The module the absolute `path` ends in, following re-exports.
fn target(
    mut path: Module,
    modules: &BTreeSet<Module>,
    reexports: &BTreeMap<Module, Module>,
) -> Module {
    for _ in 0..8 {
        let m = (0..=path.len())
            .rev()
            .find(|n| modules.contains(&path[..*n].to_vec()))
            .unwrap_or(0);
        let Some(next) = path.get(m) else {
            return path;
        };
        let mut key = path[..m].to_vec();
        key.push(next.clone());
        match reexports.get(&key) {
            Some(to) if *to != key => {
                let mut again = to.clone();
                again.extend(path[m + 1..].iter().cloned());
                path = again;
            }
            _ => return path[..m].to_vec(),
        }
    }
    path
}

/// A path found in a file: (segments as written, line, alias, in a `pub` use).
type Found = (Vec<String>, usize, Option<String>, bool);

/// Every path in a file's code: the leaves of its `use` items, and the paths elsewhere that
/// start with `crate`, `super`, `self` or a child module.
fn found(code: &str, module: &[String], modules: &BTreeSet<Module>) -> Vec<Found> {
    let t = tokens(code);
    let mut out = Vec::new();
    let mut i = 0;
    while i < t.len() {
        let prev = i.checked_sub(1).map(|k| t[k].text.as_str());
        if t[i].text == "use" && prev != Some("::") {
            let public = prev == Some("pub")
                || (prev == Some(")")
                    && (1..i)
                        .rev()
                        .find(|k| t[*k].text == "(")
                        .is_some_and(|k| k > 0 && t[k - 1].text == "pub"));
            i += 1;
            let mut leaves = Vec::new();
            use_tree(&t, &mut i, &[], &mut leaves);
            for (segments, alias, line) in leaves {
                out.push((segments, line, alias, public));
            }
            continue;
        }
        let starts_path = is_word(t.get(i))
            && prev != Some("::")
            && t.get(i + 1).is_some_and(|n| n.text == "::")
            && (["crate", "super", "self"].contains(&t[i].text.as_str()) || {
                let mut child = module.to_vec();
                child.push(t[i].text.clone());
                modules.contains(&child)
            });
        if !starts_path {
            i += 1;
            continue;
        }
        let line = t[i].line;
        let mut segments = vec![t[i].text.clone()];
        i += 1;
        while t.get(i).is_some_and(|n| n.text == "::") && is_word(t.get(i + 1)) {
            segments.push(t[i + 1].text.clone());
            i += 2;
        }
        out.push((segments, line, None, false));
    }
    out
}

/// `src/a/b.rs` -> `a::b`; `src/a/mod.rs` -> `a`; `src/lib.rs` -> the root.
fn module_of(rel: &Path) -> Module {
    let mut m: Module = rel
        .iter()
        .map(|c| c.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if m.last().is_some_and(|l| l == "mod" || l == "lib") {
        m.pop();
    }
    m
}

/// Reads the library under `src` (the binary's `main.rs` only calls it).
pub(super) fn tree(src: &Path) -> Tree {
    let mut files = Vec::new();
    let mut test_modules: BTreeSet<Module> = BTreeSet::new();
    for entry in walkdir::WalkDir::new(src).sort_by_file_name() {
        let entry = entry.expect("src/ is readable");
        let p = entry.path();
        let rel = p.strip_prefix(src).expect("under src");
        if p.extension().is_none_or(|e| e != "rs") || rel == Path::new("main.rs") {
            continue;
        }
        let text = std::fs::read_to_string(p).expect("a source file");
        let (code, tests) = strip_tests(&blank(&text));
        let module = module_of(rel);
        // `mod x;` declares `x` inside this file's module, wherever the file is.
        for t in tests {
            let mut m = module.clone();
            m.push(t);
            test_modules.insert(m);
        }
        files.push(File {
            rel: Path::new("src").join(rel).display().to_string(),
            module,
            code,
        });
    }
    files.retain(|f| {
        !f.rel.ends_with("/tests.rs") && !test_modules.iter().any(|t| f.module.starts_with(t))
    });
    let modules: BTreeSet<Module> = files
        .iter()
        .flat_map(|f| (0..=f.module.len()).map(|n| f.module[..n].to_vec()))
        .collect();
    let mut reexports = BTreeMap::new();
    let mut paths = Vec::new();
    for (n, f) in files.iter().enumerate() {
        for (segments, line, alias, public) in found(&f.code, &f.module, &modules) {
            let Some(abs) = absolute(&f.module, &segments, &modules) else {
                continue;
            };
            if public && let Some(name) = alias.or_else(|| abs.last().cloned()) {
                let mut key = f.module.clone();
                key.push(name);
                reexports.insert(key, abs.clone());
            }
            paths.push((n, line, segments.join("::"), abs));
        }
    }
    let imports = paths
        .into_iter()
        .map(|(file, line, written, abs)| Import {
            file,
            line,
            written,
            target: target(abs, &modules, &reexports),
        })
        .collect();
    Tree {
        files,
        modules,
        imports,
    }
}
