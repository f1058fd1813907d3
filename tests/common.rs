//! Helpers shared by the end-to-end tests.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root.
pub(crate) fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `tests/fixtures/<rel>`.
pub(crate) fn fixture(rel: &str) -> PathBuf {
    root().join("tests/fixtures").join(rel)
}

/// The runner binary with colour off and CI-style output.
pub(crate) fn runner(cwd: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_runner"));
    c.current_dir(cwd)
        .env("NO_COLOR", "1")
        .env("CI", "true")
        .env_remove("RUST_BACKTRACE")
        // Outside GitHub Actions, whatever machine the tests run on.
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY");
    c
}

/// Runs and returns (exit code, stdout, stderr).
pub(crate) fn output(mut c: Command) -> (i32, String, String) {
    let Output {
        status,
        stdout,
        stderr,
    } = c.output().expect("the runner binary starts");
    let r = (
        status.code().unwrap_or(-1),
        String::from_utf8_lossy(&stdout).into_owned(),
        String::from_utf8_lossy(&stderr).into_owned(),
    );
    remember(&c, &r);
    r
}

std::thread_local! {
    /// What the last command a test ran printed: shown when the test fails.
    static LAST_RUN: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// [`output`], but a run that is not over within `limit` is killed (SIGKILL: what it started
/// goes with it, by its guardian) and fails the test, which would otherwise hang with it.
pub(crate) fn output_within(mut c: Command, limit: std::time::Duration) -> (i32, String, String) {
    use std::io::Read;
    use std::process::Stdio;
    let mut child = c
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the runner binary starts");
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut s = Vec::new();
            let _ = r.read_to_end(&mut s);
            String::from_utf8_lossy(&s).into_owned()
        })
    };
    let out = drain(Box::new(child.stdout.take().expect("piped")));
    let err = drain(Box::new(child.stderr.take().expect("piped")));
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("the runner can be waited for") {
            break s;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            let err = err.join().unwrap_or_default();
            panic!("runner still ran after {limit:?} (killed); its stderr:\n{err}");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let r = (
        status.code().unwrap_or(-1),
        out.join().unwrap_or_default(),
        err.join().unwrap_or_default(),
    );
    remember(&c, &r);
    r
}

/// Keeps the end of what `c` printed for the test thread's panic message, so a failed
/// assertion on a run's report also says what the run said (a flake in CI leaves nothing else).
fn remember(c: &Command, (code, stdout, stderr): &(i32, String, String)) {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            default(info);
            if let Some(last) = LAST_RUN.with(|l| l.borrow_mut().take()) {
                eprintln!("{last}");
            }
        }));
    });
    let tail = |s: &str| {
        let cut = s.len().saturating_sub(6000);
        let cut = (cut..=s.len())
            .find(|i| s.is_char_boundary(*i))
            .unwrap_or(0);
        s[cut..].to_string()
    };
    let args: Vec<String> = c
        .get_args()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let text = format!(
        "--- the test's last command: {} {} (exit {code})\n--- its stdout (end):\n{}\n--- its stderr (end):\n{}",
        c.get_program().to_string_lossy(),
        args.join(" "),
        tail(stdout),
        tail(stderr)
    );
    LAST_RUN.with(|l| *l.borrow_mut() = Some(text));
}

/// A TCP port on 127.0.0.1 that nothing listens on (for a `web_server.command`).
pub(crate) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// Writes a flow into `dir` and returns its path.
pub(crate) fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write fixture");
    p
}

/// `runner validate f.yaml` in `dir`: (exit code, stdout + stderr).
pub(crate) fn validate(dir: &Path) -> (i32, String) {
    let mut c = runner(dir);
    c.args(["validate", "f.yaml"]);
    let (code, out, err) = output(c);
    (code, format!("{out}{err}"))
}

/// Waits (up to 10 s) until `path` exists and is not empty.
pub(crate) fn wait_for_file(path: &Path) {
    wait_for_file_within(path, 10);
}

/// Waits (up to `secs` seconds) until `path` exists and is not empty.
pub(crate) fn wait_for_file_within(path: &Path, secs: u64) {
    for _ in 0..secs * 40 {
        if std::fs::read_to_string(path).is_ok_and(|s| !s.trim().is_empty()) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
    panic!("{} did not appear", path.display());
}

/// Sends SIGINT to a running runner, waits for it, and checks it exited with 130.
pub(crate) fn interrupt(child: std::process::Child) -> Output {
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .expect("the runner is alive");
    let out = child.wait_with_output().expect("the runner exits");
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The pid written in a pid file.
pub(crate) fn read_pid(path: &Path) -> i32 {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .trim()
        .parse()
        .expect("a pid")
}

/// Whether a process exists and is not a zombie (a zombie is dead, waiting for its parent).
pub(crate) fn pid_alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|s| !s.split(") ").nth(1).is_some_and(|r| r.starts_with('Z')))
}

/// The children of `pid` (of each of its threads), from `/proc`.
pub(crate) fn children_of(pid: i32) -> Vec<i32> {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("children")).ok())
        .flat_map(|c| {
            c.split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect::<Vec<i32>>()
        })
        .collect()
}

/// Sends SIGKILL to a running runner and reaps it.
pub(crate) fn kill_9(mut child: std::process::Child) {
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGKILL,
    )
    .expect("the runner is alive");
    let _ = child.wait();
}

/// Waits (up to 10 s) until none of `pids` is alive.
pub(crate) fn all_gone(pids: &[i32]) -> bool {
    for _ in 0..200 {
        if pids.iter().all(|p| !pid_alive(*p)) {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    false
}

/// A `runner run` in a test directory, with a JSON report and artifacts kept inside it: the
/// one way the tests run flows (as just's `Test`).
pub(crate) struct FlowRun {
    cmd: Command,
    dir: PathBuf,
    artifacts: bool,
}

/// What a run did.
pub(crate) struct Ran {
    pub(crate) code: i32,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
    /// The JSON report (`null` when the run wrote none, e.g. invalid input).
    pub(crate) report: serde_json::Value,
}

/// `runner run` with its working directory in `dir`.
pub(crate) fn flow_run(dir: &Path) -> FlowRun {
    let mut cmd = runner(dir);
    cmd.arg("run");
    FlowRun {
        cmd,
        dir: dir.to_path_buf(),
        artifacts: true,
    }
}

impl FlowRun {
    /// Adds arguments (flow files, flags).
    pub(crate) fn args<I, S>(mut self, args: I) -> FlowRun
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        for a in args {
            if a.as_ref() == "--artifacts" {
                self.artifacts = false;
            }
            self.cmd.arg(a);
        }
        self
    }

    /// Adds one argument.
    pub(crate) fn arg(self, a: impl AsRef<std::ffi::OsStr>) -> FlowRun {
        self.args([a])
    }

    /// Sets an environment variable of the run.
    pub(crate) fn env(mut self, k: &str, v: impl AsRef<std::ffi::OsStr>) -> FlowRun {
        self.cmd.env(k, v);
        self
    }

    /// Changes the command in other ways (PATH, HOME, ...).
    pub(crate) fn with(mut self, f: impl FnOnce(&mut Command)) -> FlowRun {
        f(&mut self.cmd);
        self
    }

    /// Runs to the end, which must be a pass (exit 0); its JSON report.
    pub(crate) fn passes(self) -> serde_json::Value {
        let Ran {
            code,
            stderr,
            report,
            ..
        } = self.run();
        assert_eq!(code, 0, "{stderr}");
        report
    }

    /// Runs to the end; a panic in runner fails the test.
    pub(crate) fn run(self) -> Ran {
        self.run_with(output)
    }

    /// [`FlowRun::run`], but a run still going after `limit` is killed and fails the test.
    pub(crate) fn run_within(self, limit: std::time::Duration) -> Ran {
        self.run_with(|c| output_within(c, limit))
    }

    /// Runs to the end through `output` (a command of its own that runs the one it is given).
    pub(crate) fn run_with(mut self, output: impl FnOnce(Command) -> (i32, String, String)) -> Ran {
        let report_path = self.dir.join("report.json");
        let _ = std::fs::remove_file(&report_path);
        self.cmd
            .arg("--report")
            .arg(format!("json={}", report_path.display()));
        if self.artifacts {
            self.cmd.arg("--artifacts").arg(self.dir.join("art"));
        }
        let (code, stdout, stderr) = output(self.cmd);
        assert!(!stderr.contains("panicked"), "runner panicked:\n{stderr}");
        let report = std::fs::read_to_string(&report_path).map_or(serde_json::Value::Null, |t| {
            serde_json::from_str(&t).expect("the JSON report parses")
        });
        Ran {
            code,
            stdout,
            stderr,
            report,
        }
    }
}

/// The step with `id` of the report's first flow.
pub(crate) fn step<'a>(report: &'a serde_json::Value, id: &str) -> &'a serde_json::Value {
    report["flows"][0]["steps"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["id"] == id))
        .unwrap_or_else(|| panic!("no step {id} in {report}"))
}

/// The agent-browser binary runner would use.
/// Where the socket directory of the run of runner `pid` may be (`AGENT_BROWSER_SOCKET_DIR` of
/// its daemons and browsers): its RAM-disk directory when the machine has a RAM disk with room,
/// else under /tmp.
pub(crate) fn socket_dirs(pid: u32) -> [PathBuf; 2] {
    let uid = nix::unistd::getuid();
    [
        PathBuf::from(format!("/dev/shm/rnr-{uid}-{pid}")),
        PathBuf::from(format!("/tmp/rnr-{uid}/{pid}")),
    ]
}

/// Whether the environment of process `pid` names one of `dirs` as agent-browser's socket
/// directory.
pub(crate) fn has_socket_dir(pid: i32, dirs: &[PathBuf]) -> bool {
    std::fs::read(format!("/proc/{pid}/environ")).is_ok_and(|env| {
        env.split(|b| *b == 0).any(|kv| {
            dirs.iter()
                .any(|d| kv == format!("AGENT_BROWSER_SOCKET_DIR={}", d.display()).as_bytes())
        })
    })
}

pub(crate) fn real_agent_browser() -> std::path::PathBuf {
    if let Some(p) = std::env::var_os("AGENT_BROWSER") {
        return p.into();
    }
    ["/usr/local/lib", "/usr/lib"]
        .iter()
        .map(|p| {
            std::path::Path::new(p).join("node_modules/agent-browser/bin/agent-browser-linux-x64")
        })
        .find(|p| p.is_file())
        .expect("agent-browser is installed (bash scripts/setup)")
}

/// A wrapper for agent-browser that logs each command line, so a test can count the browsers
/// a run launched (each has its own `--session`); the browser it was told to connect to
/// (`AGENT_BROWSER_CDP`, in its environment) starts the line, as `AGENT_BROWSER_CDP=URL `.
pub(crate) fn logging_agent_browser(dir: &Path) -> (PathBuf, PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let log = dir.join("argv.log");
    let wrapper = write(
        dir,
        "agent-browser-wrapper",
        &format!(
            "#!/bin/sh\nprintf '%s%s\\n' \"${{AGENT_BROWSER_CDP:+AGENT_BROWSER_CDP=$AGENT_BROWSER_CDP }}\" \"$*\" >> '{}'\nexec '{}' \"$@\"\n",
            log.display(),
            real_agent_browser().display()
        ),
    );
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    (wrapper, log)
}

/// The browser sessions a run used (one per launched browser; a browser agent-browser launched
/// also has the session that launched it, `<name>-launcher`, not counted).
pub(crate) fn sessions(log: &Path) -> std::collections::BTreeSet<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split("--session ").nth(1)?.split(' ').next())
        .filter(|s| !s.ends_with("-launcher"))
        .map(str::to_string)
        .collect()
}
