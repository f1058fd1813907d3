//! Running flows end to end with the real binary: retries, timeouts, finally, continue_on_error,
//! run_flow scoping, secrets, reports.

use crate::common::{Ran, flow_run, write};

#[test]
fn retry_until_it_passes_is_flaky() {
    let d = tempfile::tempdir().unwrap();
    // Fails twice, then passes: a counter file in the flow's directory.
    write(
        d.path(),
        "flaky.yaml",
        r#"
name: flaky
steps:
  - id: attempt
    exec:
      command: 'n=$(cat count 2>/dev/null || echo 0); n=$((n+1)); echo $n > count; [ $n -ge 3 ]'
      shell: true
    retry: { attempts: 5, delay: 10ms, on: [command_failed] }
"#,
    );
    let Ran {
        code,
        stderr,
        report,
        ..
    } = flow_run(d.path()).args(["flaky.yaml"]).run();
    assert_eq!(code, 0, "{stderr}");
    let r = &report;
    let step = &r["flows"][0]["steps"][0];
    assert_eq!(step["attempts"], 3);
    assert_eq!(step["flaky"], true);
    assert_eq!(step["outcome"], "passed");
    assert_eq!(r["summary"]["flaky"], 1);
    assert!(stderr.contains("attempt 1 failed"), "{stderr}");
    assert!(stderr.contains("attempt 2 failed"), "{stderr}");
}

#[test]
fn retry_on_limits_the_kinds_retried() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        r#"
name: only timeouts retry
steps:
  - exec: ["false"]
    retry: { attempts: 3, on: [timeout] }
"#,
    );
    let Ran {
        code,
        stderr,
        report,
        ..
    } = flow_run(d.path()).args(["f.yaml"]).run();
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(report["flows"][0]["steps"][0]["attempts"], 1);
}

#[test]
fn timeout_kills_the_whole_process_group() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "hang.yaml",
        r#"
name: hang
steps:
  - exec:
      command: 'sleep 300 & echo $! > grandchild.pid; trap "" TERM; wait'
      shell: true
    timeout: 500ms
"#,
    );
    let Ran {
        code,
        stderr,
        report,
        ..
    } = flow_run(d.path()).args(["hang.yaml"]).run();
    assert_eq!(code, 1, "{stderr}");
    let step = &report["flows"][0]["steps"][0];
    assert_eq!(step["error"]["kind"], "timeout");
    assert!(
        step["error"]["message"]
            .as_str()
            .unwrap()
            .contains("timed out after 500ms")
    );
    let pid: i32 = crate::common::read_pid(&d.path().join("grandchild.pid"));
    assert!(
        !crate::common::pid_alive(pid),
        "grandchild {pid} outlived the timeout"
    );
}

#[test]
fn finished_command_leaves_no_background_children() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "bg.yaml",
        r#"
name: background child
steps:
  - exec: { command: 'sleep 300 & echo $! > bg.pid', shell: true }
"#,
    );
    let Ran { code, stderr, .. } = flow_run(d.path()).args(["bg.yaml"]).run();
    assert_eq!(code, 0, "{stderr}");
    let pid: i32 = crate::common::read_pid(&d.path().join("bg.pid"));
    assert!(
        !crate::common::pid_alive(pid),
        "background child {pid} outlived its step"
    );
}

#[test]
fn continue_on_error_and_finally() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        r#"
name: outcome vs conclusion
steps:
  - id: broken
    exec: ["sh", "-c", "echo oops >&2; exit 3"]
    continue_on_error: true
  - log: "exit code was {{ steps.broken.exit_code }}, stderr {{ steps.broken.stderr }}"
  - log: "{{ [1, 'two', {'three': 3}] }}"
  - exec: ["false"]
  - log: never runs
finally:
  - exec: { command: "echo cleaned > cleaned.txt", shell: true }
"#,
    );
    let Ran {
        code,
        stderr,
        report,
        ..
    } = flow_run(d.path()).args(["f.yaml"]).run();
    assert_eq!(code, 1, "{stderr}");
    let r = &report;
    let steps = r["flows"][0]["steps"].as_array().unwrap();
    assert_eq!(steps[0]["outcome"], "failed");
    assert_eq!(steps[0]["conclusion"], "passed");
    assert!(
        steps[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("exited with code 3; stderr: oops")
    );
    // A failed step keeps the outputs it produced, for later steps and the report.
    assert!(stderr.contains("exit code was 3, stderr oops"), "{stderr}");
    assert_eq!(steps[0]["outputs"]["exit_code"], 3);
    // A list logs as JSON.
    assert!(stderr.contains(r#"[1,"two",{"three":3}]"#), "{stderr}");
    assert_eq!(steps[3]["conclusion"], "failed");
    // The step after the failure did not run; finally did.
    assert_eq!(steps.len(), 5);
    assert_eq!(steps[4]["finally"], true);
    assert_eq!(steps[4]["outcome"], "passed");
    assert!(d.path().join("cleaned.txt").exists());
    // (The excerpt under the failure may show the step; its message never printed.)
    assert!(!stderr.contains("│ never runs"), "{stderr}");
}

#[test]
fn run_flow_has_its_own_scope() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "_sub.yaml",
        r#"
name: sub
vars:
  greeting: hello
  who: nobody
steps:
  - set: { leaked: "sub value" }
  - id: say
    exec: ["echo", "{{ vars.greeting }} {{ vars.who }}"]
outputs:
  said: "{{ steps.say.stdout }}"
  leaked: "{{ vars.leaked }}"
"#,
    );
    write(
        d.path(),
        "main.yaml",
        r#"
name: main
vars:
  leaked: main value
steps:
  - id: sub
    run_flow: { path: _sub.yaml, vars: { who: "{{ vars.leaked }}" } }
  - expect: { that: "{{ steps.sub.said == 'hello main value' }}" }
  - expect: { that: "{{ vars.leaked == 'main value' }}" }
  - expect: { that: "{{ steps.sub.leaked == 'sub value' }}" }
"#,
    );
    let Ran { code, stderr, .. } = flow_run(d.path()).args(["main.yaml"]).run();
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn secrets_are_masked_everywhere() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "s.yaml",
        r#"
name: secrets
secrets: [RUNNER_TEST_TOKEN]
steps:
  - id: show
    exec: ["sh", "-c", "echo token=$0; echo err=$0 >&2", "{{ secrets.RUNNER_TEST_TOKEN }}"]
  - log: "the token is {{ secrets.RUNNER_TEST_TOKEN }}"
  - exec: ["sh", "-c", "echo bad $0 >&2; exit 1", "{{ secrets.RUNNER_TEST_TOKEN }}"]
"#,
    );
    let Ran {
        code,
        stdout,
        stderr,
        ..
    } = flow_run(d.path())
        .env("RUNNER_TEST_TOKEN", "hunter2-s3cr3t")
        .args(["s.yaml", "--report", "junit=r.xml", "--report", "html=html"])
        .run();
    assert_eq!(code, 1);
    assert!(stderr.contains("the token is ***"), "{stderr}");
    let mut texts = vec![stdout, stderr];
    for f in ["report.json", "r.xml", "html/index.html"] {
        texts.push(std::fs::read_to_string(d.path().join(f)).unwrap());
    }
    for e in walkdir::WalkDir::new(d.path().join("art"))
        .into_iter()
        .filter_map(Result::ok)
    {
        if e.file_type().is_file() {
            texts.push(std::fs::read_to_string(e.path()).unwrap());
        }
    }
    let stdout_artifact = texts.iter().any(|t| t.contains("token=***"));
    assert!(stdout_artifact, "the exec output artifact is kept, masked");
    for t in &texts {
        assert!(!t.contains("hunter2-s3cr3t"), "secret leaked in:\n{t}");
    }
}

#[test]
fn missing_secret_is_an_environment_error() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "s.yaml",
        "name: s\nsecrets: [RUNNER_TEST_UNSET_SECRET]\nsteps:\n  - log: hi\n",
    );
    let Ran { code, stderr, .. } = flow_run(d.path())
        .with(|c| {
            c.env_remove("RUNNER_TEST_UNSET_SECRET");
        })
        .arg("s.yaml")
        .run();
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains("secret `RUNNER_TEST_UNSET_SECRET` is not set"),
        "{stderr}"
    );
}

#[test]
fn a_secret_that_is_not_utf8_is_named_as_such() {
    use std::os::unix::ffi::OsStrExt;
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "s.yaml",
        "name: s\nsecrets: [RUNNER_TEST_BINARY_SECRET]\nsteps:\n  - log: hi\n",
    );
    let Ran { code, stderr, .. } = flow_run(d.path())
        .env(
            "RUNNER_TEST_BINARY_SECRET",
            std::ffi::OsStr::from_bytes(b"\xff\xfe-bytes"),
        )
        .arg("s.yaml")
        .run();
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains("secret `RUNNER_TEST_BINARY_SECRET` is not valid UTF-8"),
        "{stderr}"
    );
}

#[test]
fn junit_report_parses_and_names_the_failing_step() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "a.yaml", "name: passes\nsteps:\n  - log: ok\n");
    write(
        d.path(),
        "b.yaml",
        "name: fails\nsteps:\n  - log: first\n  - name: the check\n    expect: { that: \"{{ 1 == 2 }}\" }\n",
    );
    let Ran { code, .. } = flow_run(d.path())
        .args([".", "--report", "junit=out/junit.xml"])
        .run();
    assert_eq!(code, 1);
    let xml = std::fs::read_to_string(d.path().join("out/junit.xml")).unwrap();
    let doc = roxmltree::Document::parse(&xml).expect("valid XML");
    let cases: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    assert_eq!(cases.len(), 2);
    let failing = cases
        .iter()
        .find(|c| c.attribute("name") == Some("fails"))
        .unwrap();
    let failure = failing
        .children()
        .find(|n| n.has_tag_name("failure"))
        .expect("a <failure>");
    let msg = failure.attribute("message").unwrap();
    assert!(msg.contains("step `the check` failed"), "{msg}");
    assert!(msg.contains("expected `{{ 1 == 2 }}` to be true"), "{msg}");
    let suite = doc
        .descendants()
        .find(|n| n.has_tag_name("testsuite"))
        .unwrap();
    assert_eq!(suite.attribute("tests"), Some("2"));
    assert_eq!(suite.attribute("failures"), Some("1"));
}

#[test]
fn runtime_template_errors_point_into_the_file() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "t.yaml",
        "name: t\nvars:\n  m: {a: 1}\nsteps:\n  - log: \"{{ vars.m.b.c }}\"\n",
    );
    let Ran { code, stderr, .. } = flow_run(d.path()).args(["t.yaml"]).run();
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("template error"), "{stderr}");
    assert!(stderr.contains("t.yaml:5:"), "{stderr}");
}

/// A template that renders to none where a step needs a setting is an error, never the
/// setting left out: `that: "{{ x }}"` with a null `x` passed (the assertion vanished), and
/// `equals: "{{ x }}"` or `cwd: "{{ x }}"` were silently dropped. Nulls stay fine as values
/// (`set`, `log`, a sub-flow's vars).
#[test]
fn a_template_that_renders_to_none_never_drops_a_setting() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "t.yaml",
        r#"name: t
steps:
  - set: { n: "{{ none }}", m: "{{ none }}" }
  - expect: { that: "{{ vars.n }}" }
    continue_on_error: true
  - exec: { command: "pwd", cwd: "{{ vars.n }}" }
    continue_on_error: true
  - expect: { that: "{{ vars.n is none }}" }
  - log: "{{ vars.m }}"
  - set: { copy: "{{ vars.n }}" }
  - expect: { that: "{{ vars.copy is none }}" }
"#,
    );
    let report = flow_run(d.path()).args(["t.yaml"]).passes();
    let steps = report["flows"][0]["steps"].as_array().unwrap();
    for (i, field) in [(1, "expect/that"), (2, "exec/cwd")] {
        assert_eq!(steps[i]["outcome"], "failed", "{}", steps[i]);
        let msg = steps[i]["error"]["message"].as_str().unwrap();
        assert!(
            msg.contains(&format!("`{field}`")) && msg.contains("renders to none"),
            "{msg}"
        );
    }
    for s in &steps[3..] {
        assert_eq!(s["outcome"], "passed", "{s}");
    }
}

#[test]
fn junit_shows_flaky_flows() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        r#"
name: flaky one
steps:
  - name: second time lucky
    exec: { command: '[ -f seen ] || { touch seen; exit 1; }', shell: true }
    retry: 2
"#,
    );
    let Ran { code, stderr, .. } = flow_run(d.path())
        .args(["f.yaml", "--report", "junit=j.xml"])
        .run();
    assert_eq!(code, 0, "{stderr}");
    let xml = std::fs::read_to_string(d.path().join("j.xml")).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let case = doc
        .descendants()
        .find(|n| n.has_tag_name("testcase"))
        .unwrap();
    assert!(case.children().all(|n| !n.has_tag_name("failure")), "{xml}");
    let flaky = case
        .children()
        .find(|n| n.has_tag_name("flakyFailure"))
        .expect("a <flakyFailure>");
    let message = flaky.attribute("message").unwrap();
    assert!(
        message.starts_with("step `second time lucky` attempt 1 of 2 failed: ")
            && message.contains("exit"),
        "{xml}"
    );
    assert_eq!(flaky.attribute("type"), Some("command_failed"), "{xml}");

    // A step that fails every attempt: its earlier attempts are `rerunFailure`s, each with its
    // own error; the JSON report keeps them all.
    write(
        d.path(),
        "g.yaml",
        r#"
name: never lucky
steps:
  - name: counts its tries
    exec: { command: 'echo x >> tries; n=$(wc -l < tries); echo "try $n" >&2; exit $n', shell: true }
    retry: 3
"#,
    );
    let Ran { code, report, .. } = flow_run(d.path())
        .args(["g.yaml", "--report", "junit=g.xml"])
        .run();
    assert_eq!(code, 1);
    let xml = std::fs::read_to_string(d.path().join("g.xml")).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let reruns: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("rerunFailure"))
        .map(|n| n.attribute("message").unwrap())
        .collect();
    assert_eq!(reruns.len(), 2, "{xml}");
    assert!(
        reruns[0].starts_with("step `counts its tries` attempt 1 of 3 failed: "),
        "{xml}"
    );
    assert!(
        reruns[0].contains("exit code 1")
            || reruns[0].contains("exited with 1")
            || reruns[0].contains(" 1"),
        "{xml}"
    );
    let errors = report["flows"][0]["steps"][0]["attempt_errors"]
        .as_array()
        .unwrap();
    assert_eq!(errors.len(), 3, "{report}");
    let msgs: Vec<&str> = errors
        .iter()
        .map(|e| e["message"].as_str().unwrap())
        .collect();
    assert!(
        msgs[0] != msgs[1] && msgs[1] != msgs[2],
        "each attempt keeps its own error: {msgs:?}"
    );
}

#[test]
fn large_output_is_bounded_in_memory_and_whole_in_artifacts() {
    let d = tempfile::tempdir().unwrap();
    // 3 MiB of output: more than the 1 MiB kept in the step's outputs.
    write(
        d.path(),
        "big.yaml",
        r#"
name: big output
steps:
  - id: big
    exec: ["sh", "-c", "i=0; while [ $i -lt 49152 ]; do echo 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'; i=$((i+1)); done"]
  - expect: { that: "{{ steps.big.truncated }}" }
"#,
    );
    let Ran {
        code,
        stderr,
        report,
        ..
    } = flow_run(d.path())
        .args(["big.yaml", "--artifacts", "art"])
        .run();
    assert_eq!(code, 0, "{stderr}");
    // (A check that reads the cut text fails, saying so: its length is read from the report.)
    let kept = report["flows"][0]["steps"][0]["outputs"]["stdout"]
        .as_str()
        .unwrap()
        .len();
    assert!(kept <= 1_048_576 && kept > 1_000_000, "{kept}");
    let file = walkdir::WalkDir::new(d.path().join("art"))
        .into_iter()
        .filter_map(Result::ok)
        .find(|e| e.file_name().to_string_lossy().ends_with("big.stdout"))
        .expect("the stdout artifact");
    assert_eq!(std::fs::metadata(file.path()).unwrap().len(), 49152 * 64);
}

#[test]
fn html_report_lists_flows_and_steps() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        "name: <b>html</b> flow\nsteps:\n  - log: fine\n  - name: \"broken & <odd>\"\n    exec: [\"false\"]\n",
    );
    let Ran { code, .. } = flow_run(d.path())
        .args(["f.yaml", "--report", "html=out/html"])
        .run();
    assert_eq!(code, 1);
    let page = std::fs::read_to_string(d.path().join("out/html/index.html")).unwrap();
    assert!(page.starts_with("<!doctype html>"));
    assert!(page.contains("0 of 1 flows passed"), "{page}");
    assert!(
        page.contains("&lt;b&gt;html&lt;/b&gt; flow"),
        "names are escaped: {page}"
    );
    assert!(
        page.contains(
            // The failed flow's trace (retain-on-failure) makes the row a click target.
            "<tr class=\"failed\" data-trace=\"trace-1-1\"><td style=\"padding-left:0.5em\">broken &amp; &lt;odd&gt;</td>"
        ),
        "{page}"
    );
    assert!(page.contains("command exited with code 1"));
}

#[test]
fn a_flow_that_fails_before_its_first_step_is_torn_down_and_timed() {
    let d = tempfile::tempdir().unwrap();
    let port = crate::common::free_port();
    write(
        d.path(),
        "f.yaml",
        &format!(
            "name: blocked\nweb_server:\n  command: [python3, -m, http.server, --bind, 127.0.0.1, \"{port}\"]\n  url: http://127.0.0.1:{port}/\nsteps:\n  - log: never\n"
        ),
    );
    // A file where the flow's artifacts directory must go (in a run's artifacts, reused): the
    // flow fails after its server is up.
    std::fs::create_dir_all(d.path().join("art")).unwrap();
    std::fs::write(d.path().join("art/.runner-artifacts"), "").unwrap();
    std::fs::write(d.path().join("art/001-blocked"), "in the way").unwrap();
    let Ran {
        code,
        stderr,
        report,
        ..
    } = flow_run(d.path()).arg("f.yaml").run();
    assert_eq!(code, 3, "{stderr}");
    let flow = &report["flows"][0];
    assert_eq!(flow["status"], "error");
    assert!(
        flow["error"]["message"]
            .as_str()
            .unwrap()
            .contains("cannot create the artifacts directory"),
        "{flow}"
    );
    // The flow's time includes its server's start: the one teardown path measured it.
    assert!(flow["duration_ms"].as_u64().unwrap() > 0, "{flow}");
    assert!(
        std::net::TcpStream::connect(("127.0.0.1", port)).is_err(),
        "the web server was stopped"
    );
}

#[test]
fn env_and_web_server_strings_are_rendered_not_taken_literally() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("public")).unwrap();
    std::fs::write(d.path().join("public/hello.txt"), "served from public").unwrap();
    write(
        d.path(),
        "f.yaml",
        r#"name: rendered everywhere
web_server: { static: "{{ env.SITE_DIR }}" }
vars:
  who: world
env:
  GREETING: "hello {{ vars.who }}"
steps:
  - id: greet
    exec: ["sh", "-c", "echo $GREETING"]
  - id: fetch
    exec: ["python3", "-c", "import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1]).read().decode())", "{{ web_server.url }}/hello.txt"]
  - expect: { that: "{{ steps.greet.stdout == 'hello world' and steps.fetch.stdout == 'served from public' }}" }
"#,
    );
    let Ran { code, stderr, .. } = flow_run(d.path())
        .env("SITE_DIR", "public")
        .arg("f.yaml")
        .run();
    assert_eq!(code, 0, "{stderr}");
    assert!(!d.path().join("{{ env.SITE_DIR }}").exists());
}

#[test]
fn secrets_are_masked_in_every_form_they_travel() {
    let d = tempfile::tempdir().unwrap();
    let pem = "-----BEGIN TEST KEY-----\nMIIBVwIBADANBgkqhkiG\nw0BAQEFAASCAT8wggE7\n-----END TEST KEY-----";
    let token = "tok3n-v@lue \"q\"";
    write(
        d.path(),
        "_sub.yaml",
        "name: sub\nsecrets: [SUB_SECRET]\nsteps:\n  - log: sub\noutputs:\n  leaked: \"{{ secrets.SUB_SECRET }}\"\n",
    );
    write(
        d.path(),
        "s.yaml",
        r#"name: secret forms
secrets: [PEM_KEY, API_TOKEN, NUM_SECRET]
vars:
  shout: "{{ secrets.API_TOKEN | upper }}"
steps:
  - exec: ["sh", "-c", "printf '%s\n' \"$0\"", "{{ secrets.PEM_KEY }}"]
  - log: "{{ secrets.PEM_KEY }}"
  - log: "{{ vars.shout }} {{ secrets.API_TOKEN | reverse }}"
  - set: { url: "https://example.test/?t={{ secrets.API_TOKEN | urlencode }}" }
  - log: "{{ vars.url }} {{ secrets.API_TOKEN | tojson }}"
  - id: sub
    run_flow: _sub.yaml
  - log: "from the sub-flow: {{ steps.sub.leaked }}"
  - if: "{{ (env.NUM_SECRET | int) ** 100 }}"
    log: never
"#,
    );
    let Ran {
        code,
        stdout,
        stderr,
        ..
    } = flow_run(d.path())
        .env("PEM_KEY", pem)
        .env("API_TOKEN", token)
        .env("SUB_SECRET", "sub-s3cret-value")
        .env("NUM_SECRET", "987654321")
        .args(["s.yaml", "--report", "junit=r.xml", "--report", "html=html"])
        .run();
    assert_eq!(code, 1, "the last step fails: {stderr}");
    let mut texts = vec![
        ("stdout".to_string(), stdout),
        ("stderr".to_string(), stderr),
    ];
    for e in walkdir::WalkDir::new(d.path())
        .into_iter()
        .filter_map(Result::ok)
    {
        let p = e.path();
        if e.file_type().is_file()
            && p.extension().is_none_or(|x| x != "yaml")
            && let Ok(t) = std::fs::read_to_string(p)
        {
            texts.push((p.display().to_string(), t));
        }
    }
    let upper = token.to_uppercase();
    let reversed: String = token.chars().rev().collect();
    let json = serde_json::to_string(token).unwrap();
    let forms = [
        pem,
        "MIIBVwIBADANBgkqhkiG",
        "w0BAQEFAASCAT8wggE7",
        token,
        &upper,
        &reversed,
        &json[1..json.len() - 1],
        "tok3n-v%40lue%20%22q%22",
        "sub-s3cret-value",
        "987654321",
    ];
    for (name, t) in &texts {
        for f in forms {
            assert!(!t.contains(f), "`{f}` leaked in {name}:\n{t}");
        }
    }
}

#[test]
fn the_static_server_hides_dotfiles_and_stays_in_its_directory() {
    let d = tempfile::tempdir().unwrap();
    let site = d.path().join("site");
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(site.join("index.html"), "<p>ログイン</p>").unwrap();
    std::fs::write(site.join(".env"), "TOKEN=secret").unwrap();
    std::fs::write(d.path().join("outside.txt"), "outside").unwrap();
    std::os::unix::fs::symlink(d.path().join("outside.txt"), site.join("link.txt")).unwrap();
    write(
        d.path(),
        "f.yaml",
        r#"name: static server
web_server: { static: site }
steps:
  - id: get
    exec:
      - python3
      - -c
      - |
        import sys, urllib.request, urllib.error
        for p in ["/index.html", "/.env", "/%2Eenv", "/link.txt"]:
            try:
                r = urllib.request.urlopen(sys.argv[1] + p)
                print(p, r.status, r.headers.get("content-type"))
            except urllib.error.HTTPError as e:
                print(p, e.code)
      - "{{ web_server.url }}"
"#,
    );
    let report = flow_run(d.path()).arg("f.yaml").passes();
    let out = crate::common::step(&report, "get")["outputs"]["stdout"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        out.contains("/index.html 200 text/html; charset=utf-8"),
        "{out}"
    );
    assert!(out.contains("/.env 404"), "{out}");
    assert!(out.contains("/%2Eenv 404"), "{out}");
    assert!(out.contains("/link.txt 404"), "{out}");
}

#[test]
fn output_is_streamed_in_chunks_and_a_secret_across_a_chunk_boundary_is_masked() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        r#"name: chunks
secrets: [CHUNK_SECRET]
steps:
  - exec: ["python3", "-c", "import sys; sys.stdout.write('x' * 65530 + sys.argv[1] + 'y' * 100000)", "{{ secrets.CHUNK_SECRET }}"]
"#,
    );
    let Ran { code, stderr, .. } = flow_run(d.path())
        .env("CHUNK_SECRET", "straddling-the-64k-boundary")
        .arg("f.yaml")
        .run();
    assert_eq!(code, 0, "{stderr}");
    let out = std::fs::read_to_string(d.path().join("art/001-chunks/001-exec.stdout")).unwrap();
    assert!(
        !out.contains("straddling"),
        "the secret leaked across a chunk boundary"
    );
    assert_eq!(
        out,
        format!("{}***{}", "x".repeat(65530), "y".repeat(100_000))
    );
}
