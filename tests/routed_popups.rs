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

/// A route's glob without a `?` of its own is matched against the URL without its query, so
/// `*` stays within a path segment of the path and a query holding `/` (`next=/home`) does not
/// stop it; and `[`, `]`, `?` are the URL's own characters (`filter[name]=x`), not a character
/// class and a one-character wildcard; `expect: { request }` reads its glob the same way.
/// Before, the glob was matched against the whole URL as globset reads it: neither route
/// answered (the real server's 404), though the steps said ok.
#[test]
fn a_routes_glob_reads_the_path_without_its_query_and_brackets_as_they_are() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join("site")).unwrap();
    write(
        d.path(),
        "site/q.html",
        r#"<!doctype html><title>q</title><p id="a">waiting</p><p id="b">waiting</p>
<script>
const show = (id, r) => r.text().then(t => document.getElementById(id).textContent = id + ' ' + r.status + ' ' + t);
fetch('/api/orders/1?next=/home').then(r => show('a', r));
fetch('/api/items?filter[name]=x').then(r => show('b', r));
</script>"#,
    );
    write(
        d.path(),
        "glob.yaml",
        r##"name: glob
web_server: { static: "site" }
steps:
  - route: { url: "**/api/orders/*", body: ORDER }
  - route: { url: "**/api/items?filter[name]=x", body: ITEMS }
  - open: "{{ web_server.url }}/q.html"
  - expect: { text: { target: "#a", equals: "a 200 ORDER" } }
    timeout: 4s
    continue_on_error: true
  - expect: { text: { target: "#b", equals: "b 200 ITEMS" } }
    timeout: 4s
    continue_on_error: true
  - expect: { request: { url: "**/api/orders/*", count: 1 } }
    timeout: 2s
    continue_on_error: true
  - expect: { request: { url: "**/api/items?filter[name]=x", count: 1 } }
    timeout: 2s
"##,
    );
    let ran = flow_run(d.path()).args(["glob.yaml"]).run();
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

/// A stub answers a cross-origin `fetch` as Playwright's `route.fulfill` does (its
/// `_maybeAddCorsHeaders`, and the Chromium interceptor's answer to a preflight): the page on
/// one origin reads a stubbed API on another (the usual app + API setup), a GET as a JSON POST
/// that the browser asks leave for first. A stub whose `headers` give their own
/// `Access-Control-Allow-Origin` keeps it (here one that lets no page read it). Before, the stub
/// had no CORS headers and every such fetch failed in the page ("Failed to fetch", review 26,
/// F2).
#[test]
fn a_stub_answers_a_cross_origin_fetch_as_playwrights_fulfill_does() {
    let d = tempfile::tempdir().unwrap();
    let site = d.path().join("site");
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(
        site.join("index.html"),
        r#"<!doctype html><title>cors</title><p id=get>-</p><p id=post>-</p><p id=own>-</p>
<script>
const api = location.origin.replace('127.0.0.1', 'localhost');
const show = (id, p) => p.then(r => r.json()).then(j => j[0].item, e => 'failed')
  .then(t => document.getElementById(id).textContent = id + ' ' + t);
show('get', fetch(api + '/api/orders'));
show('post', fetch(api + '/api/orders', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' }));
show('own', fetch(api + '/api/own'));
</script>"#,
    )
    .unwrap();
    write(
        d.path(),
        "cors.yaml",
        r##"name: cors
web_server: { static: ./site }
defaults: { timeout: 3s }
steps:
  - route: { url: "**/api/orders", body: [{ item: Tea }] }
  - route: { url: "**/api/own", body: [{ item: Own }], headers: { access-control-allow-origin: "http://elsewhere.example" } }
  - open: "{{ web_server.url }}/index.html"
  - expect: { url: { contains: "127.0.0.1" } }
  - expect: { text: { target: "#get", equals: "get Tea" } }
    continue_on_error: true
  - expect: { text: { target: "#post", equals: "post Tea" } }
    continue_on_error: true
  - expect: { text: { target: "#own", equals: "own failed" } }
    continue_on_error: true
  - expect: { request: { url: "**/api/orders", count: 2 } }
    continue_on_error: true
  - expect: { request: { url: "**/api/orders", method: POST, count: 1 } }
    continue_on_error: true
"##,
    );
    let ran = flow_run(d.path()).args(["cors.yaml"]).run();
    let steps = &ran.report["flows"][0]["steps"];
    assert_eq!(ran.code, 0, "{}\n{steps}", ran.stderr);
    // The page's two requests are counted, not the browser's preflight before the POST (as
    // Playwright's requests; review 27, F3: it was a third).
    for i in 1..=7 {
        assert_eq!(steps[i]["outcome"], "passed", "{i}: {steps}");
    }
}
