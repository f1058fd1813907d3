//! Page scripts: page-side JavaScript lives in `.js` files beside the Rust that runs it (as
//! Playwright keeps its page code in `injected/`), loaded with `include_str!`. Each file holds one
//! function expression; runner calls it with JSON arguments, so no value is ever spliced into
//! script text and every file can be checked on its own (`node --check`, a test).
//!
//! A script that uses shared helpers (the frame-document helper, the element-state checks) is
//! written to take them first and return the function that does the work,
//! `(helper, …) => (arg, …) => …`; `bind` gives it its helpers, `call` its arguments. Scripts
//! are composed only as whole function expressions, never by editing one's text.

use serde_json::Value;

/// `(cap) => { texts } | { tooLarge }`: the page's text as it is rendered, the texts of its
/// shown text nodes, to be joined with nothing between them (what a picture of the page would
/// show; see the script).
pub(crate) const SHOWN_TEXT: &str = include_str!("scripts/shown_text.js");

/// The source that calls `script` (a function expression) with `args`, each serialized as JSON.
pub(crate) fn call(script: &str, args: &[Value]) -> String {
    let args: Vec<String> = args.iter().map(Value::to_string).collect();
    format!("{}({})", parenthesized(script), args.join(", "))
}

/// The function `script` returns when given `helpers` (function expressions, as source): a
/// function expression itself, to `call` or to pass on as another script's helper.
pub(crate) fn bind(script: &str, helpers: &[&str]) -> String {
    let helpers: Vec<String> = helpers.iter().map(|h| parenthesized(h)).collect();
    format!("{}({})", parenthesized(script), helpers.join(", "))
}

/// `script` as one parenthesized expression. The closing parenthesis goes on a line of its own,
/// so a file that ends in a `//` comment does not swallow it.
fn parenthesized(script: &str) -> String {
    format!("({}\n)", script.trim().trim_end_matches(';'))
}

/// Runs `node --check` on `source` (a whole script, as a test composed it): `Err` with node's
/// message when it is not valid JavaScript.
#[cfg(test)]
pub(crate) fn node_check(source: &str) -> Result<(), String> {
    use std::io::Write;
    let mut file = tempfile::Builder::new()
        .suffix(".js")
        .tempfile()
        .map_err(|e| e.to_string())?;
    file.write_all(source.as_bytes())
        .map_err(|e| e.to_string())?;
    let out = std::process::Command::new("node")
        .arg("--check")
        .arg(file.path())
        .output()
        .map_err(|e| format!("cannot run node (it is needed to check page scripts): {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// Runs `prelude` (statements: a stand-in page) then `source` (an expression) in node; its
/// value as JSON, or node's error output.
#[cfg(test)]
pub(crate) fn node_run(prelude: &str, source: &str) -> Result<String, String> {
    use std::io::Write;
    let mut file = tempfile::Builder::new()
        .suffix(".js")
        .tempfile()
        .map_err(|e| e.to_string())?;
    let program = format!("{prelude}\nprocess.stdout.write(JSON.stringify({source}\n));\n");
    file.write_all(program.as_bytes())
        .map_err(|e| e.to_string())?;
    let out = std::process::Command::new("node")
        .arg(file.path())
        .output()
        .map_err(|e| format!("cannot run node (it is needed to check page scripts): {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

#[cfg(test)]
mod tests;
