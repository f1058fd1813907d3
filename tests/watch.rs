//! `runner run --watch`: a save of a flow, a sub-flow or a var file re-runs the flow in the same
//! browser and servers; failures and invalid files do not end the watch; Ctrl-C ends it (exit
//! 130) with nothing left running. Real runner, agent-browser and Chromium; the run's server
//! is `tests/fixtures/servers/app.py`, started by runner from runner.toml.

use std::collections::BTreeSet;
use std::io::BufRead;
use std::path::Path;
use std::process::{Child, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use crate::common::{all_gone, logging_agent_browser, pid_alive, runner, sessions, write};
use crate::servers::{app, starts};

/// A `runner run --watch` under way, its stderr read line by line.
struct Watching {
    child: Child,
    lines: Receiver<String>,
    /// Everything it printed so far (shown when a wait fails).
    said: Vec<String>,
}

impl Watching {
    /// Starts `runner run --watch ARGS` in `dir` with the logging agent-browser `wrapper`.
    fn start(dir: &Path, wrapper: &Path, args: &[&str]) -> Watching {
        let mut c = runner(dir);
        c.env("AGENT_BROWSER", wrapper)
            .env("APP_STARTS", dir.join("starts"))
            .args(["run", "--watch"])
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = c.spawn().expect("runner starts");
        let stderr = child.stderr.take().expect("stderr is piped");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Watching {
            child,
            lines,
            said: Vec::new(),
        }
    }

    /// The lines it prints from now until one contains `text` (that one included); fails the
    /// test when 60 s pass first or runner stops printing.
    fn until(&mut self, text: &str) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut got = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.said.push(line.clone());
                    got.push(line.clone());
                    if line.contains(text) {
                        return got;
                    }
                }
                Err(e) => {
                    let why = match e {
                        RecvTimeoutError::Timeout => "in 60 s",
                        RecvTimeoutError::Disconnected => "before it stopped printing",
                    };
                    panic!(
                        "runner did not print {text:?} {why}; it printed:\n{}",
                        self.said.join("\n")
                    );
                }
            }
        }
    }

    /// Waits for the end of a pass: its summary, then the line saying the watch waits again.
    fn pass(&mut self) -> Vec<String> {
        let mut lines = self.until("flows: ");
        lines.extend(self.until("waiting for changes"));
        lines
    }
}

impl Drop for Watching {
    /// A test that failed half-way leaves nothing running (the guardian ends the rest).
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The page's heading is "app on <port>"; the flow checks that its context is fresh (nothing
/// in localStorage from an earlier pass: the server, so the origin, is the same every pass),
/// then the heading through the sub-flow. `extra`: more steps at the end.
fn flow(extra: &str) -> String {
    format!(
        r#"name: greets
vars:
  greeting: app on
steps:
  - open: "{{{{ web_server.app.url }}}}"
  - id: seen
    eval: "localStorage.getItem('seen')"
  - expect: {{ that: "{{{{ steps.seen.value is none }}}}" }}
  - eval: "localStorage.setItem('seen', 'yes')"
  - run_flow: {{ path: _heading.yaml, vars: {{ text: "{{{{ vars.greeting }}}} {{{{ web_server.app.port }}}}" }} }}
{extra}"#
    )
}

/// The sub-flow: the heading says `vars.text`; `log`: a line it logs first.
fn heading(log: &str) -> String {
    format!(
        "name: heading\nvars:\n  text: \"\"\nsteps:\n  - log: {log}\n  - expect: {{ text: {{ target: h1, equals: \"{{{{ vars.text }}}}\" }} }}\n    timeout: 2s\n"
    )
}

/// Sends SIGINT to the watch once every process it runs is known (its tree, and the
/// processes carrying its socket directory), among them one whose command line holds each of
/// `expected`; checks that it exits with 130 and that none of them is left. Returns them.
fn interrupt(w: &mut Watching, expected: &[&str]) -> Vec<i32> {
    let pid = w.child.id() as i32;
    let sockets = crate::common::socket_dirs(pid.cast_unsigned());
    let running = || {
        let mut roots = with_socket_dir(&sockets);
        roots.push(pid);
        tree(&roots).into_iter().collect::<Vec<i32>>()
    };
    let command = |p: &i32| {
        std::fs::read(format!("/proc/{p}/cmdline"))
            .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
            .unwrap_or_default()
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut started = running();
    while !expected
        .iter()
        .all(|e| started.iter().any(|p| command(p).contains(e)))
    {
        assert!(
            Instant::now() < deadline,
            "{expected:?} never ran: {started:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
        started = running();
    }
    assert!(
        !with_socket_dir(&sockets).is_empty(),
        "no browser process found for {sockets:?}"
    );
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let status = w.child.wait().unwrap();
    // The rest of what it printed (its last summary, for a pass it stopped).
    while let Ok(line) = w.lines.recv_timeout(Duration::from_secs(5)) {
        w.said.push(line);
    }
    assert_eq!(status.code(), Some(130), "{}", w.said.join("\n"));
    if !all_gone(&started) {
        let left: Vec<String> = started
            .iter()
            .filter(|p| pid_alive(**p))
            .map(|p| format!("{p} {}", command(p)))
            .collect();
        panic!("left running: {left:#?}");
    }
    assert!(with_socket_dir(&sockets).is_empty());
    for d in &sockets {
        assert!(!d.exists(), "{} is left", d.display());
    }
    started
}

/// Whether `lines` hold the line that opens a pass for a save of `file` alone:
/// `── 14:03:07 · <file> saved`.
fn opened_by(lines: &[String], file: &str) -> bool {
    lines
        .iter()
        .any(|l| l.starts_with("── ") && l.ends_with(&format!(" · {file} saved")))
}

/// The pids of `root` and of every process under it (by their parents, from /proc).
fn tree(roots: &[i32]) -> BTreeSet<i32> {
    let parents: Vec<(i32, i32)> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let ppid = stat.rsplit(") ").next()?.split(' ').nth(1)?.parse().ok()?;
            Some((pid, ppid))
        })
        .collect();
    let mut out: BTreeSet<i32> = roots.iter().copied().collect();
    loop {
        let more: Vec<i32> = parents
            .iter()
            .filter(|(pid, ppid)| out.contains(ppid) && !out.contains(pid))
            .map(|(pid, _)| *pid)
            .collect();
        if more.is_empty() {
            return out;
        }
        out.extend(more);
    }
}

/// Live processes whose environment names one of `socket_dirs` as agent-browser's socket
/// directory (the daemons and the browsers of one runner: a daemon leaves runner's process tree).
fn with_socket_dir(socket_dirs: &[std::path::PathBuf]) -> Vec<i32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| pid_alive(*pid) && crate::common::has_socket_dir(*pid, socket_dirs))
        .collect()
}

#[test]
fn a_save_reruns_the_flow_in_the_same_browser_until_ctrl_c() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    write(
        dir,
        "runner.toml",
        &format!(
            "[[web_server]]\nname = \"app\"\ncommand = [\"python3\", \"{}\"]\nport = \"auto\"\n",
            app()
        ),
    );
    std::fs::create_dir(dir.join("flows")).unwrap();
    let flows = dir.join("flows");
    write(&flows, "greets.yaml", &flow(""));
    write(&flows, "_heading.yaml", &heading("first heading"));
    write(dir, "vars.env", "greeting=app on\n");
    let (wrapper, argv) = logging_agent_browser(dir);
    let mut w = Watching::start(dir, &wrapper, &["flows", "--var-file", "vars.env"]);

    // The first pass runs the flow.
    let first = w.pass();
    assert!(
        first
            .iter()
            .any(|l| l.contains("flows: 1 passed, 0 failed")),
        "{first:#?}"
    );

    // The flow saved failing: a pass runs it and prints the failure.
    let failing = "  - expect: { text: { target: h1, equals: nobody here } }\n    timeout: 1s\n";
    write(&flows, "greets.yaml", &flow(failing));
    let failed = w.pass();
    assert!(opened_by(&failed, "flows/greets.yaml"), "{failed:#?}");
    assert!(
        failed
            .iter()
            .any(|l| l.contains("flows: 0 passed, 1 failed")),
        "{failed:#?}"
    );
    assert!(
        failed
            .iter()
            .any(|l| l.contains(r#"to equal "nobody here", got "app on"#)),
        "{failed:#?}"
    );

    // An invalid flow: validate's error, with its line, and nothing runs.
    write(
        &flows,
        "greets.yaml",
        "name: greets\nsteps:\n  - clik: \"#go\"\n",
    );
    let mut invalid = w.until("nothing was run");
    invalid.extend(w.until("waiting for changes"));
    assert!(opened_by(&invalid, "flows/greets.yaml"), "{invalid:#?}");
    assert!(
        invalid.iter().any(|l| l.contains("greets.yaml:3:5")),
        "{invalid:#?}"
    );
    assert!(
        invalid.iter().any(|l| l.contains("did you mean `click`")),
        "{invalid:#?}"
    );
    assert!(
        !invalid.iter().any(|l| l.contains('▶')),
        "a flow ran: {invalid:#?}"
    );

    // Fixed: it passes again.
    write(&flows, "greets.yaml", &flow(""));
    let fixed = w.pass();
    assert!(
        fixed
            .iter()
            .any(|l| l.contains("flows: 1 passed, 0 failed")),
        "{fixed:#?}"
    );

    // The sub-flow saved: the flow runs with the new sub-flow.
    write(&flows, "_heading.yaml", &heading("second heading"));
    let sub = w.pass();
    assert!(opened_by(&sub, "flows/_heading.yaml"), "{sub:#?}");
    assert!(sub.iter().any(|l| l.contains("second heading")), "{sub:#?}");
    assert!(
        sub.iter().any(|l| l.contains("flows: 1 passed, 0 failed")),
        "{sub:#?}"
    );

    // A flow added to the directory runs, alone.
    write(
        &flows,
        "second.yaml",
        "name: second\nsteps:\n  - log: the second flow\n",
    );
    let added = w.pass();
    assert!(opened_by(&added, "flows/second.yaml"), "{added:#?}");
    assert!(
        added.iter().any(|l| l.starts_with("▶ second")),
        "{added:#?}"
    );
    assert!(
        !added.iter().any(|l| l.starts_with("▶ greets")),
        "{added:#?}"
    );
    assert!(
        added
            .iter()
            .any(|l| l.contains("flows: 1 passed, 0 failed")),
        "{added:#?}"
    );

    // The var file saved: every flow runs, greets with the new value.
    write(dir, "vars.env", "greeting=app off\n");
    let vars = w.pass();
    assert!(opened_by(&vars, "vars.env"), "{vars:#?}");
    assert!(
        vars.iter().any(|l| l.contains(r#"to equal "app off "#)),
        "{vars:#?}"
    );
    assert!(
        vars.iter().any(|l| l.contains("flows: 1 passed, 1 failed")),
        "{vars:#?}"
    );

    // Six passes ran in one browser and against one start of the run's server.
    assert_eq!(sessions(&argv).len(), 1, "the browser was launched again");
    let servers = starts(&dir.join("starts"));
    assert_eq!(
        servers.len(),
        1,
        "the run's server was started again: {servers:?}"
    );

    // Ctrl-C: exit 130, and nothing runner started is left (its server among them).
    let started = interrupt(&mut w, &[]);
    assert!(
        started.contains(&servers[0]),
        "the server is runner's: {started:?}"
    );
}

#[test]
fn ctrl_c_in_a_pass_stops_it_and_leaves_nothing_running() {
    let d = tempfile::tempdir().unwrap();
    let flow = format!(
        "name: slow\nweb_server: {{ static: \"{}\" }}\nsteps:\n  - open: \"{{{{ web_server.url }}}}/index.html\"\n  - log: sleeping now\n  - exec: [sleep, \"37\"]\n",
        crate::common::fixture("site").display()
    );
    write(d.path(), "slow.yaml", &flow);
    let (wrapper, _) = logging_agent_browser(d.path());
    let mut w = Watching::start(d.path(), &wrapper, &["slow.yaml"]);
    w.until("sleeping now");
    let started = Instant::now();
    interrupt(&mut w, &["sleep 37"]);
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    // The pass it stopped says so.
    assert!(
        w.said
            .iter()
            .any(|l| l.contains("0 passed") && l.contains("1 interrupted")),
        "{}",
        w.said.join("\n")
    );
    // And the watch does not say it waits for changes as it exits (attack 25 B14).
    assert!(
        !w.said.iter().any(|l| l.contains("waiting for changes")),
        "{}",
        w.said.join("\n")
    );
}

/// B1 (attack 25): a flow file a pass leaves in its artifacts (a page's download, under
/// `<artifacts>/pass-1/001-visit-page/downloads/`), with the artifacts inside the watched
/// directory, is no flow added: the watch does not run it, then or at the next save.
#[test]
fn a_watch_runs_no_flow_a_pass_leaves_in_its_artifacts() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    let flows = dir.join("flows");
    std::fs::create_dir(&flows).unwrap();
    let pwned = dir.join("pwned");
    write(
        dir,
        "payload.txt",
        &format!(
            "name: planted by the page\nsteps:\n  - exec: [touch, \"{}\"]\n",
            pwned.display()
        ),
    );
    let payload = dir.join("payload.txt").display().to_string();
    let dl = format!(
        "name: visit page\nsteps:\n  - exec: [sh, -c, 'f=\"$1/001-visit-page/downloads\"; mkdir -p \"$f\" && cp {payload} \"$f/evil.yaml\"', sh, \"{{{{ run.artifacts }}}}\"]\n"
    );
    write(&flows, "dl.yaml", &dl);
    let no_browser = dir.join("no-agent-browser");
    let mut w = Watching::start(dir, &no_browser, &["flows", "--artifacts", "flows/art"]);
    let first = w.pass();
    assert!(
        first.iter().any(|l| l.contains("flows: 1 passed")),
        "{first:#?}"
    );
    assert!(
        flows
            .join("art/pass-1/001-visit-page/downloads/evil.yaml")
            .is_file()
    );
    // A save of the flow: the pass runs it alone (and it leaves its download again).
    std::thread::sleep(Duration::from_secs(1));
    write(&flows, "dl.yaml", &format!("{dl}  - exec: [\"true\"]\n"));
    let second = w.pass();
    assert!(
        second.iter().any(|l| l.contains("flows: 1 passed")),
        "{second:#?}"
    );
    std::thread::sleep(Duration::from_secs(2));
    for l in w.lines.try_iter() {
        w.said.push(l);
    }
    assert!(
        !w.said.iter().any(|l| l.contains("planted")),
        "the watch ran the page's flow: {:#?}",
        w.said
    );
    assert!(!pwned.exists(), "{:#?}", w.said);
}
