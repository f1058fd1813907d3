//! The history steps `back`, `forward`, `reload` and the `dispatch` step (issue 26), against
//! pages of `tests/fixtures/checks`: each history step waits for its navigation and outputs the
//! page's `url`, `title` and `status`; one with no page to go to fails at once; `dispatch`
//! sends an event made with the constructor its type calls for.

use serde_json::Value;

use crate::common::{Ran, fixture, flow_run, output, runner, step, write};

/// Runs a flow serving `tests/fixtures/checks` with `steps` (YAML, indented by 2); its report.
fn run(steps: &str) -> Value {
    let d = tempfile::tempdir().unwrap();
    let text = format!(
        "name: history\nweb_server: {{ static: \"{}\" }}\nsteps:\n{steps}",
        fixture("checks").display()
    );
    write(d.path(), "f.yaml", &text);
    let Ran { report, stderr, .. } = flow_run(d.path()).arg("f.yaml").run();
    assert!(report.is_object(), "no report: {stderr}");
    report
}

fn passed(report: &Value, ids: &[&str]) {
    for id in ids {
        assert_eq!(
            step(report, id)["outcome"],
            "passed",
            "{id}: {}",
            step(report, id)
        );
    }
}

fn message(report: &Value, id: &str) -> String {
    step(report, id)["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// `back` and `forward` go through the tab's history — across documents and within one
/// (`pushState`) — and `reload` loads the page again; each waits for the page and outputs its
/// `url`, `title` and `status`. A `back` on the tab's first page and a `forward` on its last
/// fail at once, saying so.
#[test]
fn back_forward_and_reload_wait_for_the_page_and_output_it() {
    let report = run(r##"
  - open: "{{ web_server.url }}/history-a.html"
  - click: { role: link, text: to B }
  - expect: { text: { target: "#loads", equals: "loads: 1" } }
  - id: back
    back: true
  - expect: { text: { target: h1, equals: A } }
  - id: forward
    forward: true
  - id: reload
    reload: true
  - expect: { text: { target: "#loads", equals: "loads: 3" } }
  - id: last
    forward: true
    timeout: 10s
    continue_on_error: true
  - open: "{{ web_server.url }}/history-a.html"
  - click: { role: button, text: push }
  - id: same_document
    back: true
  - expect: { text: { target: h1, equals: A }, url: { matches: "history-a.html$" } }
  - back: true
  - id: to_first
    back: true
  - id: first
    back: true
    timeout: 10s
    continue_on_error: true
"##);
    passed(
        &report,
        &["back", "forward", "reload", "same_document", "to_first"],
    );
    let out = |id: &str| step(&report, id)["outputs"].clone();
    assert_eq!(out("back")["title"], "Page A", "{report}");
    assert!(
        out("back")["url"]
            .as_str()
            .unwrap()
            .ends_with("/history-a.html")
    );
    assert_eq!(out("back")["status"], 200, "{report}");
    assert!(
        out("forward")["url"]
            .as_str()
            .unwrap()
            .ends_with("/history-b.html")
    );
    // The title the page gives itself as it loads: read once the page has loaded. Forward to
    // B loaded it a second time; the reload, a third.
    assert_eq!(out("forward")["title"], "Page B, load 2", "{report}");
    assert_eq!(out("reload")["title"], "Page B, load 3", "{report}");
    assert_eq!(out("reload")["status"], 200, "{report}");
    // Within one document: the entry before `#two`.
    assert!(
        out("same_document")["url"]
            .as_str()
            .unwrap()
            .ends_with("/history-a.html")
    );

    let last = step(&report, "last");
    assert_eq!(last["outcome"], "failed", "{report}");
    assert!(
        message(&report, "last").starts_with(
            "`forward`: the tab has no later page in its history (it shows the last, http://"
        ),
        "{report}"
    );
    // At once, not after the 10 s timeout.
    assert!(last["duration_ms"].as_u64().unwrap() < 3000, "{last}");
    // The flow's first page: the blank page the tab started on is not one of the flow's.
    assert_eq!(out("to_first")["title"], "Page A", "{report}");
    let first = step(&report, "first");
    assert_eq!(first["outcome"], "failed", "{report}");
    assert!(
        message(&report, "first").starts_with(
            "`back`: the tab has no earlier page in its history (it shows the first, http://"
        ),
        "{report}"
    );
    assert!(first["duration_ms"].as_u64().unwrap() < 3000, "{first}");
}

/// `dispatch` sends the event to the element with the constructor its type calls for (as
/// Playwright's `dispatchEvent`): FocusEvent for `blur`, MouseEvent for `click`, KeyboardEvent
/// for `keydown`, InputEvent for `input`, Event otherwise (CustomEvent with a `detail`),
/// bubbling unless `init` says not; strict about its target.
#[test]
fn dispatch_sends_the_event_its_type_calls_for() {
    let report = run(r##"
  - open: "{{ web_server.url }}/events.html"
  - id: blur
    dispatch: { target: "#edit", event: blur }
  - dispatch: { target: { role: textbox }, event: click }
  - dispatch: { target: "#box", event: keydown, init: { key: Enter } }
  - dispatch: { target: "#box", event: input }
  - dispatch: { target: "#box", event: ping, init: { detail: 7, bubbles: false } }
  - expect:
      texts:
        target: "#log li"
        equals: ["FocusEvent blur true", "MouseEvent click true", "KeyboardEvent keydown true", "InputEvent input true", "CustomEvent ping false 7"]
  - id: strict
    dispatch: { target: .twin, event: click }
    timeout: 1s
    continue_on_error: true
  - id: missing
    dispatch: { target: "#gone", event: click }
    timeout: 500ms
    continue_on_error: true
"##);
    passed(&report, &["blur"]);
    assert_eq!(step(&report, "blur")["outputs"]["matched"], "css `#edit`");
    let steps = report["flows"][0]["steps"].as_array().unwrap();
    for s in &steps[..7] {
        assert_eq!(s["outcome"], "passed", "{s}");
    }
    assert!(
        message(&report, "strict").contains("strict mode"),
        "{report}"
    );
    assert_eq!(step(&report, "missing")["outcome"], "failed", "{report}");
}

/// `validate` refuses each misuse of the new checks and steps on its own line (exit 2).
#[test]
fn validate_refuses_misused_checks_and_history_steps_on_their_line() {
    let d = tempfile::tempdir().unwrap();
    let cases = [
        "expect: { texts: { target: li, equals: [a], contains: [a] } }",
        "expect: { texts: { target: li } }",
        "expect: { texts: { target: li, equals: a } }",
        "expect: { class: { target: li } }",
        "expect: { class: { target: li, has: \" \" } }",
        "expect: { classes: { target: li, has: [a, \"\"] } }",
        "expect: { js: \" \" }",
        "wait: { js: { expr: x, arg: 1 } }",
        "back: false",
        "reload: { hard: true }",
        "dispatch: { target: \"#x\" }",
        "dispatch: { target: \"#x\", event: blur, init: 3 }",
        "expect: { not: { js: { args: 1 } } }",
    ];
    let mut text = String::from("name: misuse\nsteps:\n");
    for c in &cases {
        text.push_str(&format!("  - {c}\n"));
    }
    write(d.path(), "f.yaml", &text);
    let mut c = runner(d.path());
    c.args(["validate", "f.yaml"]);
    let (code, stdout, stderr) = output(c);
    let all = format!("{stdout}{stderr}");
    assert_eq!(code, 2, "{all}");
    assert!(!all.contains("internal error"), "{all}");
    for (i, case) in cases.iter().enumerate() {
        let line = i + 3;
        assert!(
            all.contains(&format!("f.yaml:{line}:")),
            "line {line} ({case}): {all}"
        );
    }
}
