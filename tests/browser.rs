//! Browser steps end to end: the real runner, agent-browser and Chromium on `tests/fixtures/site`.

use std::path::Path;

use serde_json::Value;

use crate::common::{Ran, fixture, flow_run, output, runner, step, write};

/// A flow file serving the fixture site, with `steps` appended (YAML, indented by 2).
fn flow(name: &str, steps: &str) -> String {
    format!(
        "name: {name}\nweb_server: {{ static: \"{}\" }}\nvars:\n  base: \"{{{{ web_server.url }}}}\"\nsteps:\n{steps}",
        fixture("site").display()
    )
}

/// Runs `c` to its end: its pid (to look for what it left), exit code and stderr.
fn run_keeping_pid(mut c: std::process::Command) -> (u32, Option<i32>, String) {
    let child = c
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let out = child.wait_with_output().unwrap();
    (
        pid,
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Processes started for this runner's browser sessions (they carry its socket directory).
fn leftover_browser_processes(runner_pid: u32) -> Vec<String> {
    let needle = format!(
        "AGENT_BROWSER_SOCKET_DIR=/tmp/rnr-{}/{runner_pid}",
        nix::unistd::getuid()
    );
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !name.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let Ok(env) = std::fs::read(e.path().join("environ")) else {
            continue;
        };
        if env.split(|b| *b == 0).any(|kv| kv == needle.as_bytes()) {
            let cmd = std::fs::read_to_string(e.path().join("cmdline"))
                .unwrap_or_default()
                .replace('\0', " ");
            out.push(format!("{name}: {cmd}"));
        }
    }
    out
}

/// The pids of this runner's browser processes (agent-browser daemons and Chromium).
fn browser_pids(runner_pid: u32) -> Vec<i32> {
    leftover_browser_processes(runner_pid)
        .iter()
        .filter_map(|l| l.split(':').next()?.parse().ok())
        .collect()
}

#[test]
fn kill_9_of_runner_leaves_no_browser_or_agent_behind() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        &flow(
            "killed",
            r#"
  - open: "{{ vars.base }}/index.html"
  - agent: { profile: fake-claude, prompt: hi, timeout: 5m, env: { FAKE_AGENT_MODE: "ignore-term,grandchild" } }
"#,
        ),
    );
    let mut c = runner(d.path());
    crate::agents::agent_env(&mut c, d.path());
    c.args(crate::agents::with_profiles(&["run", "f.yaml"]))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let child = c.spawn().unwrap();
    crate::common::wait_for_file(&d.path().join("rec/grandchild.pid"));
    let mut pids = vec![crate::common::read_pid(
        &d.path().join("rec/grandchild.pid"),
    )];
    // The agent itself writes `<pid>.json`.
    for e in std::fs::read_dir(d.path().join("rec")).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if let Some(pid) = name.strip_suffix(".json").and_then(|p| p.parse().ok()) {
            pids.push(pid);
        }
    }
    assert_eq!(pids.len(), 2, "the agent and its child: {pids:?}");
    let browser = browser_pids(child.id());
    assert!(
        browser.len() >= 2,
        "the agent-browser daemon and Chromium run: {browser:?}"
    );
    pids.extend(browser);
    assert!(pids.iter().all(|p| crate::common::pid_alive(*p)));
    crate::common::kill_9(child);
    assert!(
        crate::common::all_gone(&pids),
        "after kill -9 of runner these live on: {:?}",
        pids.iter()
            .filter(|p| crate::common::pid_alive(**p))
            .collect::<Vec<_>>()
    );
}

#[test]
fn fill_values_and_scripts_never_reach_agent_browsers_argv() {
    use std::os::unix::fs::PermissionsExt;
    let d = tempfile::tempdir().unwrap();
    // A wrapper that logs each command line it is given (what /proc/PID/cmdline shows every local
    // user), then becomes the real binary.
    let log = d.path().join("argv.log");
    let wrapper = write(
        d.path(),
        "agent-browser-wrapper",
        &format!(
            "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '{}'\nexec '{}' \"$@\"\n",
            log.display(),
            crate::common::real_agent_browser().display()
        ),
    );
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    write(
        d.path(),
        "f.yaml",
        &flow(
            "argv",
            r##"
  - open: "{{ vars.base }}/index.html"
  - fill: { target: "#password", value: "{{ secrets.PW }}" }
  - eval: "document.title = 'x' + '{{ secrets.PW | upper }}'"
  - id: title
    eval: "document.title"
  - expect: { that: "{{ steps.title.value == 'xHUNTER2-ARGV-SECRET' }}" }
"##,
        )
        .replacen("steps:", "secrets: [PW]\nsteps:", 1),
    );
    let Ran { code, stderr, .. } = flow_run(d.path())
        .env("AGENT_BROWSER", &wrapper)
        .env("PW", "hunter2-argv-secret")
        .arg("f.yaml")
        .run();
    assert_eq!(code, 0, "{stderr}");
    let argv = std::fs::read_to_string(&log).unwrap();
    assert!(argv.contains("batch"), "the wrapper was used: {argv}");
    assert!(
        !argv.to_lowercase().contains("hunter2") && !argv.contains("document.title"),
        "a value or a script reached argv:\n{argv}"
    );
}

#[test]
fn a_whole_browser_flow_passes_and_leaves_no_process() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        &flow(
            "browser tour",
            r##"
  - id: home
    open: "{{ vars.base }}/index.html"
  - id: snap
    snapshot: { interactive: true }
  - fill: { target: { role: textbox, text: Email }, value: "demo@example.com" }
  - fill: { target: "#password", value: "pw" }
  - check: { role: checkbox, text: I agree }
  - select: { target: "#plan", value: pro }
  - click: [{ css: "#missing-button" }, { role: button, text: Sign in }]
  - expect:
      text: { target: "#out", equals: Hello demo@example.com }
      title: { equals: Runner fixture }
      url: { matches: "/index\\.html$" }
      visible: { text: Welcome, tag: h1 }
      hidden: { css: "#spinner" }
      value: { target: { css: "#plan" }, equals: pro }
      count: { target: li.todo, equals: 3 }
      checked: "#agree"
  - click: { role: button, text: ログイン }
  - expect: { text: { target: "#out", contains: こんにちは } }
  - click: { role: button, text: Appeared late }
  - expect: { text: { target: "#out", equals: late clicked } }
  - id: title
    eval: "document.title + ' / ' + window.secretValue"
  - id: shot
    screenshot: { path: shots/home.png }
  - press: Tab
  - wait: { text: late clicked }
  - wait: { for: "#spinner", state: hidden }
"##,
        ),
    );
    let mut c = runner(d.path());
    c.args([
        "run",
        "f.yaml",
        "--report",
        "json=report.json",
        "--artifacts",
        "art",
    ]);
    let (pid, code, stderr) = run_keeping_pid(c);
    assert_eq!(code, Some(0), "{stderr}");
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("report.json")).unwrap())
            .unwrap();
    let steps = report["flows"][0]["steps"].as_array().unwrap();
    let by_id = |id: &str| steps.iter().find(|s| s["id"] == id).unwrap()["outputs"].clone();
    assert_eq!(by_id("home")["title"], "Runner fixture");
    let refs = by_id("snap")["refs"].clone();
    assert!(
        refs.as_object()
            .unwrap()
            .values()
            .any(|r| r["role"] == "button" && r["name"] == "ログイン"),
        "{refs}"
    );
    assert!(
        by_id("snap")["text"]
            .as_str()
            .unwrap()
            .contains("textbox \"Email\"")
    );
    assert_eq!(by_id("title")["value"], "Runner fixture / 42");
    // The fallback list reports which alternative matched.
    let click = steps.iter().find(|s| s["action"] == "click").unwrap();
    assert_eq!(click["outputs"]["matched"], "button \"Sign in\"");
    assert_eq!(click["outputs"]["matched_index"], 1);
    let png = std::fs::read(
        d.path().join("art").join(
            walkdir::WalkDir::new(d.path().join("art"))
                .into_iter()
                .filter_map(Result::ok)
                .find(|e| e.file_name() == "home.png")
                .unwrap()
                .path()
                .strip_prefix(d.path().join("art"))
                .unwrap(),
        ),
    )
    .unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    assert!(
        leftover_browser_processes(pid).is_empty(),
        "{:?}",
        leftover_browser_processes(pid)
    );
}

#[test]
fn every_role_and_name_in_a_snapshot_is_found_by_its_selector() {
    for page in ["index.html", "page2.html"] {
        let d = tempfile::tempdir().unwrap();
        write(
            d.path(),
            "snap.yaml",
            &flow(
                "snap",
                &format!(
                    "  - open: \"{{{{ vars.base }}}}/{page}\"\n  - id: snap\n    snapshot: true\n"
                ),
            ),
        );
        let Ran {
            code,
            stderr,
            report,
            ..
        } = flow_run(d.path()).arg("snap.yaml").run();
        assert_eq!(code, 0, "{stderr}");
        let refs = report["flows"][0]["steps"][1]["outputs"]["refs"]
            .as_object()
            .unwrap()
            .clone();
        assert!(refs.len() >= 3, "{page}: {refs:?}");
        let mut steps = format!("  - open: \"{{{{ vars.base }}}}/{page}\"\n");
        for r in refs.values() {
            let (role, name) = (r["role"].as_str().unwrap(), r["name"].as_str().unwrap());
            if name.is_empty() || name.chars().any(|c| c.is_ascii_digit()) {
                continue; // page2's visitor number changes on every load
            }
            steps.push_str(&format!(
                "  - expect: {{ count: {{ target: {{ role: {role}, text: {}, exact: true }}, min: 1 }} }}\n    timeout: 3s\n",
                serde_json::to_string(name).unwrap()
            ));
        }
        write(d.path(), "find.yaml", &flow("find", &steps));
        let Ran { code, stderr, .. } = flow_run(d.path()).arg("find.yaml").run();
        assert_eq!(code, 0, "{page}: {stderr}");
    }
}

#[test]
fn a_ref_from_before_a_page_driven_navigation_is_refused() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        &flow(
            "stale",
            r#"
  - open: "{{ vars.base }}/page2.html"
  - id: snap
    snapshot: { interactive: true }
  - click: { role: button, text: Go home soon }
  - wait: { url: index.html }
  - click: "@e1"
"#,
        ),
    );
    let Ran {
        code,
        stderr,
        report,
        ..
    } = flow_run(d.path()).arg("f.yaml").run();
    assert_eq!(code, 1, "{stderr}");
    let last = report["flows"][0]["steps"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["error"]["kind"], "not_found");
    assert_eq!(
        last["error"]["message"],
        "ref e1 is from an earlier page; take a new snapshot"
    );
}

#[test]
fn a_selector_miss_lists_similar_elements() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        &flow(
            "miss",
            r#"
  - open: "{{ vars.base }}/index.html"
  - click: { role: button, text: Sing in }
    timeout: 1s
"#,
        ),
    );
    let Ran {
        code,
        stderr,
        report,
        ..
    } = flow_run(d.path()).arg("f.yaml").run();
    assert_eq!(code, 1, "{stderr}");
    let step = &report["flows"][0]["steps"][1];
    assert_eq!(step["error"]["kind"], "not_found");
    let msg = step["error"]["message"].as_str().unwrap();
    assert!(
        msg.starts_with("no element matches button \"Sing in\"; similar elements on the page: "),
        "{msg}"
    );
    assert!(msg.contains("{ role: button, text: Sign in }"), "{msg}");
    // A failed browser step leaves a screenshot and a snapshot.
    let arts = &step["outputs"]["failure_artifacts"];
    assert!(
        Path::new(arts["screenshot"].as_str().unwrap()).is_file(),
        "{arts}"
    );
    let snap = std::fs::read_to_string(arts["snapshot"].as_str().unwrap()).unwrap();
    assert!(snap.contains("button \"Sign in\""), "{snap}");
}

#[test]
fn a_wedged_page_costs_the_step_timeout_plus_bounded_artifacts_and_close() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        &flow(
            "wedged",
            r#"
  - open: "{{ vars.base }}/index.html"
  - id: wedge
    eval: "while (true) {}"
    timeout: 2s
"#,
        ),
    );
    let started = std::time::Instant::now();
    let Ran {
        code,
        stderr,
        report,
        ..
    } = flow_run(d.path()).arg("f.yaml").run();
    let whole = started.elapsed();
    assert_eq!(code, 1, "{stderr}");
    let step = step(&report, "wedge");
    assert_eq!(step["error"]["kind"], "timeout", "{step}");
    // Budgets, not speed: 2 s of timeout + at most 3 s of failure artifacts; the browser that no
    // longer answers gets 2 s to close, then it is killed. Before: 5 s for the step and 13 s
    // more for the close; a step's artifacts had no bound (a 3 s step took 13 s).
    let ms = step["duration_ms"].as_u64().unwrap();
    assert!(ms < 5_900, "the step took {ms} ms");
    assert!(
        whole < std::time::Duration::from_secs(14),
        "the run took {whole:?}"
    );
}

#[test]
fn a_failed_assertion_says_what_was_expected_and_what_was_there() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        &flow(
            "assert",
            r#"
  - open: "{{ vars.base }}/index.html"
  - expect:
      title: Wrong title
      count: { target: li.todo, max: 2 }
    timeout: 1s
"#,
        ),
    );
    let Ran {
        code,
        stderr,
        report,
        ..
    } = flow_run(d.path()).arg("f.yaml").run();
    assert_eq!(code, 1, "{stderr}");
    let e = &report["flows"][0]["steps"][1]["error"];
    assert_eq!(e["kind"], "assertion");
    assert_eq!(
        e["message"],
        "expected title to equal \"Wrong title\", got \"Runner fixture\"; expected at most 2 elements matching css `li.todo`, got 3"
    );
}

#[test]
fn inspect_prunes_and_strips_scripts_and_handlers() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        &flow(
            "inspect",
            r##"
  - open: "{{ vars.base }}/index.html"
  - id: one
    inspect: { target: ["#details", { role: heading, text: Welcome }, "#nothing-here"], depth: 3, include_styles: true }
  - id: small
    inspect: { target: "#details", max_size: 100 }
  - id: text
    inspect: { target: "#todos", format: text }
"##,
        ),
    );
    let Ran {
        code,
        stderr,
        report,
        ..
    } = flow_run(d.path()).arg("f.yaml").run();
    assert_eq!(code, 0, "{stderr}");
    let steps = &report["flows"][0]["steps"];
    let one = &steps[1]["outputs"];
    let html = one["html"].as_str().unwrap();
    assert!(
        html.starts_with("<section id=\"details\" class=\"card\">"),
        "{html}"
    );
    for banned in [
        "<script",
        "onclick",
        "onmouseover",
        "javascript:",
        "secretValue",
    ] {
        assert!(!html.contains(banned), "{banned} in {html}");
    }
    assert!(
        html.contains("Level 3") && !html.contains("Level 4"),
        "depth 3 keeps Level 3, drops Level 4: {html}"
    );
    assert!(html.contains("href=\"page2.html\""));
    let els = one["elements"].as_array().unwrap();
    assert_eq!(els[0]["metadata"]["tag"], "section");
    assert_eq!(els[0]["styles"]["display"], "block");
    assert_eq!(els[1]["metadata"]["tag"], "h1");
    assert_eq!(els[2]["found"], false);
    assert_eq!(one["truncated"], false);
    assert!(
        one["suggestions"][0]
            .as_str()
            .unwrap()
            .contains("#nothing-here")
    );
    assert_eq!(steps[2]["outputs"]["truncated"], true);
    assert_eq!(steps[2]["outputs"]["total_size"], 100);
    assert_eq!(
        steps[3]["outputs"]["html"],
        "Buy milk\nWalk the dog\nWrite tests"
    );
}

#[test]
fn open_of_a_missing_page_fails_and_a_wait_times_out() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        &flow(
            "missing page",
            r##"
  - open: "{{ vars.base }}/no-such-page.html"
    continue_on_error: true
  - open: "{{ vars.base }}/index.html"
  - wait: { for: "#never" }
    timeout: 500ms
"##,
        ),
    );
    let Ran {
        code,
        stderr,
        report,
        ..
    } = flow_run(d.path()).arg("f.yaml").run();
    assert_eq!(code, 1, "{stderr}");
    let steps = &report["flows"][0]["steps"];
    assert_eq!(steps[0]["error"]["kind"], "command_failed");
    let msg = steps[0]["error"]["message"].as_str().unwrap();
    assert!(
        msg.starts_with("HTTP error response for http://127.0.0.1:")
            && msg.contains("/no-such-page.html"),
        "{msg}"
    );
    assert_eq!(steps[2]["error"]["kind"], "timeout");
    assert_eq!(
        steps[2]["error"]["message"],
        "timed out waiting for css `#never` to be visible"
    );
}

#[test]
fn missing_agent_browser_is_an_environment_error() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        "name: b\nsteps:\n  - open: http://127.0.0.1:9/\n",
    );
    let mut c = runner(d.path());
    c.env("AGENT_BROWSER", "/nonexistent/agent-browser")
        .args(["run", "f.yaml"]);
    let (code, _, stderr) = output(c);
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains("agent-browser is not installed"),
        "{stderr}"
    );
    assert!(stderr.contains("npm install -g agent-browser"), "{stderr}");
}

#[test]
fn interrupting_a_browser_flow_closes_the_browser() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        &flow(
            "wait forever",
            r##"
  - open: "{{ vars.base }}/index.html"
  - exec: { command: "echo ok > opened", shell: true }
  - wait: { for: "#never" }
    timeout: 5m
"##,
        ),
    );
    let mut c = runner(d.path());
    c.args(["run", "f.yaml"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let child = c.spawn().unwrap();
    let pid = child.id();
    crate::common::wait_for_file(&d.path().join("opened"));
    assert!(
        !leftover_browser_processes(pid).is_empty(),
        "the browser should be running"
    );
    crate::common::interrupt(child);
    // runner waits for its daemons and browsers to exit before it exits itself.
    assert!(
        leftover_browser_processes(pid).is_empty(),
        "{:?}",
        leftover_browser_processes(pid)
    );
}

#[test]
fn a_browser_that_cannot_launch_is_an_environment_error() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        "name: b\nsteps:\n  - open: about:blank\n",
    );
    // A "browser" that notes each start and fails at once.
    let log = d.path().join("launches.log");
    let fake = d.path().join("no-chrome");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\necho started >> '{}'\necho 'cannot open display: nothing here' >&2\nexit 1\n",
            log.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let mut c = runner(d.path());
    c.env("AGENT_BROWSER_EXECUTABLE_PATH", &fake)
        .args(["run", "f.yaml"]);
    let (code, _, stderr) = output(c);
    assert_eq!(code, 3, "{stderr}");
    assert!(stderr.contains("the browser cannot launch"), "{stderr}");
    // What the browser said is in the error.
    assert!(
        stderr.contains("cannot open display: nothing here"),
        "{stderr}"
    );
    // The launch is tried once, not again by the first step after it failed ahead of it.
    assert_eq!(
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .count(),
        1,
        "{stderr}"
    );

    let mut c = runner(d.path());
    c.env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env("PATH", "/usr/bin:/bin")
        .args(["run", "f.yaml", "--headed"]);
    let (code, _, stderr) = output(c);
    if !Path::new("/usr/bin/Xvfb").exists() {
        assert_eq!(code, 3, "{stderr}");
        assert!(stderr.contains("headed mode needs a display"), "{stderr}");
    }
}

#[test]
fn css_selectors_wait_for_late_elements_and_invalid_css_is_refused() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        &flow(
            "css",
            r##"
  - open: "{{ vars.base }}/index.html"
  - click: "#late"
  - expect: { text: { target: "#out", equals: late clicked } }
  - click: "{{ 'div[[[' }}"
    timeout: 2s
"##,
        ),
    );
    let Ran {
        code,
        stderr,
        report,
        ..
    } = flow_run(d.path()).arg("f.yaml").run();
    assert_eq!(code, 1, "{stderr}");
    let steps = &report["flows"][0]["steps"];
    assert_eq!(steps[1]["outcome"], "passed", "{stderr}\n{report}");
    assert_eq!(steps[3]["error"]["kind"], "not_found");
    assert_eq!(
        steps[3]["error"]["message"],
        "invalid CSS selector `div[[[`"
    );
}

#[test]
fn a_browser_launched_at_the_start_is_closed_even_if_no_flow_uses_it() {
    let d = tempfile::tempdir().unwrap();
    // The first flow needs no browser and fails; with --fail-fast the second never runs, so
    // the browser launched for it at the start of the run is never used and must be closed.
    write(
        d.path(),
        "a.yaml",
        "name: first\nsteps:\n  - exec: { command: 'sleep 1; false', shell: true }\n",
    );
    write(
        d.path(),
        "b.yaml",
        &flow("second", "  - open: \"{{ vars.base }}/index.html\"\n"),
    );
    let (wrapper, log) = crate::common::logging_agent_browser(d.path());
    let mut c = runner(d.path());
    c.env("AGENT_BROWSER", &wrapper);
    c.args(["run", "a.yaml", "b.yaml", "--fail-fast"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let child = c.spawn().unwrap();
    let pid = child.id();
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        crate::common::sessions(&log).len(),
        1,
        "a browser was launched for the second flow"
    );
    assert!(
        leftover_browser_processes(pid).is_empty(),
        "{:?}",
        leftover_browser_processes(pid)
    );
}

#[test]
fn a_web_server_command_is_polled_until_ready_and_stopped_at_the_end() {
    let d = tempfile::tempdir().unwrap();
    // A free port for the server command.
    let port = crate::common::free_port();
    write(
        d.path(),
        "f.yaml",
        &format!(
            r#"name: command server
web_server:
  command: ["python3", "-m", "http.server", "{port}", "--bind", "127.0.0.1", "--directory", "{site}"]
  url: "http://127.0.0.1:{port}/index.html"
  ready_timeout: 20s
steps:
  - open: "{{{{ web_server.url }}}}"
  - expect: {{ title: Runner fixture }}
"#,
            site = fixture("site").display()
        ),
    );
    let Ran { code, stderr, .. } = flow_run(d.path()).arg("f.yaml").run();
    assert_eq!(code, 0, "{stderr}");
    assert!(
        std::net::TcpStream::connect(("127.0.0.1", port)).is_err(),
        "the web server outlived the flow"
    );
}

#[test]
fn actions_resolve_one_element_of_the_right_kind_or_fail() {
    let d = tempfile::tempdir().unwrap();
    // Templates keep validate's static selector checks out of the way: these run in the page.
    write(
        d.path(),
        "f.yaml",
        &flow(
            "strict",
            r##"
  - open: "{{ vars.base }}/strict.html"
  - click: "#p"
  - id: playwright_text
    fill: { target: "{{ 'text=Email' }}", value: typed into the focus }
    timeout: 2s
    continue_on_error: true
  - id: playwright_chain
    fill: { target: "{{ 'iframe >> #card' }}", value: x }
    timeout: 2s
    continue_on_error: true
  - id: select_on_textbox
    select: { target: "#q", value: basic }
    continue_on_error: true
  - id: fill_on_file
    fill: { target: "#f", value: photo.png }
    continue_on_error: true
  - id: uncheck_radio
    uncheck: "#r"
    continue_on_error: true
  - id: check_textbox
    check: { role: textbox, text: Name }
    continue_on_error: true
  - id: fill_on_select
    fill: { target: { role: combobox, text: Plan }, value: pro }
    continue_on_error: true
  - id: ambiguous
    click: { role: button, text: Remove }
    continue_on_error: true
  - id: ambiguous_css
    click: "li button"
    continue_on_error: true
  - id: ambiguous_screenshot
    screenshot: { target: "li button" }
    continue_on_error: true
  - id: shot_outside
    screenshot: { path: "{{ '../escaped.png' }}" }
    continue_on_error: true
  - id: nothing_clicked
    eval: "String(window.removed)"
  - click: { role: button, text: Remove, nth: -1 }
  - id: last_clicked
    eval: "window.removed"
  - click: { css: "li button", nth: 0 }
  - id: first_clicked
    eval: "window.removed"
  - fill: { target: "#p", value: one }
  - fill: { target: "#p", value: two }
  - fill: { target: { role: textbox, text: Email }, value: three }
  - check: { role: checkbox, text: Agree }
  - select: { target: { css: select }, value: pro }
  - id: values
    eval: "[...document.querySelectorAll('#p, #q, #s')].map(e => e.value).join('|') + '|' + document.querySelector('#c').checked + '|' + document.querySelector('#r').checked"
  - expect: { count: { target: li, equals: 3 } }
  - snapshot: { interactive: true }
  - id: unknown_ref
    click: "@e999"
    continue_on_error: true
"##,
        ),
    );
    let Ran {
        code,
        stderr,
        report,
        ..
    } = flow_run(d.path()).arg("f.yaml").run();
    assert_eq!(code, 0, "{stderr}");
    let error = |id: &str| {
        let s = step(&report, id);
        assert_eq!(s["outcome"], "failed", "{id} must fail: {s}");
        s["error"]["message"].as_str().unwrap().to_string()
    };
    assert!(
        error("playwright_text").contains("`text=` is Playwright's syntax"),
        "{}",
        error("playwright_text")
    );
    assert!(error("playwright_chain").contains("`>>` chains"));
    assert!(
        error("select_on_textbox").contains(
            "`select` needs a <select> (a combobox or listbox), but css `#q` is <input type=text>"
        ),
        "{}",
        error("select_on_textbox")
    );
    assert!(
        error("fill_on_file").contains("a file input takes files: `upload: { target, files }`"),
        "{}",
        error("fill_on_file")
    );
    assert!(error("uncheck_radio").contains("a radio button cannot be unchecked"));
    assert!(error("check_textbox").contains("needs a checkbox or a radio button"));
    assert!(
        error("fill_on_select").contains("did not set combobox \"Plan\" to `pro`"),
        "{}",
        error("fill_on_select")
    );
    let ambiguous = error("ambiguous");
    assert!(
        ambiguous.contains("strict mode: button \"Remove\" matches 2 elements")
            && ambiguous.contains("[1] button \"Remove\""),
        "{ambiguous}"
    );
    assert!(error("ambiguous_css").contains("[1] button \"Remove\""));
    assert!(error("ambiguous_screenshot").starts_with("strict mode: css `li button` matches 2"));
    assert!(error("shot_outside").contains("leaves the artifacts directory"));
    assert!(!d.path().join("art/escaped.png").exists());
    // Nothing happened on the page for the refused actions: no typing into the focused field,
    // no click on the first of two matches.
    assert_eq!(
        step(&report, "nothing_clicked")["outputs"]["value"],
        "undefined"
    );
    assert_eq!(step(&report, "last_clicked")["outputs"]["value"], "two");
    assert_eq!(step(&report, "first_clicked")["outputs"]["value"], "one");
    // Fills replace; the textbox kept nothing from the refused steps.
    assert_eq!(
        step(&report, "values")["outputs"]["value"],
        "three||pro|true|true"
    );
    let unknown = error("unknown_ref");
    assert!(
        unknown.contains("ref e999 is not in the last snapshot; the closest refs it has: @e"),
        "{unknown}"
    );
}

#[test]
fn agent_browsers_own_launch_still_works() {
    // The way headed runs (and machines where runner knows no Chromium) go: agent-browser
    // launches the browser, runner talks to its daemon after that, and closes it at the end.
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        &flow(
            "own launch",
            r##"
  - open: "{{ vars.base }}/index.html"
  - fill: { target: "#email", value: "ada@example.com" }
  - click: { role: button, text: Sign in }
  - expect: { text: { target: "#out", equals: "Hello ada@example.com" } }
"##,
        ),
    );
    let (wrapper, log) = crate::common::logging_agent_browser(d.path());
    let mut c = runner(d.path());
    c.env("RUNNER_BROWSER_LAUNCH", "agent-browser")
        .env("AGENT_BROWSER", &wrapper)
        .args(["run", "f.yaml"]);
    let (pid, code, stderr) = run_keeping_pid(c);
    assert_eq!(code, Some(0), "{stderr}");
    // agent-browser launched it (no `--cdp` to a browser runner started) ...
    let calls = std::fs::read_to_string(&log).unwrap_or_default();
    assert_eq!(crate::common::sessions(&log).len(), 1, "{calls}");
    assert!(!calls.contains("--cdp"), "{calls}");
    // ... and nothing of it is left.
    assert!(
        leftover_browser_processes(pid).is_empty(),
        "{:?}",
        leftover_browser_processes(pid)
    );

    // A misspelt choice is refused, not taken for the default.
    let mut c = runner(d.path());
    c.env("RUNNER_BROWSER_LAUNCH", "agentbrowser")
        .args(["run", "f.yaml"]);
    let (code, _, stderr) = output(c);
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains("RUNNER_BROWSER_LAUNCH=agentbrowser"),
        "{stderr}"
    );
}

/// The HTML report, opened in Chromium (by runner itself): the failed flow first and open, the
/// failure screenshot loaded, the source line and each attempt's error shown, and the filter
/// hides what it should.
#[test]
fn the_html_report_is_read_in_a_browser() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "a-passes.yaml",
        "name: passes\nsteps:\n  - exec: \"echo hello from the passing flow\"\n",
    );
    write(
        d.path(),
        "b-flaky.yaml",
        "name: second time lucky\nsteps:\n  - exec: { command: '[ -f seen ] || { touch seen; echo first try fails >&2; exit 1; }', shell: true }\n    retry: 2\n",
    );
    write(
        d.path(),
        "c-fails.yaml",
        &flow(
            "fails on the page",
            r#"  - open: "{{ vars.base }}/index.html"
  - expect: { visible: { text: "Nothing like this" } }
    timeout: 1s
"#,
        ),
    );
    let Ran { code, stderr, .. } = flow_run(d.path())
        .args([".", "--report", "html=report"])
        .run();
    assert_eq!(code, 1, "{stderr}");
    let page = std::fs::read_to_string(d.path().join("report/index.html")).unwrap();
    assert!(page.contains("c-fails.yaml"), "paths are shown relative");
    assert!(
        !page.contains(&d.path().display().to_string()),
        "no absolute paths"
    );
    assert!(
        page.contains("expect: { visible: { text: &quot;Nothing like this&quot; } }"),
        "the failing step's source line"
    );
    // Look at it in a browser, served as a static site.
    write(
        d.path(),
        "look.yaml",
        &format!(
            r##"name: look at the report
web_server: {{ static: "{}" }}
steps:
  - open: "{{{{ web_server.url }}}}/index.html"
  - id: order
    eval: "[...document.querySelectorAll('details.flow')].map(f => f.dataset.status + (f.open ? ':open' : ':closed')).join(' ')"
  - expect: {{ that: "{{{{ steps.order.value == 'failed:open flaky:closed passed:closed' }}}}" }}
  - id: shot
    eval: "[...document.images].map(i => i.complete && i.naturalWidth > 0).join(',')"
  - expect: {{ that: "{{{{ steps.shot.value == 'true' }}}}" }}
  - id: attempts
    eval: "document.querySelector('details.flaky ol.attempts').textContent"
  - expect: {{ that: "{{{{ 'attempt 1 of 2: command_failed' in steps.attempts.value and 'attempt 2: passed' in steps.attempts.value }}}}" }}
  - click: {{ role: button, text: flaky, exact: true }}
  - id: shown
    eval: "[...document.querySelectorAll('details.flow')].filter(f => !f.hidden).map(f => f.dataset.status).join(' ')"
  - expect: {{ that: "{{{{ steps.shown.value == 'flaky' }}}}" }}
  - click: {{ role: button, text: all, exact: true }}
  - fill: {{ target: "#q", value: "hello from the passing" }}
  - id: found
    eval: "[...document.querySelectorAll('details.flow')].filter(f => !f.hidden).map(f => f.dataset.status).join(' ')"
  - expect: {{ that: "{{{{ steps.found.value == 'passed' }}}}" }}
"##,
            d.path().join("report").display()
        ),
    );
    let Ran { code, stderr, .. } = flow_run(d.path()).arg("look.yaml").run();
    assert_eq!(code, 0, "{stderr}");
}

/// `upload` attaches the files (relative to the flow) and says how many the input took; a file
/// input refuses `fill`, a missing file and a non-file element refuse `upload`.
#[test]
fn upload_attaches_files_and_a_file_input_refuses_text() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "a.txt", "first");
    std::fs::create_dir_all(d.path().join("docs")).unwrap();
    write(d.path(), "docs/b.txt", "second");
    write(
        d.path(),
        "f.yaml",
        &flow(
            "uploads",
            r##"  - open: "{{ vars.base }}/upload.html"
  - id: up
    upload: { target: "#many", files: [a.txt, docs/b.txt] }
  - expect: { text: { target: "#shown", equals: "2 file(s): a.txt, b.txt" } }
  - expect: { that: "{{ steps.up.uploaded == 2 and steps.up.files | length == 2 }}" }
  - upload: { target: "#one", files: a.txt }
  - expect: { text: { target: "#shown", equals: "1 file(s): a.txt" } }
  - fill: { target: "#one", value: "a.txt" }
    continue_on_error: true
  - upload: { target: "#one", files: nowhere.txt }
    continue_on_error: true
  - upload: { target: { role: button, text: Send }, files: a.txt }
    continue_on_error: true
  - upload: { target: "#one", files: [a.txt, docs/b.txt] }
    continue_on_error: true
"##,
        ),
    );
    let Ran {
        code,
        stderr,
        report,
        ..
    } = flow_run(d.path()).arg("f.yaml").run();
    assert_eq!(code, 0, "{stderr}");
    let steps = report["flows"][0]["steps"].as_array().unwrap();
    let error = |i: usize| {
        steps[i]["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    assert!(
        error(6).contains("`fill` needs a text field (a file input takes files"),
        "{}",
        error(6)
    );
    assert!(error(7).contains("no file to upload at"), "{}", error(7));
    assert!(
        error(8).contains("`upload` needs a file input"),
        "{}",
        error(8)
    );
    // Two files on an input without `multiple`: it keeps one, and the step says so.
    assert!(
        error(9).contains("holds 1 of the 2 file(s) uploaded"),
        "{}",
        error(9)
    );
}

/// `dialog` answers the confirm or prompt the previous step opened (the page is blocked until
/// then) and says what it was; with none open it times out saying so.
#[test]
fn dialog_answers_confirm_and_prompt() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        &flow(
            "dialogs",
            r##"  - open: "{{ vars.base }}/dialog.html"
  - click: { role: button, text: Delete }
  - id: asked
    dialog: dismiss
  - expect: { text: { target: "#r", equals: "no" } }
  - expect: { that: "{{ steps.asked.type == 'confirm' and steps.asked.message == 'Delete it?' and not steps.asked.accepted }}" }
  - click: { role: button, text: Delete }
  - dialog: accept
  - expect: { text: { target: "#r", equals: "yes" } }
  - click: { role: button, text: Ask }
  - dialog: { text: Ada Lovelace }
  - expect: { text: { target: "#r", equals: "Ada Lovelace" } }
  - dialog: accept
    timeout: 1s
    continue_on_error: true
"##,
        ),
    );
    let Ran {
        code,
        stderr,
        report,
        ..
    } = flow_run(d.path()).arg("f.yaml").run();
    assert_eq!(code, 0, "{stderr}");
    let last = &report["flows"][0]["steps"][11];
    assert_eq!(last["error"]["kind"], "timeout", "{last}");
    assert!(
        last["error"]["message"]
            .as_str()
            .unwrap()
            .contains("the page opened none"),
        "{last}"
    );
}
