//! Page scripts: page-side JavaScript lives in `.js` files beside the Rust that runs it (as
//! Playwright keeps its page code in `injected/`), loaded with `include_str!`. Each file holds one
//! function expression; runner calls it with JSON arguments, so no value is ever spliced into
//! script text and every file can be checked on its own (`node --check`, a test).

use serde_json::Value;

// Until every page script has moved into a file (in progress).
#[allow(dead_code)]
/// The source that calls `script` (a function expression) with `args`, each serialized as JSON.
pub(crate) fn call(script: &str, args: &[Value]) -> String {
    let args: Vec<String> = args.iter().map(Value::to_string).collect();
    format!(
        "({})({})",
        script.trim().trim_end_matches(';'),
        args.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn arguments_are_json_never_script_text() {
        let s = super::call("(a, b) => a + b\n", &[json!("x'); alert(1); ('"), json!(2)]);
        assert_eq!(s, r#"((a, b) => a + b)("x'); alert(1); ('", 2)"#);
    }
}
