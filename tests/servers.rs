//! Web servers with a real server program (`tests/fixtures/servers/app.py`: binds after
//! ~300 ms, refuses a taken port with "Address already in use", logs to stderr, appends its
//! pid to `$APP_STARTS` at each start): per-flow servers on free ports, the run's servers
//! from runner.toml, `reuse_existing`, taken ports, servers that die, their logs.

use std::path::Path;

use crate::common::{Ran, all_gone, fixture, flow_run, free_port, validate, write};

/// `app.py`'s absolute path.
pub(crate) fn app() -> String {
    fixture("servers/app.py").display().to_string()
}

/// The pids `$APP_STARTS` recorded, one per start.
pub(crate) fn starts(file: &Path) -> Vec<i32> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .map(|l| l.trim().parse().expect("a pid"))
        .collect()
}

/// A flow that fetches `url` with Python and checks the page says "app on".
pub(crate) fn fetching_flow(name: &str, url: &str) -> String {
    format!(
        r#"name: {name}
steps:
  - id: page
    exec: [python3, -c, "import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1]).read().decode())", "{url}"]
  - expect: {{ that: "{{{{ 'app on' in steps.page.stdout }}}}" }}
"#
    )
}

/// Starts `app.py` on `port` outside runner and waits until it answers; the caller kills it.
fn outside_app(port: u16) -> std::process::Child {
    outside_app_with(port, &[])
}

/// `outside_app` with more environment for `app.py` (`WARMUP_MS`, ...).
pub(crate) fn outside_app_with(port: u16, env: &[(&str, &str)]) -> std::process::Child {
    let mut child = std::process::Command::new("python3")
        .arg(app())
        .arg("--port")
        .arg(port.to_string())
        .env("START_DELAY_MS", "0")
        .envs(env.iter().copied())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("python3 starts");
    for _ in 0..400 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return child;
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("app.py did not answer on {port}");
}

#[test]
fn per_flow_servers_on_auto_ports_pass_under_jobs_and_repeat_each() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        &format!(
            r#"name: own server
web_server:
  command: [python3, "{app}"]
  port: auto
vars:
  base: "{{{{ web_server.url }}}}"
steps:
  - open: "{{{{ vars.base }}}}"
  - expect: {{ visible: {{ role: heading, text: "app on {{{{ web_server.port }}}}", exact: true }} }}
"#,
            app = app()
        ),
    );
    let log = d.path().join("starts");
    let report = flow_run(d.path())
        .env("APP_STARTS", &log)
        .args(["f.yaml", "--jobs", "2", "--repeat-each", "5"])
        .passes();
    let flows = report["flows"].as_array().unwrap();
    assert_eq!(flows.len(), 5);
    assert!(flows.iter().all(|f| f["status"] == "passed"), "{report}");
    // One start per run of the flow, each its own process; none left behind.
    let pids = starts(&log);
    assert_eq!(pids.len(), 5, "{pids:?}");
    assert!(all_gone(&pids), "a per-flow server outlived its flow");
    // Each flow's server log is in its artifacts and the report links it.
    for f in flows {
        let path = f["web_server_log"].as_str().expect("the log is linked");
        assert!(path.ends_with("/web_server/server.log"), "{path}");
        let text = std::fs::read_to_string(path).unwrap();
        assert!(text.contains("listening on http://127.0.0.1:"), "{text}");
        assert!(text.contains("\"GET / HTTP/1.1\" 200"), "{text}");
        assert!(f["setup_ms"].as_u64().unwrap() > 0, "{f}");
    }
}

/// runner.toml with one run-level server `app` (app.py on a free port, `extra` TOML lines).
fn project_with_app(dir: &Path, extra: &str) {
    write(
        dir,
        "runner.toml",
        &format!(
            "[[web_server]]\nname = \"app\"\ncommand = [\"python3\", \"{}\"]\nport = \"auto\"\n{extra}",
            app()
        ),
    );
}

#[test]
fn a_run_level_server_starts_once_and_stops_after_the_last_flow() {
    let d = tempfile::tempdir().unwrap();
    // It ignores SIGTERM: only the SIGKILL after `stop_timeout` ends it.
    project_with_app(
        d.path(),
        "stop_timeout = \"300ms\"\nenv = { IGNORE_SIGTERM = \"1\" }\n",
    );
    for i in 1..=3 {
        write(
            d.path(),
            &format!("f{i}.yaml"),
            &fetching_flow(&format!("flow {i}"), "{{ web_server.app.url }}"),
        );
    }
    let log = d.path().join("starts");
    let html = d.path().join("html");
    let report = flow_run(d.path())
        .env("APP_STARTS", &log)
        .args(["f1.yaml", "f2.yaml", "f3.yaml", "--jobs", "2", "--report"])
        .arg(format!("html={}", html.display()))
        .passes();
    let pids = starts(&log);
    assert_eq!(pids.len(), 1, "one start for the whole run: {pids:?}");
    assert!(all_gone(&pids), "the run's server outlived the run");
    let server = &report["web_servers"][0];
    assert_eq!(server["name"], "app");
    let log = d.path().join("art/web_server/app.log");
    assert_eq!(server["log"], log.display().to_string(), "{report}");
    assert!(
        server["url"]
            .as_str()
            .unwrap()
            .starts_with("http://127.0.0.1:")
    );
    let text = std::fs::read_to_string(&log).unwrap();
    // Three flows, three requests, one server.
    assert_eq!(text.matches("\"GET / HTTP/1.1\" 200").count(), 3, "{text}");
    // The HTML report lists it and links its log (copied beside the page).
    let page = std::fs::read_to_string(html.join("index.html")).unwrap();
    assert!(page.contains("<td>app</td>"), "{page}");
    assert!(
        page.contains("<a href=\"assets/1.log\">web server log</a>"),
        "{page}"
    );
    assert_eq!(
        std::fs::read_to_string(html.join("assets/1.log")).unwrap(),
        text
    );
    assert!(page.contains("<p class=\"setup\">setup "), "{page}");
}

#[test]
fn reuse_existing_is_on_locally_and_off_in_ci() {
    let d = tempfile::tempdir().unwrap();
    let port = free_port();
    write(
        d.path(),
        "runner.toml",
        &format!(
            "[[web_server]]\nname = \"app\"\ncommand = [\"python3\", \"{}\"]\nport = {port}\n",
            app()
        ),
    );
    write(
        d.path(),
        "f.yaml",
        &fetching_flow("reuse", "{{ web_server.app.url }}"),
    );
    let mut outside = outside_app(port);
    let log = d.path().join("starts");
    // Locally (no CI): the server that answers is used; runner starts nothing.
    let report = flow_run(d.path())
        .with(|c| {
            c.env_remove("CI");
        })
        .env("APP_STARTS", &log)
        .arg("f.yaml")
        .passes();
    assert_eq!(report["web_servers"][0]["reused"], true, "{report}");
    assert!(starts(&log).is_empty());
    // In CI: the taken port is an error at once, and no flow step runs.
    let Ran {
        code,
        stdout,
        stderr,
        report,
    } = flow_run(d.path())
        .env("CI", "true")
        .env("APP_STARTS", &log)
        .arg("f.yaml")
        .run();
    let _ = outside.kill();
    let _ = outside.wait();
    assert_eq!(code, 3, "{stdout}{stderr}");
    let message = report["flows"][0]["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(&format!(
            "port {port} is already in use; use port: auto or reuse_existing"
        )),
        "{message}"
    );
    assert!(starts(&log).is_empty(), "nothing was started");
    assert!(report["flows"][0]["steps"].as_array().unwrap().is_empty());
}

#[test]
fn a_taken_fixed_port_of_a_flow_server_fails_at_once() {
    let d = tempfile::tempdir().unwrap();
    let port = free_port();
    write(
        d.path(),
        "f.yaml",
        &format!(
            "name: taken\nweb_server:\n  command: [python3, \"{}\", --port, \"{{{{ web_server.port }}}}\"]\n  port: {port}\nsteps:\n  - log: never\n",
            app()
        ),
    );
    let mut outside = outside_app(port);
    let log = d.path().join("starts");
    let Ran { code, report, .. } = flow_run(d.path())
        .env("APP_STARTS", &log)
        .arg("f.yaml")
        .run();
    let _ = outside.kill();
    let _ = outside.wait();
    assert_eq!(code, 3);
    let message = report["flows"][0]["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(&format!(
            "port {port} is already in use; use port: auto or reuse_existing"
        )),
        "{message}"
    );
    assert!(starts(&log).is_empty(), "nothing was started");
}

#[test]
fn a_run_level_server_that_dies_fails_the_flows_after_it_naming_it() {
    let d = tempfile::tempdir().unwrap();
    project_with_app(d.path(), "");
    let log = d.path().join("starts");
    write(
        d.path(),
        "a.yaml",
        &format!(
            // It waits until runner has seen the server's end (kill -0 holds until it is reaped).
            "name: a kills it\nsteps:\n  - exec: [sh, -c, \"p=$(head -1 '{}'); kill -9 $p; while kill -0 $p 2>/dev/null; do sleep 0.05; done\"]\n",
            log.display()
        ),
    );
    write(
        d.path(),
        "b.yaml",
        &fetching_flow("b uses it", "{{ web_server.app.url }}"),
    );
    let Ran { code, report, .. } = flow_run(d.path())
        .env("APP_STARTS", &log)
        .args(["a.yaml", "b.yaml"])
        .run();
    assert_ne!(code, 0);
    for f in report["flows"].as_array().unwrap() {
        let text = f.to_string();
        assert!(
            text.contains(
                "web server `app` exited (signal: 9 (SIGKILL)) while the run's flows ran"
            ),
            "{f}"
        );
    }
    assert!(
        report["web_servers"][0]["error"]
            .as_str()
            .unwrap()
            .contains("exited"),
        "{report}"
    );
}

#[test]
fn a_server_that_exits_before_it_is_ready_shows_its_output_and_counts_as_an_error() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        &format!(
            "name: broken\nweb_server:\n  command: [python3, \"{}\", --port, not-a-number]\n  port: auto\nsteps:\n  - log: never\n",
            app()
        ),
    );
    let Ran {
        code,
        stderr,
        report,
        ..
    } = flow_run(d.path()).arg("f.yaml").run();
    assert_eq!(code, 3);
    let message = report["flows"][0]["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("web server `server` exited (exit status: 2) before http://127.0.0.1:"),
        "{message}"
    );
    assert!(
        message.contains("invalid int value: 'not-a-number'"),
        "{message}"
    );
    let text =
        std::fs::read_to_string(d.path().join("art/001-broken/web_server/server.log")).unwrap();
    assert!(text.contains("invalid int value"), "{text}");
    // The console counts it as the reports do: an error, not a failure.
    assert_eq!(report["summary"]["errors"], 1);
    assert!(
        stderr.contains("flows: 0 passed, 0 failed, 1 error, 0 flaky"),
        "{stderr}"
    );
}

#[test]
fn server_templates_see_the_flows_env_and_vars_and_later_vars_see_the_server() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("srv")).unwrap();
    write(
        d.path(),
        "f.yaml",
        &format!(
            r#"name: scoped
vars:
  who: world
  base: "{{{{ web_server.url }}}}/env/"
env:
  FROM_FLOW: "hello {{{{ vars.who }}}}"
  LATER: "{{{{ vars.base }}}}"
web_server:
  command: [python3, "{app}"]
  port: auto
  cwd: srv
  env: {{ GREETING: "{{{{ env.FROM_FLOW }}}} on {{{{ web_server.port }}}}" }}
steps:
  - id: get
    exec: [python3, -c, "import sys, urllib.request; print(*(urllib.request.urlopen(sys.argv[1] + k).read().decode() for k in ['FROM_FLOW', 'GREETING', 'PWD']))", "{{{{ vars.base }}}}"]
  # An env entry that reads a var rendered after the server is not the server's (404 there).
  - id: later
    exec: [python3, -c, "import sys, urllib.request, urllib.error\ntry: urllib.request.urlopen(sys.argv[1] + 'LATER')\nexcept urllib.error.HTTPError as e: print(e.code)", "{{{{ vars.base }}}}"]
  - expect: {{ that: "{{{{ steps.get.stdout == 'hello world hello world on ' ~ web_server.port ~ ' ' ~ flow.dir ~ '/srv' and steps.later.stdout == '404' }}}}" }}
"#,
            app = app()
        ),
    );
    flow_run(d.path()).arg("f.yaml").passes();
}

/// A command server's URL reads like a static server's, without a trailing slash, so
/// `{{ web_server.url }}/path` (the form every example writes) asks for `/path`, not `//path`
/// (which real apps such as Datasette answer with 404): the flow's own server and the run's.
#[test]
fn a_command_servers_url_has_no_trailing_slash_so_url_slash_path_is_that_path() {
    let d = tempfile::tempdir().unwrap();
    project_with_app(d.path(), "");
    let get = |url: &str| {
        format!(
            "exec: [python3, -c, \"import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1]).read().decode())\", \"{url}/env/PORT\"]"
        )
    };
    write(
        d.path(),
        "f.yaml",
        &format!(
            r#"name: slash
web_server:
  command: [python3, "{app}"]
  port: auto
steps:
  - id: own
    {own}
  - id: shared
    {shared}
  - expect: {{ that: "{{{{ steps.own.stdout == web_server.port ~ '' and steps.shared.stdout == web_server.app.port ~ '' }}}}" }}
  - expect: {{ that: "{{{{ web_server.url == 'http://127.0.0.1:' ~ web_server.port and web_server.app.url == 'http://127.0.0.1:' ~ web_server.app.port }}}}" }}
"#,
            app = app(),
            own = get("{{ web_server.url }}"),
            shared = get("{{ web_server.app.url }}"),
        ),
    );
    flow_run(d.path()).arg("f.yaml").passes();
}

#[test]
fn a_template_error_in_a_server_at_run_time_is_invalid_input_with_its_place() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        "name: bad\nweb_server:\n  command: [python3, \"{{ env.NO_SUCH_VAR_HERE }}\"]\n  url: http://127.0.0.1:1/\nsteps:\n  - log: never\n",
    );
    let Ran { code, stderr, .. } = flow_run(d.path()).arg("f.yaml").run();
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("`env.NO_SUCH_VAR_HERE` is undefined"),
        "{stderr}"
    );
    // Its place, at the template inside the string.
    assert!(stderr.contains("at f.yaml:3:26"), "{stderr}");
}

#[test]
fn validate_checks_web_server_references_and_fields() {
    let d = tempfile::tempdir().unwrap();
    let flow = |refs: &str, server: &str| format!("name: v\n{server}steps:\n  - log: \"{refs}\"\n");
    let own = "web_server:\n  command: [app]\n  port: auto\n";
    write(d.path(), "f.yaml", &flow("{{ web_server.bogus }}", own));
    let (code, out) = validate(d.path());
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("unknown `web_server.bogus`"), "{out}");
    assert!(out.contains("f.yaml:6:14"), "{out}");
    write(d.path(), "f.yaml", &flow("{{ web_server.prot }}", own));
    let (_, out) = validate(d.path());
    assert!(out.contains("did you mean `web_server.port`?"), "{out}");
    write(
        d.path(),
        "f.yaml",
        &flow("{{ web_server.url }} {{ web_server.port }}", own),
    );
    assert_eq!(validate(d.path()).0, 0);
    // A command server without `port:` has none to read (it rendered `None`).
    let no_port = "web_server:\n  command: [app]\n  url: http://127.0.0.1:8000\n";
    write(d.path(), "f.yaml", &flow("{{ web_server.port }}", no_port));
    let (code, out) = validate(d.path());
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("`web_server.port` is not set"), "{out}");
    // However it is spelled (attack 27, L1: these two passed validate and rendered `None`).
    for spelling in [
        "{{ web_server['port'] }}",
        "{{ web_server | attr('port') }}",
        "{{ (web_server)['port'] }}",
        "x {{ web_server | attr('port') }} y",
    ] {
        write(d.path(), "f.yaml", &flow(spelling, no_port));
        let (code, out) = validate(d.path());
        assert_eq!(code, 2, "{spelling}: {out}");
        assert!(
            out.contains("`web_server.port` is not set"),
            "{spelling}: {out}"
        );
    }
    write(
        d.path(),
        "f.yaml",
        &flow("{{ web_server['url'] }}", no_port),
    );
    assert_eq!(validate(d.path()).0, 0);
    write(d.path(), "f.yaml", &flow("{{ web_server.url }}", no_port));
    assert_eq!(validate(d.path()).0, 0);
    let statik = "web_server:\n  static: .\n";
    write(d.path(), "f.yaml", &flow("{{ web_server.port }}", statik));
    assert_eq!(validate(d.path()).0, 0);
    // The server sees the vars above the first that reads `web_server`, not the ones after.
    write(
        d.path(),
        "f.yaml",
        "name: v\nvars:\n  early: a\n  base: \"{{ web_server.url }}\"\n  late: b\nweb_server:\n  command: [app, \"{{ vars.early }}\", \"{{ vars.late }}\"]\n  port: auto\nsteps:\n  - log: \"{{ vars.base }}\"\n",
    );
    let (code, out) = validate(d.path());
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("unknown var `late` here: the web server starts"),
        "{out}"
    );
    assert!(!out.contains("`early`"), "{out}");
    // The run's servers, from runner.toml.
    project_with_app(d.path(), "");
    write(d.path(), "f.yaml", &flow("{{ web_server.app.url }}", ""));
    assert_eq!(validate(d.path()).0, 0);
    write(d.path(), "f.yaml", &flow("{{ web_server.ap.url }}", ""));
    let (_, out) = validate(d.path());
    assert!(out.contains("did you mean `web_server.app`?"), "{out}");
    write(d.path(), "f.yaml", &flow("{{ web_server.app.host }}", ""));
    let (_, out) = validate(d.path());
    assert!(out.contains("`web_server.app` has no `host`"), "{out}");
    // Every field is checked.
    for (server, expected) in [
        ("web_server:\n  command: [app]\n  port: 0\n", "port"),
        ("web_server:\n  command: [app]\n  port: any\n", "port"),
        (
            "web_server:\n  command: [app]\n",
            "`command` with `url` or `port`",
        ),
        (
            "web_server:\n  command: [app]\n  port: auto\n  stop_timeout: soon\n",
            "stop_timeout",
        ),
        (
            "web_server:\n  command: [app]\n  port: auto\n  reuse_existing: maybe\n",
            "reuse_existing",
        ),
        (
            "web_server:\n  static: .\n  port: auto\n",
            "belong to a `command`",
        ),
        (
            "web_server:\n  static: .\n  ready_url: /health\n",
            "f.yaml:3:3: error: `web_server.static` serves a folder",
        ),
    ] {
        write(d.path(), "f.yaml", &flow("x", server));
        let (code, out) = validate(d.path());
        assert_eq!(code, 2, "{server}: {out}");
        assert!(out.contains(expected), "{server}: {out}");
        assert!(!out.contains("internal error"), "{server}: {out}");
    }
}

#[test]
fn runner_toml_servers_are_checked() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "f.yaml", "name: v\nsteps:\n  - log: x\n");
    write(
        d.path(),
        "runner.toml",
        "[[web_server]]\nname = \"app\"\ncommand = [\"a\"]\nport = \"auto\"\n[[web_server]]\nname = \"app\"\ncommand = [\"b\", \"{{ web_server.nope }}\"]\nport = \"auto\"\n",
    );
    let (code, out) = validate(d.path());
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("two `[[web_server]]` are named `app`"),
        "{out}"
    );
    assert!(out.contains("unknown `web_server.nope`"), "{out}");
    assert!(out.contains("runner.toml:6:"), "{out}");
}
