//! A section styled `content-visibility: auto` far below the fold is skipped by Chromium until
//! it nears the viewport (its `innerText` is empty, its contents are out of the accessibility
//! tree), yet it is on the page: a user scrolling sees it, and Playwright finds, reads and
//! counts it (its text is the DOM's; `isVisible` is `checkVisibility()` and a box, which
//! Chromium lays out on asking). Attack 31, G15: `hidden` of its text, `count: 0` of its button
//! by role and the like held on `tests/fixtures/roles/cv-auto.html`.

use crate::common::{Ran, fixture, flow_run, step, write};

/// A flow serving `tests/fixtures` that opens `page`, with `steps` appended (YAML, indented by
/// 2).
fn flow(name: &str, page: &str, steps: &str) -> String {
    format!(
        "name: {name}\nweb_server: {{ static: \"{}\" }}\nsteps:\n  - open: \"{{{{ web_server.url }}}}/{page}\"\n{steps}",
        fixture("").display()
    )
}

/// Checks that the skipped section's contents are gone, each of which must fail: (id, check).
const GONE: [(&str, &str); 12] = [
    (
        "text",
        "expect: { hidden: { text: Older entries are kept here } }",
    ),
    (
        "text_not",
        "expect: { not: { visible: { text: Load more } } }",
    ),
    (
        "text_wait",
        "wait: { for: { text: second entry }, state: hidden }",
    ),
    ("css", "expect: { hidden: \"#older\" }"),
    (
        "css_count",
        "expect: { count: { target: \"#archive li\", equals: 0 } }",
    ),
    (
        "page_text",
        "expect: { not: { text: { target: body, contains: Older entries } } }",
    ),
    (
        "role",
        "expect: { hidden: { role: button, text: Load more } }",
    ),
    (
        "role_count",
        "expect: { count: { target: { role: button, text: Load more }, equals: 0 } }",
    ),
    (
        "role_items",
        "expect: { count: { target: { role: listitem }, equals: 0 } }",
    ),
    (
        "role_heading",
        "expect: { not: { visible: { role: heading, text: Archive } } }",
    ),
    (
        "role_wait",
        "wait: { for: { role: listitem }, state: hidden }",
    ),
    (
        "role_within",
        "expect: { hidden: { role: button, within: \"#archive\" } }",
    ),
];

/// Nothing of the skipped section passes as absent: every check that it is gone fails (a role
/// check saying the tree cannot tell, never "not on the page"); its text is found, visible and
/// read by text, CSS and the page's text alike; the never-rendered `content-visibility: hidden`
/// section stays hidden, as Playwright has it; a role check whose reach holds nothing skipped
/// (`within: nav`) is answered by the tree as ever.
#[test]
fn a_skipped_content_visibility_auto_section_is_on_the_page() {
    let d = tempfile::tempdir().unwrap();
    let mut steps = String::from(
        r##"  - expect: { visible: { text: Older entries are kept here } }
  - expect: { visible: "#older" }
  - expect: { visible: { text: Load more } }
  - expect: { count: { target: { text: entry }, equals: 2 } }
  - expect: { text: { target: "#older", equals: Older entries are kept here } }
  - expect: { text: { target: "#archive", contains: "Archive Older entries are kept here Keepsake box Load more first entry second entry" } }
  - expect: { text: { target: "#joined", equals: Keepsake box } }
  - expect: { visible: { text: Keepsake box, exact: true } }
  - expect: { hidden: { text: unseen words } }
  - expect: { text: { target: body, contains: Older entries are kept here } }
  - expect: { texts: { target: "#archive li", equals: [first entry, second entry] } }
  - wait: { text: second entry }
  - expect: { hidden: { text: Never shown text } }
  - expect: { hidden: "#secret button" }
  - expect: { not: { text: { target: body, contains: Never shown text } } }
  - expect: { count: { target: { role: link, within: nav }, equals: 1 } }
  - expect: { hidden: { role: button, within: nav } }
"##,
    );
    for (id, check) in GONE {
        steps.push_str(&format!(
            "  - {{ id: {id}, {check}, continue_on_error: true, timeout: 300ms }}\n"
        ));
    }
    write(
        d.path(),
        "f.yaml",
        &flow("skipped", "roles/cv-auto.html", &steps),
    );
    let Ran { report, stderr, .. } = flow_run(d.path()).arg("f.yaml").run();
    let all = report["flows"][0]["steps"]
        .as_array()
        .unwrap_or_else(|| panic!("no report:\n{stderr}"));
    assert_eq!(all.len(), 18 + GONE.len(), "{stderr}");
    for s in all {
        let want = if s["id"].is_string() {
            "failed"
        } else {
            "passed"
        };
        assert_eq!(s["outcome"], want, "{s}");
    }
    for (id, _) in GONE.iter().filter(|(id, _)| id.starts_with("role")) {
        let message = step(&report, id)["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert!(
            message.contains("cannot be told by role"),
            "{id}: {message}"
        );
    }
}

/// Without runner's own session on the tab (`RUNNER_OWN_EVAL=off`) a role is looked up in the
/// snapshot's refs, which come from the same tree: a button in the skipped section is not
/// absent there either.
#[test]
fn a_skipped_section_is_not_absent_by_the_snapshots_refs_either() {
    let d = tempfile::tempdir().unwrap();
    let steps = r##"  - expect: { visible: { role: link, text: Home } }
  - { id: role, expect: { hidden: { role: button, text: Load more } }, continue_on_error: true, timeout: 300ms }
  - { id: count, expect: { count: { target: { role: button }, equals: 0 } }, continue_on_error: true, timeout: 300ms }
"##;
    write(
        d.path(),
        "f.yaml",
        &flow("skipped refs", "roles/cv-auto.html", steps),
    );
    let Ran { report, stderr, .. } = flow_run(d.path())
        .env("RUNNER_OWN_EVAL", "off")
        .arg("f.yaml")
        .run();
    assert_eq!(
        report["flows"][0]["steps"][1]["outcome"], "passed",
        "{stderr}"
    );
    for id in ["role", "count"] {
        let message = step(&report, id)["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert!(
            message.contains("cannot be told by role"),
            "{id}: {message}\n{stderr}"
        );
    }
}
