//! A saved state's localStorage reaches the documents of the origins it names, and only
//! those (attack 26, C24).

use crate::common::{fixture, flow_run, write};

/// A state naming one origin of a server: a page of that origin starts with its items, a page of the same server under another origin (`localhost` for
/// `127.0.0.1`), which the state does not name, starts with none, and neither sees the items
/// of a third origin the state names.
#[test]
fn a_page_of_an_origin_the_state_does_not_name_gets_no_storage() {
    let d = tempfile::tempdir().unwrap();
    let port = crate::common::free_port();
    let state = serde_json::json!({ "cookies": [], "origins": [
        { "origin": format!("http://127.0.0.1:{port}"), "localStorage": [
            { "name": "token", "value": "t-ada" }, { "name": "theme", "value": "dark" }] },
        { "origin": "http://elsewhere.test", "localStorage": [
            { "name": "other", "value": "not-here" }] },
    ] });
    write(d.path(), "state.json", &state.to_string());
    let keys =
        "JSON.stringify(Object.keys(localStorage).sort().map((k) => [k, localStorage.getItem(k)]))";
    write(
        d.path(),
        "f.yaml",
        &format!(
            r##"name: origins
web_server:
  command: ["python3", "{echo}", "{port}", "{site}"]
  url: "http://127.0.0.1:{port}/index.html"
  ready_timeout: 20s
browser: {{ state: state.json }}
steps:
  - open: "http://127.0.0.1:{port}/index.html"
  - id: named
    eval: "{keys}"
  - expect: {{ that: "{{{{ steps.named.value == '[[\"theme\",\"dark\"],[\"token\",\"t-ada\"]]' }}}}" }}
  - open: "http://localhost:{port}/index.html"
  - id: unnamed
    eval: "{keys}"
  - expect: {{ that: "{{{{ steps.unnamed.value == '[]' }}}}" }}
"##,
            echo = fixture("echo_server.py").display(),
            site = fixture("site").display(),
        ),
    );
    let report = flow_run(d.path()).arg("f.yaml").passes();
    let steps = report["flows"][0]["steps"].as_array().unwrap();
    let value = |id: &str| {
        steps
            .iter()
            .find(|s| s["id"] == id)
            .map(|s| s["outputs"]["value"].clone())
            .unwrap()
    };
    assert_eq!(value("unnamed"), "[]", "{report}");
}
