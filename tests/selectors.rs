//! Ways to find an element as Playwright's locators do (issue 26): `label`, `placeholder`,
//! `testid`, `alt`, `title`, and `within` (locator chaining) as deep as needed, strict at each
//! level, on pages under `tests/fixtures/locators` (every action there writes what it reached
//! into `#out`, so a step that reached the wrong element fails the check after it).

use serde_json::Value;

use crate::common::{Ran, fixture, flow_run, output, runner, step, write};

/// A flow serving `tests/fixtures` that opens `locators/<page>`, with `steps` appended (YAML,
/// indented by 2).
fn flow(name: &str, page: &str, steps: &str) -> String {
    format!(
        "name: {name}\nweb_server: {{ static: \"{}\" }}\nsteps:\n  - open: \"{{{{ web_server.url }}}}/locators/{page}\"\n{steps}",
        fixture("").display()
    )
}

/// The error message of step `id`.
fn error(report: &Value, id: &str) -> String {
    step(report, id)["error"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("step {id} did not fail: {report}"))
        .to_string()
}

/// Every step but those whose ids are given passed.
fn passed_but(report: &Value, failing: &[&str]) {
    for s in report["flows"][0]["steps"].as_array().unwrap() {
        let expected = if failing.iter().any(|id| s["id"] == *id) {
            "failed"
        } else {
            "passed"
        };
        assert_eq!(s["outcome"], expected, "{s}");
    }
}

/// `label` finds the control (by `<label for>`, a wrapping label, `aria-labelledby`,
/// `aria-label`) and actions act on it; `placeholder`, `testid`, `alt` and `title` find by
/// their attribute; each whitespace-normalised, a case-insensitive substring unless `exact`
/// (case and all), with `nth`; a miss lists what exists, saying why a look-alike did not match.
#[test]
fn each_new_key_finds_its_element_exactly_when_asked_and_with_nth() {
    let d = tempfile::tempdir().unwrap();
    let steps = r##"
  - fill: { target: { label: "email ADDRESS" }, value: a@b.c }
  - expect: { text: { target: "#out", equals: "email=a@b.c" } }
  - fill: { target: { label: "Full name", exact: true }, value: Jane }
  - expect: { text: { target: "#out", equals: "name=Jane" } }
  - fill: { target: { label: "phone (mobile)" }, value: "123" }
  - expect: { text: { target: "#out", equals: "phone=123" } }
  - fill: { target: { label: "Search the site", exact: true }, value: tea }
  - expect: { text: { target: "#out", equals: "search=tea" } }
  - check: { label: "I agree" }
  - expect: { text: { target: "#out", equals: "agree=true" }, checked: "#agree" }
  - fill: { target: { placeholder: "jane doe" }, value: J }
  - expect: { text: { target: "#out", equals: "name=J" } }
  - fill: { target: { placeholder: "A note", exact: true }, value: N }
  - expect: { text: { target: "#out", equals: "note=N" } }
  - click: { testid: submit }
  - expect: { text: { target: "#out", equals: "submit" } }
  - click: { testid: submit-button }
  - expect: { text: { target: "#out", equals: "submit-button" } }
  - click: { alt: "company LOGO" }
  - expect: { text: { target: "#out", equals: "logo" } }
  - click: { title: "close", nth: 1 }
  - expect: { text: { target: "#out", equals: "closer" } }
  - click: { title: "close", exact: true }
  - expect: { text: { target: "#out", equals: "closer" } }
  - click: { title: "CLOSE THE" }
  - expect:
      text: { target: "#out", equals: "close" }
      count: { target: { alt: logo }, equals: 2 }
      visible: { alt: "Logo, small", exact: true }
      value: { target: { label: "Email address" }, equals: a@b.c }
  - expect: { count: { target: { placeholder: "jane doe", exact: true }, equals: 0 } }
  - expect: { count: { target: { testid: "submit-butto" }, equals: 0 } }
  - id: strict
    click: { title: close }
    continue_on_error: true
  - id: case
    fill: { target: { placeholder: "a note", exact: true }, value: x }
    continue_on_error: true
    timeout: 300ms
  - id: label_miss
    click: { label: "Emial address" }
    continue_on_error: true
    timeout: 300ms
"##;
    write(d.path(), "f.yaml", &flow("new keys", "index.html", steps));
    let Ran { report, .. } = flow_run(d.path()).arg("f.yaml").run();
    passed_but(&report, &["strict", "case", "label_miss"]);
    let strict = error(&report, "strict");
    assert!(
        strict.contains("strict mode: title \"close\" matches 2 elements")
            && strict.contains("span#close")
            && strict.contains("span#closer"),
        "{strict}"
    );
    // A suggestion reading like the user's own words says why it did not match.
    let case = error(&report, "case");
    assert!(
        case.contains(
            "{ placeholder: \"A note\" } (differs in case, and `exact: true` compares case)"
        ),
        "{case}"
    );
    let miss = error(&report, "label_miss");
    assert!(
        miss.contains("no element matches label \"Emial address\"")
            && miss.contains("{ label: \"Email address\" }"),
        "{miss}"
    );
}

/// `testid` reads `data-testid`, or the attribute runner.toml's `[browser] testid_attribute`
/// names (a flow's own `browser.testid_attribute` wins), as Playwright's `testIdAttribute`.
#[test]
fn the_test_id_attribute_comes_from_runner_toml_or_the_flow() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "runner.toml",
        "[browser]\ntestid_attribute = \"data-test\"\n",
    );
    let steps = r##"
  - click: { testid: signup }
  - expect: { text: { target: "#out", equals: "submit-button" }, count: { target: { testid: submit }, equals: 0 } }
"##;
    write(
        d.path(),
        "toml.yaml",
        &flow("from toml", "index.html", steps),
    );
    let steps = r##"
  - click: { testid: submit }
  - expect: { text: { target: "#out", equals: "submit" }, count: { target: { testid: signup }, equals: 0 } }
"##;
    let own = flow("own", "index.html", steps).replacen(
        "steps:",
        "browser: { testid_attribute: data-testid }\nsteps:",
        1,
    );
    write(d.path(), "own.yaml", &own);
    flow_run(d.path()).args(["toml.yaml", "own.yaml"]).passes();
}

/// `within` looks inside the one element its selector finds, two levels deep, with any finding
/// kind inside or around (CSS, text, role, label, a ref of the last snapshot); strict at each level: a `within`
/// matching several fails at once naming that level's matches; a miss says which level missed.
#[test]
fn within_scopes_a_look_up_level_by_level() {
    let d = tempfile::tempdir().unwrap();
    let steps = r##"
  - click: { css: .destroy, within: { css: ".todo-list li", nth: 1 } }
  - expect: { text: { target: "#out", equals: "delete 1" } }
  - click: { css: .destroy, within: { css: li, text: "{{ vars.item }}" } }
  - expect: { text: { target: "#out", equals: "delete 2" } }
  - check: { label: Toggle, within: { css: ".todo-list li", nth: -1 } }
  - expect:
      checked: { css: .toggle, within: { text: "book a table", tag: li } }
      unchecked: { role: checkbox, text: Toggle, within: { css: li, nth: 0, within: .todo-list } }
  - click: { role: button, text: Open, within: { css: .card, nth: 1, within: "#south" } }
  - expect: { text: { target: "#out", equals: "south beta" } }
  - click: { css: button, within: { css: .card, text: alpha, within: { role: region, text: North } } }
  - expect: { text: { target: "#out", equals: "north alpha" } }
  - click: { text: Open, within: { css: .card, text: beta, within: "#north" } }
  - expect: { text: { target: "#out", equals: "north beta" } }
  - id: snap
    snapshot: true
  - click: { css: button, text: Open, nth: 1, within: "@{% for k, v in steps.snap.refs | items %}{% if v.name == 'South' %}{{ k }}{% endif %}{% endfor %}" }
  - expect: { text: { target: "#out", equals: "south beta" } }
  - expect:
      count: { target: { role: button, within: "#south" }, equals: 2 }
  # A `within` that matches nothing is an error, never "hidden" (attack 32, F5).
  - id: within_nth_miss
    expect: { hidden: { css: button, within: { css: .card, nth: 9 } } }
    continue_on_error: true
    timeout: 300ms
  - id: inspect
    inspect: { target: { label: Toggle, within: .todo-list }, format: text }
  - id: outer_strict
    click: { role: button, text: Open, within: { css: .card, text: Alpha } }
    continue_on_error: true
  - id: inner_strict
    click: { role: button, text: Open, within: "#south" }
    continue_on_error: true
  - id: outer_miss
    click: { css: button, within: { css: .card, within: "#west" } }
    continue_on_error: true
    timeout: 300ms
  - id: middle_miss
    click: { css: button, within: { css: .card, nth: 5, within: "#south" } }
    continue_on_error: true
    timeout: 300ms
  - id: inner_miss
    click: { role: button, text: Delete, within: { css: .card, nth: 0, within: "#south" } }
    continue_on_error: true
    timeout: 300ms
"##;
    let text = flow("within", "index.html", steps).replacen(
        "steps:",
        "vars: { item: book a table }\nsteps:",
        1,
    );
    write(d.path(), "f.yaml", &text);
    let Ran { report, .. } = flow_run(d.path()).arg("f.yaml").run();
    let failing = [
        "within_nth_miss",
        "outer_strict",
        "inner_strict",
        "outer_miss",
        "middle_miss",
        "inner_miss",
    ];
    passed_but(&report, &failing);
    assert_eq!(step(&report, "inspect")["outputs"]["count"], 3, "{report}");
    let e = error(&report, "outer_strict");
    assert!(
        e.contains("strict mode: the `within` css `.card` with text \"Alpha\" matches 2 elements")
            && e.contains("[0] div.card \"Alpha Open\", [1] div.card \"Alpha Open\""),
        "{e}"
    );
    let e = error(&report, "inner_strict");
    assert!(
        e.contains("strict mode: button \"Open\" within css `#south` matches 2 elements"),
        "{e}"
    );
    let e = error(&report, "within_nth_miss");
    assert!(
        e.contains("the `within` css `.card` (nth 9) matches nothing on the page"),
        "{e}"
    );
    let e = error(&report, "outer_miss");
    assert!(
        e.contains("(the `within` css `#west` matches nothing)"),
        "{e}"
    );
    let e = error(&report, "middle_miss");
    assert!(
        e.contains("(the `within` css `.card` (nth 5) matches nothing inside css `#south`)"),
        "{e}"
    );
    let e = error(&report, "inner_miss");
    assert!(
        e.contains("(the `within` css `.card` (nth 0) is there, but nothing inside it matches button \"Delete\")")
            && e.contains("{ role: button, text: Delete } (not inside the `within`)"),
        "{e}"
    );
    assert!(!format!("{report}").contains("data-runner-sel"), "{report}");
}

/// A `within` inside a frame-scoped selector stays in that frame (CSS, label and role levels
/// alike): the page's own list, outside the frame, is never reached.
#[test]
fn a_within_stays_in_its_selectors_frame() {
    let d = tempfile::tempdir().unwrap();
    let steps = r##"
  - click: { css: .destroy, frame: "#inner", within: { css: ".todo-list li", nth: 2 } }
  - expect: { text: { target: { css: "#out", frame: "#inner" }, equals: "delete 2" }, title: Locators in a frame }
  - check: { role: checkbox, text: Toggle, frame: "#inner", within: { css: li, nth: 1 } }
  - expect: { checked: { css: "li:nth-child(2) .toggle", frame: "#inner" }, unchecked: ".toggle" }
  - frame: "#inner"
    click: { label: Delete, within: { text: feed the cat, tag: li } }
  - expect: { text: { target: { css: "#out", frame: "#inner" }, equals: "delete 1" } }
"##;
    write(d.path(), "f.yaml", &flow("frame", "frame.html", steps));
    flow_run(d.path()).arg("f.yaml").passes();
}

/// TodoMVC's markup on React 18 (what Playwright's demo spec finds with getByPlaceholder,
/// getByTestId, getByLabel and `todoItems.nth(1).locator(...)`), each check retried until the
/// app's re-render shows it.
#[test]
fn a_react_todo_list_is_driven_by_playwright_style_locators() {
    let d = tempfile::tempdir().unwrap();
    let steps = r##"
  - fill: { target: { placeholder: "What needs to be done?" }, value: buy milk }
  - press: Enter
  - fill: { target: { placeholder: "what needs to be DONE" }, value: feed the cat }
  - press: Enter
  - fill: { target: { placeholder: "What needs to be done?", exact: true }, value: book a table }
  - press: Enter
  - expect:
      count: { target: { testid: todo-item }, equals: 3 }
      text: { target: { testid: todo-count }, equals: "3 items left" }
  - check: { css: .toggle, within: { testid: todo-item, nth: 1 } }
  - expect:
      checked: { role: checkbox, text: Toggle Todo, within: { testid: todo-item, nth: 1 } }
      unchecked: { label: Toggle Todo, within: { testid: todo-item, nth: 0 } }
      attribute: { target: { testid: todo-item, nth: 1 }, name: class, equals: completed }
  - expect:
      text: { target: { testid: todo-title, within: { css: li.completed } }, equals: feed the cat }
  - expect: { text: { target: { testid: todo-count }, equals: "2 items left" } }
  - uncheck: { role: checkbox, text: Toggle Todo, within: { testid: todo-item, nth: 1 } }
  - expect: { count: { target: { css: li.completed }, equals: 0 } }
  - check: { label: Mark all as complete }
  - expect:
      count: { target: { css: li.completed }, equals: 3 }
      text: { target: { testid: todo-count }, equals: "0 items left" }
      checked: { label: Mark all as complete, exact: true }
  - uncheck: { label: Mark all as complete }
  - expect: { text: { target: { testid: todo-count }, equals: "3 items left" } }
  - click: { label: Delete, within: { testid: todo-item, nth: -1 } }
  - expect:
      count: { target: { testid: todo-item }, equals: 2 }
      text: { target: { testid: todo-title, within: { testid: todo-item, nth: -1 } }, equals: feed the cat }
"##;
    write(d.path(), "f.yaml", &flow("react", "react.html", steps));
    flow_run(d.path()).arg("f.yaml").passes();
}

/// Keys that mean nothing together are refused by `validate` on their line (exit 2), at any
/// depth of `within`; a `within` takes CSS that must parse, and no `frame` of its own.
#[test]
fn validate_refuses_meaningless_new_keys_and_withins() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        r##"name: meaningless
steps:
  - click: { label: Email, css: input }
  - click: { testid: go, exact: true }
  - click: { label: Email, text: Email }
  - click: { placeholder: " " }
  - click: { alt: logo, tag: img }
  - click: { css: .x, within: { css: li, frame: "#f" } }
  - click: { ref: e5, within: li }
  - click: { css: .x, within: "a[href" }
  - click: { css: .x, within: { css: li, within: { role: list, css: ul } } }
  - click: { title: Close, exact: true, nth: 1, within: { testid: dialog } }
  - click: { label: Email, frame: "#f", within: { placeholder: x, nth: -1 } }
"##,
    );
    let mut c = runner(d.path());
    c.args(["validate", "f.yaml"]);
    let (code, stdout, stderr) = output(c);
    let all = format!("{stdout}{stderr}");
    assert_eq!(code, 2, "{all}");
    for line in 3..=11 {
        assert!(
            all.contains(&format!("f.yaml:{line}")),
            "line {line}: {all}"
        );
    }
    assert!(
        !all.contains("f.yaml:12") && !all.contains("f.yaml:13"),
        "{all}"
    );
    for why in [
        "`css` and `label` together mean nothing",
        "a test id is compared whole",
        "`text` with `label` means nothing",
        "an empty `placeholder`",
        "`tag` with `alt` means nothing",
        "`frame` goes on the outermost selector",
        "a `ref` names one element and takes no other key (not `within`)",
        "unclosed `[` in CSS `a[href`",
        "`css` and `role` together mean nothing",
    ] {
        assert!(all.contains(why), "{why}: {all}");
    }
    // A `within` alone finds nothing: the schema wants a way to find the element.
    write(
        d.path(),
        "g.yaml",
        "name: bare within\nsteps:\n  - click: { within: \"#main\" }\n",
    );
    let mut c = runner(d.path());
    c.args(["validate", "g.yaml"]);
    let (code, stdout, stderr) = output(c);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(
        format!("{stdout}{stderr}").contains("g.yaml:3"),
        "{stdout}{stderr}"
    );
}
