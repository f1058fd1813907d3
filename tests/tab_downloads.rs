//! `download` of a link that opens in a new tab (attack 29, A7): an export whose URL redirects
//! to the file (`/download?id=7` → 302 → a signed storage URL, as S3/GCS exports do) is the
//! link's download though the redirect happens in the new tab, and the tab the download
//! emptied is closed, as a user's browser closes it, the flow staying on its own tab.

use crate::common::{fixture, flow_run, free_port, step, write};

/// Three `_blank` downloads from the flow's first tab (a link that redirects to the file, one
/// straight to it, a `window.open` of a redirecting URL), then one from a popup the flow is
/// on: each is the step's, each leaves no tab behind, and the flow acts on the tab it was on.
/// Before, the emptied tabs stayed open (`tabs: { count: 1 }` got 4).
#[test]
fn new_tab_downloads_follow_redirects_and_leave_no_tab() {
    let d = tempfile::tempdir().unwrap();
    let port = free_port();
    let steps = r##"  - open: "{{ web_server.url }}"
  - id: redirected
    download: { target: "#redirected" }
  - id: one_tab
    expect: { tabs: { count: 1 } }
    continue_on_error: true
  - id: direct
    download: { target: "#direct" }
  - id: opened
    download: { target: "#opened" }
  - id: still_one_tab
    expect: { tabs: { count: 1 } }
    continue_on_error: true
  - id: still_home
    expect: { title: exports, visible: "#home" }
    timeout: 2s
    continue_on_error: true
  - click: "#popup"
  - tab: { switch: last }
  - id: from_popup
    download: { target: "#redirected" }
  - id: on_popup
    expect: { title: popup, visible: "#in", tabs: { count: 2 } }
    timeout: 2s
    continue_on_error: true
"##;
    write(
        d.path(),
        "exports.yaml",
        &format!(
            "name: exports\ndefaults: {{ timeout: 10s }}\nweb_server:\n  command: [\"python3\", \"{srv}\", \"{port}\"]\n  url: \"http://127.0.0.1:{port}/\"\n  ready_timeout: 20s\nsteps:\n{steps}",
            srv = fixture("download_redirects.py").display(),
        ),
    );
    let ran = flow_run(d.path()).arg("exports.yaml").run();
    let report = &ran.report;
    let sig = |id: &str| format!("http://127.0.0.1:{port}/files/invoice.csv?sig={id}");
    for (id, url) in [
        ("redirected", sig("id-7")),
        ("direct", sig("direct")),
        ("opened", sig("id-8")),
        ("from_popup", sig("id-9")),
    ] {
        let s = step(report, id);
        assert_eq!(s["outcome"], "passed", "{id}: {s}\n{}", ran.stderr);
        assert_eq!(s["outputs"]["url"], url, "{id}: {s}");
        let path = s["outputs"]["path"].as_str().unwrap();
        assert_eq!(std::fs::read_to_string(path).unwrap(), "id,total\n7,42\n");
    }
    for id in ["one_tab", "still_one_tab", "still_home", "on_popup"] {
        let s = step(report, id);
        assert_eq!(s["outcome"], "passed", "{id}: {s}");
    }
    assert_eq!(ran.code, 0, "{}", ran.stderr);
}

/// A plain `click` (not a `download` step) on `target=_blank` links and a `window.open` whose
/// response is a download: the tabs they emptied are closed as the `download` step closes its
/// own, the flow staying on its tab. Before, each click left an empty tab (`tabs: { count: 1 }` got 4, and
/// `tab: { switch: last }` went to an empty one).
#[test]
fn a_plain_click_that_downloads_in_a_new_tab_leaves_no_tab() {
    let d = tempfile::tempdir().unwrap();
    let port = free_port();
    let steps = r##"  - open: "{{ web_server.url }}"
  - click: "#redirected"
  - click: "#direct"
  - click: "#opened"
  - id: one_tab
    expect: { tabs: { count: 1 } }
    continue_on_error: true
  - id: still_home
    expect: { title: exports, visible: "#home" }
    continue_on_error: true
  - click: "#popup"
  - id: popup
    tab: { switch: last }
  - id: on_popup
    expect: { title: popup, tabs: { count: 2 } }
    continue_on_error: true
"##;
    write(
        d.path(),
        "clicks.yaml",
        &format!(
            "name: clicks\ndefaults: {{ timeout: 5s }}\nweb_server:\n  command: [\"python3\", \"{srv}\", \"{port}\"]\n  url: \"http://127.0.0.1:{port}/\"\n  ready_timeout: 20s\nsteps:\n{steps}",
            srv = fixture("download_redirects.py").display(),
        ),
    );
    let ran = flow_run(d.path()).arg("clicks.yaml").run();
    let report = &ran.report;
    for id in ["one_tab", "still_home", "popup", "on_popup"] {
        let s = step(report, id);
        assert_eq!(s["outcome"], "passed", "{id}: {s}\n{}", ran.stderr);
    }
    assert_eq!(ran.code, 0, "{}", ran.stderr);
}
