//! `route` holds for every tab of the flow (attack 29, A8): a popup the page opens, or a
//! `target=_blank` link's tab, gets the flow's stubs and aborts as the flow's own tab does.

use crate::common::{fixture, flow_run, write};

/// A stub and an abort routed before the popup opens answer the popup's own `fetch`es (the
/// stubbed body; a network error). Before, they reached the flow's first tab only: the popup
/// reached the static server (404) for both.
#[test]
fn routes_reach_the_tabs_the_page_opens() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "routed.yaml",
        &format!(
            r##"name: routed
web_server: {{ static: "{}" }}
steps:
  - open: "{{{{ web_server.url }}}}/index.html"
  - route: {{ url: "**/api/stubbed", body: STUBBED }}
  - route: {{ url: "**/api/blocked", abort: true }}
  - click: "#pop"
  - tab: {{ switch: last }}
  - wait: {{ text: "got STUBBED" }}
    timeout: 5s
  - wait: {{ text: "blocked aborted" }}
    timeout: 5s
  - tab: close
  - click: "#blank"
  - tab: {{ switch: last }}
  - wait: {{ text: "got STUBBED" }}
    timeout: 5s
"##,
            fixture("routed-popup").display()
        ),
    );
    let ran = flow_run(d.path()).args(["routed.yaml"]).run();
    let steps = &ran.report["flows"][0]["steps"];
    assert_eq!(ran.code, 0, "{}\n{steps}", ran.stderr);
    assert_eq!(ran.report["flows"][0]["status"], "passed", "{steps}");
}
