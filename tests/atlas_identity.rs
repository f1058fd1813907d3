//! States that survive data (issue 28): on a small data browser (`tests/fixtures/data-app`: a
//! table of books, a row's page, its edit form, its data in `data.json`, started by its
//! runner.toml), explore records a screen once whatever row it shows; after a data edit verify
//! passes, reporting the drift; after a renamed button it fails that state, saying what was
//! expected and what was found (console, JSON, HTML); and states have names a reader can tell
//! apart. `[atlas] fingerprint = "text"` keeps the text-exact identity.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{fixture, output, runner};

/// A copy of the data app in `d/app` (the test edits its data and pages).
pub(crate) fn app(d: &Path) -> PathBuf {
    let to = d.join("app");
    for e in walkdir::WalkDir::new(fixture("data-app"))
        .into_iter()
        .filter_map(Result::ok)
    {
        let rel = e.path().strip_prefix(fixture("data-app")).unwrap();
        if e.file_type().is_dir() {
            std::fs::create_dir_all(to.join(rel)).unwrap();
        } else {
            std::fs::copy(e.path(), to.join(rel)).unwrap();
        }
    }
    to
}

/// Replaces `from` (which must be there) with `to` in the app's file `rel`.
pub(crate) fn edit(app: &Path, rel: &str, from: &str, to: &str) {
    let p = app.join(rel);
    let text = std::fs::read_to_string(&p).unwrap();
    assert!(text.contains(from), "{rel} has no {from:?}");
    std::fs::write(&p, text.replace(from, to)).unwrap();
}

/// `runner <args> --atlas atlas` in the app (its runner.toml starts the app).
pub(crate) fn atlas_run(app: &Path, args: &[&str]) -> (i32, String, String) {
    let mut c = runner(app);
    c.args(args).args(["--atlas", "atlas"]);
    output(c)
}

/// Every node's meta.json, with its id.
fn metas(app: &Path) -> Vec<Value> {
    std::fs::read_dir(app.join("atlas/nodes"))
        .unwrap()
        .flatten()
        .map(|e| {
            serde_json::from_str(&std::fs::read_to_string(e.path().join("meta.json")).unwrap())
                .unwrap()
        })
        .collect()
}

/// The id of the one node whose URL's path and query match `path` (`\d` for an id).
pub(crate) fn node_at(app: &Path, path: &str) -> String {
    let re = regex::Regex::new(&format!("^http://[^/]+{path}$")).unwrap();
    let found: Vec<String> = metas(app)
        .iter()
        .filter(|m| re.is_match(m["url"].as_str().unwrap()))
        .map(|m| m["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(found.len(), 1, "nodes at {path}: {:#?}", metas(app));
    found[0].clone()
}

/// `atlas verify` with a JSON report and an HTML one: (exit code, stdout, the JSON report).
pub(crate) fn verify(app: &Path) -> (i32, String, Value) {
    let (code, stdout, stderr) = atlas_run(
        app,
        &[
            "atlas",
            "verify",
            "--report",
            "json=verify.json",
            "--report",
            "html=html",
        ],
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    let report = std::fs::read_to_string(app.join("verify.json")).unwrap();
    (code, stdout, serde_json::from_str(&report).unwrap())
}

/// The lines verify printed for a node: its own, then the indented ones under it.
pub(crate) fn lines_of(stdout: &str, node: &str) -> Vec<String> {
    let mut out = Vec::new();
    for l in stdout.lines() {
        if l.contains(&format!(" {node} ")) && !l.starts_with(' ') {
            out.push(l.to_string());
        } else if !out.is_empty() && l.starts_with("  ") {
            out.push(l.trim().to_string());
        } else if !out.is_empty() {
            break;
        }
    }
    out
}

/// The JSON report's flow of a node.
pub(crate) fn flow_of<'a>(report: &'a Value, node: &str) -> &'a Value {
    report["flows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"].as_str().unwrap().starts_with(node))
        .unwrap_or_else(|| panic!("no flow for {node}: {report}"))
}

#[test]
fn a_data_edit_is_drift_and_a_renamed_button_fails_its_state_with_a_diff() {
    let d = tempfile::tempdir().unwrap();
    let app = app(d.path());
    let (code, stdout, stderr) = atlas_run(&app, &["explore", "/", "--max-depth", "4"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    // A row's page is one state whatever row it shows, and so is a row's edit form.
    let row = node_at(&app, r"/books/\d+");
    let form = node_at(&app, r"/books/\d+/edit");
    let atlas_json = std::fs::read_to_string(app.join("atlas/atlas.json")).unwrap();
    assert!(atlas_json.contains("\"structure\""), "{atlas_json}");

    let (code, stdout, _) = verify(&app);
    assert_eq!(code, 0, "{stdout}");
    assert!(
        stdout.contains("0 no longer arrive, 0 with data drift"),
        "{stdout}"
    );

    // Data edits: a row's title, a new row. Every state still arrives; the drift is reported.
    edit(&app, "data.json", "\"Dune\"", "\"Dune Messiah\"");
    edit(
        &app,
        "data.json",
        "\"year\": 1984 }",
        "\"year\": 1984 },\n    { \"id\": 4, \"title\": \"Foundation\", \"author\": \"Isaac Asimov\", \"year\": 1951 }",
    );
    let (code, stdout, report) = verify(&app);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains(" 0 no longer arrive"), "{stdout}");
    let table = node_at(&app, "/books");
    let lines = lines_of(&stdout, &table);
    assert!(lines[0].starts_with(&format!("ok   {table}")), "{lines:?}");
    assert!(
        lines.iter().any(|l| l.starts_with("data drift: ")
            && l.contains("\"Dune\" -> \"Dune Messiah\"")
            && l.contains("+ \"Foundation\"")),
        "{lines:?}"
    );
    // The row's heading is its title: data on a record's page.
    let lines = lines_of(&stdout, &row);
    assert!(lines[0].starts_with(&format!("ok   {row}")), "{lines:?}");
    assert!(
        lines[1].contains("\"Dune\" -> \"Dune Messiah\""),
        "{lines:?}"
    );
    let flow = flow_of(&report, &table);
    assert_eq!(flow["status"], "passed", "{flow}");
    let drift = flow["state"]["drift"].as_array().unwrap();
    assert!(
        drift
            .iter()
            .any(|c| c["expected"] == "Dune" && c["found"] == "Dune Messiah"),
        "{flow}"
    );
    assert!(flow["state"].get("renamed").is_none(), "{flow}");
    let html = std::fs::read_to_string(app.join("html/index.html")).unwrap();
    assert!(
        html.contains("data drift") && html.contains("Dune Messiah"),
        "{html}"
    );

    // A renamed button, and a link to the form that now carries a query: the form's state
    // fails, showing what was expected and what was found; the others still arrive.
    edit(&app, "pages/edit.html", ">Save<", ">Store<");
    edit(&app, "pages/row.html", "/edit\">", "/edit?from=row\">");
    let (code, stdout, report) = verify(&app);
    assert_eq!(code, 1, "{stdout}");
    let failed: Vec<&str> = stdout.lines().filter(|l| l.starts_with("FAIL")).collect();
    assert_eq!(failed.len(), 1, "{stdout}");
    let lines = lines_of(&stdout, &form);
    assert!(lines[0].starts_with(&format!("FAIL {form}")), "{lines:?}");
    assert!(
        lines.contains(&"url: expected /books/:id/edit, found /books/:id/edit?from=*".to_string()),
        "{lines:?}"
    );
    assert!(
        lines
            .contains(&"renamed: button \"Save\" -> button \"Store\" (in main > form)".to_string()),
        "{lines:?}"
    );
    let flow = flow_of(&report, &form);
    assert_eq!(flow["status"], "failed", "{flow}");
    let state = &flow["state"];
    assert_eq!(state["expected"]["route"], "/books/:id/edit", "{state}");
    assert_eq!(state["found"]["route"], "/books/:id/edit?from=*", "{state}");
    assert!(
        state["found"]["url"]
            .as_str()
            .unwrap()
            .ends_with("/books/1/edit?from=row"),
        "{state}"
    );
    assert_eq!(
        (
            &state["renamed"][0]["from"]["name"],
            &state["renamed"][0]["to"]["name"]
        ),
        (&Value::from("Save"), &Value::from("Store")),
        "{state}"
    );
    // The failure's message carries the diff too (JUnit and the console's failure line).
    let message = flow["error"]["message"].as_str().unwrap();
    assert!(message.contains("renamed: button \"Save\""), "{message}");
    let html = std::fs::read_to_string(app.join("html/index.html")).unwrap();
    assert!(
        html.contains("/books/:id/edit?from=*") && html.contains("Store"),
        "{html}"
    );
}

/// Runs `flow` (YAML) in the app, which records into `atlas`.
pub(crate) fn record(app: &Path, flow: &str) {
    std::fs::write(app.join("record.yaml"), flow).unwrap();
    let mut c = runner(app);
    c.args(["run", "record.yaml"]);
    let (code, stdout, stderr) = output(c);
    assert_eq!(code, 0, "{stdout}{stderr}");
}

/// The labels `atlas show` gives the nodes.
fn shown_labels(app: &Path) -> Vec<String> {
    let (code, show, stderr) = atlas_run(app, &["atlas", "show"]);
    assert_eq!(code, 0, "{stderr}");
    show.lines()
        .skip_while(|l| *l != "nodes:")
        .skip(1)
        .take_while(|l| !l.is_empty())
        .map(|l| l.trim().split_once("  ").unwrap().1.to_string())
        .collect()
}

#[test]
fn states_have_names_a_reader_can_tell_apart_and_graphs_short_labels() {
    let d = tempfile::tempdir().unwrap();
    let app = app(d.path());
    // Two states of one page (the home page, its "About" disclosure open or not), and a long
    // query (as Datasette's SQL pages have).
    let sql = "select+title%2C+author+from+books+where+year+%3E+1900+order+by+year+desc+limit+10";
    record(
        &app,
        &format!(
            r#"name: names
atlas: atlas
steps:
  - open: "{{{{ web_server.library.url }}}}/"
  - link_state: home
  - click: {{ text: About }}
  - link_state: open about
  - open: "{{{{ web_server.library.url }}}}/books"
  - click: {{ role: link, text: "1" }}
  - link_state: row
  - open: "{{{{ web_server.library.url }}}}/books?q={sql}"
  - link_state: query
"#
        ),
    );
    let labels = shown_labels(&app);
    assert_eq!(labels.len(), 4, "{labels:?}");
    let distinct: std::collections::BTreeSet<&String> = labels.iter().collect();
    assert_eq!(distinct.len(), 4, "two states share a name: {labels:?}");
    for want in [
        "Library / · \"About\" [expanded=false]",
        "Library / · \"About\" [expanded=true]",
        "Books · Library /books?q=*",
        "Dune · Library /books/:id",
    ] {
        assert!(labels.iter().any(|l| l == want), "{want} not in {labels:?}");
    }
    for format in ["dot", "mermaid"] {
        let (code, graph, _) = atlas_run(&app, &["atlas", "graph", "--format", format]);
        assert_eq!(code, 0);
        assert!(!graph.contains("select"), "{graph}");
        for l in graph.lines() {
            assert!(l.chars().count() <= 100, "a long line in the graph: {l}");
        }
    }
}

#[test]
fn fingerprint_text_keeps_the_text_exact_identity() {
    let d = tempfile::tempdir().unwrap();
    let app = app(d.path());
    let toml = std::fs::read_to_string(app.join("runner.toml")).unwrap();
    // A value runner does not know is refused, pointing at its line.
    std::fs::write(
        app.join("runner.toml"),
        format!("{toml}\n[atlas]\nfingerprint = \"exact\"\n"),
    )
    .unwrap();
    let mut c = runner(&app);
    c.arg("validate");
    let (code, _, stderr) = output(c);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("runner.toml:8:15: error: `exact` is not a valid `fingerprint`"),
        "{stderr}"
    );
    std::fs::write(
        app.join("runner.toml"),
        format!("{toml}\n[atlas]\nfingerprint = \"text\"\n"),
    )
    .unwrap();
    let rows = r#"name: rows
atlas: atlas
steps:
  - open: "{{ web_server.library.url }}/books/1"
  - link_state: first row
  - open: "{{ web_server.library.url }}/books/2"
  - id: second
    link_state: second row
  - expect: { that: "{{ steps.second.is_new }}" }
"#;
    record(&app, rows);
    let atlas_json = std::fs::read_to_string(app.join("atlas/atlas.json")).unwrap();
    assert!(atlas_json.contains("\"text\""), "{atlas_json}");
    // By text, a data edit is another state: verify fails the row, saying which text changed.
    edit(&app, "data.json", "\"Dune\"", "\"Dune Messiah\"");
    let (code, stdout, _) = verify(&app);
    assert_eq!(code, 1, "{stdout}");
    let first = node_at(&app, "/books/1");
    let lines = lines_of(&stdout, &first);
    assert!(lines[0].starts_with(&format!("FAIL {first}")), "{lines:?}");
    assert!(
        lines.contains(&"text: \"Dune\" -> \"Dune Messiah\"".to_string()),
        "{lines:?}"
    );
    // The atlas keeps how it was made: recording into it by structure is refused.
    let (code, _, stderr) = atlas_run(&app, &["explore", "/", "--fingerprint", "structure"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("tells states apart by `text`"), "{stderr}");
}

/// What verify reports of a state (its URL, its texts) never holds a secret the replayed steps
/// typed: the state found is masked as the recorded one was.
#[test]
fn verify_reports_no_secret_the_replay_typed() {
    let d = tempfile::tempdir().unwrap();
    let app = app(d.path());
    std::fs::write(
        app.join("search.yaml"),
        r##"name: a secret search
secrets: [LIBRARY_SECRET]
atlas: atlas
steps:
  - open: "{{ web_server.library.url }}/books"
  - link_state: table
  - fill: { target: "#q", value: "{{ secrets.LIBRARY_SECRET }}" }
  - click: { role: button, text: Search }
  - wait: { url: "q=" }
  - link_state: secret search
"##,
    )
    .unwrap();
    let mut c = runner(&app);
    c.env("LIBRARY_SECRET", "recorded-word")
        .args(["run", "search.yaml"]);
    let (code, stdout, stderr) = output(c);
    assert_eq!(code, 0, "{stdout}{stderr}");
    // The project names the secret its atlas's steps may read (see atlas_reach).
    let toml = std::fs::read_to_string(app.join("runner.toml")).unwrap();
    std::fs::write(
        app.join("runner.toml"),
        format!("{toml}\n[atlas]\nsecrets = [\"LIBRARY_SECRET\"]\n"),
    )
    .unwrap();
    let mut c = runner(&app);
    c.env("LIBRARY_SECRET", "replayed-word").args([
        "atlas",
        "verify",
        "--atlas",
        "atlas",
        "--report",
        "json=verify.json",
    ]);
    let (code, stdout, stderr) = output(c);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let report = std::fs::read_to_string(app.join("verify.json")).unwrap();
    for text in [&stdout, &stderr, &report] {
        assert!(!text.contains("replayed-word"), "{text}");
        assert!(!text.contains("recorded-word"), "{text}");
    }
    assert!(stdout.contains("0 with data drift"), "{stdout}");
}
