//! The list, class and page-predicate checks (issue 26): `texts` and `classes` read every match
//! in order as one retried check, `class` reads the class attribute as Playwright's
//! `toHaveClass` does, and `js` (in `expect` and `wait`) polls an expression in the page until it
//! is truthy — each against `tests/fixtures/checks/lists.html`, whose changes land 600 ms after
//! the test's own click.

use serde_json::Value;

use crate::common::{Ran, fixture, flow_run, step, write};

/// A flow serving `tests/fixtures/checks`, opening `lists.html`, then `steps` (YAML, indented
/// by 2).
fn flow(name: &str, steps: &str) -> String {
    format!(
        "name: {name}\nweb_server: {{ static: \"{}\" }}\nsteps:\n  - open: \"{{{{ web_server.url }}}}/lists.html\"\n{steps}",
        fixture("checks").display()
    )
}

fn run(steps: &str) -> Value {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "f.yaml", &flow("lists", steps));
    let Ran { report, stderr, .. } = flow_run(d.path()).arg("f.yaml").run();
    assert!(report.is_object(), "no report: {stderr}");
    report
}

fn message(report: &Value, id: &str) -> String {
    step(report, id)["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn outcome(report: &Value, id: &str) -> String {
    step(report, id)["outcome"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// The line (1-based) after the one of `id: <id>` in the flow of `steps`.
fn line_after(steps: &str, id: &str) -> usize {
    let text = flow("lists", steps);
    let at = text.lines().position(|l| l.trim() == format!("- id: {id}"));
    at.expect("the step's id line") + 2
}

fn millis(report: &Value, id: &str) -> u64 {
    step(report, id)["duration_ms"]
        .as_u64()
        .unwrap_or_else(|| panic!("{}", step(report, id)))
}

/// `texts` is every match, in order, whitespace-normalised, as one check: it passes on the list
/// as it is, waits for the list that becomes right 600 ms after the click, and fails on a list
/// that never does with both lists side by side. `contains` is item by item; under `not` the
/// lists must differ; a role's matches are read one by one.
#[test]
fn texts_check_every_match_in_order_and_wait_for_the_list() {
    let steps = r##"
  - id: now
    expect: { texts: { target: ".todo-list li", equals: ["buy milk", "feed the cat"] } }
  - id: roles
    expect: { texts: { target: { role: tab }, equals: [One, Two] } }
  - click: "#later"
  - id: late
    expect: { texts: { target: ".todo-list li", equals: ["buy milk", "feed the cat", "book a doctor"] } }
  - id: contains
    expect: { texts: { target: ".todo-list li", contains: [milk, cat, doctor] } }
  - id: not
    expect: { not: { texts: { target: ".todo-list li", equals: ["buy milk", "feed the cat"] } } }
  - id: empty
    expect: { texts: { target: ".nothing", equals: [] } }
  - id: order
    expect: { texts: { target: ".todo-list li", equals: ["feed the cat", "buy milk", "book a doctor"] } }
    timeout: 800ms
    continue_on_error: true
  - id: shorter
    expect: { texts: { target: ".todo-list li", contains: [milk, cat] } }
    timeout: 800ms
    continue_on_error: true
  - id: not_same
    expect: { not: { texts: { target: ".todo-list li", contains: [buy, feed, book] } } }
    timeout: 800ms
    continue_on_error: true
  - click: "#never"
  - id: never
    expect: { texts: { target: ".todo-list li", equals: ["buy milk", "feed the dog", "book a doctor"] } }
    timeout: 1s
    continue_on_error: true
"##;
    let report = run(steps);
    for id in ["now", "roles", "late", "contains", "not", "empty"] {
        assert_eq!(
            outcome(&report, id),
            "passed",
            "{id}: {}",
            step(&report, id)
        );
    }
    // The list was not right when the check began: it waited for it.
    assert!(millis(&report, "late") >= 200, "{}", step(&report, "late"));
    for id in ["order", "shorter", "not_same", "never"] {
        assert_eq!(outcome(&report, id), "failed", "{id}: {report}");
    }
    let never = message(&report, "never");
    assert!(
        never.contains(r#"to equal ["buy milk", "feed the dog", "book a doctor"], got ["buy bread", "feed the cat", "book a doctor"]"#),
        "{never}"
    );
    for row in [
        "  0  \"buy milk\"       \"buy bread\"  <- differs",
        "  1  \"feed the dog\"   \"feed the cat\"  <- differs",
        "  2  \"book a doctor\"  \"book a doctor\"",
    ] {
        assert!(never.contains(row), "{never}");
    }
    let shorter = message(&report, "shorter");
    assert!(shorter.contains("\"book a doctor\"  <- extra"), "{shorter}");
    assert!(message(&report, "not_same").contains("expected not: the texts of css `.todo-list li` to contain [\"buy\", \"feed\", \"book\"], but it is so"));
    // Located at the check's own line and column: `texts` on the line after `id: never`.
    let at = step(&report, "never")["error"]["location"].clone();
    assert_eq!(
        at,
        format!("f.yaml:{}:15", line_after(steps, "never")),
        "{report}"
    );
}

/// `class` reads the class attribute as `toHaveClass`: `has` a class name (not a substring),
/// `equals` the whole attribute, and an element without one has class "" (where `attribute`
/// says it has none). `classes` is every match in order. Each waits for a class set 300 ms
/// after the click; a typo fails saying what the class is.
#[test]
fn class_checks_read_the_class_as_to_have_class_does() {
    let report = run(r##"
  - id: has
    expect: { class: { target: { css: ".todo-list li", nth: 0 }, has: completed } }
  - id: two
    expect: { class: { target: { css: ".todo-list li", nth: 0 }, has: "completed todo", equals: "todo  completed" } }
  - id: none
    expect: { class: { target: "#plain", equals: "" } }
  - id: not_has
    expect: { not: { class: { target: { css: ".todo-list li", nth: 1 }, has: completed } } }
  - id: list
    expect: { classes: { target: ".todo-list li", equals: ["todo completed", ""] } }
  - id: not_list
    expect: { not: { classes: { target: ".todo-list li", equals: [todo, ""] } } }
  - click: "#later"
  - id: late_equals
    expect:
      classes: { target: ".todo-list li", equals: ["todo completed", completed, ""] }
      class: { target: { css: ".todo-list li", nth: 1 }, matches: "^completed$" }
  - id: typo
    expect: { class: { target: { css: ".todo-list li", nth: 1 }, has: complete } }
    timeout: 800ms
    continue_on_error: true
  - id: not_none
    expect: { not: { class: { target: "#plain", equals: "" } } }
    timeout: 800ms
    continue_on_error: true
  - id: missing
    expect: { not: { class: { target: "#gone", has: x } } }
    timeout: 500ms
    continue_on_error: true
  - id: strict
    expect: { class: { target: ".todo-list li", has: completed } }
    timeout: 500ms
    continue_on_error: true
"##);
    for id in [
        "has",
        "two",
        "none",
        "not_has",
        "list",
        "not_list",
        "late_equals",
    ] {
        assert_eq!(
            outcome(&report, id),
            "passed",
            "{id}: {}",
            step(&report, id)
        );
    }
    // The class and the third item came 600 ms after the click: the check waited for them.
    assert!(
        millis(&report, "late_equals") >= 200,
        "{}",
        step(&report, "late_equals")
    );
    let typo = message(&report, "typo");
    assert_eq!(
        typo,
        "expected the class of css `.todo-list li` (nth 1) to have \"complete\", but its class is \"completed\" (no `complete`)",
        "{report}"
    );
    assert!(
        message(&report, "not_none").contains("but it is so"),
        "{report}"
    );
    assert!(
        message(&report, "missing").contains("is not on the page"),
        "{report}"
    );
    assert!(
        message(&report, "strict").contains("strict mode"),
        "{report}"
    );
}

/// `wait: { js }` and `expect: { js }` poll the expression until it is truthy: storage the
/// page writes 600 ms after the click is waited for, `args` reach it as `args` (or as the
/// argument of a function it gives), a promise is awaited. An exception fails the step at once
/// with its message, well before its timeout; one never truthy fails with what it gave.
#[test]
fn js_predicates_poll_until_truthy_and_an_exception_fails_at_once() {
    let report = run(r##"
  - id: before
    expect: { js: "localStorage.getItem('todos') === null" }
  - click: "#later"
  - id: wait
    wait: { js: { expr: "JSON.parse(localStorage.getItem('todos') || '[]').length === args", args: 3 } }
  - id: function
    expect: { js: { expr: "n => JSON.parse(localStorage.todos).includes(n.title)", args: { title: book a doctor } } }
  - id: promise
    wait: { js: "new Promise(r => setTimeout(() => r(document.title === 'Lists'), 50))" }
  - id: not
    expect: { not: { js: "document.querySelectorAll('.todo-list li').length !== 3" } }
  - id: threw
    expect: { js: "JSON.parse(localStorage.getItem('nope')).length > 0" }
    timeout: 10s
    continue_on_error: true
  - id: wait_threw
    wait: { js: "undefinedFunction()" }
    timeout: 10s
    continue_on_error: true
  - id: falsy
    expect: { js: "document.title === 'Other'" }
    timeout: 700ms
    continue_on_error: true
  - id: wait_falsy
    wait: { js: { expr: "args.n > 5", args: { n: 2 } } }
    timeout: 700ms
    continue_on_error: true
"##);
    for id in ["before", "wait", "function", "promise", "not"] {
        assert_eq!(
            outcome(&report, id),
            "passed",
            "{id}: {}",
            step(&report, id)
        );
    }
    assert!(millis(&report, "wait") >= 200, "{}", step(&report, "wait"));
    for id in ["threw", "wait_threw", "falsy", "wait_falsy"] {
        assert_eq!(outcome(&report, id), "failed", "{id}: {report}");
    }
    // At once: well before the 10 s timeout.
    for id in ["threw", "wait_threw"] {
        assert!(millis(&report, id) < 3000, "{id}: {}", step(&report, id));
    }
    let threw = message(&report, "threw");
    assert!(
        threw.contains("js `JSON.parse(localStorage.getItem('nope')).length > 0` threw: TypeError"),
        "{threw}"
    );
    assert!(
        message(&report, "wait_threw").contains("ReferenceError: undefinedFunction is not defined"),
        "{report}"
    );
    assert_eq!(
        message(&report, "falsy"),
        "expected js `document.title === 'Other'` to be truthy, got false"
    );
    assert_eq!(
        message(&report, "wait_falsy"),
        "timed out waiting for js `args.n > 5` to be truthy (it gave false)"
    );
}
