//! C15 (attack 26): a check on an output runner cut (an `exec`'s past 1 MiB, a `request`'s body
//! past 16 MiB) passed on the part kept: `'ERROR' not in steps.build.stdout` with the error
//! printed after the first MiB, a body `matches: "^a+$"` with ` FATAL ERROR` after 16 MiB. Now a
//! check that reads a cut text fails, naming the cut; one that reads only what is whole
//! (`exit_code`, `status`, `truncated`) is unaffected.

use crate::common::{Ran, flow_run, write};

fn failed_step<'a>(report: &'a serde_json::Value, flow: &str, index: usize) -> &'a str {
    let f = report["flows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == flow)
        .unwrap_or_else(|| panic!("{flow}: {report:#}"));
    let step = &f["steps"][index];
    assert_eq!(step["outcome"], "failed", "{flow}: {step:#}");
    step["error"]["message"].as_str().unwrap_or("")
}

#[test]
fn a_check_on_a_cut_exec_output_fails_naming_the_cut() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        r#"name: build log
steps:
  - id: build
    exec: [python3, -c, "import sys; sys.stdout.write('compiling ok\\n' * 120000); print('ERROR: 3 tests failed')"]
  - expect: { that: "{{ steps.build.exit_code == 0 and steps.build.truncated }}" }
  - continue_on_error: true
    expect: { that: "{{ 'ERROR' not in steps.build.stdout }}" }
  - expect: { that: "{{ 'compiling' in steps.build['stdout'] }}" }
"#,
    );
    let Ran { code, report, .. } = flow_run(d.path()).arg("f.yaml").run();
    assert_eq!(code, 1, "{report:#}");
    let steps = &report["flows"][0]["steps"];
    assert_eq!(steps[1]["outcome"], "passed", "{report:#}");
    for i in [2, 3] {
        let message = failed_step(&report, "build log", i);
        assert!(
            message.contains("steps.build") && message.contains("was cut"),
            "{message}"
        );
    }
}

#[test]
fn a_check_on_a_cut_request_body_fails_naming_the_cut() {
    let d = tempfile::tempdir().unwrap();
    let site = d.path().join("site");
    std::fs::create_dir_all(&site).unwrap();
    let mut big = vec![b'a'; 17 * 1024 * 1024];
    big.extend_from_slice(b" FATAL ERROR");
    std::fs::write(site.join("big.txt"), big).unwrap();
    write(
        d.path(),
        "r.yaml",
        &format!(
            r#"name: big body
web_server: {{ static: "{}" }}
steps:
  - id: r
    continue_on_error: true
    request:
      url: "{{{{ web_server.url }}}}/big.txt"
      expect:
        status: 200
        body: {{ not_equals: "x", matches: "^a+$" }}
  - expect: {{ that: "{{{{ steps.r.status == 200 and steps.r.truncated }}}}" }}
  - expect: {{ that: "{{{{ steps.r.body | length > 0 }}}}" }}
"#,
            site.display()
        ),
    );
    let Ran { code, report, .. } = flow_run(d.path()).arg("r.yaml").run();
    assert_eq!(code, 1, "{report:#}");
    let message = failed_step(&report, "big body", 0);
    assert!(
        message.contains("body") && message.contains("cut at 16 MiB"),
        "{message}"
    );
    assert_eq!(
        report["flows"][0]["steps"][1]["outcome"], "passed",
        "{report:#}"
    );
    let message = failed_step(&report, "big body", 2);
    assert!(
        message.contains("steps.r") && message.contains("was cut"),
        "{message}"
    );
}

/// The outcome of the `index`th step of the only flow in `report`.
fn outcome(report: &serde_json::Value, index: usize) -> &str {
    report["flows"][0]["steps"][index]["outcome"]
        .as_str()
        .unwrap_or("")
}

/// A command that prints 2 MB of `a` on stdout, then `FATAL ERROR` (past the MiB kept).
const FLOOD: &str =
    r#"[python3, -c, "import sys; sys.stdout.write('a' * 2000000); print('FATAL ERROR')"]"#;

/// Review of session 23, F2: a value copied from a cut output dropped the cut, and a check on
/// the copy passed on the part kept (`set: { out: "{{ steps.build.stdout }}" }`, then `'ERROR'
/// not in vars.out` -> ok). A value made from a cut output is cut too: a var `set` from it, and
/// one `set` from that; one made of what is whole (`exit_code`), or set again from something
/// else, is not. A step that would act on one (an `exec` whose argv reads it, an `each` over
/// it) fails before it runs (attack 28, E7).
#[test]
fn a_value_made_from_a_cut_output_stays_cut() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        &format!(
            r#"name: copied
steps:
  - id: build
    exec: {FLOOD}
  - set: {{ out: "{{{{ steps.build.stdout }}}}", code: "{{{{ steps.build.exit_code }}}}" }}
  - continue_on_error: true
    expect: {{ that: "{{{{ 'ERROR' not in vars.out }}}}" }}
  - expect: {{ that: "{{{{ vars.code == 0 }}}}" }}
  - id: count
    continue_on_error: true
    exec: [sh, -c, "echo {{{{ steps.build.stdout | length }}}}"]
  - continue_on_error: true
    each:
      in: "{{{{ steps.build.stdout.splitlines() }}}}"
      as: line
      steps:
        - expect: {{ that: "{{{{ 'ERROR' not in vars.line }}}}" }}
  - set: {{ again: "{{{{ vars.out }}}}" }}
  - set: {{ out: clean }}
  - expect: {{ that: "{{{{ vars.out == 'clean' }}}}" }}
  - continue_on_error: true
    expect: {{ that: "{{{{ vars.again | length > 0 }}}}" }}
"#
        ),
    );
    let Ran { code, report, .. } = flow_run(d.path()).arg("f.yaml").run();
    // (Each check that fails goes on: `continue_on_error`.)
    assert_eq!(code, 0, "{report:#}");
    for (i, read) in [
        (2, "vars.out"),
        (4, "steps.build.stdout"),
        (5, "steps.build.stdout"),
        (9, "vars.again"),
    ] {
        let message = failed_step(&report, "copied", i);
        assert!(
            message.contains(read)
                && message.contains("steps.build.stdout")
                && message.contains("was cut"),
            "{i}: {message}"
        );
    }
    for i in [4, 5] {
        let message = failed_step(&report, "copied", i);
        assert!(message.contains("it was not run"), "{i}: {message}");
    }
    for i in [3, 8] {
        assert_eq!(outcome(&report, i), "passed", "{i}: {report:#}");
    }
}

/// F2 through sub-flows: a sub-flow's `outputs` made from its cut output are cut in its caller;
/// an output made of what is whole is not. A `run_flow` that would give a sub-flow a var made
/// from a cut output fails before the sub-flow runs (attack 28, E7), as any step that would act
/// on one.
#[test]
fn a_cut_output_stays_cut_through_sub_flows() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "_build.yaml",
        &format!(
            r#"name: build
steps:
  - id: build
    exec: {FLOOD}
outputs:
  log: "{{{{ steps.build.stdout }}}}"
  code: "{{{{ steps.build.exit_code }}}}"
"#
        ),
    );
    write(
        d.path(),
        "_check.yaml",
        r#"name: check
vars: { log: "", head: "{{ vars.log[:10] }}" }
steps:
  - continue_on_error: true
    expect: { that: "{{ 'ERROR' not in vars.log }}" }
  - expect: { that: "{{ vars.head | length == 10 }}" }
"#,
    );
    write(
        d.path(),
        "parent.yaml",
        r#"name: parent
steps:
  - id: sub
    run_flow: _build.yaml
  - continue_on_error: true
    expect: { that: "{{ 'ERROR' not in steps.sub.log }}" }
  - expect: { that: "{{ steps.sub.code == 0 }}" }
  - continue_on_error: true
    run_flow: { path: _check.yaml, vars: { log: "{{ steps.sub.log }}" } }
"#,
    );
    let Ran { code, report, .. } = flow_run(d.path()).arg("parent.yaml").run();
    assert_eq!(code, 0, "{report:#}");
    let message = failed_step(&report, "parent", 1);
    assert!(
        message.contains("steps.sub.log")
            && message.contains("steps.build.stdout")
            && message.contains("was cut"),
        "{message}"
    );
    assert_eq!(outcome(&report, 2), "passed", "{report:#}");
    let message = failed_step(&report, "parent", 3);
    assert!(
        message.contains("this `run_flow` reads an output that was cut (steps.sub.log, made from steps.build.stdout of _build.yaml"),
        "{message}"
    );
    let inner = &report["flows"][0]["steps"][3]["steps"];
    assert!(
        inner.as_array().is_none_or(Vec::is_empty),
        "the sub-flow ran: {inner:#}"
    );
}

/// Review of session 23, F7: one `truncated` for both streams made a check on the stream that
/// was not cut fail (2 MB on stdout, `fine` on stderr: `'fine' in steps.big.stderr` failed).
/// `stdout_truncated` and `stderr_truncated` say which was cut; `truncated` is either.
#[test]
fn a_check_on_the_stream_that_was_not_cut_passes() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        r#"name: streams
steps:
  - id: big
    exec: [python3, -c, "import sys; sys.stdout.write('a' * 2000000); sys.stderr.write('fine')"]
  - expect: { that: "{{ 'fine' in steps.big.stderr }}" }
  - expect: { that: "{{ steps.big.truncated and steps.big.stdout_truncated and not steps.big.stderr_truncated }}" }
  - continue_on_error: true
    expect: { that: "{{ 'ERROR' not in steps.big.stdout }}" }
"#,
    );
    let Ran { code, report, .. } = flow_run(d.path()).arg("f.yaml").run();
    assert_eq!(code, 0, "{report:#}");
    for i in [1, 2] {
        assert_eq!(outcome(&report, i), "passed", "{i}: {report:#}");
    }
    let message = failed_step(&report, "streams", 3);
    assert!(
        message.contains("steps.big.stdout") && message.contains("was cut"),
        "{message}"
    );
}

/// Addendum to C15: a `generic` agent's answer (its stdout) over 1 MiB: `truncated` is true, the
/// `result` holds its start, and a check that reads the `result` fails naming the cut.
#[test]
fn a_generic_agents_answer_over_1_mib_is_cut() {
    let d = tempfile::tempdir().unwrap();
    let bin = write(
        d.path(),
        "talker.sh",
        "#!/bin/sh\ncat > /dev/null\npython3 -c \"print('a' * 700000); print('b' * 700000); print('FATAL ERROR')\"\n",
    );
    std::fs::set_permissions(&bin, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let profiles = d.path().join("profiles");
    std::fs::create_dir_all(&profiles).unwrap();
    write(
        &profiles,
        "talker.toml",
        &format!(
            "label = \"talker\"\nexecutor_type = \"TALKER\"\nkind = \"generic\"\n[command]\nbinary = \"{}\"\nargs = []\n",
            bin.display()
        ),
    );
    write(
        d.path(),
        "f.yaml",
        r#"name: talker
steps:
  - id: ask
    agent: { profile: talker, prompt: "talk" }
  - expect: { that: "{{ steps.ask.truncated and steps.ask.exit_code == 0 }}" }
  - expect: { that: "{{ 'FATAL' not in (steps.ask.result | string) }}" }
"#,
    );
    let Ran { code, report, .. } = flow_run(d.path())
        .arg("f.yaml")
        .arg("--profiles")
        .arg(&profiles)
        .run();
    assert_eq!(code, 1, "{report:#}");
    assert_eq!(outcome(&report, 1), "passed", "{report:#}");
    let result = report["flows"][0]["steps"][0]["outputs"]["result"]
        .as_str()
        .unwrap_or("");
    assert!(
        result.len() <= 1024 * 1024 && result.starts_with("aaa") && !result.contains("FATAL"),
        "{} bytes",
        result.len()
    );
    let message = failed_step(&report, "talker", 2);
    assert!(
        message.contains("steps.ask.result") && message.contains("was cut"),
        "{message}"
    );
}

/// Any check, not only `that`: a `request`'s `expect` that compares the body with a value made
/// from a cut output fails naming the cut, whatever it found; a request sending what is whole,
/// and checking it, passes.
#[test]
fn a_request_check_made_from_a_cut_output_fails() {
    let d = tempfile::tempdir().unwrap();
    let site = d.path().join("site");
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(site.join("small.txt"), "aaa").unwrap();
    write(
        d.path(),
        "f.yaml",
        &format!(
            r#"name: compared
web_server: {{ static: "{}" }}
steps:
  - id: build
    exec: {FLOOD}
  - set: {{ out: "{{{{ steps.build.stdout }}}}" }}
  - continue_on_error: true
    request:
      url: "{{{{ web_server.url }}}}/small.txt"
      expect: {{ status: 200, body: {{ not_equals: "{{{{ vars.out }}}}" }} }}
  - request:
      url: "{{{{ web_server.url }}}}/small.txt"
      body: "{{{{ steps.build.exit_code }}}}"
      method: POST
      expect: {{ status: 405 }}
"#,
            site.display()
        ),
    );
    let Ran { code, report, .. } = flow_run(d.path()).arg("f.yaml").run();
    let message = failed_step(&report, "compared", 2);
    assert!(
        message.contains("vars.out, made from steps.build.stdout") && message.contains("was cut"),
        "{message}"
    );
    assert_eq!(outcome(&report, 3), "passed", "{report:#}");
    assert_eq!(code, 0, "{report:#}");
}

/// An `if` that reads a cut output decides on a part of it: the step fails, naming the cut,
/// instead of being skipped or run on what the part says (fifteenth attack D3: `if: "'FATAL'
/// in steps.build.stdout"` skipped the step that fails the build, the error printed past the
/// cut; the flow passed). An `if` on `truncated` or `exit_code` decides as before.
#[test]
fn an_if_that_reads_a_cut_output_fails_its_step() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        r#"name: guarded
steps:
  - id: build
    exec: [python3, -c, "import sys; sys.stdout.write('compiling ok\\n' * 120000); print('FATAL ERROR')"]
  - name: the build's whole log is checked
    if: "{{ steps.build.truncated and steps.build.exit_code == 0 }}"
    log: cut
  - name: fail on a fatal error
    if: "{{ 'FATAL' in steps.build.stdout }}"
    exec: [sh, -c, "echo the build failed; exit 1"]
"#,
    );
    let Ran { code, report, .. } = flow_run(d.path()).arg("f.yaml").run();
    assert_eq!(code, 1, "{report:#}");
    let steps = &report["flows"][0]["steps"];
    assert_eq!(steps[1]["outcome"], "passed", "{report:#}");
    let message = failed_step(&report, "guarded", 2);
    assert!(
        message.contains("this `if` reads an output that was cut")
            && message.contains("steps.build.stdout"),
        "{message}"
    );
}

/// An `eval`'s value is kept up to 1 MiB, as an `exec`'s output: past it, `value` is its start
/// (a string's; the JSON text of any other value), `truncated: true`, and a check on it fails
/// naming the cut; one that reads `truncated` passes. A string of 50 MB was kept whole (a 50 MB
/// report.json); one of 70 MB, past the DevTools message cap, ended the run as the browser's
/// failure (exit 3) (attack 27, D9): the page cuts it before it is sent. A small value is whole,
/// `truncated: false`; a script of statements (`let`) still gives its last value.
#[test]
fn an_eval_value_over_1_mib_is_cut_and_never_fails_the_browser() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "e.yaml",
        r#"name: big eval
steps:
  - open: "data:text/html,<p>x</p>"
  - id: small
    eval: "1 + 1;"
  - id: stmts
    eval: "let n = 20; n + 1"
  - id: big
    eval: "'a'.repeat(70000000) + 'END'"
  - id: obj
    eval: "Promise.resolve({ big: 'b'.repeat(3000000) })"
  - expect: { that: "{{ steps.small.value == 2 and not steps.small.truncated and steps.stmts.value == 21 }}" }
  - expect: { that: "{{ steps.big.truncated and steps.obj.truncated }}" }
  - continue_on_error: true
    expect: { that: "{{ 'END' not in steps.big.value }}" }
"#,
    );
    let Ran {
        code,
        report,
        stderr,
        ..
    } = flow_run(d.path()).arg("e.yaml").run();
    // (The last step's failure is let through: `continue_on_error`.)
    assert_eq!(code, 0, "{stderr}\n{report:#}");
    let steps = &report["flows"][0]["steps"];
    for i in 1..=6 {
        assert_eq!(steps[i]["outcome"], "passed", "{i}: {:#}", steps[i]);
    }
    let message = failed_step(&report, "big eval", 7);
    assert!(
        message.contains("steps.big.value") && message.contains("was cut"),
        "{message}"
    );
    let big = steps[3]["outputs"]["value"].as_str().unwrap();
    assert!(
        big.len() <= 1024 * 1024 && big.len() > 1000 * 1000,
        "{}",
        big.len()
    );
    let obj = steps[4]["outputs"]["value"].as_str().unwrap();
    assert!(obj.starts_with("{\"big\":\"bbb"), "{}", &obj[..20]);
    let size = std::fs::metadata(d.path().join("art/report.json")).map_or(0, |m| m.len());
    assert!(size < 4 * 1024 * 1024, "report.json is {size} bytes");
}

/// An `inspect` whose size budget ran out (`truncated: true`) cut its `html`, `text` and
/// `elements`: a check on them fails naming the cut, as on any cut output (review of session
/// 24, F2: `'ERROR' not in steps.page.html` passed with the error past the 50 KB budget).
#[test]
fn a_check_on_an_inspect_cut_by_its_budget_fails() {
    let d = tempfile::tempdir().unwrap();
    let site = d.path().join("site");
    std::fs::create_dir_all(&site).unwrap();
    let lines = "<p>compiling ok</p>\n".repeat(4000);
    std::fs::write(
        site.join("index.html"),
        format!("<div id=log>{lines}<p>ERROR: 3 tests failed</p></div>"),
    )
    .unwrap();
    write(
        d.path(),
        "i.yaml",
        r##"name: inspect cut
web_server: { static: site }
steps:
  - open: "{{ web_server.url }}/index.html"
  - id: page
    inspect: { target: "#log" }
  - expect: { that: "{{ steps.page.truncated }}" }
  - continue_on_error: true
    expect: { that: "{{ 'ERROR' not in steps.page.html }}" }
  - expect: { that: "{{ 'ERROR' not in steps.page.text }}" }
"##,
    );
    let Ran { code, report, .. } = flow_run(d.path()).arg("i.yaml").run();
    assert_eq!(code, 1, "{report:#}");
    assert_eq!(
        report["flows"][0]["steps"][2]["outcome"], "passed",
        "{report:#}"
    );
    for (i, field) in [(3, "html"), (4, "text")] {
        let message = failed_step(&report, "inspect cut", i);
        assert!(
            message.contains(&format!("steps.page.{field}")) && message.contains("was cut"),
            "{message}"
        );
    }
}

/// A command that prints 1.2 MB of `a` on stdout, then `FATAL ERROR` (past the MiB kept).
const BUILD_LOG: &str =
    r#"[python3, -c, "import sys; sys.stdout.write('a' * 1200000 + '\\nFATAL ERROR\\n')"]"#;

/// Attack 28, E7: an action whose inputs read a cut output acted on the first MiB and passed:
/// an `exec` whose `stdin` is the cut log (`grep -q FATAL` found nothing, `ok`), and so argv. It
/// now fails before it runs (no command started), naming the cut; `set` still takes it (the var
/// is cut), `log` shows it saying so, `continue_on_error` lets the failure through, a `retry`
/// does not try it again and a `finally` step that sends it fails the same way.
#[test]
fn an_exec_whose_stdin_is_a_cut_output_fails_before_it_starts() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        &format!(
            r#"name: scan
steps:
  - id: build
    exec: {BUILD_LOG}
  - id: scan
    continue_on_error: true
    retry: {{ attempts: 3, delay: 2s, on: [any] }}
    exec:
      command: "touch stdin-ran; grep -q FATAL && exit 1 || echo clean"
      shell: true
      stdin: "{{{{ steps.build.stdout }}}}"
  - continue_on_error: true
    exec: [sh, -c, "touch argv-ran", x, "{{{{ steps.build.stdout[:5] }}}}"]
  - set: {{ out: "{{{{ steps.build.stdout[-20:] }}}}" }}
  - log: "tail: {{{{ vars.out }}}}"
  - exec: [sh, -c, "touch whole-ran; test {{{{ steps.build.exit_code }}}} = 0"]
finally:
  - exec: {{ command: "touch finally-ran", shell: true, stdin: "{{{{ vars.out }}}}" }}
"#
        ),
    );
    let Ran { code, report, .. } = flow_run(d.path()).arg("f.yaml").run();
    assert_eq!(code, 1, "{report:#}");
    for (i, read) in [(1, "steps.build.stdout"), (2, "steps.build.stdout")] {
        let message = failed_step(&report, "scan", i);
        assert!(
            message.contains(read) && message.contains("was cut") && message.contains("not run"),
            "{i}: {message}"
        );
    }
    let steps = &report["flows"][0]["steps"];
    assert_eq!(steps[1]["attempts"], 0, "not tried again: {report:#}");
    for i in [3, 4, 5] {
        assert_eq!(steps[i]["outcome"], "passed", "{i}: {report:#}");
    }
    let logged = steps[4]["outputs"]["message"].as_str().unwrap_or("");
    assert!(
        logged.starts_with("tail: ")
            && logged.contains("made from steps.build.stdout")
            && logged.contains("cut"),
        "{logged}"
    );
    let message = failed_step(&report, "scan", 6);
    assert!(
        message.contains("vars.out, made from steps.build.stdout") && message.contains("not run"),
        "{message}"
    );
    assert!(d.path().join("whole-ran").exists());
    for never in ["stdin-ran", "argv-ran", "finally-ran"] {
        assert!(!d.path().join(never).exists(), "{never} was started");
    }
}

/// E7, second form: a `request` whose `body` is a cut output sent the first MiB, the server
/// answered 200 (it found no `FATAL`), the step passed. It now fails before anything is sent;
/// the same request with a whole body is sent and checked.
#[test]
fn a_request_whose_body_is_a_cut_output_is_not_sent() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "lint.py",
        r#"import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200); self.send_header('Content-Length', '2'); self.end_headers(); self.wfile.write(b'up')
    def do_POST(self):
        b = self.rfile.read(int(self.headers.get('Content-Length', 0)))
        with open('seen.txt', 'a') as f: f.write('%d\n' % len(b))
        self.send_response(500 if b'FATAL' in b else 200); self.send_header('Content-Length', '2'); self.end_headers(); self.wfile.write(b'ok')
    def log_message(self, *a): pass
http.server.HTTPServer(('127.0.0.1', int(sys.argv[1])), H).serve_forever()
"#,
    );
    write(
        d.path(),
        "r.yaml",
        &format!(
            r#"name: lint
web_server: {{ command: [python3, lint.py, "{{{{ web_server.port }}}}"], port: auto }}
steps:
  - id: build
    exec: {BUILD_LOG}
  - continue_on_error: true
    request:
      url: "{{{{ web_server.url }}}}/lint"
      method: POST
      body: "{{{{ steps.build.stdout }}}}"
      expect: {{ status: 200 }}
  - continue_on_error: true
    request:
      url: "{{{{ web_server.url }}}}/lint"
      method: POST
      json: {{ log: "{{{{ steps.build.stdout[:100] }}}}" }}
  - request:
      url: "{{{{ web_server.url }}}}/lint"
      method: POST
      body: "exit code {{{{ steps.build.exit_code }}}}"
      expect: {{ status: 200 }}
"#
        ),
    );
    let Ran { code, report, .. } = flow_run(d.path()).arg("r.yaml").run();
    assert_eq!(code, 0, "{report:#}");
    for i in [1, 2] {
        let message = failed_step(&report, "lint", i);
        assert!(
            message.contains("steps.build.stdout")
                && message.contains("was cut")
                && message.contains("not sent"),
            "{i}: {message}"
        );
    }
    assert_eq!(outcome(&report, 3), "passed", "{report:#}");
    let seen = std::fs::read_to_string(d.path().join("seen.txt")).unwrap_or_default();
    assert_eq!(seen, "11\n", "what the server was sent");
}

/// E7 in the browser: a `fill` whose value is made from a cut output fails before it types
/// anything (the field stays empty); a `fill` of what is whole fills.
#[test]
fn a_fill_whose_value_is_made_from_a_cut_output_types_nothing() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "b.yaml",
        &format!(
            r##"name: form
steps:
  - id: build
    exec: {BUILD_LOG}
  - open: "data:text/html,<input id=q><input id=r>"
  - set: {{ head: "{{{{ steps.build.stdout[:8] }}}}" }}
  - continue_on_error: true
    fill: {{ target: "#q", value: "{{{{ vars.head }}}}" }}
  - fill: {{ target: "#r", value: "code {{{{ steps.build.exit_code }}}}" }}
  - expect: {{ value: {{ target: "#q", equals: "" }} }}
  - expect: {{ value: {{ target: "#r", equals: "code 0" }} }}
"##
        ),
    );
    let Ran { code, report, .. } = flow_run(d.path()).arg("b.yaml").run();
    assert_eq!(code, 0, "{report:#}");
    let message = failed_step(&report, "form", 3);
    assert!(
        message.contains("vars.head, made from steps.build.stdout") && message.contains("was cut"),
        "{message}"
    );
    for i in [4, 5, 6] {
        assert_eq!(outcome(&report, i), "passed", "{i}: {report:#}");
    }
}
