//! When a server counts as ready or as there already, with the real server program
//! `tests/fixtures/servers/app.py`: `reuse_existing` takes only a server whose URL answers below
//! 404, `ready_url` (a health check apart from the server's URL), `https` URLs (over TLS, on
//! 443 when they name no port), and an interrupt or a failed start of the run's server leaving
//! no process behind.

use std::path::Path;
use std::process::Stdio;

use crate::browser::leftover_browser_processes;
use crate::common::{Ran, all_gone, flow_run, free_port, interrupt, runner, wait_for_file, write};
use crate::servers::{app, fetching_flow, outside_app_with, starts};

/// runner.toml with the server `app` on a fixed `port`, its `url` and `extra` TOML lines.
fn project_on(dir: &Path, port: u16, extra: &str) {
    write(
        dir,
        "runner.toml",
        &format!(
            "[[web_server]]\nname = \"app\"\ncommand = [\"python3\", \"{}\"]\nport = {port}\nurl = \"http://127.0.0.1:{port}/\"\nreuse_existing = true\n{extra}",
            app()
        ),
    );
}

/// Whether the run of runner `pid` left its browser profiles' directory on the RAM disk.
fn left_ram_disk_dir(pid: u32) -> bool {
    Path::new(&format!("/dev/shm/rnr-{}-{pid}", nix::unistd::getuid())).exists()
}

/// The first flow's error message.
fn flow_error(report: &serde_json::Value) -> String {
    report["flows"][0]["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn reuse_existing_takes_a_server_only_when_its_url_answers_below_404() {
    let d = tempfile::tempdir().unwrap();
    let port = free_port();
    write(
        d.path(),
        "f.yaml",
        &fetching_flow("reuse", "{{ web_server.app.url }}"),
    );
    let log = d.path().join("starts");
    // What holds the port answers 503 (warming up, for ten minutes): not a ready server.
    let mut warming = outside_app_with(port, &[("WARMUP_MS", "600000")]);
    project_on(d.path(), port, "");
    let Ran { code, report, .. } = flow_run(d.path())
        .env("APP_STARTS", &log)
        .arg("f.yaml")
        .run();
    let _ = warming.kill();
    let _ = warming.wait();
    assert_eq!(code, 3, "{report}");
    let message = flow_error(&report);
    assert!(
        message.contains(&format!(
            "port {port} is already in use, but http://127.0.0.1:{port}/ answers 503: not reused"
        )),
        "{message}"
    );
    assert!(starts(&log).is_empty(), "nothing was started");
    assert!(report["flows"][0]["steps"].as_array().unwrap().is_empty());

    // Its `ready_url` is what must answer: `/env/X` is 404 while X is unset, 200 once set.
    let port = free_port();
    let mut ready = outside_app_with(port, &[("APP_MODE", "outside")]);
    project_on(d.path(), port, "ready_url = \"/env/NOT_SET_HERE\"\n");
    let Ran { code, report, .. } = flow_run(d.path()).arg("f.yaml").run();
    assert_eq!(code, 3, "{report}");
    let message = flow_error(&report);
    assert!(
        message.contains(&format!(
            "but http://127.0.0.1:{port}/env/NOT_SET_HERE answers 404: not reused"
        )),
        "{message}"
    );
    project_on(d.path(), port, "ready_url = \"/env/APP_MODE\"\n");
    let report = flow_run(d.path())
        .env("APP_STARTS", &log)
        .arg("f.yaml")
        .passes();
    let _ = ready.kill();
    let _ = ready.wait();
    assert_eq!(report["web_servers"][0]["reused"], true, "{report}");
    assert!(starts(&log).is_empty(), "nothing was started");
}

#[test]
fn a_ready_url_is_what_readiness_polls_and_web_server_url_stays_the_servers() {
    // The timeout leaves a loaded machine's Python the time to start and answer (the 404 case
    // waits all of it).
    let d = tempfile::tempdir().unwrap();
    let flow = |ready_url: &str| {
        format!(
            r#"name: health
web_server:
  command: [python3, "{app}"]
  port: auto
  ready_url: "{ready_url}"
  ready_timeout: 8s
  env: {{ APP_MODE: test, START_DELAY_MS: "0" }}
steps:
  - expect: {{ that: "{{{{ web_server.url == 'http://127.0.0.1:' ~ web_server.port }}}}" }}
  - id: page
    exec: [python3, -c, "import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1]).read().decode())", "{{{{ web_server.url }}}}/"]
  - expect: {{ that: "{{{{ 'app on' in steps.page.stdout }}}}" }}
"#,
            app = app()
        )
    };
    write(d.path(), "f.yaml", &flow("/env/APP_MODE"));
    let report = flow_run(d.path()).arg("f.yaml").passes();
    let log = report["flows"][0]["web_server_log"].as_str().unwrap();
    let text = std::fs::read_to_string(log).unwrap();
    // Readiness asked the health URL; the flow the server's own.
    assert!(
        text.contains("\"GET /env/APP_MODE HTTP/1.1\" 200"),
        "{text}"
    );
    assert!(text.contains("\"GET / HTTP/1.1\" 200"), "{text}");

    // A ready_url that never answers below 404 is waited for, and named with what it answered
    // (app.py answers 404 at /env/X when X is not set), the server's last lines after it.
    write(d.path(), "f.yaml", &flow("/env/NOT_SET_HERE"));
    let Ran { code, report, .. } = flow_run(d.path()).arg("f.yaml").run();
    assert_eq!(code, 3, "{report}");
    let message = flow_error(&report);
    assert!(
        message.contains("web server `server` answered 404 at http://127.0.0.1:")
            && message.contains(
                "/env/NOT_SET_HERE until its ready_timeout (8s) ran out (ready means a status below 404"
            ),
        "{message}"
    );
    assert!(!message.contains("did not answer"), "{message}");
    assert!(
        message.contains("\"GET /env/NOT_SET_HERE HTTP/1.1\" 404"),
        "{message}"
    );
}

/// A self-signed certificate and its key for 127.0.0.1, made in `dir`.
fn certificate(dir: &Path) -> (String, String) {
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    let made = std::process::Command::new("openssl")
        .args([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
        ])
        .args(["-subj", "/CN=127.0.0.1", "-keyout"])
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .stderr(Stdio::null())
        .status()
        .expect("openssl makes the test's certificate");
    assert!(made.success());
    (cert.display().to_string(), key.display().to_string())
}

#[test]
fn an_https_url_is_probed_over_tls_on_443_when_it_names_no_port() {
    let d = tempfile::tempdir().unwrap();
    let (cert, key) = certificate(d.path());
    // 443 when this test may bind it (root, nothing there), else a free port named in the URL.
    let (port, url) = match std::net::TcpListener::bind("127.0.0.1:443") {
        Ok(_) => (443, "https://127.0.0.1/".to_string()),
        Err(e) => {
            eprintln!("port 443 cannot be bound here ({e}): an https URL with its port instead");
            let p = free_port();
            (p, format!("https://127.0.0.1:{p}/"))
        }
    };
    write(
        d.path(),
        "f.yaml",
        &format!(
            r#"name: tls
web_server:
  command: [python3, "{app}", --port, "{port}"]
  url: "{url}"
  ready_timeout: 5s
  env: {{ TLS_CERT: "{cert}", TLS_KEY: "{key}" }}
steps:
  - expect: {{ that: "{{{{ web_server.url == '{url}' }}}}" }}
"#,
            app = app()
        ),
    );
    let report = flow_run(d.path()).arg("f.yaml").passes();
    let log = report["flows"][0]["web_server_log"].as_str().unwrap();
    let text = std::fs::read_to_string(log).unwrap();
    assert!(
        text.contains(&format!("listening on https://127.0.0.1:{port}/")),
        "{text}"
    );
    // The probe's GET, answered over TLS.
    assert!(text.contains("\"GET / HTTP/1.1\" 200"), "{text}");
}

/// A run of two browser flows against the run's server `app` (`command` as TOML, `env` for
/// runner), started in the background, its JSON report `report.json`; its output is piped.
fn spawn_run(dir: &Path, command: &str, env: &[(&str, &str)]) -> std::process::Child {
    write(
        dir,
        "runner.toml",
        &format!("[[web_server]]\nname = \"app\"\ncommand = {command}\nport = \"auto\"\n"),
    );
    for i in 1..=2 {
        write(
            dir,
            &format!("f{i}.yaml"),
            &format!(
                "name: flow {i}\nsteps:\n  - open: \"{{{{ web_server.app.url }}}}\"\n  - expect: {{ visible: {{ role: heading, text: \"app on\" }} }}\n"
            ),
        );
    }
    let mut c = runner(dir);
    c.args([
        "run",
        "f1.yaml",
        "f2.yaml",
        "--jobs",
        "2",
        "--artifacts",
        "art",
    ])
    .args(["--report", "json=report.json"])
    .envs(env.iter().copied())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    c.spawn().expect("runner starts")
}

#[test]
fn ctrl_c_while_the_runs_server_starts_leaves_no_server_and_no_browser() {
    let d = tempfile::tempdir().unwrap();
    let log = d.path().join("starts");
    let command = format!("[\"python3\", \"{}\"]", app());
    // The server takes 20 s to bind: the interrupt comes while runner waits for it.
    let starts_file = log.display().to_string();
    let env = [
        ("START_DELAY_MS", "20000"),
        ("APP_STARTS", starts_file.as_str()),
    ];
    let child = spawn_run(d.path(), &command, &env);
    let pid = child.id();
    wait_for_file(&log);
    let started = std::time::Instant::now();
    let out = interrupt(child);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(10),
        "the interrupt waited for the start"
    );
    let pids = starts(&log);
    assert!(all_gone(&pids), "the server outlived runner");
    assert!(!left_ram_disk_dir(pid));
    assert!(
        leftover_browser_processes(pid).is_empty(),
        "{:?}\n{}",
        leftover_browser_processes(pid),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_runs_server_that_fails_to_start_errors_every_flow_and_leaves_no_browser() {
    let d = tempfile::tempdir().unwrap();
    let command = "[\"python3\", \"-c\", \"import sys; print('no database'); sys.exit(4)\"]";
    let child = spawn_run(d.path(), command, &[]);
    let pid = child.id();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("report.json")).unwrap())
            .unwrap();
    let flows = report["flows"].as_array().unwrap();
    assert_eq!(flows.len(), 2, "{report}");
    for f in flows {
        assert_eq!(f["status"], "error", "{f}");
        let message = f["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("the run's web server `app` (runner.toml) did not start")
                && message.contains("exited (exit status: 4)")
                && message.contains("no database"),
            "{message}"
        );
        assert!(f["steps"].as_array().unwrap().is_empty(), "{f}");
    }
    assert!(!left_ram_disk_dir(pid));
    assert!(
        leftover_browser_processes(pid).is_empty(),
        "{:?}",
        leftover_browser_processes(pid)
    );
}

/// A flow's server that starts but never gets ready (attack 29's A5, issue 25): report.json
/// links its log (`web_server_log`) and the HTML report shows the link, as for a server that
/// served; and the error's last lines are its last whole lines, none cut where the output was
/// still being read (a secret's length of each stream was held back until the rest came), and
/// in the order printed (the stdout line first, before every stderr line). Before: no
/// `web_server_log`, and the stdout line last.
#[test]
fn a_server_that_never_gets_ready_links_its_log_and_shows_its_last_whole_lines() {
    let d = tempfile::tempdir().unwrap();
    let script = "echo serving on stdout; sleep 0.5; i=1; while [ $i -le 30 ]; do echo \"err line $i of 30, still starting\" >&2; i=$((i+1)); done; exec sleep 30";
    write(
        d.path(),
        "f.yaml",
        &format!(
            "name: f\nsecrets: [T]\nweb_server: {{ command: [sh, -c, {script:?}], port: auto, ready_timeout: 2s }}\nsteps:\n  - exec: [\"true\"]\n"
        ),
    );
    let ran = flow_run(d.path())
        .env("T", "a-rather-long-secret-value-of-forty-chars")
        .args(["f.yaml", "--report", "html=html"])
        .run();
    assert_eq!(ran.code, 3, "{}", ran.stderr);
    let flow = &ran.report["flows"][0];
    let log = flow["web_server_log"].as_str().unwrap_or_default();
    assert!(log.ends_with("001-f/web_server/server.log"), "{flow}");
    assert!(Path::new(log).is_file(), "{log}");
    let html = std::fs::read_to_string(d.path().join("html/index.html")).unwrap();
    assert!(html.contains(">web server log</a>"), "no link to the log");
    let message = flow_error(&ran.report);
    let shown: Vec<&str> = message.lines().skip(1).collect();
    let last: Vec<String> = (11..=30)
        .map(|i| format!("  | err line {i} of 30, still starting"))
        .collect();
    assert_eq!(shown, last, "{message}");
}
