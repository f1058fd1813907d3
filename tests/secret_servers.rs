//! A secret in a web server's settings (a `ready_url` with `?token={{ secrets.T }}`, a command
//! argument, `url`, `static`, `cwd`), as it is and as a filter makes it (`| lower`, `| upper`),
//! when the server does not start (attack 29's A2, issue 27): every error a start makes names
//! the rendered field, and each is shown through the flow's (or the run's) masker.

use std::path::Path;

use crate::common::write;
use crate::secret_search::{nowhere_shown, run_everywhere_with};

/// The secret, and the forms of it no output may show.
const VALUE: &str = "Zebra-Kestrel-4471";

fn forms() -> Vec<(&'static str, String)> {
    vec![
        ("the secret", VALUE.to_string()),
        ("its lower case", VALUE.to_lowercase()),
        ("its upper case", VALUE.to_uppercase()),
    ]
}

/// A flow named `name` whose `web_server` is `server` (YAML flow mapping), with one step.
fn flow(dir: &Path, name: &str, server: &str) -> String {
    let file = format!("{name}.yaml");
    write(
        dir,
        &file,
        &format!(
            "name: {name}\nsecrets: [T]\nweb_server: {server}\nsteps:\n  - exec: [\"true\"]\n"
        ),
    );
    file
}

/// Each way a flow's server fails to start, with the secret (or a form of it) in the field the
/// error names: a command that cannot start, a ready_url that answers 404, a static folder and
/// a cwd that are not folders, a url that does not answer. Before the fix, each error showed
/// it raw in the console, the annotation, report.json, JUnit and the HTML report.
#[test]
fn a_flow_server_that_does_not_start_shows_no_secret_of_its_settings() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    let http = r#"command: "python3 -m http.server {{ web_server.port }} --bind 127.0.0.1", port: auto, ready_timeout: 2s"#;
    let files = [
        flow(
            dir,
            "cmd",
            r#"{ command: ["/nonexistent/bin/srv-{{ secrets.T }}", x], port: auto }"#,
        ),
        flow(
            dir,
            "cmd_lower",
            r#"{ command: ["/nonexistent/bin/srv-{{ secrets.T | lower }}"], port: auto }"#,
        ),
        flow(
            dir,
            "ready",
            &format!(r#"{{ {http}, ready_url: "/x?t={{{{ secrets.T | upper }}}}" }}"#),
        ),
        flow(dir, "static", r#"{ static: "site-{{ secrets.T }}" }"#),
        flow(
            dir,
            "cwd",
            r#"{ command: [python3, x.py], port: auto, cwd: "dir-{{ secrets.T | lower }}" }"#,
        ),
        flow(
            dir,
            "url",
            r#"{ command: [sleep, "30"], port: auto, ready_timeout: 1s, url: "http://127.0.0.1:{{ web_server.port }}/{{ secrets.T }}" }"#,
        ),
    ];
    let args: Vec<&str> = files.iter().map(String::as_str).collect();
    let ran = run_everywhere_with(dir, &args, &[("T", VALUE)]);
    assert_eq!(ran.code, 3, "{}\n{}", ran.stdout, ran.stderr);
    let flows = ran.report["flows"].as_array().unwrap();
    assert_eq!(flows.len(), files.len());
    // Each failed at its server, saying so (the search below cannot pass on another failure).
    let said = [
        ("cmd", "cannot start `/nonexistent/bin/srv-***`"),
        ("cmd_lower", "cannot start `/nonexistent/bin/srv-***`"),
        ("ready", "answered 404 at http://127.0.0.1:"),
        ("static", "site-*** is not a directory"),
        ("cwd", "dir-*** is not a directory"),
        ("url", "did not answer at http://127.0.0.1:"),
    ];
    for (name, part) in said {
        let f = flows.iter().find(|f| f["name"] == name).unwrap();
        let message = f["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(part), "{name}: {message}");
    }
    nowhere_shown(
        dir,
        &[("stdout", &ran.stdout), ("stderr", &ran.stderr)],
        &forms(),
    );
}

/// The run's server (runner.toml) whose `ready_url` reads the secret from `env` (the flows
/// declare it) and answers 404: its error is in every flow's and in report.json's
/// `web_servers`; before the fix, raw in each.
#[test]
fn a_run_server_that_does_not_start_shows_no_secret_of_its_settings() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    write(
        dir,
        "runner.toml",
        "[[web_server]]\nname = \"api\"\ncommand = \"python3 -m http.server {{ web_server.port }} --bind 127.0.0.1\"\nport = \"auto\"\nready_timeout = \"2s\"\nready_url = \"/health?token={{ env.T }}&u={{ env.T | upper }}\"\n",
    );
    write(
        dir,
        "f.yaml",
        "name: f\nsecrets: [T]\nsteps:\n  - exec: [\"true\"]\n",
    );
    let ran = run_everywhere_with(dir, &["f.yaml"], &[("T", VALUE)]);
    assert_eq!(ran.code, 3, "{}\n{}", ran.stdout, ran.stderr);
    let error = ran.report["web_servers"][0]["error"].as_str().unwrap();
    assert!(
        error.contains("answered 404 at http://127.0.0.1:"),
        "{error}"
    );
    nowhere_shown(
        dir,
        &[("stdout", &ran.stdout), ("stderr", &ran.stderr)],
        &forms(),
    );
}

/// The run's server whose `url` carries a credential read from `env` (a staging server behind
/// basic auth: `http://admin:{{ env.T }}@host`), on a passing run: report.json's
/// `web_servers[].url` and the HTML report's table of servers showed it raw (attack 29's A10)
/// while the flow's own uses of the same URL were masked.
#[test]
fn a_run_servers_url_with_a_credential_is_shown_masked() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    write(
        dir,
        "runner.toml",
        "[[web_server]]\nname = \"api\"\ncommand = \"python3 -m http.server {{ web_server.port }} --bind 127.0.0.1\"\nport = \"auto\"\nurl = \"http://admin:{{ env.T }}@127.0.0.1:{{ web_server.port }}\"\nready_url = \"http://127.0.0.1:{{ web_server.port }}/\"\n",
    );
    write(
        dir,
        "f.yaml",
        "name: f\nsecrets: [T]\nsteps:\n  - log: \"{{ web_server.api.url }}\"\n",
    );
    let ran = run_everywhere_with(dir, &["f.yaml"], &[("T", VALUE)]);
    assert_eq!(ran.code, 0, "{}\n{}", ran.stdout, ran.stderr);
    let url = ran.report["web_servers"][0]["url"].as_str().unwrap();
    assert!(url.starts_with("http://admin:***@127.0.0.1:"), "{url}");
    nowhere_shown(
        dir,
        &[("stdout", &ran.stdout), ("stderr", &ran.stderr)],
        &forms(),
    );
}
