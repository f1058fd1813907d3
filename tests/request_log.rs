//! `expect: { request }` counts every request the flow's pages made, also when a page makes
//! thousands of them between two steps (attack 28, E2): agent-browser's own request log drops
//! events under such a flood, so runner keeps its own record (see `driver::request_log`).

use serde_json::Value;

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

/// A dedicated Web Worker's requests are its page's (attack 29, A3; Playwright counts them on
/// the page): the worker's `fetch`, made as its first task, is counted, in the flow's first tab
/// and in a popup, and so is that of a worker the worker starts; `count: 0` of it fails. Before, runner's record held the tabs' own
/// requests only: `got 0`, and `count: 0` passed. With a locale too, whose setting of each
/// worker's language shares the one hold of the worker (the worker sees the flow's language,
/// its fetch is counted once).
///
/// The workers fetch once their page has loaded (as analytics moved to a worker do).
///
/// Without a locale: a worker let run before runner holds it still has its later requests
/// counted, but with a locale it keeps the browser's language (the gap below), which a fresh-
/// clone CI met once in a popup: the locale's part is in the ignored test.
#[test]
fn a_workers_requests_are_counted() {
    workers_requests_counted("", "en-US", "");
}

/// The known gap (docs/browser.md): a worker whose FIRST task is the request (or, with a
/// locale, any worker: its language) is in about 1 run in 30 let run before runner's session
/// holds it (agent-browser's session on the tab lets it go first), and that request is not
/// counted (`count: 1` then says runner cannot tell, see the test above). Ignored until it is
/// closed: run it with `--ignored` to see it.
#[test]
#[ignore = "known gap: a worker's first-task request is missed in about 1 run in 30"]
fn a_workers_first_task_requests_are_counted() {
    for _ in 0..20 {
        workers_requests_counted("", "en-US", "?first=1");
        workers_requests_counted("browser: { locale: de-DE }\n", "de-DE", "");
    }
}

/// The known gap's honest side: a worker that fetches as its first task in the flow's first
/// tab has its request counted, or, when it ran before runner held it (about 1 run in 30),
/// every check its missing request could change says runner cannot tell — `count: 0` never
/// passes. Before, `count: 0` passed in those runs (9 of 300, a false green) and `count: 1`
/// failed with `got 0`.
#[test]
fn a_workers_first_task_request_is_counted_or_said_unknown() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "first.yaml",
        &format!(
            r##"name: first
web_server: {{ static: "{}" }}
steps:
  - open: "{{{{ web_server.url }}}}/index.html?first=1"
  - wait: {{ text: "started worker en-US" }}
  - id: one
    continue_on_error: true
    expect: {{ request: {{ url: "**/api/from-worker?page", count: 1 }} }}
    timeout: 2s
  - id: some
    continue_on_error: true
    expect: {{ request: {{ url: "**/api/from-worker?page" }} }}
    timeout: 1s
  - id: none
    continue_on_error: true
    expect: {{ request: {{ url: "**/api/from-worker?page", count: 0 }} }}
    timeout: 1s
"##,
            fixture("request-workers").display()
        ),
    );
    let cannot_tell = "cannot tell: a worker ran before runner held it (http://127.0.0.1:";
    for _ in 0..ROUNDS {
        let ran = flow_run(d.path()).args(["first.yaml"]).run();
        let steps = ran.report["flows"][0]["steps"].clone();
        let step = |id: &str| {
            let s = steps
                .as_array()
                .into_iter()
                .flatten()
                .find(|s| s["id"] == id);
            let s = s.unwrap_or_else(|| panic!("no step {id}: {steps:#}\n{}", ran.stderr));
            let message = s["error"]["message"].as_str().unwrap_or_default();
            (
                s["outcome"].as_str().unwrap_or_default().to_string(),
                message.to_string(),
            )
        };
        let (none, why) = step("none");
        assert_eq!(none, "failed", "{steps:#}");
        let held = why.starts_with("expected 0 request(s)") && why.ends_with("got 1");
        assert!(held || why.starts_with(cannot_tell), "{why}");
        let (one, why_one) = step("one");
        let (some, why_some) = step("some");
        if held {
            assert_eq!(
                (one.as_str(), some.as_str()),
                ("passed", "passed"),
                "{steps:#}"
            );
        } else {
            // One recorded: exactly one cannot be told, at least one can.
            assert!(why_one.starts_with(cannot_tell), "{why_one}");
            assert!(
                some == "passed" || why_some.starts_with(cannot_tell),
                "{why_some}"
            );
        }
    }
}

/// Rounds of the first-task flow: the gap shows in about 1 run in 30.
const ROUNDS: usize = 10;

fn workers_requests_counted(browser: &str, language: &str, query: &str) {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "workers.yaml",
        &format!(
            r##"name: workers
{browser}web_server: {{ static: "{}" }}
steps:
  - open: "{{{{ web_server.url }}}}/index.html{query}"
  - wait: {{ text: "started worker {language}" }}
  - expect: {{ request: {{ url: "**/api/from-worker?page", count: 1 }} }}
    timeout: 2s
  - id: none
    continue_on_error: true
    expect: {{ request: {{ url: "**/api/from-worker?page", count: 0 }} }}
    timeout: 1s
  - expect: {{ request: {{ url: "**/api/from-nested", count: 1 }} }}
    timeout: 2s
  - click: "#pop"
  - tab: {{ switch: last }}
  - wait: {{ text: "popup worker {language}" }}
    timeout: 5s
  - expect: {{ request: {{ url: "**/api/from-worker?popup", count: 1 }} }}
    timeout: 2s
"##,
            fixture("request-workers").display()
        ),
    );
    // A worker a popup starts stays unstarted, now and then, on a loaded machine (about 1 run
    // in 25 with two flows at once: its target is created, its script never fetched, no
    // session attached to it). That is the browser's: it happens with runner's hold of new
    // tabs and of their workers both turned off. Such a run is run again.
    let stalled = |steps: &[Value]| {
        steps.iter().any(|s| {
            s["outcome"] == "failed"
                && s["name"] == format!("wait text popup worker {language}")
                && s["error"]["kind"] == "timeout"
        })
    };
    let mut tries = 0;
    let (ran, steps) = loop {
        tries += 1;
        let ran = flow_run(d.path()).args(["workers.yaml"]).run();
        let steps = ran.report["flows"][0]["steps"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        if tries == 3 || !stalled(&steps) {
            break (ran, steps);
        }
    };
    let shown = || format!("{browser}{steps:#?}\n{}", ran.stderr);
    let none = steps.iter().find(|s| s["id"] == "none");
    let none = none.unwrap_or_else(|| panic!("{}", shown()));
    assert_eq!(none["outcome"], "failed", "{}", shown());
    let message = none["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("got 1"), "{}", shown());
    assert_eq!(steps.len(), 9, "{}", shown());
    let failed = steps.iter().filter(|s| s["outcome"] == "failed").count();
    assert_eq!(failed, 1, "{}", shown());
}

/// A URL glob is read as the browser requests the URL: a space or a non-ASCII letter in it is
/// percent-encoded first (attack 31, G10: `**/files/my report.pdf` matched nothing, so `count: 0`
/// held while the page made the request, and a route on `**/café/menu` never stubbed).
#[test]
fn a_glob_written_with_a_space_or_an_accent_matches_what_the_page_requests() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join("site")).unwrap();
    write(
        d.path(),
        "site/index.html",
        r#"<!doctype html><meta charset="utf-8"><title>Globs</title><p id="out">none</p>
<button id="go">Go</button>
<script>
document.getElementById('go').addEventListener('click', async () => {
  await fetch('/files/my report.pdf');
  await fetch("/api/search?q=it's");
  await fetch('/api/pipe|caret^x{y}');
  const menu = await (await fetch('/café/menu')).text();
  document.getElementById('out').textContent = 'menu:' + menu;
});
</script>"#,
    );
    write(
        d.path(),
        "f.yaml",
        r##"name: globs
web_server: { static: ./site }
steps:
  - open: "{{ web_server.url }}/index.html"
  - route: { url: "**/café/menu", body: STUB }
  - click: "#go"
  - expect: { text: { target: "#out", equals: "menu:STUB" } }
  - expect: { request: { url: "**/files/my report.pdf", count: 1 } }
  - expect: { request: { url: "**/api/search?q=it's", count: 1 } }
  - expect: { request: { url: "**/api/pipe|caret^x{y}", count: 1 } }
  - id: none
    expect: { request: { url: "**/files/my report.pdf", count: 0 } }
    continue_on_error: true
    timeout: 1s
  - id: none2
    expect: { request: { url: "**/api/search?q=it's", count: 0 } }
    continue_on_error: true
    timeout: 1s
"##,
    );
    let ran = flow_run(d.path()).arg("f.yaml").run();
    let steps = ran.report["flows"][0]["steps"]
        .as_array()
        .unwrap_or_else(|| panic!("no report:\n{}", ran.stderr))
        .clone();
    assert_eq!(steps.len(), 9, "{}", ran.stderr);
    for s in &steps[..7] {
        assert_eq!(s["outcome"], "passed", "{s}\n{}", ran.stderr);
    }
    assert_eq!(steps[7]["outcome"], "failed", "{}", steps[7]);
    assert_eq!(steps[8]["outcome"], "failed", "{}", steps[8]);
}
