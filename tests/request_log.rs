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
