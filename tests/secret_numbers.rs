//! A secret of digits that reaches a step's outputs as a JSON number (an API's answer, a
//! sub-flow's output made with `| int`) is masked as its text is.

use crate::common::{Ran, write};
use crate::secret_search::{nowhere_written, run_everywhere};

const PIN: &str = "48213977";

/// A `request` whose answer holds the PIN as a number, and a sub-flow whose output is the PIN
/// as a number: the PIN's digits are in no report, artifact nor console line.
#[test]
fn a_secret_that_is_a_number_in_outputs_is_masked() {
    let d = tempfile::tempdir().unwrap();
    let port = crate::common::free_port();
    write(
        d.path(),
        "_sub.yaml",
        r#"name: sub
secrets: [PIN]
steps:
  - log: "hi"
outputs:
  acct: "{{ secrets.PIN | int }}"
  more: "{{ secrets.PIN | int + 0 }}"
"#,
    );
    let api = crate::common::fixture("api_server.py");
    write(
        d.path(),
        "numbers.yaml",
        &format!(
            r#"name: numbers
secrets: [PIN]
web_server:
  command: ["python3", "{api}", "{port}"]
  url: "http://127.0.0.1:{port}/items"
  ready_timeout: 20s
steps:
  - id: r
    request:
      method: POST
      url: "http://127.0.0.1:{port}/echo"
      headers: {{ Content-Type: application/json }}
      body: '{{"account": {{{{ secrets.PIN }}}}, "list": [{{{{ secrets.PIN }}}}]}}'
  - id: s
    run_flow: {{ path: _sub.yaml }}
  - log: "got {{{{ steps.r.json.json | length }}}}"
"#,
            api = api.display()
        ),
    );
    let Ran {
        code,
        stdout,
        stderr,
        report,
    } = run_everywhere(d.path(), "numbers.yaml", "PIN", PIN);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("│ got 2"), "{stderr}");
    let r = crate::common::step(&report, "r");
    assert_eq!(r["outputs"]["json"]["json"]["account"], "***", "{report}");
    let s = crate::common::step(&report, "s");
    assert_eq!(s["outputs"]["acct"], "***", "{report}");
    nowhere_written(
        d.path(),
        &[("stdout", &stdout), ("stderr", &stderr)],
        &[("the PIN", PIN.to_string())],
    );
}
