//! The web servers of `explore` and `atlas verify` (runner.toml's `[[web_server]]` or
//! `--web-server`), with the real server program `tests/fixtures/servers/app.py`.

use std::path::Path;

use crate::common::{all_gone, fixture, interrupt, output, runner, wait_for_file, write};

fn app() -> String {
    fixture("servers/app.py").display().to_string()
}

/// The pids `app.py` appended to `file`, one per start.
fn starts(file: &Path) -> Vec<i32> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .map(|l| l.trim().parse().expect("a pid"))
        .collect()
}

#[test]
fn explore_and_atlas_verify_start_the_projects_or_the_flags_server_and_stop_it() {
    let d = tempfile::tempdir().unwrap();
    let toml_starts = d.path().join("toml-starts");
    let flag_starts = d.path().join("flag-starts");
    write(
        d.path(),
        "runner.toml",
        &format!(
            "[[web_server]]\nname = \"app\"\ncommand = [\"python3\", \"{}\", \"--port\", \"{{{{ web_server.port }}}}\"]\nport = \"auto\"\nenv = {{ APP_STARTS = \"{}\" }}\n",
            app(),
            toml_starts.display()
        ),
    );
    // `/` is taken on the server's URL: the port is a free one, unknown before.
    let mut c = runner(d.path());
    c.args(["explore", "/", "--atlas", "atlas", "--max-nodes", "3"])
        .env("APP_STARTS", &flag_starts);
    let (code, out, err) = output(c);
    assert_eq!(code, 0, "{out}{err}");
    let summary: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(summary["total_nodes"] == 1, "{summary}");
    let pids = starts(&toml_starts);
    assert_eq!(pids.len(), 1, "runner.toml's server started once: {pids:?}");
    assert!(all_gone(&pids), "the server outlived explore");
    // Its log is kept.
    let logs: Vec<_> = std::fs::read_dir(d.path().join(".runner/logs"))
        .unwrap()
        .map(|e| e.unwrap().path().join("web_server/app.log"))
        .collect();
    let log = std::fs::read_to_string(&logs[0]).unwrap();
    assert!(log.contains("\"GET / HTTP/1.1\" 200"), "{log}");

    // `--web-server` replaces runner.toml's servers; the recorded origin (the first server's
    // port, gone now) is replaced by the new server's.
    let mut c = runner(d.path());
    c.args(["atlas", "verify", "--atlas", "atlas"])
        .args(["--web-server", &format!("python3 {}", app())])
        .args(["--web-server-port", "auto"])
        .env("APP_STARTS", &flag_starts);
    let (code, out, err) = output(c);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("0 no longer arrive"), "{out}");
    assert_eq!(
        starts(&toml_starts).len(),
        1,
        "runner.toml's server did not start"
    );
    let pids = starts(&flag_starts);
    assert_eq!(pids.len(), 1, "the flag's server started once: {pids:?}");
    assert!(all_gone(&pids), "the server outlived verify");

    // Without a server the recorded origin is gone: the same verify fails.
    let mut c = runner(d.path());
    c.args(["atlas", "verify", "--atlas", "atlas"])
        .args([
            "--web-server",
            "python3 -c 'import sys; print(\"boom\"); sys.exit(3)'",
        ])
        .args(["--web-server-port", "auto"]);
    let (code, out, err) = output(c);
    assert_ne!(code, 0, "{out}{err}");
    assert!(
        err.contains("did not start") && err.contains("boom"),
        "{err}"
    );
}

#[test]
fn the_url_to_explore_and_the_base_url_name_a_server_of_runner_toml() {
    let d = tempfile::tempdir().unwrap();
    let api_starts = d.path().join("starts");
    crate::atlas::site_copy(d.path());
    // Two servers: an API first (it is not the app) and the app, a static site.
    write(
        d.path(),
        "runner.toml",
        &format!(
            "[[web_server]]\nname = \"api\"\ncommand = [\"python3\", \"{}\", \"--port\", \"{{{{ web_server.port }}}}\"]\nport = \"auto\"\nenv = {{ APP_STARTS = \"{}\" }}\n\n[[web_server]]\nname = \"site\"\nstatic = \"site\"\n",
            app(),
            api_starts.display()
        ),
    );
    let mut c = runner(d.path());
    c.args(["explore", "{{ web_server.site.url }}/index.html"])
        .args(["--atlas", "atlas", "--max-nodes", "3"]);
    let (code, out, err) = output(c);
    assert_eq!(code, 0, "{out}{err}");
    let summary: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(summary["total_nodes"], 3, "{summary}");
    assert!(
        std::fs::read_dir(d.path().join("atlas/nodes"))
            .unwrap()
            .count()
            == 3
    );
    // The recorded root is the site's page, on the port it had then.
    let home = crate::atlas::node_by_title(d.path(), "Atlas home");
    let meta =
        std::fs::read_to_string(d.path().join(format!("atlas/nodes/{home}/meta.json"))).unwrap();
    assert!(meta.contains("/index.html"), "{meta}");

    // Both servers start again on new ports; the replays go to the site's.
    let mut c = runner(d.path());
    c.args(["atlas", "verify", "--atlas", "atlas"])
        .args(["--base-url", "{{ web_server.site.url }}"]);
    let (code, out, err) = output(c);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("3 verified, 0 no longer arrive"), "{out}");
    let pids = starts(&api_starts);
    assert_eq!(pids.len(), 2, "the API started for each command: {pids:?}");
    assert!(all_gone(&pids), "the API outlived its command");
    // Each command kept the API's log.
    let logs = std::fs::read_dir(d.path().join(".runner/logs"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .join("web_server/api.log")
                .is_file()
        })
        .count();
    assert_eq!(logs, 2);

    // A name that is not a server is told before anything starts, with the names there are.
    let mut c = runner(d.path());
    c.args(["explore", "{{ web_server.app.url }}/", "--atlas", "atlas"]);
    let (code, out, err) = output(c);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("web_server.app") && err.contains("site"),
        "{err}"
    );
    assert_eq!(starts(&api_starts).len(), 2, "nothing started");
}

#[test]
fn atlas_test_runs_its_saved_tests_on_the_server_it_started() {
    let d = tempfile::tempdir().unwrap();
    // The shop on a free port: each command's server is on another one.
    let server = format!(
        "python3 -m http.server {{{{ web_server.port }}}} --bind 127.0.0.1 --directory {}",
        crate::common::fixture("shop").display()
    );
    let cmd = |args: &[&str]| {
        let mut c = runner(d.path());
        crate::agents::agent_env(&mut c, d.path());
        c.args(args)
            .args(["--atlas", "atlas", "--web-server", &server])
            .args(["--web-server-port", "auto"])
            .args(crate::agents::with_profiles(&[]));
        output(c)
    };
    let (code, out, err) = cmd(&[
        "explore",
        "/index.html",
        "--agent",
        "fake-claude",
        "--max-depth",
        "2",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    // The agent writes the tests, saved and run on this command's server (the shop lacks the
    // discount one idea expects, and one idea's steps are misspelt: two fail) ...
    let (code, out, err) = cmd(&["atlas", "test", "--agent", "fake-codex"]);
    assert_eq!(code, 1, "{out}{err}");
    let written: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(written["passed"].as_u64().unwrap() >= 2, "{written}");
    assert_eq!(written["failed"], 2, "{written}");
    assert_eq!(written["nodes_failed"], 0, "{written}");
    // ... and without an agent the saved ones run again, on the next command's server: the
    // same verdicts.
    let (code, out, err) = cmd(&["atlas", "test"]);
    assert_eq!(code, 1, "{out}{err}");
    let again: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(again["passed"], written["passed"], "{again}\n{err}");
    assert_eq!(again["failed"], written["failed"], "{again}\n{err}");
    assert_eq!(again["nodes_failed"], 0, "{again}");
}

#[test]
fn a_path_to_explore_without_a_server_is_a_usage_error() {
    let d = tempfile::tempdir().unwrap();
    let mut c = runner(d.path());
    c.args(["explore", "/", "--atlas", "atlas"]);
    let (code, out, err) = output(c);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("needs a web server"), "{err}");
}

#[test]
fn a_server_answering_503_while_it_warms_up_is_ready_once_it_answers_below_404() {
    let d = tempfile::tempdir().unwrap();
    // The port is open at once and answers 503 for 3 s: ready only after that (as Playwright).
    write(
        d.path(),
        "f.yaml",
        &format!(
            r#"name: warm
web_server:
  command: [python3, "{}"]
  port: auto
  url: "http://127.0.0.1:{{{{ web_server.port }}}}/"
  env: {{ START_DELAY_MS: "0", WARMUP_MS: "3000" }}
steps:
  - id: page
    exec: [python3, -c, "import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1]).status)", "{{{{ web_server.url }}}}"]
  - expect: {{ that: "{{{{ steps.page.stdout | trim == '200' }}}}" }}
"#,
            app()
        ),
    );
    let mut c = runner(d.path());
    c.args(["run", "f.yaml", "--artifacts", "art"]);
    let (code, out, err) = output(c);
    assert_eq!(code, 0, "{out}{err}");
    let log = walk(&d.path().join("art"), "server.log").expect("the server's log");
    let log = std::fs::read_to_string(log).unwrap();
    // It was probed while warming up (503) and became ready after (200).
    assert!(log.contains("\" 503 "), "{log}");
    assert!(log.contains("\" 200 "), "{log}");
}

#[test]
fn ctrl_c_while_the_server_of_explore_or_atlas_verify_starts_ends_the_command_and_the_server() {
    let d = tempfile::tempdir().unwrap();
    // An atlas of one root (an empty one is nothing to verify: no servers start for it).
    std::fs::create_dir_all(d.path().join("atlas/nodes/0123456789abcdef")).unwrap();
    write(
        &d.path().join("atlas/nodes/0123456789abcdef"),
        "meta.json",
        r#"{"id": "0123456789abcdef", "url": "http://127.0.0.1:9/", "title": "app", "fingerprint": "", "first_seen": "2026-01-01T00:00:00Z", "last_seen": "2026-01-01T00:00:00Z", "run_ids": [], "entry": [{"open": "http://127.0.0.1:9/"}]}"#,
    );
    for (i, command) in [
        vec!["explore", "/", "--atlas", "atlas"],
        vec!["atlas", "verify", "--atlas", "atlas"],
    ]
    .into_iter()
    .enumerate()
    {
        let log = d.path().join(format!("starts-{i}"));
        // The server takes 20 s to bind: the interrupt comes while the command waits for it.
        let mut c = runner(d.path());
        c.args(&command)
            .args(["--web-server", &format!("python3 {}", app())])
            .args(["--web-server-port", "auto"])
            .env("START_DELAY_MS", "20000")
            .env("APP_STARTS", &log)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let child = c.spawn().unwrap();
        wait_for_file(&log);
        let started = std::time::Instant::now();
        let out = interrupt(child);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            started.elapsed() < std::time::Duration::from_secs(10),
            "`{}` waited for the start: {err}",
            command.join(" ")
        );
        assert!(err.contains("interrupted"), "{err}");
        let pids = starts(&log);
        assert_eq!(pids.len(), 1);
        assert!(
            all_gone(&pids),
            "the server outlived `{}`",
            command.join(" ")
        );
    }
}

/// The first file named `name` under `dir`.
fn walk(dir: &Path, name: &str) -> Option<std::path::PathBuf> {
    for e in std::fs::read_dir(dir).ok()?.flatten() {
        let p = e.path();
        if p.is_dir() {
            if let Some(hit) = walk(&p, name) {
                return Some(hit);
            }
        } else if p.file_name().is_some_and(|n| n == name) {
            return Some(p);
        }
    }
    None
}

/// runner.toml with an API first (it is not the app) and the atlas site second, named `site`
/// (or `name`).
fn api_and_site(d: &Path, name: &str) {
    write(
        d,
        "runner.toml",
        &format!(
            "[[web_server]]\nname = \"api\"\ncommand = [\"python3\", \"{}\", \"--port\", \"{{{{ web_server.port }}}}\"]\nport = \"auto\"\n\n[[web_server]]\nname = \"{name}\"\nstatic = \"site\"\n",
            app(),
        ),
    );
}

#[test]
fn an_atlas_replays_on_the_server_it_was_explored_on() {
    let d = tempfile::tempdir().unwrap();
    crate::atlas::site_copy(d.path());
    api_and_site(d.path(), "site");
    let cmd = |args: &[&str]| {
        let mut c = runner(d.path());
        c.args(args).args(["--atlas", "atlas"]);
        output(c)
    };
    let (code, out, err) = cmd(&[
        "explore",
        "{{ web_server.site.url }}/index.html",
        "--max-nodes",
        "3",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    // The atlas remembers the server it was explored on.
    let settings: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("atlas/atlas.json")).unwrap())
            .unwrap();
    assert_eq!(settings["server"], "site", "{settings}");

    // Both servers start again on new ports; without --base-url the replays go to the site's,
    // not to the first server's.
    let (code, out, err) = cmd(&["atlas", "verify"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("3 verified, 0 no longer arrive"), "{out}");
    assert!(!err.contains("warning"), "{err}");
    let home = crate::atlas::node_by_title(d.path(), "Atlas home");
    let (code, out, err) = cmd(&["atlas", "replay", &home]);
    assert_eq!(code, 0, "{out}{err}");
    // The exported flow opens the site's URL of the run that runs it.
    let (code, exported, err) = cmd(&["atlas", "export", &home]);
    assert_eq!(code, 0, "{exported}{err}");
    assert!(
        exported.contains("\"open\": \"{{ web_server.site.url }}/index.html\""),
        "{exported}"
    );
    write(d.path(), "exported.yaml", &exported);
    let mut c = runner(d.path());
    c.args(["run", "exported.yaml"]);
    let (code, out, err) = output(c);
    assert_eq!(code, 0, "{out}{err}");

    // A server of that name is gone from runner.toml: said, and the first server is used (the
    // documented default), where the site's pages are not.
    api_and_site(d.path(), "web");
    let (code, out, err) = cmd(&["atlas", "verify"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        err.contains(
            "the atlas was recorded on the web server `site`, which is not among the servers now (api, web): replaying on the first, `api`"
        ),
        "{err}"
    );
}

/// An atlas recorded by a flow's `link_state` steps remembers the server its first state is
/// on, as an explore's remembers the server of its URL: verify, replay and export go to that
/// server (of their own run, on a new port), not to the first server, the API.
#[test]
fn a_link_state_atlas_replays_on_the_server_its_flow_ran_on() {
    let d = tempfile::tempdir().unwrap();
    crate::atlas::site_copy(d.path());
    api_and_site(d.path(), "site");
    write(
        d.path(),
        "tour.yaml",
        "name: tour\natlas: atlas\nsteps:\n  - open: \"{{ web_server.site.url }}/index.html\"\n  - id: home\n    link_state: home\n  - click: { role: link, text: About us }\n  - link_state: about\n  - expect: { that: \"{{ steps.home.server == 'site' }}\" }\n",
    );
    let mut c = runner(d.path());
    c.args(["run", "tour.yaml"]);
    let (code, out, err) = output(c);
    assert_eq!(code, 0, "{out}{err}");
    let settings: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("atlas/atlas.json")).unwrap())
            .unwrap();
    assert_eq!(settings["server"], "site", "{settings}");
    let cmd = |args: &[&str]| {
        let mut c = runner(d.path());
        c.args(args).args(["--atlas", "atlas"]);
        output(c)
    };
    let (code, out, err) = cmd(&["atlas", "verify"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("2 verified, 0 no longer arrive"), "{out}");
    assert!(!err.contains("warning"), "{err}");
    let home = crate::atlas::node_by_title(d.path(), "Atlas home");
    let (code, exported, err) = cmd(&["atlas", "export", &home]);
    assert_eq!(code, 0, "{exported}{err}");
    assert!(
        exported.contains("\"open\": \"{{ web_server.site.url }}/index.html\""),
        "{exported}"
    );
}

#[test]
fn atlas_verify_reports_list_the_server_it_started_with_its_log() {
    let d = tempfile::tempdir().unwrap();
    let cmd = |args: &[&str]| {
        let mut c = runner(d.path());
        c.args(args)
            .args(["--atlas", "atlas"])
            .args(["--web-server", &format!("python3 {}", app())])
            .args(["--web-server-port", "auto"]);
        output(c)
    };
    let (code, out, err) = cmd(&["explore", "/", "--max-nodes", "1"]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = cmd(&[
        "atlas",
        "verify",
        "--report",
        "json=verify.json",
        "--report",
        "html=html",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    // As a run's report does: the server, and where its log is.
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("verify.json")).unwrap())
            .unwrap();
    let servers = report["web_servers"].as_array().expect("web_servers");
    assert_eq!(servers.len(), 1, "{report}");
    assert_eq!(servers[0]["name"], "server", "{report}");
    assert!(
        servers[0]["url"]
            .as_str()
            .unwrap()
            .starts_with("http://127.0.0.1:")
    );
    let log = d.path().join(servers[0]["log"].as_str().expect("a log"));
    let text = std::fs::read_to_string(&log).expect("the log is where the report says");
    assert!(text.contains("\"GET / HTTP/1.1\" 200"), "{text}");
    // The HTML report links a copy of it.
    let html = std::fs::read_to_string(d.path().join("html/index.html")).unwrap();
    assert!(
        html.contains("<table class=\"servers\"><tr><th>web server</th>")
            && html.contains("<td>server</td>")
            && html.contains("<a href=\"assets/1.log\">web server log</a>"),
        "{html}"
    );
    let copy = std::fs::read_to_string(d.path().join("html/assets/1.log")).unwrap();
    assert_eq!(copy, text);
}
