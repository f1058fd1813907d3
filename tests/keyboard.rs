//! The `keyboard` step end to end: keys and text for whatever has the focus, for the code
//! editors that take keys no other way (the real CodeMirror 5 over a hidden textarea, as
//! Datasette's SQL box), and the targeted actions that still never fall back to the focus.

use crate::common::{fixture, flow_run, output, runner, step, write};

/// A flow serving `tests/fixtures` (the editor pages load the vendored libraries from
/// `../vendor/`), opening `page` and then running `steps` (YAML, indented by 2).
fn flow(page: &str, steps: &str) -> String {
    format!(
        "name: keyboard\nweb_server: {{ static: \"{}\" }}\nsteps:\n  - open: \"{{{{ web_server.url }}}}/editors/{page}\"\n{steps}",
        fixture("").display()
    )
}

/// The error message of step `id`, which must have failed.
fn failure(report: &serde_json::Value, id: &str) -> String {
    let s = step(report, id);
    assert_eq!(s["outcome"], "failed", "{s}");
    s["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Clicking into CodeMirror gives its own hidden input the focus; `keyboard` then selects all
/// (a chord), types over it as real key events, runs the query with the editor's own
/// Shift-Enter binding, presses several keys in order and inserts text: the editor's value —
/// read through CodeMirror's API and through the form field it saves to — is what was typed.
#[test]
fn a_code_editor_takes_keys_and_text_through_the_focus() {
    let d = tempfile::tempdir().unwrap();
    let steps = r##"  - click: .CodeMirror
  - keyboard: { press: Control+a }
  - keyboard: { type: "select 1" }
  - expect: { text: { target: .CodeMirror-line, equals: "select 1" } }
  - keyboard: { press: Shift+Enter }
  - expect: { text: { target: "#ran", equals: "ran: select 1" } }
  - keyboard: { press: [End, Enter] }
  - keyboard: { insert_text: "limit 1 -- é" }
  - id: value
    eval: "editor.getValue()"
  - expect: { that: "{{ steps.value.value == 'select 1\nlimit 1 -- é' }}" }
  - eval: "editor.save()"
  - expect: { value: { target: "#sql-editor", equals: "select 1\nlimit 1 -- é" } }
"##;
    write(d.path(), "f.yaml", &flow("codemirror.html", steps));
    let report = flow_run(d.path()).arg("f.yaml").passes();
    assert_eq!(
        step(&report, "value")["outputs"]["value"],
        "select 1\nlimit 1 -- é"
    );
}

/// Text goes to a contenteditable (as rich editors are) and to a field inside a same-origin
/// frame, where the focus is in the frame's own document; with the focus on a button, text is
/// refused and keys still go (the page handles them).
#[test]
fn text_reaches_contenteditable_and_framed_fields_and_never_a_button() {
    let d = tempfile::tempdir().unwrap();
    let steps = r##"  - click: "#note"
  - keyboard: { press: End }
  - keyboard: { type: " world" }
  - expect: { text: { target: "#note", equals: "hello world" } }
  - click: { css: "#inner", frame: "#f" }
  - keyboard: { insert_text: "framed" }
  - expect: { value: { target: { css: "#inner", frame: "#f" }, equals: framed } }
  - focus: "#go"
  - id: button
    keyboard: { type: "lost" }
    timeout: 500ms
    continue_on_error: true
  - keyboard: { press: Shift+Tab }
  - expect: { focused: { css: "#f" } }
  - focus: "#ro"
  - id: read_only
    keyboard: { type: "lost" }
    timeout: 500ms
    continue_on_error: true
  - expect: { text: { target: "#ro", equals: fixed } }
"##;
    write(d.path(), "f.yaml", &flow("editable.html", steps));
    let report = flow_run(d.path()).arg("f.yaml").passes();
    let button = failure(&report, "button");
    assert!(
        button.contains("(the focus is on button#go, which takes no text)"),
        "{button}"
    );
    let read_only = failure(&report, "read_only");
    assert!(
        read_only.contains("div#ro, which is read-only"),
        "{read_only}"
    );
}

/// The textarea CodeMirror hides cannot be filled or pressed on: each fails (nothing is typed
/// anywhere) and says why and what to write instead — `keyboard` after a click into the
/// editor. `keyboard` text with nothing that takes text focused fails instead of typing into
/// the void, and a key that is no key fails instead of pressing nothing.
#[test]
fn a_hidden_field_is_refused_with_the_way_to_type_into_its_editor() {
    let d = tempfile::tempdir().unwrap();
    let steps = r##"  - id: fill
    fill: { target: "#sql-editor", value: "select 1" }
    timeout: 1s
    continue_on_error: true
  - id: press
    press: { key: Enter, target: "#sql-editor" }
    timeout: 1s
    continue_on_error: true
  - id: unfocused
    keyboard: { type: "select 1" }
    timeout: 1s
    continue_on_error: true
  - click: .CodeMirror
  - id: badkey
    keyboard: { press: "{{ 'Enterr' }}" }
    continue_on_error: true
  - id: value
    eval: "editor.getValue() + '|' + document.getElementById('sql-editor').value"
"##;
    write(d.path(), "f.yaml", &flow("codemirror.html", steps));
    let report = flow_run(d.path()).arg("f.yaml").passes();
    let fill = failure(&report, "fill");
    assert!(fill.contains("it is not visible"), "{fill}");
    assert!(fill.contains("keyboard: { type:"), "{fill}");
    let press = failure(&report, "press");
    assert!(press.contains("is hidden"), "{press}");
    assert!(press.contains("keyboard: { press: Enter }"), "{press}");
    let unfocused = failure(&report, "unfocused");
    assert!(
        unfocused.contains("nothing that takes text has the focus"),
        "{unfocused}"
    );
    // A key from a template is judged once rendered.
    let badkey = failure(&report, "badkey");
    assert!(badkey.contains("did you mean `Enter`?"), "{badkey}");
    assert_eq!(
        step(&report, "value")["outputs"]["value"],
        "select * from books|select * from books"
    );
}

/// `keyboard` takes exactly one of `type`, `insert_text` and `press`, with no other key, and
/// `press` (both) only keys agent-browser presses as what they name: `validate` refuses the rest
/// with the file and line.
#[test]
fn validate_refuses_a_keyboard_step_it_cannot_read() {
    let d = tempfile::tempdir().unwrap();
    let cases = [
        ("keyboard: { typ: x }", "did you mean `type`?"),
        (
            "keyboard: { type: x, press: Enter }",
            "`keyboard` takes at most 1 key",
        ),
        ("keyboard: { press: [] }", "`press` must not be empty"),
        ("keyboard: {}", "`keyboard` must not be empty"),
        (
            "keyboard: { press: Enter, target: \"#a\" }",
            "unknown key `target` in `keyboard`",
        ),
        // A name agent-browser would send as a key event with no key: nothing would happen.
        ("press: Enterr", "did you mean `Enter`?"),
        (
            "keyboard: { press: [End, Cntrl+a] }",
            "`Cntrl+a`: `Cntrl` is not a modifier",
        ),
        (
            "press: { key: KeyA, target: \"#a\" }",
            "write the character, `a`",
        ),
    ];
    for (i, (s, want)) in cases.iter().enumerate() {
        let name = format!("k{i}.yaml");
        write(
            d.path(),
            &name,
            &format!("name: k\nsteps:\n  - log: first\n  - {s}\n"),
        );
        let mut c = runner(d.path());
        c.args(["validate", &name]);
        let (code, stdout, stderr) = output(c);
        assert_eq!(code, 2, "`{s}`: {stdout}{stderr}");
        let said = format!("{stdout}{stderr}");
        assert!(said.contains(&format!("{name}:4")), "`{s}`: {said}");
        assert!(said.contains(want), "`{s}`: {said}");
    }
}

/// The editor example of docs/steps.md runs as written, against the CodeMirror page of
/// `tests/fixtures` (served as its `./site`; the fixture site the other examples run on has no
/// editor).
#[test]
fn the_docs_editor_example_runs() {
    let steps = std::fs::read_to_string(crate::common::root().join("docs/steps.md")).unwrap();
    let start = steps
        .find("name: a query typed into the SQL editor")
        .expect("docs/steps.md has the editor example");
    let block = &steps[start..start + steps[start..].find("```").unwrap()];
    let d = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(fixture(""), d.path().join("site")).unwrap();
    write(d.path(), "editor.yaml", block);
    flow_run(d.path()).arg("editor.yaml").passes();
}

/// `fill` on CodeMirror 5's own input (`.CodeMirror textarea`, the element a user finds in the
/// DOM) replaces what the editor holds, as select-all and typing over it would: the editor's
/// value — not the hidden textarea's, which CodeMirror empties — is the text filled, one line or
/// several, and `""` empties it. A fill the editor changes (a `beforeChange` handler that cuts
/// each line to 5 characters, as a maxlength would) fails the step, naming the editor and what it
/// holds: the read-back reads the editor.
#[test]
fn fill_on_a_code_editors_input_replaces_its_text_and_reads_the_editor_back() {
    let d = tempfile::tempdir().unwrap();
    let steps = r##"  - fill: { target: ".CodeMirror textarea", value: "select 44" }
  - id: one
    eval: "editor.getValue()"
  - click: { role: button, text: Run SQL }
  - expect: { text: { target: "#ran", equals: "ran: select 44" } }
  - fill: { target: ".CodeMirror textarea", value: "select 1\nfrom books" }
  - id: two
    eval: "editor.getValue()"
  - fill: { target: ".CodeMirror textarea", value: "" }
  - id: empty
    eval: "editor.getValue()"
  - fill: { target: ".CodeMirror textarea", value: "select 2" }
  - eval: "editor.on('beforeChange', (cm, c) => { if (c.origin === '+input') c.update(null, null, c.text.map(t => t.slice(0, 5))) })"
  - id: cut
    fill: { target: ".CodeMirror textarea", value: "select 3" }
    continue_on_error: true
  - id: after
    eval: "editor.getValue()"
"##;
    write(d.path(), "f.yaml", &flow("codemirror.html", steps));
    // With runner's own session on the tab, and with the page's scripts sent through
    // agent-browser (`RUNNER_OWN_EVAL=off`), where other fills are agent-browser's.
    for own in ["on", "off"] {
        let run = flow_run(d.path()).env("RUNNER_OWN_EVAL", own);
        let report = run.arg("f.yaml").passes();
        assert_eq!(
            step(&report, "one")["outputs"]["value"],
            "select 44",
            "{own}"
        );
        let two = &step(&report, "two")["outputs"]["value"];
        assert_eq!(two, "select 1\nfrom books", "{own}");
        assert_eq!(step(&report, "empty")["outputs"]["value"], "", "{own}");
        let cut = failure(&report, "cut");
        assert!(cut.contains("the input of a CodeMirror editor"), "{cut}");
        assert!(cut.contains("the editor holds `selec`"), "{cut}");
        assert_eq!(step(&report, "after")["outputs"]["value"], "selec");
    }
}
