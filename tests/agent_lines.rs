//! An agent's output is read in pieces, a line held up to 16 MiB (issue 27): an agent that
//! prints an endless line costs runner no more than that, whether the line is one runner reads
//! (a JSON event, a generic agent's answer: the agent is stopped, its step failed) or one it
//! only keeps (text on stderr: cut, the step goes on).

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::agents::{agent_env, with_profiles};
use crate::common::{Ran, flow_run, step, write};

/// The most address space the runs get (KiB): an agent's line read whole would pass it.
const ADDRESS_SPACE: u64 = 1024 * 1024;

/// The most memory runner may have held at once (KiB) while reading a line of 200 MiB or more.
const PEAK: u64 = 256 * 1024;

/// Runs `c` (a `runner` command) within [`ADDRESS_SPACE`] and at most two minutes, recording
/// the peak of its resident memory (`VmHWM`, looked at every 10 ms while it runs) in `peak`.
fn measured(c: Command, peak: &AtomicU64) -> (i32, String, String) {
    let mut sh = Command::new("sh");
    sh.arg("-c")
        .arg(format!("ulimit -v {ADDRESS_SPACE} && exec \"$0\" \"$@\""))
        .arg(c.get_program())
        .args(c.get_args())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(dir) = c.get_current_dir() {
        sh.current_dir(dir);
    }
    for (k, v) in c.get_envs() {
        match v {
            Some(v) => sh.env(k, v),
            None => sh.env_remove(k),
        };
    }
    let mut child = sh.spawn().expect("sh starts");
    let drain = |mut r: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut s = Vec::new();
            let _ = r.read_to_end(&mut s);
            String::from_utf8_lossy(&s).into_owned()
        })
    };
    let out = drain(Box::new(child.stdout.take().expect("piped")));
    let err = drain(Box::new(child.stderr.take().expect("piped")));
    let status = format!("/proc/{}/status", child.id());
    let started = Instant::now();
    let status = loop {
        if let Some(hwm) = std::fs::read_to_string(&status).ok().and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        }) {
            peak.fetch_max(hwm, Ordering::Relaxed);
        }
        if let Some(s) = child.try_wait().expect("runner can be waited for") {
            break s;
        }
        if started.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("runner still ran after 2 minutes (killed)");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    (
        status.code().unwrap_or(-1),
        out.join().unwrap_or_default(),
        err.join().unwrap_or_default(),
    )
}

/// Runs flow `f.yaml` of `dir` with the fake agents, [`measured`]; its peak memory in KiB.
fn run(dir: &Path) -> (Ran, u64) {
    let peak = AtomicU64::new(0);
    let ran = flow_run(dir)
        .with(|c| agent_env(c, dir))
        .args(with_profiles(&["f.yaml"]))
        .run_with(|c| measured(c, &peak));
    (ran, peak.load(Ordering::Relaxed))
}

/// An event line that never ends (a JSON object whose text grows until the agent is stopped),
/// from a Claude agent and from a generic one (whose stdout is its answer): each step fails at
/// once naming the agent and the cap, the agent stopped; runner's memory stays bounded.
#[test]
fn an_endless_event_line_stops_the_agent_and_fails_its_step() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        r#"name: endless
steps:
  - id: claude
    agent: { profile: fake-claude, prompt: "hi", env: { FAKE_AGENT_MODE: endless-event } }
    timeout: 90s
    continue_on_error: true
  - id: generic
    agent: { profile: fake-generic, prompt: "hi", env: { FAKE_AGENT_MODE: endless-event } }
    timeout: 90s
"#,
    );
    let (r, peak) = run(d.path());
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(peak < PEAK, "runner held {peak} KiB at its peak");
    for (id, profile) in [("claude", "fake-claude"), ("generic", "fake-generic")] {
        let s = step(&r.report, id);
        assert_eq!(s["outcome"], "failed", "{s}");
        assert_eq!(s["error"]["kind"], "command_failed", "{s}");
        let said = format!(
            "agent `{profile}` printed a line longer than 16 MiB on stdout, the most runner reads of an event (or a generic agent's answer) line; it was stopped"
        );
        assert_eq!(s["error"]["message"], said.as_str(), "{s}");
        // Stopped at the cap, not at the step's timeout.
        assert!(s["duration_ms"].as_u64().unwrap() < 60_000, "{s}");
    }
}

/// A line of 200 MiB of text on stderr, then the agent's answer: the step passes with its
/// answer, the log keeps the line's first 16 MiB and says it was cut, and runner's memory stays
/// bounded.
#[test]
fn a_200_mib_text_line_is_cut_in_the_log_and_the_step_passes() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        r#"name: long text
steps:
  - id: said
    agent: { profile: fake-claude, prompt: "hi", env: { FAKE_AGENT_MODE: long-stderr } }
    timeout: 90s
"#,
    );
    let (r, peak) = run(d.path());
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(peak < PEAK, "runner held {peak} KiB at its peak");
    let out = &step(&r.report, "said")["outputs"];
    assert_eq!(out["result"], "echo: hi", "{out}");
    let log = std::fs::read(out["log"].as_str().unwrap()).unwrap();
    let cut = log
        .split(|b| *b == b'\n')
        .find(|l| l.starts_with(b"xxx"))
        .expect("the long line is in the log");
    let note = "… (cut: a line longer than 16 MiB; the rest is not kept)";
    assert_eq!(cut.len(), 16 * 1024 * 1024 + note.len());
    assert!(cut.ends_with(note.as_bytes()));
    assert!(!String::from_utf8_lossy(&log).contains("end of the long line"));
}
