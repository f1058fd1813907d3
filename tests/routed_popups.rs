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

/// One interceptor answers the flow's routes, in every tab alike, a tab open before the route
/// included: a stub whose `headers` give its Content-Type is sent with that one Content-Type,
/// and a glob is read the one way the docs give (`*` within a segment: `*/api/wide*` matches no
/// `http://host/api/wide`). Before, agent-browser's own route answered beside runner's in the
/// flow's first tab: there `*` crossed `/` (the real server never asked), in a popup it did not
/// (404); and runner's stub sent two Content-Types (`text/plain; charset=utf-8,
/// application/xml`).
#[test]
fn one_interceptor_answers_the_routes_in_every_tab_alike() {
    let d = tempfile::tempdir().unwrap();
    let checks = r##"  - click: "#go"
  - expect: { text: { target: "#typed", equals: "200|application/xml|yes|<x/>" } }
    timeout: 3s
    continue_on_error: true
  - expect: { text: { target: "#wide", equals: "wide 404" } }
    timeout: 3s
    continue_on_error: true
"##;
    write(
        d.path(),
        "routed.yaml",
        &format!(
            r##"name: routed
web_server: {{ static: "{}" }}
steps:
  - open: "{{{{ web_server.url }}}}/probe.html"
  - click: "#pop"
  - tab: {{ switch: last }}
  - tab: {{ switch: first }}
  - route: {{ url: "**/api/typed", body: "<x/>", headers: {{ Content-Type: application/xml, X-Stub: "yes" }} }}
  - route: {{ url: "*/api/wide*", body: WIDE }}
{checks}  - tab: {{ switch: last }}
{checks}"##,
            fixture("routed-popup").display()
        ),
    );
    let ran = flow_run(d.path()).args(["routed.yaml"]).run();
    let steps = &ran.report["flows"][0]["steps"];
    let failed: Vec<String> = steps
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["outcome"] != "passed")
        .map(|s| format!("{}: {}", s["index"], s["error"]["message"]))
        .collect();
    assert!(failed.is_empty(), "{failed:#?}\n{}", ran.stderr);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
}
