//! `expect: { request }` counts every request the flow's pages made, also when a page makes
//! thousands of them between two steps (attack 28, E2): agent-browser's own request log drops
//! events under such a flood, so runner keeps its own record (see `driver::request_log`).

use crate::common::{fixture, flow_run, write};

/// A page that fetches `/api/secret` once, then 4000 `/noise<i>` at once: the request made
/// before the flood is counted (once: `count: 0` would have held before, on a log that lost
/// it), and so is every request of the flood; a popup's own request is counted too. Before,
/// runner read agent-browser's log: `got 0` for the secret and `got 468`..`3299` for the
/// noise in 3 of 3 runs.
#[test]
fn a_flood_of_requests_loses_none_of_them() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "flood.yaml",
        &format!(
            r##"name: flood
web_server: {{ static: "{}" }}
steps:
  - open: "{{{{ web_server.url }}}}/index.html?n=4000"
  - wait: {{ text: done }}
    timeout: 20s
  - expect: {{ request: {{ url: "**/api/secret*", count: 1 }} }}
    timeout: 2s
  - expect: {{ request: {{ url: "**/noise*", count: 4000 }} }}
    timeout: 2s
  - click: "#pop"
  - expect: {{ request: {{ url: "**/api/popup*", method: GET, count: 1 }} }}
    timeout: 3s
  - expect: {{ request: {{ url: "**/api/nowhere*", count: 0 }} }}
"##,
            fixture("request-flood").display()
        ),
    );
    let ran = flow_run(d.path()).args(["flood.yaml"]).run();
    let steps = &ran.report["flows"][0]["steps"];
    assert_eq!(ran.code, 0, "{}\n{steps}", ran.stderr);
    assert_eq!(ran.report["flows"][0]["status"], "passed", "{steps}");
}

/// A dedicated Web Worker's requests are the flow's pages' too (attack 29, A3): its `fetch` is
/// counted, in the first tab and in a popup, and `count: 0` of it fails. Before, runner's
/// record held the tabs' own requests only: `got 0` for both, and `count: 0` passed.
/// With a locale too, where two of runner's sessions hold each worker: still counted once.
#[test]
fn a_workers_requests_are_counted() {
    for browser in ["", "browser: { locale: de-DE }\n"] {
        workers_requests_counted(browser);
    }
}

fn workers_requests_counted(browser: &str) {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "workers.yaml",
        &format!(
            r##"name: workers
{browser}web_server: {{ static: "{}" }}
steps:
  - open: "{{{{ web_server.url }}}}/index.html"
  - wait: {{ text: "started worker" }}
  - expect: {{ request: {{ url: "**/api/from-worker?page", count: 1 }} }}
    timeout: 2s
  - id: none
    continue_on_error: true
    expect: {{ request: {{ url: "**/api/from-worker?page", count: 0 }} }}
    timeout: 1s
  - click: "#pop"
  - tab: {{ switch: last }}
  - wait: {{ text: "popup worker" }}
  - expect: {{ request: {{ url: "**/api/from-worker?popup", count: 1 }} }}
    timeout: 2s
"##,
            fixture("request-workers").display()
        ),
    );
    let ran = flow_run(d.path()).args(["workers.yaml"]).run();
    let steps = &ran.report["flows"][0]["steps"];
    let none = steps
        .as_array()
        .and_then(|s| s.iter().find(|s| s["id"] == "none"))
        .unwrap_or_else(|| panic!("{steps}\n{}", ran.stderr));
    assert_eq!(none["outcome"], "failed", "{none}");
    assert!(
        none["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("got 1"),
        "{none}"
    );
    assert_eq!(
        ran.report["flows"][0]["steps"].as_array().map(Vec::len),
        Some(8),
        "{steps}"
    );
    assert_eq!(
        steps
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["outcome"] == "failed")
            .count(),
        1,
        "{steps}\n{}",
        ran.stderr
    );
}
