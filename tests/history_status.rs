//! `back`, `forward` and `reload` report the HTTP status of their own navigation, as `open`
//! does (attack 29, A1): a page answered with an error that sends the browser on at once (a
//! meta refresh, `location.replace`) or that rewrites what its script reads of its own status
//! is judged by the answer, not by the page the tab shows when the step ends.

use crate::common::{fixture, flow_run, free_port, step, write};

/// A reload answered 500 with a meta refresh, a reload answered 500 whose page fakes its
/// navigation entry, a `back` to a page now answered 500 that `location.replace`s, and a
/// `forward` to one answered 503 with a refresh each output that status; moves to pages that
/// answered 200 (a new document, and entries of one document: `pushState`) output 200, and
/// a reload of the pushed URL, which the server does not know, 404. Before,
/// the first four output 200: the page the tab went on to, or the page's own word.
#[test]
fn history_moves_report_the_status_of_their_own_navigation() {
    let d = tempfile::tempdir().unwrap();
    let port = free_port();
    let steps = r##"  - open: "BASE/reloaded"
  - id: reloaded
    reload: true
  - open: "BASE/faked"
  - id: faked
    reload: true
  - open: "BASE/left"
  - open: "BASE/ok"
  - id: left
    back: true
  - open: "BASE/ok?2"
  - open: "BASE/ahead"
  - id: fine_back
    back: true
  - id: ahead
    forward: true
  - open: "BASE/ok?3"
  - id: fine_reload
    reload: true
  - eval: "history.pushState({}, '', '/pushed') || 'pushed'"
  - id: same_document_back
    back: true
  - id: same_document_forward
    forward: true
  - id: pushed_reload
    reload: true
"##
    .replace("BASE", &format!("http://127.0.0.1:{port}"));
    write(
        d.path(),
        "moves.yaml",
        &format!(
            "name: moves\ndefaults: {{ timeout: 10s }}\nweb_server:\n  command: [\"python3\", \"{srv}\", \"{port}\"]\n  url: \"http://127.0.0.1:{port}/ok\"\n  ready_timeout: 20s\nsteps:\n{steps}",
            srv = fixture("history_status.py").display(),
        ),
    );
    let ran = flow_run(d.path()).arg("moves.yaml").run();
    let report = &ran.report;
    for (id, status) in [
        ("reloaded", 500),
        ("faked", 500),
        ("left", 500),
        ("ahead", 503),
        ("fine_back", 200),
        ("same_document_back", 200),
        ("same_document_forward", 200),
        ("fine_reload", 200),
        // The server knows no /pushed: a reload there asks it.
        ("pushed_reload", 404),
    ] {
        let s = step(report, id);
        // An error status is no failure of a history move (the page was opened once already).
        assert_eq!(s["outcome"], "passed", "{id}: {s}\n{}", ran.stderr);
        assert_eq!(s["outputs"]["status"], status, "{id}: {s}");
    }
    let pushed = step(report, "same_document_forward")["outputs"]["url"].clone();
    assert_eq!(
        pushed,
        format!("http://127.0.0.1:{port}/pushed"),
        "{report}"
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
}
