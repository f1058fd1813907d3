//! Drift a reader can read (issue 28, after a tester's run on Datasette): on a page whose data
//! is one long text (a JSON or CSV body), a row edit shows the part that changed, not the whole
//! body twice; and texts that only moved (a row that is now first) are not listed as taken out
//! and put in. On the data app (`tests/fixtures/data-app`), whose `/books.json` and `/books.csv`
//! are as Datasette's.

use serde_json::Value;

use crate::atlas_identity::{app, edit, flow_of, lines_of, node_at, record, verify};

/// The `data drift: ...` line verify printed under `node`.
fn drift_line(stdout: &str, node: &str) -> String {
    let lines = lines_of(stdout, node);
    assert!(lines[0].starts_with(&format!("ok   {node}")), "{lines:?}");
    lines
        .iter()
        .find(|l| l.starts_with("data drift: "))
        .unwrap_or_else(|| panic!("no drift under {node}: {lines:?}"))
        .clone()
}

#[test]
fn drift_on_a_json_or_csv_page_shows_the_part_that_changed() {
    let d = tempfile::tempdir().unwrap();
    let app = app(d.path());
    record(
        &app,
        r#"name: bodies
atlas: atlas
steps:
  - open: "{{ web_server.library.url }}/books.json"
  - link_state: json
  - open: "{{ web_server.library.url }}/books.csv"
  - link_state: csv
"#,
    );
    edit(&app, "data.json", "\"Dune\"", "\"Dune Messiah\"");
    let (code, stdout, report) = verify(&app);
    assert_eq!(code, 0, "{stdout}");
    for path in [r"/books\.json", r"/books\.csv"] {
        let node = node_at(&app, path);
        // The change, with a little of what is around it: not the body, whole, twice.
        let line = drift_line(&stdout, &node);
        assert!(line.contains("Dune -> Dune Messiah"), "{line}");
        assert!(!line.contains("Neuromancer"), "{line}");
        assert!(line.chars().count() <= 200, "{line}");
        // The JSON report holds the same part of each side.
        let drift = flow_of(&report, &node)["state"]["drift"]
            .as_array()
            .unwrap_or_else(|| panic!("no drift: {report}"))
            .clone();
        assert_eq!(drift.len(), 1, "{drift:?}");
        let side = |key: &str| drift[0][key].as_str().unwrap().to_string();
        let (expected, found) = (side("expected"), side("found"));
        assert!(
            expected.contains("Dune") && !expected.contains("Messiah"),
            "{expected}"
        );
        assert!(found.contains("Dune Messiah"), "{found}");
        for s in [&expected, &found] {
            assert!(
                s.chars().count() <= 160 && !s.contains("Neuromancer"),
                "{s}"
            );
        }
        assert_eq!(
            drift[0]["change"],
            Value::from(line["data drift: ".len()..].to_string())
        );
    }
}

#[test]
fn texts_that_only_moved_are_not_listed_as_drift() {
    let d = tempfile::tempdir().unwrap();
    let app = app(d.path());
    record(
        &app,
        r#"name: table
atlas: atlas
steps:
  - open: "{{ web_server.library.url }}/books"
  - link_state: table
"#,
    );
    // Neuromancer's row is first now, and Emma is renamed: only the rename is a change.
    std::fs::write(
        app.join("data.json"),
        r#"{
  "books": [
    { "id": 3, "title": "Neuromancer", "author": "William Gibson", "year": 1984 },
    { "id": 1, "title": "Dune", "author": "Frank Herbert", "year": 1965 },
    { "id": 2, "title": "Persuasion", "author": "Jane Austen", "year": 1815 }
  ]
}
"#,
    )
    .unwrap();
    let (code, stdout, report) = verify(&app);
    assert_eq!(code, 0, "{stdout}");
    let node = node_at(&app, "/books");
    assert_eq!(
        drift_line(&stdout, &node),
        "data drift: \"Emma\" -> \"Persuasion\""
    );
    let state = &flow_of(&report, &node)["state"];
    assert_eq!(
        state["drift"],
        serde_json::json!([{ "expected": "Emma", "found": "Persuasion" }]),
        "{state}"
    );
    assert!(
        state.get("added").is_none() && state.get("removed").is_none(),
        "{state}"
    );
}
