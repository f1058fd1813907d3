//! `open`'s status is the answer to the navigation it made (attack 29, A1): a page answered
//! with an error status that sends the browser on at once (a meta refresh, `location.replace`,
//! as many error pages do), or that rewrites what the page reads of its own status, is judged
//! by that answer, not by the page the tab shows when the step ends.

use crate::common::{fixture, flow_run, free_port, step, write};

/// A 500 page that moves on by meta refresh or by script, and one that fakes its navigation
/// entry, each fail a plain `open` with "HTTP 500"; a 404 that moves on passes
/// `open: { url, status: 404 }`; an HTTP redirect to a 500 is judged by that final 500. Before,
/// runner asked the page it ended on: the first two passed (status 200, the next page's) and
/// the 404 failed "got 200". The same holds in a tab the page opened.
#[test]
fn open_reports_the_status_of_its_own_navigation() {
    let d = tempfile::tempdir().unwrap();
    let port = free_port();
    let bad = |id: &str, path: &str| {
        format!(
            "  - id: {id}\n    continue_on_error: true\n    open: \"http://127.0.0.1:{port}/{path}\"\n"
        )
    };
    let steps = [
        bad("meta", "e500meta"),
        bad("js", "e500js"),
        bad("perf", "e500perf"),
        bad("redirected", "to500"),
        format!("  - id: missing\n    open: {{ url: \"http://127.0.0.1:{port}/e404meta\", status: 404 }}\n"),
        format!("  - id: fine\n    open: \"http://127.0.0.1:{port}/ok\"\n"),
        // The same in a tab the page opened.
        "  - eval: \"window.open('/ok') && 'opened'\"\n  - tab: { switch: last }\n".to_string(),
        bad("popup_meta", "e500meta"),
        format!("  - id: popup_missing\n    open: {{ url: \"http://127.0.0.1:{port}/e404meta\", status: 404 }}\n"),
    ]
    .concat();
    write(
        d.path(),
        "statuses.yaml",
        &format!(
            "name: statuses\nweb_server:\n  command: [\"python3\", \"{srv}\", \"{port}\"]\n  url: \"http://127.0.0.1:{port}/ok\"\n  ready_timeout: 20s\nsteps:\n{steps}",
            srv = fixture("status_pages.py").display(),
        ),
    );
    let ran = flow_run(d.path()).arg("statuses.yaml").run();
    let report = &ran.report;
    for id in ["meta", "js", "perf", "redirected", "popup_meta"] {
        let s = step(report, id);
        assert_eq!(s["outcome"], "failed", "{id}: {s}\n{}", ran.stderr);
        assert!(s["error"].to_string().contains("HTTP 500 for"), "{id}: {s}");
        if id == "meta" {
            // The URL opened is named (not only the page the tab went on to).
            let opened = format!("HTTP 500 for http://127.0.0.1:{port}/e500meta");
            assert!(s["error"].to_string().contains(&opened), "{s}");
        }
        assert_eq!(s["outputs"]["status"], 500, "{id}: {s}");
    }
    for id in ["missing", "popup_missing"] {
        let missing = step(report, id);
        assert_eq!(missing["outcome"], "passed", "{id}: {missing}");
        assert_eq!(missing["outputs"]["status"], 404, "{id}: {missing}");
    }
    let fine = step(report, "fine");
    assert_eq!(fine["outcome"], "passed", "{fine}");
    assert_eq!(fine["outputs"]["status"], 200, "{fine}");
}
