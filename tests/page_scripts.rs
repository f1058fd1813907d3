//! runner's page scripts (its look-ups, checks, reads and the `eval` step) go over runner's own
//! DevTools session on the flow's tab, not through agent-browser (`RUNNER_OWN_EVAL=off` keeps
//! agent-browser's `eval`): they follow the flow's tab, and a dialog the flow must answer that
//! opens while one runs fails it at once, instead of leaving it hanging until its timeout.

use crate::common::{Ran, fixture, flow_run, write};

/// A flow serving `tests/fixtures/<site>`, with `steps`.
fn flow(site: &str, name: &str, steps: &str) -> String {
    format!(
        "name: {name}\nweb_server: {{ static: \"{}\" }}\nvars:\n  base: \"{{{{ web_server.url }}}}\"\nbrowser: {{ timeout: 5s }}\nsteps:\n{steps}",
        fixture(site).display()
    )
}

/// The steps of the report's first flow.
fn steps_of(report: &serde_json::Value) -> &Vec<serde_json::Value> {
    report["flows"][0]["steps"].as_array().unwrap()
}

/// Checks, look-ups and `eval` read the tab the flow acts on: a link's new tab once switched
/// to, the first one after switching back, a popup opened a moment later, and the tab before it
/// once it is closed.
#[test]
fn page_scripts_follow_the_flows_tab() {
    let d = tempfile::tempdir().unwrap();
    let steps = r##"  - open: "{{ vars.base }}/tabs.html"
  - expect: { text: { target: h1, equals: Tabs } }
  - click: { role: link, text: Open help }
  - tab: { switch: last }
  - expect: { text: { target: h1, equals: Second page } }
  - id: second
    eval: "document.title + ' ' + location.search"
  - expect: { that: "{{ steps.second.value == 'Second page ?from=tabs' }}" }
  - tab: { switch: 0 }
  - expect: { text: { target: h1, equals: Tabs } }
  - click: { role: button, text: Pop up }
  - tab: { switch: { url: "popup=1" } }
  - expect: { text: { target: h1, equals: Welcome } }
  - id: popup
    eval: "location.search"
  - expect: { that: "{{ steps.popup.value == '?popup=1' }}" }
  - tab: close
  - expect: { text: { target: h1, equals: Second page } }
  - expect: { not: { text: { target: h1, equals: Welcome } } }
"##;
    write(d.path(), "f.yaml", &flow("site", "tabs", steps));
    let report = flow_run(d.path()).arg("f.yaml").passes();
    for s in steps_of(&report) {
        assert_eq!(s["outcome"], "passed", "{s:#}");
    }
}

/// A confirm that opens while a script waits (an `eval` whose promise opens it) fails the
/// script at once, saying a dialog blocks the page, rather than when the step times out; the
/// `dialog` step after it answers it and the page's scripts run again. A confirm an earlier
/// `dialog` step armed an answer for is answered as it opens, and the script goes on to its
/// value.
#[test]
fn a_dialog_opening_while_a_script_runs_fails_it_at_once_unless_it_is_answered() {
    let d = tempfile::tempdir().unwrap();
    let steps = r##"  - open: "{{ vars.base }}/index.html"
  - id: blocked
    eval: "new Promise((r) => setTimeout(() => r(confirm('Sure?')), 100))"
    continue_on_error: true
  - dialog: accept
  - expect: { dialog: { type: confirm, message: Sure?, accepted: true } }
  - id: title
    eval: "document.title"
  - expect: { text: { target: h1, equals: Dialogs } }
  - dialog: dismiss
  - id: armed
    eval: "new Promise((r) => setTimeout(() => r(confirm('Again?')), 100))"
  - expect: { that: "{{ steps.armed.value == false and steps.title.value == 'Dialogs in either order' }}" }
"##;
    write(d.path(), "f.yaml", &flow("dialogs", "blocked", steps));
    let report = flow_run(d.path()).arg("f.yaml").passes();
    let all = steps_of(&report);
    let blocked = &all[1];
    assert_eq!(blocked["outcome"], "failed", "{blocked:#}");
    let message = blocked["error"]["message"].as_str().unwrap_or("");
    assert!(
        message.contains("a confirm dialog") && message.contains("is blocking the page"),
        "{message}"
    );
    // At once: well before the step's 5 s timeout.
    let took = blocked["duration_ms"].as_u64().unwrap();
    assert!(took < 2500, "the blocked script failed after {took} ms");
    for s in &all[2..] {
        assert_eq!(s["outcome"], "passed", "{s:#}");
    }
}

/// `RUNNER_OWN_EVAL=off` sends the page's scripts as agent-browser `eval`s, which a confirm
/// opening meanwhile holds (agent-browser refuses a command while it knows a dialog is open,
/// not one already under way): runner gives the command up as the dialog opens, and the step
/// fails at once as on the default path; any other value than `on` or `off` is refused.
#[test]
fn runner_own_eval_off_goes_through_agent_browser() {
    let d = tempfile::tempdir().unwrap();
    let steps = r##"  - open: "{{ vars.base }}/index.html"
  - expect: { text: { target: h1, equals: Dialogs } }
  - eval: "new Promise((r) => setTimeout(() => r(confirm('Sure?')), 100))"
    timeout: 1s
"##;
    write(d.path(), "f.yaml", &flow("dialogs", "off", steps));
    let Ran { code, report, .. } = flow_run(d.path())
        .arg("f.yaml")
        .env("RUNNER_OWN_EVAL", "off")
        .run();
    assert_eq!(code, 1, "{report:#}");
    let all = steps_of(&report);
    assert_eq!(all[1]["outcome"], "passed", "{:#}", all[1]);
    let message = all[2]["error"]["message"].as_str().unwrap_or("");
    assert!(
        message.contains("a confirm dialog") && message.contains("is blocking the page"),
        "{message}"
    );
    let took = all[2]["duration_ms"].as_u64().unwrap();
    assert!(took < 900, "the blocked script failed after {took} ms");

    let Ran { code, stderr, .. } = flow_run(d.path())
        .arg("f.yaml")
        .env("RUNNER_OWN_EVAL", "yes")
        .run();
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains("RUNNER_OWN_EVAL=yes: expected `on` (the default) or `off`"),
        "{stderr}"
    );
}
