//! A click or a key press that starts a navigation of the page resolves once the new document
//! has committed, as Playwright's actions do (`waitForSignalsCreatedBy`): the step right after
//! it acts on the new page, never on the page being left. A click that starts nothing, a
//! download, a hash change or a navigation that fails is not held up.

use crate::common::{fixture, flow_run, free_port, step, write};

/// The flow: the first page's link and its form (its button; Enter in a field, through
/// `press` with and without a target and through `keyboard`) each navigate to a page the
/// server answers ~500 ms late, and the step right after fills or reads the page, then clicks
/// on it; then the clicks that must not wait.
const STEPS: &str = r##"  - open: "BASE/"
  - id: link
    click: "#go"
  - fill: { target: "#q", value: hello }
  - id: after_link
    eval: "document.title + ':' + document.querySelector('#q').value"
  - click: "#next"
  - id: after_next
    eval: "document.title"
  - open: "BASE/"
  - fill: { target: "#f", value: x }
  - id: enter
    press: { key: Enter, target: "#f" }
  - id: after_enter
    eval: "document.title + ':' + location.search"
  - open: "BASE/"
  - fill: { target: "#f", value: "y" }
  - click: "#send"
  - id: after_send
    eval: "document.title + ':' + location.search"
  - open: "BASE/"
  - fill: { target: "#f", value: "z" }
  - keyboard: { press: Enter }
  - id: after_keys
    eval: "document.title + ':' + location.search"
  - open: "BASE/"
  - fill: { target: "#f", value: "w" }
  - press: Enter
  - id: after_focused
    eval: "document.title + ':' + location.search"
  - open: "BASE/"
  - id: nothing
    click: "#nothing"
  - id: after_nothing
    eval: "document.title + ':' + document.body.dataset.n"
  - id: download
    click: "#dl"
  - id: after_download
    eval: "document.title"
  - id: hash
    click: "#hash"
  - id: after_hash
    eval: "document.title + location.hash"
  - id: broken
    click: "#bad"
  - id: after_broken
    eval: "location.href"
"##;

/// Each step after a navigating click or key press reads the second page (before, the steps
/// after Enter read the first, or a document between the two: `first:`, `:?f=x`); the clicks that start no navigation of the tab
/// (nothing, a download, a hash link) and the one whose navigation fails pass well inside the
/// step's timeout.
#[test]
fn a_step_after_a_navigating_click_acts_on_the_new_page() {
    let d = tempfile::tempdir().unwrap();
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    write(
        d.path(),
        "nav.yaml",
        &format!(
            "name: nav\ndefaults: {{ timeout: 10s }}\nweb_server:\n  command: [\"python3\", \"{srv}\", \"{port}\"]\n  url: \"{base}/\"\n  ready_timeout: 20s\nsteps:\n{steps}",
            srv = fixture("nav_wait.py").display(),
            steps = STEPS.replace("BASE", &base),
        ),
    );
    let ran = flow_run(d.path()).arg("nav.yaml").run();
    let report = &ran.report;
    let value = |id: &str| step(report, id)["outputs"]["value"].clone();
    assert_eq!(value("after_link"), "second:hello", "{report}");
    assert_eq!(value("after_next"), "second clicked", "{report}");
    assert_eq!(value("after_enter"), "second:?f=x", "{report}");
    assert_eq!(value("after_send"), "second:?f=y", "{report}");
    assert_eq!(value("after_keys"), "second:?f=z", "{report}");
    assert_eq!(value("after_focused"), "second:?f=w", "{report}");
    assert_eq!(value("after_nothing"), "first:1", "{report}");
    assert_eq!(value("after_download"), "first", "{report}");
    assert_eq!(value("after_hash"), "first#part", "{report}");
    for id in ["nothing", "download", "hash", "broken"] {
        let s = step(report, id);
        assert_eq!(s["outcome"], "passed", "{id}: {s}");
        let ms = s["duration_ms"].as_u64().unwrap();
        assert!(ms < 5000, "{id} waited {ms} ms: {s}");
    }
    assert_ne!(value("after_broken"), format!("{base}/"), "{report}");
    assert_eq!(ran.code, 0, "{}\n{report}", ran.stderr);
}

/// A click whose navigation has not committed by the step's timeout fails saying so (the
/// click was given; the page's server did not answer in time), as Playwright's click times out
/// waiting for its navigation; before, it passed and the next step met the page being left.
#[test]
fn a_navigation_not_committed_by_the_timeout_fails_the_click() {
    let d = tempfile::tempdir().unwrap();
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    write(
        d.path(),
        "hang.yaml",
        &format!(
            "name: hang\nweb_server:\n  command: [\"python3\", \"{srv}\", \"{port}\"]\n  url: \"{base}/\"\n  ready_timeout: 20s\nsteps:\n  - open: \"{base}/\"\n  - id: hang\n    click: \"#hang\"\n    timeout: 2s\n",
            srv = fixture("nav_wait.py").display(),
        ),
    );
    let ran = flow_run(d.path()).arg("hang.yaml").run();
    let s = step(&ran.report, "hang");
    assert_eq!(s["outcome"], "failed", "{s}");
    let message = s["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("`click` on css `#hang` was given")
            && message.contains(&format!(
                "(to {base}/hang) had not committed by the step's timeout"
            )),
        "{message}"
    );
    assert_eq!(s["error"]["kind"], "timeout", "{s}");
    assert_eq!(ran.code, 1, "{}", ran.stderr);
}
