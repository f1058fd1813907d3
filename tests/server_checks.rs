//! Web servers checked and reported where the user wrote them: runner.toml's `[[web_server]]`
//! checked by `validate` as a flow's (every problem at once, each at its line), the options of
//! `--web-server` named as options, and a server's death in the failed step's own block. (A
//! readiness timeout that says what the server answered: `server_readiness`.)

use std::path::Path;

use crate::common::{Ran, flow_run, output, runner, validate, write};
use crate::servers::app;

#[test]
fn a_missing_static_folder_of_runner_toml_is_refused_at_its_line_by_validate_and_run() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "f.yaml", "name: v\nsteps:\n  - log: x\n");
    write(
        d.path(),
        "runner.toml",
        "[[web_server]]\nname = \"site\"\nstatic = \"nope\"\n",
    );
    let (code, out) = validate(d.path());
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("runner.toml:3:10: error: web_server.static: no directory `nope`"),
        "{out}"
    );
    assert!(out.contains("relative to runner.toml's directory"), "{out}");
    // `run` refuses it the same way, before any flow: invalid input, at its place.
    let Ran { code, stderr, .. } = flow_run(d.path()).arg("f.yaml").run();
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("runner.toml:3:10: error: web_server.static: no directory `nope`"),
        "{stderr}"
    );
    // A folder that is there (relative to runner.toml's directory) is fine.
    std::fs::create_dir(d.path().join("nope")).unwrap();
    let (code, out) = validate(d.path());
    assert_eq!(code, 0, "{out}");
}

#[test]
fn every_problem_of_runner_toml_is_reported_in_one_pass() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "f.yaml", "name: v\nsteps:\n  - log: x\n");
    write(
        d.path(),
        "runner.toml",
        r#"timeout = "0s"

[[web_server]]
name = "bad name!"
command = ["a"]
port = 70000
colour = "red"

[[web_server]]
name = "ds"
command = ["b"]
port = "auto"
ready_timeout = "0s"

[[web_server]]
name = "ds"
command = ["c", "{{ web_server.nope }}"]
port = "auto"
"#,
    );
    let (code, out) = validate(d.path());
    assert_eq!(code, 2, "{out}");
    for (at, what) in [
        ("runner.toml:1:11:", "0s"),
        ("runner.toml:4:8:", "`bad name!` is not a valid `name`"),
        ("runner.toml:6:8:", "`port` must be between 1 and 65535"),
        ("runner.toml:7:1:", "unknown key `colour`"),
        ("runner.toml:13:17:", "0s"),
        ("runner.toml:16:8:", "two `[[web_server]]` are named `ds`"),
        ("runner.toml:17:", "unknown `web_server.nope`"),
    ] {
        let line = out
            .lines()
            .find(|l| l.starts_with(at) || l.contains(&format!("/{at}")))
            .unwrap_or_else(|| panic!("no problem at {at}:\n{out}"));
        assert!(line.contains(what), "{at} {what}: {line}\n{out}");
    }
    assert!(out.contains("error: 7 problems in 1 file"), "{out}");
}

/// A flow's server killed while the flow runs fails the next step that needs it: the step's
/// error starts with the server's end and its last lines (the whole log in the artifacts), in
/// the console's block of that step, the report and JUnit, once; the step's own error stays.
#[test]
fn a_server_killed_mid_flow_is_named_in_the_failed_steps_own_block() {
    let d = tempfile::tempdir().unwrap();
    let log = d.path().join("starts");
    write(
        d.path(),
        "f.yaml",
        &format!(
            r#"name: killed
web_server:
  command: [python3, "{app}"]
  port: auto
steps:
  - open: "{{{{ web_server.url }}}}"
  - exec: [sh, -c, "kill -9 $(head -1 '{log}')"]
  - open: "{{{{ web_server.url }}}}"
"#,
            app = app(),
            log = log.display()
        ),
    );
    let junit = d.path().join("junit.xml");
    let Ran {
        code,
        stderr,
        report,
        ..
    } = flow_run(d.path())
        .env("APP_STARTS", &log)
        .args(["f.yaml", "--report"])
        .arg(format!("junit={}", junit.display()))
        .run();
    assert_eq!(code, 1, "{stderr}");
    let died = "web server `server` exited (signal: 9 (SIGKILL)) while the flow ran";
    // The console's block of the failed step, printed when the step ended, starts with it.
    let block: Vec<&str> = stderr
        .lines()
        .skip_while(|l| !l.contains("FAIL open"))
        .take_while(|l| !l.starts_with("FAIL killed"))
        .collect();
    assert!(
        block
            .get(1)
            .is_some_and(|l| l.contains(&format!("command_failed: {died}"))),
        "{stderr}"
    );
    assert!(
        block.iter().any(|l| l.contains("ERR_CONNECTION_REFUSED")),
        "the step's own error stays: {stderr}"
    );
    // The report and JUnit say the same, once.
    let message = report["flows"][0]["steps"][2]["error"]["message"]
        .as_str()
        .unwrap();
    assert!(message.starts_with(died), "{message}");
    assert_eq!(message.matches(died).count(), 1, "{message}");
    let junit = std::fs::read_to_string(junit).unwrap();
    assert!(junit.contains(&format!("failed: {died}")), "{junit}");
    // Its last lines are in the message; the whole log is in the artifacts.
    assert!(
        message.contains("listening on http://127.0.0.1:"),
        "{message}"
    );
    assert!(
        message.contains("log: 001-killed/web_server/server.log"),
        "{message}"
    );
    assert!(
        d.path()
            .join("art/001-killed/web_server/server.log")
            .is_file()
    );
}

/// `runner explore / --atlas atlas` with `args` (the `--web-server` options) in `dir`.
fn explore(dir: &Path, args: &[&str]) -> (i32, String) {
    let mut c = runner(dir);
    c.args(["explore", "/", "--atlas", "atlas"]).args(args);
    let (code, out, err) = output(c);
    (code, format!("{out}{err}"))
}

#[test]
fn the_web_server_options_are_named_as_options_in_their_errors() {
    let d = tempfile::tempdir().unwrap();
    let cmd = format!("python3 {}", app());
    // Neither a URL nor a port: the options to add, no JSON, no runner.toml.
    let (code, out) = explore(d.path(), &["--web-server", &cmd]);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("--web-server needs --web-server-url or --web-server-port"),
        "{out}"
    );
    for absent in ["{\"web_server\"", "runner.toml", "`url`", "`port`"] {
        assert!(!out.contains(absent), "{absent}: {out}");
    }
    // A bad port, in the option's words.
    let (code, out) = explore(d.path(), &["--web-server", &cmd, "--web-server-port", "0"]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("--web-server-port"), "{out}");
    assert!(out.contains("1-65535"), "{out}");
    assert!(!out.contains("{\"web_server\""), "{out}");
    // A template that reads what is not there, at the option that has it.
    let (code, out) = explore(
        d.path(),
        &[
            "--web-server",
            &cmd,
            "--web-server-url",
            "{{ web_server.bogus }}",
        ],
    );
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("--web-server-url: unknown `web_server.bogus`"),
        "{out}"
    );
    assert!(!out.contains("{\"web_server\""), "{out}");
    // A server that exits before it is ready is the option's server, not runner.toml's.
    let (code, out) = explore(
        d.path(),
        &[
            "--web-server",
            "sh -c 'exit 3'",
            "--web-server-port",
            "auto",
        ],
    );
    assert_eq!(code, 3, "{out}");
    assert!(
        out.contains("the web server of --web-server did not start: web server `server` exited (exit status: 3)"),
        "{out}"
    );
    assert!(!out.contains("runner.toml"), "{out}");
}

/// A server's `url` or `ready_url` that readiness cannot poll (not an absolute http(s) URL) is
/// refused where it is written — a flow, runner.toml, `--web-server-url` — instead of waiting
/// `ready_timeout` (30 s) for an answer that cannot come; one made by a template fails the flow
/// as soon as it renders, saying so.
#[test]
fn a_server_url_readiness_cannot_poll_is_refused_where_it_is_written() {
    let d = tempfile::tempdir().unwrap();
    let cmd = format!("python3 {}", app());
    write(
        d.path(),
        "f.yaml",
        "name: v\nweb_server:\n  command: [python3, x.py]\n  url: \"localhost:8000\"\nsteps:\n  - log: x\n",
    );
    let (code, out) = validate(d.path());
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("f.yaml:4:8: error: `web_server.url` must be an http(s) URL"),
        "{out}"
    );
    write(d.path(), "f.yaml", "name: v\nsteps:\n  - log: x\n");
    write(
        d.path(),
        "runner.toml",
        "[[web_server]]\nname = \"api\"\ncommand = [\"x\"]\nurl = \"ftp://127.0.0.1/\"\nready_url = \"health\"\n",
    );
    let (code, out) = validate(d.path());
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("runner.toml:4:7: error: `web_server.url`"),
        "{out}"
    );
    assert!(out.contains("its scheme is `ftp`"), "{out}");
    assert!(
        out.contains("runner.toml:5:13: error: `web_server.ready_url`")
            && out.contains("`/health`"),
        "{out}"
    );
    std::fs::remove_file(d.path().join("runner.toml")).unwrap();
    let (code, out) = explore(
        d.path(),
        &["--web-server", &cmd, "--web-server-url", "not a url"],
    );
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("--web-server-url: `web_server.url` must be"),
        "{out}"
    );
    // An `env` entry that reads `web_server` has no value when the server starts.
    write(
        d.path(),
        "f.yaml",
        "name: v\nenv: { WHERE: \"127.0.0.1:{{ web_server.port }}\" }\nweb_server:\n  command: [python3, x.py]\n  port: auto\n  url: \"http://{{ env.WHERE }}\"\nsteps:\n  - log: \"{{ env.WHERE }}\"\n",
    );
    let (code, out) = validate(d.path());
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("f.yaml:6:8: error: `env.WHERE` has no value here"),
        "{out}"
    );
    // Rendered: the flow fails at once, naming the URL it was given.
    write(
        d.path(),
        "f.yaml",
        "name: v\nenv: { WHERE: \"127.0.0.1:8000\" }\nweb_server:\n  command: [python3, x.py]\n  url: \"{{ env.WHERE }}\"\nsteps:\n  - log: x\n",
    );
    let Ran { code, report, .. } = flow_run(d.path()).arg("f.yaml").run();
    let error = report["flows"][0]["error"]["message"]
        .as_str()
        .unwrap_or_default();
    assert_ne!(code, 0, "{report}");
    assert!(
        error.contains("`web_server.url` must be an http(s) URL"),
        "{report}"
    );
    assert!(!error.contains("did not answer"), "{report}");
}

#[test]
fn a_sub_flows_web_server_is_refused_where_it_is_run_not_silently_left_unstarted() {
    // The sub-flow's server would never answer (nothing listens on its port): a `run_flow`
    // that passed would be a green that is not true.
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "_sub.yaml",
        "name: sub\nweb_server:\n  command: [sleep, \"100\"]\n  url: http://127.0.0.1:9/\nsteps:\n  - exec: [\"true\"]\n",
    );
    write(
        d.path(),
        "f.yaml",
        "name: caller\nsteps:\n  - log: first\n  - run_flow: _sub.yaml\n",
    );
    let expected = "f.yaml:4:15: error: sub-flow `_sub.yaml` declares a `web_server` (_sub.yaml:2:1), which is not started: a sub-flow runs with its caller's servers";
    let (code, out) = validate(d.path());
    assert_eq!(code, 2, "{out}");
    assert!(out.contains(expected), "{out}");
    assert!(
        out.contains("declare it in the calling flow or runner.toml"),
        "{out}"
    );
    // `run` refuses it the same way, before any step.
    let Ran { code, stderr, .. } = flow_run(d.path()).arg("f.yaml").run();
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains(expected), "{stderr}");
    // The same sub-flow without one runs, with its caller's server in `web_server`.
    write(
        d.path(),
        "_sub.yaml",
        "name: sub\nsteps:\n  - id: url\n    exec: [echo, \"{{ web_server.url }}\"]\noutputs:\n  url: \"{{ steps.url.stdout | trim }}\"\n",
    );
    write(
        d.path(),
        "f.yaml",
        &format!(
            "name: caller\nweb_server:\n  command: [python3, \"{}\"]\n  port: auto\nsteps:\n  - id: sub\n    run_flow: _sub.yaml\n  - expect: {{ that: \"{{{{ steps.sub.url == web_server.url }}}}\" }}\n",
            app()
        ),
    );
    let Ran { code, report, .. } = flow_run(d.path()).arg("f.yaml").run();
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["flows"][0]["status"], "passed", "{report}");
}
