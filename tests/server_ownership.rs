//! Ready means ours: an answer on a server's port counts only when the command runner started
//! (or a process of its tree) listens there. Another program that takes the port while the
//! command starts (a parallel run's server, say) answers the probe, but the flows do not run
//! against it: when the command then exits, they fail naming its exit status and output; when
//! it stays up without serving, the readiness timeout names the other program.
//!
//! The other program is `tests/fixtures/servers/app.py` started by the test, outside runner,
//! before runner starts: it binds the port only once the command creates a trigger file, so it
//! answers while the command is alive, at a moment the test chooses.

use std::path::{Path, PathBuf};

use crate::common::{Ran, flow_run, free_port, write};
use crate::servers::{app, starts};

/// `app.py` on `port`, started outside runner, which binds only once `trigger` exists; its
/// request log in `log`. Killed when dropped.
struct OtherProgram {
    child: std::process::Child,
    trigger: PathBuf,
    log: PathBuf,
}

impl OtherProgram {
    fn start(dir: &Path, port: u16) -> OtherProgram {
        let (trigger, log) = (dir.join("trigger"), dir.join("other.log"));
        let child = std::process::Command::new("python3")
            .arg(app())
            .arg("--port")
            .arg(port.to_string())
            .env("START_DELAY_MS", "0")
            .env("WAIT_FOR", &trigger)
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .expect("python3 starts");
        OtherProgram {
            child,
            trigger,
            log,
        }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    /// How many GETs it answered (runner's readiness probes: nothing else knows its port).
    fn gets(&self) -> usize {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .matches("\"GET ")
            .count()
    }
}

impl Drop for OtherProgram {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The server command of these tests, `python3 cmd.py TRIGGER LOG MODE`: it creates the trigger
/// (the other program binds the port now), then, `exit`: waits until the other program has
/// answered two readiness probes (runner had an answer and asked again: it did not take the
/// first as ready), prints "no database" and exits 4; `stay`: sleeps, serving nothing.
const COMMAND: &str = r#"import sys, time
trigger, log, mode = sys.argv[1:4]
open(trigger, "w").close()
if mode == "stay":
    time.sleep(600)
deadline = time.monotonic() + 20
def gets():
    try:
        return open(log).read().count('"GET ')
    except FileNotFoundError:
        return 0
while gets() < 2:
    if time.monotonic() > deadline:
        print("runner did not ask again: it took the other program's answer", flush=True)
        time.sleep(600)
    time.sleep(0.01)
print("no database", flush=True)
sys.exit(4)
"#;

/// The command's argv as a YAML/TOML list (both read it), for `other` and `mode`.
fn command(dir: &Path, other: &OtherProgram, mode: &str) -> String {
    let script = write(dir, "cmd.py", COMMAND);
    format!(
        "[\"python3\", \"{}\", \"{}\", \"{}\", \"{mode}\"]",
        script.display(),
        other.trigger.display(),
        other.log.display()
    )
}

/// A flow with the given `web_server` lines (none when empty) and one step.
fn flow(web_server: &str) -> String {
    format!("name: behind another\n{web_server}steps:\n  - exec: [python3, -c, \"print('ran')\"]\n")
}

/// The first flow's error message, after checking it is an error with no step run.
fn errored_without_steps(code: i32, report: &serde_json::Value) -> String {
    assert_eq!(code, 3, "{report}");
    let f = &report["flows"][0];
    assert_eq!(f["status"], "error", "{f}");
    assert!(f["steps"].as_array().unwrap().is_empty(), "{f}");
    f["error"]["message"].as_str().unwrap().to_string()
}

#[test]
fn a_flows_server_that_exits_while_another_program_answers_on_its_port_is_not_ready() {
    let d = tempfile::tempdir().unwrap();
    let port = free_port();
    let other = OtherProgram::start(d.path(), port);
    let web_server = format!(
        "web_server:\n  command: {}\n  port: {port}\n  url: \"http://127.0.0.1:{port}/\"\n  ready_timeout: 30s\n",
        command(d.path(), &other, "exit")
    );
    write(d.path(), "f.yaml", &flow(&web_server));
    let Ran { code, report, .. } = flow_run(d.path()).arg("f.yaml").run();
    let message = errored_without_steps(code, &report);
    assert!(
        message.contains(&format!(
            "web server `server` exited (exit status: 4) before http://127.0.0.1:{port}/ answered"
        )) && message.contains("no database"),
        "{message}"
    );
    // The other program is named: it is what answered.
    assert!(
        message.contains(&format!(
            "(what answered on port {port} is another program (pid {}: ",
            other.pid()
        )) && message.contains(&format!("app.py --port {port}))")),
        "{message}"
    );
    // runner did ask the other program, and asked again after its answer.
    assert!(other.gets() >= 2, "{}", other.gets());
}

#[test]
fn a_runs_server_that_exits_while_another_program_answers_on_its_port_errors_every_flow() {
    let d = tempfile::tempdir().unwrap();
    let port = free_port();
    let other = OtherProgram::start(d.path(), port);
    write(
        d.path(),
        "runner.toml",
        &format!(
            "[[web_server]]\nname = \"app\"\ncommand = {}\nport = {port}\nurl = \"http://127.0.0.1:{port}/\"\nreuse_existing = false\n",
            command(d.path(), &other, "exit")
        ),
    );
    write(d.path(), "f.yaml", &flow(""));
    let Ran { code, report, .. } = flow_run(d.path()).arg("f.yaml").run();
    let message = errored_without_steps(code, &report);
    assert!(
        message.contains("the run's web server `app` (runner.toml) did not start")
            && message.contains("exited (exit status: 4)")
            && message.contains("no database"),
        "{message}"
    );
    assert!(other.gets() >= 2, "{}", other.gets());
}

#[test]
fn a_server_whose_port_another_program_serves_times_out_naming_that_program() {
    let d = tempfile::tempdir().unwrap();
    let port = free_port();
    let other = OtherProgram::start(d.path(), port);
    let web_server = format!(
        "web_server:\n  command: {}\n  port: {port}\n  url: \"http://127.0.0.1:{port}/\"\n  ready_timeout: 2s\n",
        command(d.path(), &other, "stay")
    );
    write(d.path(), "f.yaml", &flow(&web_server));
    let Ran { code, report, .. } = flow_run(d.path()).arg("f.yaml").run();
    let message = errored_without_steps(code, &report);
    assert!(
        message.contains(&format!(
            "did not answer at http://127.0.0.1:{port}/ within 2s: what answers on port {port} is another program (pid {}: ",
            other.pid(),
        )) && message.contains(&format!(
            "{} --port {port}), not the command runner started (pid ",
            app()
        )) && message.contains("use port: auto"),
        "{message}"
    );
    assert!(other.gets() >= 1, "runner never asked the other program");
}

#[test]
fn a_server_a_wrapper_starts_as_its_grandchild_is_ready() {
    let d = tempfile::tempdir().unwrap();
    let log = d.path().join("starts");
    // `port: auto` is below the kernel's ephemeral range, where nothing else picks ports.
    let ephemeral: u16 = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|r| r.split_whitespace().next()?.parse().ok())
        .unwrap_or(32768);
    // `sh` forks app.py and waits: what listens is the supervisor's grandchild, not its child.
    write(
        d.path(),
        "f.yaml",
        &format!(
            r#"name: wrapped
web_server:
  command: [sh, -c, "python3 '{app}' & wait"]
  port: auto
steps:
  - open: "{{{{ web_server.url }}}}"
  - expect: {{ visible: {{ role: heading, text: "app on {{{{ web_server.port }}}}", exact: true }} }}
  - expect: {{ that: "{{{{ web_server.port >= 10000 and web_server.port < {ephemeral} }}}}" }}
"#,
            app = app()
        ),
    );
    let report = flow_run(d.path())
        .env("APP_STARTS", &log)
        .arg("f.yaml")
        .passes();
    assert_eq!(report["flows"][0]["status"], "passed", "{report}");
    assert_eq!(starts(&log).len(), 1);
}

/// `python3 taker.py WANT TOOK`: another program that binds the port written in WANT (once it
/// is there), then creates TOOK and serves.
const TAKER: &str = r#"import http.server, os, sys, time
want, took = sys.argv[1:3]
while not os.path.exists(want):
    time.sleep(0.01)
port = int(open(want).read())
server = http.server.ThreadingHTTPServer(("127.0.0.1", port), http.server.SimpleHTTPRequestHandler)
open(took, "w").close()
server.serve_forever()
"#;

/// `python3 picked.py WANT TOOK APP`: the server command. Its first start hands its `$PORT` to
/// the taker and waits until the taker holds it, then runs app.py there (which exits 1,
/// "Address already in use", as real servers do); any later start runs app.py at once.
const PICKED: &str = r#"import os, sys, time
want, took, app = sys.argv[1:4]
if not os.path.exists(want):
    with open(want + ".tmp", "w") as f:
        f.write(os.environ["PORT"])
    os.rename(want + ".tmp", want)
    while not os.path.exists(took):
        time.sleep(0.01)
os.execvp(sys.executable, [sys.executable, app])
"#;

#[test]
fn a_port_picked_for_auto_that_another_program_takes_before_the_bind_is_picked_again() {
    let d = tempfile::tempdir().unwrap();
    let (want, took, log) = (
        d.path().join("want"),
        d.path().join("took"),
        d.path().join("starts"),
    );
    let taker = write(d.path(), "taker.py", TAKER);
    let mut other = std::process::Command::new("python3")
        .arg(&taker)
        .arg(&want)
        .arg(&took)
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("python3 starts");
    let picked = write(d.path(), "picked.py", PICKED);
    write(
        d.path(),
        "f.yaml",
        &format!(
            r#"name: picked again
web_server:
  command: [python3, "{picked}", "{want}", "{took}", "{app}"]
  port: auto
  env: {{ START_DELAY_MS: "0" }}
steps:
  - open: "{{{{ web_server.url }}}}"
  - expect: {{ visible: {{ role: heading, text: "app on {{{{ web_server.port }}}}", exact: true }} }}
  - id: port
    exec: [echo, "{{{{ web_server.port }}}}"]
"#,
            picked = picked.display(),
            want = want.display(),
            took = took.display(),
            app = app()
        ),
    );
    let run = flow_run(d.path())
        .env("APP_STARTS", &log)
        .arg("f.yaml")
        .run();
    let _ = other.kill();
    let _ = other.wait();
    let Ran { code, report, .. } = run;
    assert_eq!(code, 0, "{report}");
    let flow = &report["flows"][0];
    assert_eq!(flow["status"], "passed", "{flow}");
    // Two starts: the first on the port the other program took, the second on another one.
    assert_eq!(starts(&log).len(), 2);
    let taken = std::fs::read_to_string(&want).unwrap();
    let served = flow["steps"][2]["outputs"]["stdout"]
        .as_str()
        .unwrap()
        .trim();
    assert_ne!(served, taken.trim(), "{flow}");
    // The log is the last start's: the server that ran.
    let server_log = std::fs::read_to_string(flow["web_server_log"].as_str().unwrap()).unwrap();
    assert!(
        server_log.contains(&format!("listening on http://127.0.0.1:{served}/")),
        "{server_log}"
    );
}
