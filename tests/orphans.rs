//! Nothing runner started outlives it (SPEC §8), not even a process that left its step's
//! process group and session (`setsid`, a daemon's double fork), `kill -9` of runner included.

use crate::common::{all_gone, flow_run, read_pid, runner, wait_for_file, write};

/// A step that starts a process in a session of its own (`setsid`: out of the step's process
/// group, whose end takes the rest with it) and writes its pid to `orphan.pid`; `then` runs
/// after it in the same shell.
fn setsid_step(then: &str) -> String {
    format!(
        r#"
name: setsid
steps:
  - exec:
      shell: true
      command: "setsid sh -c 'sleep 300 & echo $! > orphan.pid'; {then}"
    timeout: 5m
"#
    )
}

#[test]
fn a_setsid_grandchild_is_gone_after_kill_9_of_runner() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "setsid.yaml", &setsid_step("sleep 300"));
    let mut c = runner(d.path());
    c.args(["run", "setsid.yaml"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let child = c.spawn().unwrap();
    let pidfile = d.path().join("orphan.pid");
    wait_for_file(&pidfile);
    let orphan = read_pid(&pidfile);
    crate::common::kill_9(child);
    let gone = all_gone(&[orphan]);
    if !gone {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(orphan),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    assert!(
        gone,
        "the setsid grandchild {orphan} outlived runner's kill -9"
    );
}

#[test]
fn a_setsid_grandchild_ends_with_its_step() {
    // The step's command ends at once; what it left running in a session of its own goes with
    // it, as what it left in its own process group does: the next step no longer sees it.
    let d = tempfile::tempdir().unwrap();
    let flow = setsid_step("true")
        + r#"  - id: after
    exec: { shell: true, command: "kill -0 $(cat orphan.pid) 2>/dev/null && echo alive || echo gone" }
"#;
    write(d.path(), "setsid.yaml", &flow);
    let report = flow_run(d.path()).arg("setsid.yaml").passes();
    let orphan = read_pid(&d.path().join("orphan.pid"));
    let alive = crate::common::pid_alive(orphan);
    if alive {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(orphan),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    assert!(!alive, "the setsid grandchild {orphan} outlived runner");
    let after = crate::common::step(&report, "after");
    assert_eq!(after["outputs"]["stdout"], "gone", "{report}");
}

/// A command that ends its own process group with `kill -9 0` (a shell's cleanup idiom) once a
/// process it started has left it (`setsid`): the supervisor is not in that group, so it lives
/// to end what the command left.
#[test]
fn a_setsid_grandchild_is_gone_after_kill_9_when_its_command_killed_its_own_group() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "kill0.yaml",
        r#"
name: kill 0
steps:
  - id: killer
    exec:
      shell: true
      command: "setsid sh -c 'sleep 300 & echo $! > orphan.pid'; kill -9 0"
    continue_on_error: true
  - exec: { shell: true, command: "echo up > second.pid; sleep 300" }
    timeout: 5m
"#,
    );
    let mut c = runner(d.path());
    c.args(["run", "kill0.yaml"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let child = c.spawn().unwrap();
    wait_for_file(&d.path().join("second.pid"));
    let orphan = read_pid(&d.path().join("orphan.pid"));
    // The first step is over: what it left is gone with it, before runner is.
    let gone_with_step = !crate::common::pid_alive(orphan);
    crate::common::kill_9(child);
    let gone = all_gone(&[orphan]);
    if !gone {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(orphan),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    assert!(
        gone,
        "the setsid grandchild {orphan} outlived runner's kill -9"
    );
    assert!(
        gone_with_step,
        "the setsid grandchild {orphan} outlived its step"
    );
}

/// A supervisor killed on its own (`kill -9 $PPID` from its command) leaves what the command
/// started to runner, a subreaper: a process of the command's group and one in a session of its
/// own. Once the step is over runner has told the guardian of them, which ends them when runner
/// is killed.
#[test]
fn what_a_killed_supervisor_left_to_runner_is_gone_after_kill_9_of_runner() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "adopted.yaml",
        r#"
name: adopted
steps:
  - exec:
      shell: true
      command: "setsid sh -c 'sleep 300 & echo $! > orphan.pid'; sleep 300 >/dev/null 2>&1 & echo $! > left.pid; kill -9 $PPID"
    continue_on_error: true
  - exec: { shell: true, command: "echo up > second.pid; sleep 300" }
    timeout: 5m
"#,
    );
    let mut c = runner(d.path());
    c.args(["run", "adopted.yaml"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let child = c.spawn().unwrap();
    let runner_pid = child.id() as i32;
    wait_for_file(&d.path().join("second.pid"));
    let left = [
        read_pid(&d.path().join("orphan.pid")),
        read_pid(&d.path().join("left.pid")),
    ];
    // Both were runner's, not ended with the step (their supervisor was gone).
    let parent = |pid: i32| {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|s| {
                s.rsplit_once(") ")?
                    .1
                    .split(' ')
                    .nth(1)?
                    .parse::<i32>()
                    .ok()
            })
    };
    let adopted = left.iter().all(|p| parent(*p) == Some(runner_pid));
    crate::common::kill_9(child);
    let gone = all_gone(&left);
    for p in left {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(p),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    assert!(adopted, "{left:?} were not runner's children");
    assert!(
        gone,
        "what the killed supervisor left ({left:?}) outlived runner's kill -9"
    );
}

/// The command is in a process group its supervisor is not in; a timeout's SIGTERM to the
/// supervisor's group still reaches it (the supervisor passes it on), so it can clean up before
/// the SIGKILL.
#[test]
fn a_timeouts_sigterm_reaches_the_command_in_its_own_group() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "term.yaml",
        r#"
name: term
steps:
  - exec:
      shell: true
      command: "trap 'echo cleaned > cleaned.txt; exit 0' TERM; sleep 300 & wait"
    timeout: 500ms
"#,
    );
    let ran = flow_run(d.path()).arg("term.yaml").run();
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert_eq!(
        ran.report["flows"][0]["steps"][0]["error"]["kind"], "timeout",
        "{}",
        ran.report
    );
    let cleaned = std::fs::read_to_string(d.path().join("cleaned.txt")).unwrap_or_default();
    assert_eq!(
        cleaned.trim(),
        "cleaned",
        "the command never got the SIGTERM"
    );
}
