//! A remote browser that does not answer (a wedged Browserless, a dead tunnel, a stopped
//! Chromium) or that exits: connecting and every call are bounded by the flow's
//! `browser.timeout`, the message says what happened to the browser, and after the first flow
//! finds it so the rest of the run fails at once (exit 3), not one timeout per flow.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::common::{Ran, all_gone, fixture, flow_run, runner, write};
use crate::contexts::RemoteBrowser;

/// `tests/fixtures/silent_browser.py` in `mode` (`silent`: accepts and never sends a byte;
/// `mute`: answers `/json/version` and the WebSocket handshake, then no call). Ended when
/// dropped.
pub(crate) struct SilentBrowser {
    child: std::process::Child,
    pub(crate) port: u16,
    log: PathBuf,
    _dir: tempfile::TempDir,
}

impl SilentBrowser {
    pub(crate) fn start(mode: &str) -> SilentBrowser {
        let dir = tempfile::tempdir().unwrap();
        let port_file = dir.path().join("port");
        let child = std::process::Command::new("python3")
            .arg(fixture("silent_browser.py"))
            .arg(mode)
            .arg(&port_file)
            .spawn()
            .unwrap();
        crate::common::wait_for_file(&port_file);
        let port = std::fs::read_to_string(&port_file)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        SilentBrowser {
            child,
            port,
            log: dir.path().join("port.log"),
            _dir: dir,
        }
    }

    /// How many connections it has accepted.
    fn accepted(&self) -> usize {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .count()
    }
}

impl Drop for SilentBrowser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A flow that opens a page, in the browser `browser:` (the flow's `browser:` keys) names.
fn flow(name: &str, browser: &str, steps: &str) -> String {
    format!(
        "name: {name}\nbrowser: {{ {browser} }}\nsteps:\n  - open: \"data:text/html,<h1>{name}</h1>\"\n{steps}"
    )
}

/// Runs three flows in `dir` (one worker) with `args`; the run, how long it took, and each
/// flow's (status, error message, duration in ms).
fn run_three(dir: &Path, args: &[&str]) -> (Ran, Duration, Vec<(String, String, u64)>) {
    let started = Instant::now();
    let ran = flow_run(dir).args(["."]).args(args).run();
    let took = started.elapsed();
    let flows = ran.report["flows"]
        .as_array()
        .unwrap_or_else(|| panic!("no flows in {}", ran.report))
        .iter()
        .map(|f| {
            let step_error = f["steps"]
                .as_array()
                .and_then(|s| s.iter().find_map(|s| s["error"]["message"].as_str()));
            let message = f["error"]["message"].as_str().or(step_error).unwrap_or("");
            (
                f["status"].as_str().unwrap_or("").to_string(),
                message.to_string(),
                f["duration_ms"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    (ran, took, flows)
}

/// What agent-browser or a 30 s cap would have said instead of what happened to the browser.
fn says_nothing_borrowed(text: &str) {
    for words in [
        "may still be loading",
        "timed out after 30s",
        "agent-browser get",
    ] {
        assert!(!text.contains(words), "`{words}` in:\n{text}");
    }
}

#[test]
fn an_endpoint_that_never_answers_costs_one_browser_timeout_per_run() {
    // A ws:// endpoint that accepts and never answers, named by each flow's `browser.cdp`.
    let silent = SilentBrowser::start("silent");
    let url = format!("ws://127.0.0.1:{}/devtools/browser/x", silent.port);
    let d = tempfile::tempdir().unwrap();
    for i in 1..=3 {
        let browser = format!("cdp: \"{url}\", timeout: 2s");
        write(
            d.path(),
            &format!("{i}.yaml"),
            &flow(&format!("f{i}"), &browser, ""),
        );
    }
    let (ran, took, flows) = run_three(d.path(), &["--jobs", "1"]);
    assert_eq!(ran.code, 3, "{}", ran.stderr);
    // Today's cost was 30 s per flow (92 s for three).
    assert!(took < Duration::from_secs(10), "the run took {took:?}");
    assert_eq!(flows.len(), 3, "{}", ran.report);
    let said = format!("the browser at {url} did not answer in 2s");
    for (i, (status, message, ms)) in flows.iter().enumerate() {
        assert_eq!(status, "error", "{}", ran.report);
        assert!(message.contains(&said), "flow {}: {message}", i + 1);
        // The first flow waited the browser's timeout; the later ones not again.
        if i > 0 {
            assert!(*ms < 1000, "flow {} waited {ms} ms: {message}", i + 1);
        }
    }
    says_nothing_borrowed(&ran.stderr);

    // An http:// endpoint (`--browser-cdp`) whose /json/version answers but whose DevTools
    // WebSocket answers no call: the same, named by the URL given.
    let mute = SilentBrowser::start("mute");
    let url = format!("http://127.0.0.1:{}", mute.port);
    let d = tempfile::tempdir().unwrap();
    for i in 1..=3 {
        write(
            d.path(),
            &format!("{i}.yaml"),
            &flow(&format!("f{i}"), "timeout: 2s", ""),
        );
    }
    let (ran, took, flows) = run_three(d.path(), &["--jobs", "1", "--browser-cdp", &url]);
    assert_eq!(ran.code, 3, "{}", ran.stderr);
    assert!(took < Duration::from_secs(10), "the run took {took:?}");
    let said = format!("the browser at {url} did not answer in 2s");
    for (i, (_, message, ms)) in flows.iter().enumerate() {
        assert!(message.contains(&said), "flow {}: {message}", i + 1);
        if i > 0 {
            assert!(*ms < 1000, "flow {} waited {ms} ms: {message}", i + 1);
        }
    }
    says_nothing_borrowed(&ran.stderr);
}

/// An endpoint whose /json/version answer never ends (attack 26, C11): agent-browser read it
/// without a cap, growing to ~1 GB within the browser's timeout. runner reads it first, at most
/// 64 KiB, and refuses it at once, before agent-browser is given the address.
#[test]
fn an_endpoint_that_floods_its_version_answer_is_refused_at_once() {
    let flood = SilentBrowser::start("flood");
    let url = format!("http://127.0.0.1:{}", flood.port);
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "1.yaml", &flow("f1", "timeout: 10s", ""));
    let ran = flow_run(d.path())
        .args(["1.yaml", "--browser-cdp", &url])
        .run();
    assert_eq!(ran.code, 3, "{}", ran.stderr);
    assert!(
        ran.stderr.contains(&format!(
            "the browser at {url} answered /json/version with more than 64 KiB"
        )),
        "{}",
        ran.stderr
    );
}

/// An http:// endpoint (`--browser-cdp`) that accepts and never answers: runner's read of its
/// /json/version and the connection share one deadline, the flow's `browser.timeout`, which
/// the message names (attack 28, E3: 3 s cost 6 s, two timeouts, while the message said 3s).
#[test]
fn a_silent_http_endpoint_costs_one_browser_timeout_not_two() {
    let silent = SilentBrowser::start("silent");
    let url = format!("http://127.0.0.1:{}", silent.port);
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "1.yaml", &flow("f1", "timeout: 3s", ""));
    let started = Instant::now();
    let ran = flow_run(d.path())
        .args(["1.yaml", "--browser-cdp", &url])
        .run();
    let took = started.elapsed();
    assert_eq!(ran.code, 3, "{}", ran.stderr);
    assert!(
        ran.stderr
            .contains(&format!("the browser at {url} did not answer in 3s")),
        "{}",
        ran.stderr
    );
    // One timeout (3 s) and runner's start; two would be 6 s.
    assert!(took < Duration::from_secs(5), "the run took {took:?}");
}

/// Three flows on the running browser `remote`; the first does `to_the_browser` (an exec step
/// given the browser's pid) after its first page, then opens another unless `last`.
fn three_on(
    remote: &RemoteBrowser,
    to_the_browser: &str,
    last: bool,
) -> (Ran, Duration, Vec<(String, String, u64)>) {
    let d = tempfile::tempdir().unwrap();
    // Connecting to a Chromium that was just started takes a few seconds on a loaded machine.
    let browser = format!("cdp: \"{}\", timeout: 5s", remote.url);
    let mut first = format!("  - exec: \"{to_the_browser} {}\"\n", remote.child.id());
    if !last {
        first.push_str("  - open: \"data:text/html,<h1>again</h1>\"\n");
    }
    write(d.path(), "1.yaml", &flow("f1", &browser, &first));
    write(d.path(), "2.yaml", &flow("f2", &browser, ""));
    write(d.path(), "3.yaml", &flow("f3", &browser, ""));
    run_three(d.path(), &["--jobs", "1"])
}

/// Lets a stopped browser run again.
fn resume(remote: &RemoteBrowser) {
    let _ = std::process::Command::new("kill")
        .args(["-CONT", &remote.child.id().to_string()])
        .status();
}

#[test]
fn a_browser_that_stops_answering_mid_run_fails_the_rest_of_the_run_at_once() {
    let mut remote = RemoteBrowser::start();
    // The browser stops (SIGSTOP) after the first flow's first page: it keeps its port, and
    // the kernel still accepts connections on it, but nothing answers.
    let (ran, took, flows) = three_on(&remote, "kill -STOP", false);
    resume(&remote);
    assert_eq!(ran.code, 3, "{}", ran.stderr);
    assert!(took < Duration::from_secs(15), "the run took {took:?}");
    let said = format!("the browser at {} did not answer", remote.url);
    for (i, (status, message, ms)) in flows.iter().enumerate() {
        assert_eq!(status, "error", "flow {}: {}", i + 1, ran.report);
        assert!(message.contains(&said), "flow {}: {message}", i + 1);
        if i > 0 {
            assert!(*ms < 1000, "flow {} waited {ms} ms: {message}", i + 1);
        }
    }
    says_nothing_borrowed(&ran.stderr);
    assert!(
        remote.child.try_wait().unwrap().is_none(),
        "runner closed a browser it did not launch"
    );
}

#[test]
fn a_browser_that_stops_answering_between_flows_fails_the_flows_after_at_once() {
    // The first flow's last step stops the browser: the flow passes, its context cannot be
    // disposed, and the browser is found silent then, not by the next flow's connection.
    let remote = RemoteBrowser::start();
    let (ran, took, flows) = three_on(&remote, "kill -STOP", true);
    resume(&remote);
    assert_eq!(ran.code, 3, "{}", ran.stderr);
    assert!(took < Duration::from_secs(15), "the run took {took:?}");
    assert_eq!(flows[0].0, "passed", "{}", ran.report);
    let said = format!("the browser at {} did not answer", remote.url);
    for (i, (status, message, ms)) in flows.iter().enumerate().skip(1) {
        assert_eq!(status, "error", "flow {}: {}", i + 1, ran.report);
        assert!(message.contains(&said), "flow {}: {message}", i + 1);
        assert!(*ms < 1000, "flow {} waited {ms} ms: {message}", i + 1);
    }
}

#[test]
fn a_browser_that_exits_mid_run_is_said_to_have_exited() {
    let remote = RemoteBrowser::start();
    let (ran, took, flows) = three_on(&remote, "kill -9", false);
    assert_eq!(ran.code, 3, "{}", ran.stderr);
    assert!(took < Duration::from_secs(15), "the run took {took:?}");
    let said = format!("the browser at {} exited", remote.url);
    assert!(flows[0].1.contains(&said), "{}", flows[0].1);
    for (i, (status, message, ms)) in flows.iter().enumerate().skip(1) {
        assert_eq!(status, "error", "flow {}: {}", i + 1, ran.report);
        assert!(message.contains(&said), "flow {}: {message}", i + 1);
        assert!(*ms < 1000, "flow {} waited {ms} ms: {message}", i + 1);
    }
    says_nothing_borrowed(&ran.stderr);
}

/// Processes that descend from `pid` (by their parents in /proc).
fn descendants(pid: i32) -> Vec<i32> {
    let parents: Vec<(i32, i32)> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let p: i32 = e.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(format!("/proc/{p}/stat")).ok()?;
            let ppid = stat.rsplit_once(") ")?.1.split(' ').nth(1)?.parse().ok()?;
            Some((p, ppid))
        })
        .collect();
    let mut out = vec![pid];
    let mut i = 0;
    while i < out.len() {
        let of = out[i];
        out.extend(parents.iter().filter(|(_, pp)| *pp == of).map(|(p, _)| *p));
        i += 1;
    }
    out.remove(0);
    out
}

#[test]
fn sigterm_while_waiting_for_a_silent_browser_ends_the_run_at_once() {
    let silent = SilentBrowser::start("silent");
    let url = format!("ws://127.0.0.1:{}/devtools/browser/x", silent.port);
    let d = tempfile::tempdir().unwrap();
    // A browser timeout far longer than the test: only the signal can end the wait.
    let browser = format!("cdp: \"{url}\", timeout: 60s");
    write(d.path(), "1.yaml", &flow("f1", &browser, ""));
    let mut c = runner(d.path());
    c.args(["run", "1.yaml"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut child = c.spawn().unwrap();
    let pid = child.id() as i32;
    // Waits until the browser's connection is being waited on.
    let deadline = Instant::now() + Duration::from_secs(20);
    while silent.accepted() == 0 {
        assert!(
            Instant::now() < deadline,
            "nothing connected to the browser"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let started: Vec<i32> = descendants(pid);
    assert!(!started.is_empty(), "runner started no process");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    let sent = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if sent.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            panic!("runner still ran 10 s after SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let took = sent.elapsed();
    assert_eq!(status.code(), Some(130));
    assert!(took < Duration::from_secs(2), "runner took {took:?} to end");
    assert!(
        all_gone(&started),
        "processes runner started live on: {started:?}"
    );
}

/// The atlas fixture site served from a copy in `dir`, crawled into `dir/atlas` (two nodes);
/// the server, kept up while it lives.
fn crawled(dir: &Path) -> crate::atlas::Server {
    let site = crate::atlas::site_copy(dir);
    let server = crate::atlas::Server::serve(&site);
    crate::atlas::crawl(
        dir,
        &format!("{}/index.html", server.url),
        &["--max-nodes", "2"],
    );
    server
}

/// `atlas verify` and `atlas replay` on a browser endpoint that never answers: the browser is
/// the failure (exit 3, "did not answer"), not the app (twelfth attack A16: every node "no
/// longer arrives", exit 1, "step timed out": a dead browser tunnel reported as the app changed).
#[test]
fn atlas_verify_and_replay_on_a_silent_browser_blame_the_browser() {
    let d = tempfile::tempdir().unwrap();
    let _server = crawled(d.path());
    let node = std::fs::read_dir(d.path().join("atlas/nodes"))
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .file_name()
        .to_string_lossy()
        .into_owned();
    let silent = SilentBrowser::start("silent");
    let url = format!("ws://127.0.0.1:{}/devtools/browser/x", silent.port);
    for args in [
        vec!["atlas", "verify", "--atlas", "atlas", "--timeout", "2s"],
        vec![
            "atlas",
            "replay",
            &node,
            "--atlas",
            "atlas",
            "--timeout",
            "2s",
        ],
    ] {
        let mut c = runner(d.path());
        c.env("RUNNER_BROWSER_CDP", &url).args(&args);
        let started = Instant::now();
        let (code, out, err) = crate::common::output(c);
        let text = format!("{out}{err}");
        assert_eq!(code, 3, "{args:?}: {text}");
        assert!(
            text.contains(&format!("the browser at {url} did not answer")),
            "{args:?}: {text}"
        );
        assert!(!text.contains("no longer arrive"), "{args:?}: {text}");
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{args:?} took {:?}",
            started.elapsed()
        );
    }
}

/// `runner doctor` checks the browser a run would use, as `run` picks it: runner.toml's
/// `[browser] cdp` within its `[browser] timeout`, and a flow's own `browser.cdp` (fifteenth
/// attack D14: doctor checked a local launch, said ok and exited 0 while every flow then
/// failed on the remote browser).
#[test]
fn doctor_checks_the_remote_browser_of_the_project_file_and_of_each_flow() {
    let silent = SilentBrowser::start("silent");
    let url = format!("http://127.0.0.1:{}", silent.port);
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "runner.toml",
        &format!("[browser]\ncdp = \"{url}\"\ntimeout = \"2s\"\n"),
    );
    let started = Instant::now();
    let (code, out, err) = crate::common::output({
        let mut c = runner(d.path());
        c.arg("doctor");
        c
    });
    let took = started.elapsed();
    assert_eq!(code, 3, "{out}{err}");
    assert!(
        out.contains(&format!(
            "FAIL remote browser: the browser at {url} did not answer in 2s"
        )),
        "{out}{err}"
    );
    assert!(!out.contains("headless launch"), "{out}");
    assert!(took < Duration::from_secs(12), "took {took:?}");
    // A flow of its own `browser.cdp`, named to doctor, in a folder with no project file.
    let e = tempfile::tempdir().unwrap();
    write(
        e.path(),
        "f.yaml",
        &flow("own", &format!("cdp: \"{url}\", timeout: 2s"), ""),
    );
    let (code, out, err) = crate::common::output({
        let mut c = runner(e.path());
        c.args(["doctor", "f.yaml"]);
        c
    });
    assert_eq!(code, 3, "{out}{err}");
    assert!(
        out.contains(&format!(
            "FAIL remote browser: the browser at {url} did not answer in 2s"
        )),
        "{out}{err}"
    );
}

/// `explore` and `atlas verify` take runner.toml's `[browser] timeout` with its `[browser] cdp`,
/// as `run` does: a silent endpoint is said within it, as the browser's failure (exit 3)
/// (fifteenth attack D15: explore failed after 20 s with "explore cannot start: step timed out
/// after 15s").
#[test]
fn explore_and_verify_take_the_project_files_browser_timeout() {
    let d = tempfile::tempdir().unwrap();
    let server = crawled(d.path());
    let silent = SilentBrowser::start("silent");
    let url = format!("http://127.0.0.1:{}", silent.port);
    write(
        d.path(),
        "runner.toml",
        &format!("[browser]\ncdp = \"{url}\"\ntimeout = \"2s\"\n"),
    );
    let start = format!("{}/index.html", server.url);
    for args in [
        vec!["explore", &start, "--atlas", "other", "--max-nodes", "2"],
        vec!["atlas", "verify", "--atlas", "atlas"],
    ] {
        let started = Instant::now();
        let (code, out, err) = crate::common::output({
            let mut c = runner(d.path());
            c.args(&args);
            c
        });
        let took = started.elapsed();
        let text = format!("{out}{err}");
        assert_eq!(code, 3, "{args:?}: {text}");
        assert!(
            text.contains(&format!("the browser at {url} did not answer in 2s")),
            "{args:?}: {text}"
        );
        assert!(took < Duration::from_secs(12), "{args:?} took {took:?}");
    }
}
