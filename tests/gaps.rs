//! The last gaps of issue 24, each a place where runner reported a wrong verdict or waited on
//! the wrong thing: `select` and `upload` get the actionability checks, fills through a role or
//! a ref are done and read back as fills of CSS targets, an action waiting for a disabled
//! element follows the page's re-render, refs are checked again after one, and an upload into
//! an iframe's input is counted there. Real agent-browser and Chromium on `tests/fixtures/gaps/`
//! (React 18's real build where a framework matters).

use std::path::Path;

use serde_json::Value;

use crate::common::{Ran, fixture, flow_run, step, write};

/// A flow serving `tests/fixtures` that opens `gaps/<page>`, with `steps` appended (YAML,
/// indented by 2).
fn flow(page: &str, steps: &str) -> String {
    format!(
        "name: gaps\nweb_server: {{ static: \"{}\" }}\nsteps:\n  - open: \"{{{{ web_server.url }}}}/gaps/{page}\"\n{steps}",
        fixture("").display()
    )
}

/// Runs `text` as a flow in `dir`; what it did.
fn run_in(dir: &Path, text: &str) -> Ran {
    write(dir, "f.yaml", text);
    flow_run(dir).arg("f.yaml").run()
}

/// Runs `text` as a flow; what it did.
fn run(text: &str) -> Ran {
    let d = tempfile::tempdir().unwrap();
    run_in(d.path(), text)
}

/// The step with `id`, which must have passed.
fn passed(report: &Value, id: &str) {
    let s = step(report, id);
    assert_eq!(s["outcome"], "passed", "{id}: {s}");
}

/// The message of the step with `id`, which must have failed.
fn failure(report: &Value, id: &str) -> String {
    let s = step(report, id);
    assert_eq!(s["outcome"], "failed", "{id}: {s}");
    s["error"]["message"].as_str().unwrap_or("").to_string()
}

/// `select` waits for its element as a click does: a disabled `<select>` fails naming why; one
/// under a veil waits for it to lift, and fails naming the veil when it never does.
#[test]
fn select_waits_until_its_element_can_take_it() {
    let steps = r##"  - id: locked
    select: { target: "#locked", value: pro }
    timeout: 1s
    continue_on_error: true
  - eval: "startVeil(700)"
  - id: lifts
    select: { target: "#plan", value: pro }
    timeout: 5s
  - expect: { text: { target: "#out", equals: plan pro } }
  - eval: "startVeil(null)"
  - id: veiled
    select: { target: "#plan", value: free }
    timeout: 1s
    continue_on_error: true
  - id: kept
    eval: "document.getElementById('plan').value"
"##;
    let Ran { report, .. } = run(&flow("forms.html", steps));
    let locked = failure(&report, "locked");
    assert!(locked.contains("it is disabled"), "{locked}");
    passed(&report, "lifts");
    let veiled = failure(&report, "veiled");
    assert!(
        veiled.contains("div#veil would receive the events instead"),
        "{veiled}"
    );
    assert_eq!(step(&report, "kept")["outputs"]["value"], "pro");
}

/// `upload` waits for an enabled file input (a hidden one is fine: pages hide them behind a
/// styled label), and counts the files in the input's own frame.
#[test]
fn upload_waits_for_an_enabled_input_and_counts_inside_an_iframe() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("a.txt"), "a").unwrap();
    std::fs::write(d.path().join("b.txt"), "b").unwrap();
    let steps = r##"  - id: locked
    upload: { target: "#file-locked", files: a.txt }
    timeout: 1s
    continue_on_error: true
  - eval: "enableLater('file-later', 500)"
  - id: later
    upload: { target: "#file-later", files: a.txt }
    timeout: 5s
  - id: framed
    upload: { target: { css: "#inner-file", frame: "iframe#box" }, files: [a.txt, b.txt] }
"##;
    let Ran { report, .. } = run_in(d.path(), &flow("forms.html", steps));
    let locked = failure(&report, "locked");
    assert!(locked.contains("it is disabled"), "{locked}");
    passed(&report, "later");
    passed(&report, "framed");
    assert_eq!(step(&report, "framed")["outputs"]["uploaded"], 2);
}

/// A contenteditable found by role (through the snapshot) is filled as one found by CSS: its
/// text replaced, not prepended to; a field found by role that refuses part of a fill fails
/// saying what it holds.
#[test]
fn fills_through_the_snapshot_replace_and_are_read_back() {
    let steps = r##"  - id: note
    fill: { target: { role: textbox, text: Note }, value: new note }
  - id: note_text
    eval: "document.getElementById('note').textContent"
  - id: code
    fill: { target: { role: textbox, text: Code }, value: abcdef }
    continue_on_error: true
"##;
    let Ran { report, .. } = run(&flow("forms.html", steps));
    passed(&report, "note");
    assert_eq!(step(&report, "note_text")["outputs"]["value"], "new note");
    let code = failure(&report, "code");
    assert!(code.contains("the page made it `abc`"), "{code}");
}

/// React replaces a disabled field, `<select>` and button with enabled ones (a new `key`): the
/// actions waiting for them follow the user's selector to the new elements.
#[test]
fn actions_waiting_for_a_disabled_element_follow_a_react_re_render() {
    let steps = r##"  - eval: "ready()"
  - id: fill
    fill: { target: "#name", value: Ada }
    timeout: 5s
  - id: select
    select: { target: "#size", value: L }
    timeout: 5s
  - expect: { text: { target: "#saved", equals: size L } }
  - id: click
    click: "#save"
    timeout: 5s
  - expect: { text: { target: "#saved", equals: saved Ada } }
"##;
    let Ran {
        code,
        stderr,
        report,
        ..
    } = run(&flow("react-replace.html", steps));
    assert_eq!(code, 0, "{stderr}");
    for id in ["fill", "select", "click"] {
        passed(&report, id);
    }
}

/// A ref whose element is removed is hidden (and an action on it fails saying what it stood
/// for); a ref whose element is replaced by one of the same role and name reaches the new
/// element.
#[test]
fn refs_are_checked_again_after_a_re_render() {
    let steps = r##"  - snapshot: { interactive: true }
  - click: "@e1"
  - id: hidden
    expect: { hidden: "@e1" }
    timeout: 3s
  - id: gone
    click: "@e1"
    timeout: 1s
    continue_on_error: true
  - click: "@e2"
  - id: again
    click: "@e2"
  - expect: { text: { target: "#out", equals: new button clicked } }
"##;
    let Ran {
        code,
        stderr,
        report,
        ..
    } = run(&flow("refs.html", steps));
    assert_eq!(code, 0, "{stderr}");
    passed(&report, "hidden");
    let gone = failure(&report, "gone");
    assert!(
        gone.contains("@e1 was button \"Remove me\" in the last snapshot"),
        "{gone}"
    );
    passed(&report, "again");
}

/// The processes whose environment names `socket_dir` as agent-browser's socket directory:
/// every daemon and browser a runner started for it carries it (see `host::processes_of`).
fn processes_of(socket_dir: &str) -> Vec<i32> {
    let needle = format!("AGENT_BROWSER_SOCKET_DIR={socket_dir}");
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            crate::common::pid_alive(*pid)
                && std::fs::read(format!("/proc/{pid}/environ"))
                    .is_ok_and(|env| env.split(|b| *b == 0).any(|kv| kv == needle.as_bytes()))
        })
        .collect()
}

/// `runner doctor` starts a browser (and agent-browser's daemon) to check that one launches:
/// none of them outlives it.
#[test]
fn doctor_leaves_no_process_behind() {
    let d = tempfile::tempdir().unwrap();
    for _ in 0..3 {
        let child = crate::common::runner(d.path())
            .arg("doctor")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let pid = child.id();
        let out = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains("ok   headless launch:"), "{stdout}");
        let dir = format!("/tmp/rnr-{}/doctor-{pid}", nix::unistd::getuid());
        let left = processes_of(&dir);
        assert!(
            left.is_empty(),
            "runner doctor left {left:?} running ({dir})"
        );
    }
}

/// `runner doctor` killed (`kill -9`, a CI step's timeout) while its browser launches leaves
/// nothing running: the browser and daemon it started are ended as a run's are, whenever in the
/// launch the kill comes (fifteenth attack D7).
#[test]
fn doctor_killed_while_its_browser_launches_leaves_no_process_behind() {
    let d = tempfile::tempdir().unwrap();
    let mut caught = 0;
    // The launch lasts ~0.5 s: the kill comes 0 to 300 ms after its first process shows.
    for delay in [0, 0, 50, 100, 150, 200, 300, 400] {
        let child = crate::common::runner(d.path())
            .arg("doctor")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let dir = format!("/tmp/rnr-{}/doctor-{}", nix::unistd::getuid(), child.id());
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while processes_of(&dir).is_empty() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        std::thread::sleep(std::time::Duration::from_millis(delay));
        let mut seen = processes_of(&dir);
        let alive = crate::common::pid_alive(child.id().cast_signed());
        crate::common::kill_9(child);
        seen.extend(processes_of(&dir));
        if !alive || seen.is_empty() {
            continue;
        }
        caught += 1;
        assert!(
            crate::common::all_gone(&seen) && processes_of(&dir).is_empty(),
            "after kill -9 of runner doctor {delay} ms into its launch these live on: {:?}",
            seen.iter()
                .chain(&processes_of(&dir))
                .filter(|p| crate::common::pid_alive(**p))
                .collect::<Vec<_>>()
        );
    }
    assert!(
        caught > 0,
        "runner doctor was never caught with its browser up"
    );
}

/// Every kind of step that waits gives up at its timeout against a page where what it waits for
/// never holds, and says what it waited for. (How long each took past its timeout is measured
/// by hand, not asserted: see the report of issue 24.)
#[test]
fn waiting_steps_give_up_at_their_timeout_saying_why() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("a.txt"), "a").unwrap();
    let steps = [
        (
            "wait_text",
            "wait: { text: never shown }",
            "timed out waiting for",
        ),
        (
            "wait_for",
            "wait: { for: \"#never\" }",
            "timed out waiting for",
        ),
        ("wait_url", "wait: { url: /never }", "timed out waiting for"),
        ("visible", "expect: { visible: \"#never\" }", "#never"),
        (
            "click",
            "click: \"#never\"",
            "no element matches css `#never`",
        ),
        (
            "fill",
            "fill: { target: \"#locked-text\", value: x }",
            "it is disabled",
        ),
        (
            "select",
            "select: { target: \"#locked\", value: pro }",
            "it is disabled",
        ),
        (
            "upload",
            "upload: { target: \"#file-locked\", files: a.txt }",
            "it is disabled",
        ),
        (
            "press",
            "press: { key: Enter, target: \"#never\" }",
            "#never",
        ),
    ];
    let body: String = steps
        .iter()
        .map(|(id, s, _)| {
            format!("  - id: {id}\n    {s}\n    timeout: 1s\n    continue_on_error: true\n")
        })
        .collect();
    let Ran { report, .. } = run_in(d.path(), &flow("forms.html", &body));
    for (id, _, says) in steps {
        let message = failure(&report, id);
        assert!(message.contains(says), "{id}: {message}");
        eprintln!("{id}: {} ms", step(&report, id)["duration_ms"]);
    }
}

/// `wait: { text }` waits for the text to be *seen*, as Playwright's `getByText(T).waitFor()`
/// and `expect: { visible: { text } }` do: "Saved" in a 0x0 box (the page's `innerText` has it)
/// or under `display: none` does not end it; the same text shown 300 ms later does, and only
/// then.
#[test]
fn wait_for_text_waits_until_the_text_is_visible() {
    let steps = r#"  - id: hidden_only
    wait: { text: Saved }
    timeout: 1s
    continue_on_error: true
  - id: expect_hidden
    expect: { visible: { text: Saved } }
    timeout: 1s
    continue_on_error: true
  - eval: "showLater(300)"
  - id: shown
    wait: { text: Saved }
    timeout: 5s
  - id: after
    eval: "window.shownAt !== null"
"#;
    let Ran { report, .. } = run(&flow("hidden-text.html", steps));
    let hidden = failure(&report, "hidden_only");
    assert!(
        hidden.contains("timed out waiting for the page to show \"Saved\""),
        "{hidden}"
    );
    assert!(hidden.contains("not visible"), "{hidden}");
    failure(&report, "expect_hidden");
    passed(&report, "shown");
    assert_eq!(step(&report, "after")["outputs"]["value"], true, "{report}");
}
