//! A `within` that matches nothing (a typo, `#pannel` for `#panel`) is an error at the check's
//! timeout, as a missing `frame` is, never "no element": before, every negative check inside it
//! held while the error and the spinner showed (attack 32, finding 5). The page is React 18's
//! `tests/fixtures/frameworks/panel.html`.

use crate::common::{Ran, fixture, flow_run, step, write};

/// Each check must fail saying the `within` matches nothing, or pass where it says so.
#[test]
fn a_within_that_matches_nothing_fails_every_check() {
    let d = tempfile::tempdir().unwrap();
    let typo = [
        (
            "hidden",
            "expect: { hidden: { css: \".error\", within: \"#pannel\" } }",
        ),
        (
            "count",
            "expect: { count: { target: { css: \".error\", within: \"#pannel\" }, equals: 0 } }",
        ),
        (
            "not_visible",
            "expect: { not: { visible: { text: \"declined\", within: \"#pannel\" } } }",
        ),
        (
            "texts",
            "expect: { texts: { target: { css: \".error\", within: \"#pannel\" }, equals: [] } }",
        ),
        (
            "wait_hidden",
            "wait: { for: { css: \".spinner\", within: \"#pannel\" }, state: hidden }",
        ),
        (
            "role_hidden",
            "expect: { hidden: { role: paragraph, within: \"#pannel\" } }",
        ),
        (
            "role_within",
            "expect: { hidden: { css: \".error\", within: { role: region, text: Pay } } }",
        ),
        (
            "deep",
            "expect: { hidden: { css: \".error\", within: { css: \".box\", within: \"#panel\" } } }",
        ),
        (
            "visible",
            "expect: { visible: { css: \".error\", within: \"#pannel\" } }",
        ),
        ("click", "click: { css: \".error\", within: \"#pannel\" }"),
    ];
    let fine = [
        // A `within` rendered late is waited for; a right one answers as ever.
        (
            "late",
            "expect: { visible: { css: \".note\", within: \"#late\" } }",
        ),
        (
            "right_hidden",
            "expect: { hidden: { css: \".nothing\", within: \"#panel\" } }",
        ),
        (
            "right_count",
            "expect: { count: { target: { css: \".error\", within: \"#panel\" }, equals: 1 } }",
        ),
    ];
    let mut steps = String::new();
    for (id, body) in fine.iter().chain(typo.iter()) {
        steps.push_str(&format!(
            "  - {{ id: {id}, {body}, continue_on_error: true, timeout: 800ms }}\n"
        ));
    }
    write(
        d.path(),
        "f.yaml",
        &format!(
            "name: within\nweb_server: {{ static: \"{}\" }}\nsteps:
  - open: \"{{{{ web_server.url }}}}/frameworks/panel.html\"
  - expect: {{ visible: \".spinner\" }}
{steps}",
            fixture("").display()
        ),
    );
    let Ran { report, .. } = flow_run(d.path()).arg("f.yaml").run();
    let mut wrong = Vec::new();
    for (id, _) in fine {
        let s = step(&report, id);
        if s["outcome"] != "passed" {
            wrong.push(format!("{id}: {s}"));
        }
    }
    for (id, _) in typo {
        let s = step(&report, id);
        let msg = s["error"]["message"].as_str().unwrap_or("");
        if s["outcome"] != "failed" || !msg.contains("matches nothing") {
            wrong.push(format!("{id}: {} {msg}", s["outcome"]));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}
