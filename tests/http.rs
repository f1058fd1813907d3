//! HTTP requests (`request`), their checks, `open`'s expected status, and templates that render
//! to numbers or booleans in fields that take text.

use crate::common::{Ran, flow_run, step, write};

/// A template that renders to a number or a boolean is fine where the schema takes a string:
/// `exec` arguments, env values, the same mechanism for every field.
#[test]
fn templates_rendering_to_numbers_fill_text_fields() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "numbers.yaml",
        r#"
name: numbers in text fields
vars: { port: 8765, on: true, ratio: 1.5 }
steps:
  - id: argv
    exec: [echo, --port, "{{ vars.port }}", "{{ vars.on }}", "{{ vars.ratio }}"]
  - id: full
    exec:
      command: [sh, -c, 'echo "$PORT $ON" "$1"', sh, "{{ vars.port + 1 }}"]
      env: { PORT: "{{ vars.port }}", ON: "{{ vars.on }}" }
      cwd: "."
      stdin: "{{ vars.port }}"
"#,
    );
    let report = flow_run(d.path()).arg("numbers.yaml").passes();
    assert_eq!(
        step(&report, "argv")["outputs"]["stdout"],
        "--port 8765 true 1.5"
    );
    assert_eq!(step(&report, "full")["outputs"]["stdout"], "8765 true 8766");
}
