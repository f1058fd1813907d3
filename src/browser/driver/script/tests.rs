use std::path::{Path, PathBuf};

use serde_json::json;

use super::{bind, call, node_check};

#[test]
fn arguments_are_json_never_script_text() {
    let s = call("(a, b) => a + b\n", &[json!("x'); alert(1); ('"), json!(2)]);
    assert_eq!(s, "((a, b) => a + b\n)(\"x'); alert(1); ('\", 2)");
}

#[test]
fn helpers_are_whole_function_expressions() {
    let add = bind("(f) => (a) => f(a) + 1;", &["(x) => x * 2 // doubles"]);
    assert_eq!(
        add,
        "((f) => (a) => f(a) + 1\n)(((x) => x * 2 // doubles\n))"
    );
    let s = call(&add, &[json!(3)]);
    node_check(&s).unwrap();
}

/// Every file under `dir` (recursively) whose name ends in `ext`.
fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(files(&path, ext));
        } else if path.extension().is_some_and(|e| e == ext) {
            out.push(path);
        }
    }
    out.sort();
    out
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Each page script is one function expression that parses on its own.
#[test]
fn every_page_script_is_valid_javascript() {
    let scripts = files(&src(), "js");
    assert!(
        scripts.len() > 20,
        "page scripts not found under src/: {scripts:?}"
    );
    for path in scripts {
        let text = std::fs::read_to_string(&path).unwrap();
        if let Err(e) = node_check(&text) {
            panic!("{}: {e}", path.display());
        }
        // Called as `(script)(args)`: a file must hold an expression (a function), not
        // statements.
        if let Err(e) = node_check(&call(&text, &[])) {
            panic!("{} is not one expression: {e}", path.display());
        }
    }
}

/// The string literals of Rust source (comments and char literals skipped), roughly: enough
/// to tell whether JavaScript is hiding in one.
fn string_literals(rust: &str) -> Vec<String> {
    let b = rust.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i += 2;
            }
            // A char literal (`'"'`, `'\''`, `'\u{…}'`); a lifetime has no closing quote.
            b'\'' => {
                let close = if b.get(i + 1) == Some(&b'\\') {
                    rust[i + 2..].find('\'').map(|n| i + 2 + n)
                } else {
                    let c = rust[i + 1..].chars().next().map_or(1, char::len_utf8);
                    (b.get(i + 1 + c) == Some(&b'\'')).then_some(i + 1 + c)
                };
                i = close.map_or(i + 1, |c| c + 1);
            }
            b'r' if (b.get(i + 1) == Some(&b'"') || b.get(i + 1) == Some(&b'#'))
                && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')) =>
            {
                let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
                let start = i + 1 + hashes;
                if b.get(start) != Some(&b'"') {
                    i += 1;
                    continue;
                }
                let end = format!("\"{}", "#".repeat(hashes));
                let close = rust[start + 1..]
                    .find(&end)
                    .map_or(b.len(), |n| start + 1 + n);
                out.push(rust[start + 1..close].to_string());
                i = close + end.len();
            }
            b'"' => {
                let start = i + 1;
                i = start;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                out.push(rust[start..i.min(b.len())].to_string());
                i += 1;
            }
            _ => i += 1,
        }
    }
    out
}

#[test]
fn literals_are_found_and_comments_skipped() {
    let rust = r##"let a = "x \" y"; // "not this"
        let c = '"'; let d = '\''; fn f<'a>(s: &'a str) {}
        let e = r#"raw "quoted""#; /* "nor this" */ let g = br"bytes";"##;
    assert_eq!(
        string_literals(rust),
        vec![r#"x \" y"#, r#"raw "quoted""#, "bytes"]
    );
}

/// No page script is left inside a Rust string (they live in `.js` files). Test modules are
/// not read: they hold what a fake daemon answers and the `eval` steps of tests.
#[test]
fn no_javascript_in_rust_strings() {
    const LOOKS_LIKE_JS: [&str; 8] = [
        "=> {",
        "=> (",
        "})()",
        "document.",
        "querySelector",
        "window.",
        "location.",
        "navigator.",
    ];
    let mut found = Vec::new();
    for path in files(&src().join("browser"), "rs") {
        if path.file_name().is_some_and(|n| n == "tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let code = text.split("#[cfg(test)]\nmod tests").next().unwrap_or("");
        for lit in string_literals(code) {
            // The path of a script file (`include_str!`) is not a script.
            let is_js = Path::new(&lit).extension().is_some_and(|e| e == "js");
            if is_js && !lit.contains(char::is_whitespace) {
                continue;
            }
            if let Some(p) = LOOKS_LIKE_JS.iter().find(|p| lit.contains(*p)) {
                found.push(format!("{}: `{p}` in {lit:?}", path.display()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "JavaScript in Rust strings:\n{}",
        found.join("\n")
    );
}
