//! `checked` and `unchecked` on a tri-state box (a React 18 "select all" drawn as a dash when
//! some rows are selected): as Playwright's `getChecked`, a box that is `indeterminate` or
//! `aria-checked="mixed"` is "mixed", neither checked nor unchecked (attack 32, finding 6).

use crate::common::{Ran, fixture, flow_run, step, write};

/// Each case with whether it must pass; a failure must say the box is mixed.
#[test]
fn a_mixed_box_is_neither_checked_nor_unchecked() {
    let d = tempfile::tempdir().unwrap();
    // (id, check, passes): 1 of 3 rows selected, then the native box also `checked`.
    let cases = [
        ("native_not_unchecked", "unchecked: \"#all\"", false),
        ("native_not_checked", "checked: \"#all\"", false),
        ("aria_not_unchecked", "unchecked: \"#aria\"", false),
        ("aria_not_checked", "checked: \"#aria\"", false),
        (
            "role_not_unchecked",
            "unchecked: { role: checkbox, text: \"All files\" }",
            false,
        ),
        ("row_checked", "checked: { label: \"row 0\" }", true),
        ("row_unchecked", "unchecked: { label: \"row 1\" }", true),
    ];
    let mut steps = String::new();
    for (id, check, _) in cases {
        steps.push_str(&format!(
            "  - id: {id}\n    expect: {{ {check} }}\n    continue_on_error: true\n"
        ));
    }
    steps.push_str(
        "  - eval: \"document.getElementById('all').checked = true\"
  - id: indeterminate_and_checked
    expect: { checked: \"#all\" }
    continue_on_error: true
  - click: { label: \"row 1\" }
  - click: { label: \"row 2\" }
  - id: all_checked
    expect: { checked: \"#all\" }
    continue_on_error: true
  - id: aria_all_checked
    expect: { checked: \"#aria\" }
    continue_on_error: true
",
    );
    write(
        d.path(),
        "f.yaml",
        &format!(
            "name: mixed\nweb_server: {{ static: \"{}\" }}\ndefaults: {{ timeout: 500ms }}\nsteps:
  - open: \"{{{{ web_server.url }}}}/frameworks/tri-state.html\"
  - expect: {{ text: {{ target: \"#app\", contains: \"row 2\" }} }}
{steps}",
            fixture("").display()
        ),
    );
    let Ran { report, .. } = flow_run(d.path()).arg("f.yaml").run();
    let all = cases.iter().map(|(id, _, pass)| (*id, *pass)).chain([
        ("indeterminate_and_checked", false),
        ("all_checked", true),
        ("aria_all_checked", true),
    ]);
    let mut wrong = Vec::new();
    for (id, pass) in all {
        let s = step(&report, id);
        let msg = s["error"]["message"].as_str().unwrap_or("").to_string();
        let ok = if pass {
            s["outcome"] == "passed"
        } else {
            s["outcome"] == "failed" && msg.contains("mixed")
        };
        if !ok {
            wrong.push(format!("{id}: {} {msg}", s["outcome"]));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}
