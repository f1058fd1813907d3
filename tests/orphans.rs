//! Nothing runner started outlives it (SPEC §8), not even a process that left its step's
//! process group and session (`setsid`, a daemon's double fork), `kill -9` of runner included.

use std::path::Path;
use std::process::{Child, Stdio};

use crate::common::{all_gone, flow_run, pid_alive, read_pid, runner, wait_for_file, write};

/// `runner run <file>` in `dir`, its output dropped: a run the test kills or leaves running.
fn start(dir: &Path, file: &str) -> Child {
    let mut c = runner(dir);
    c.args(["run", file])
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    c.spawn().unwrap()
}

/// Whether each of `pids` is gone (within 10 s); any still alive is killed then, so a failed
/// test leaves nothing running.
fn gone(pids: &[i32]) -> bool {
    let gone = all_gone(pids);
    for p in pids.iter().filter(|p| pid_alive(**p)) {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(*p),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    gone
}

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
    let child = start(d.path(), "setsid.yaml");
    let pidfile = d.path().join("orphan.pid");
    wait_for_file(&pidfile);
    let orphan = read_pid(&pidfile);
    crate::common::kill_9(child);
    assert!(
        gone(&[orphan]),
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
    let alive = pid_alive(orphan);
    gone(&[orphan]);
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
    let child = start(d.path(), "kill0.yaml");
    wait_for_file(&d.path().join("second.pid"));
    let orphan = read_pid(&d.path().join("orphan.pid"));
    // The first step is over: what it left is gone with it, before runner is.
    let gone_with_step = !pid_alive(orphan);
    crate::common::kill_9(child);
    assert!(
        gone(&[orphan]),
        "the setsid grandchild {orphan} outlived runner's kill -9"
    );
    assert!(
        gone_with_step,
        "the setsid grandchild {orphan} outlived its step"
    );
}

/// A supervisor killed on its own (`kill -9 $PPID` from its command, at once) leaves what the
/// command started that runner does not end with the step to runner, a subreaper: a process in
/// a session of its own, and one of the command's group when the command killed its supervisor
/// before runner found the command (see `process::commands`). Once the step is over runner has
/// told the guardian of them, which ends them when runner is killed.
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
    let child = start(d.path(), "adopted.yaml");
    let runner_pid = child.id() as i32;
    wait_for_file(&d.path().join("second.pid"));
    let left = [
        read_pid(&d.path().join("orphan.pid")),
        read_pid(&d.path().join("left.pid")),
    ];
    // Those still there are runner's, not ended with the step (their supervisor was gone).
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
    let orphan_adopted = parent(left[0]) == Some(runner_pid);
    let in_group_ended_or_adopted = !pid_alive(left[1]) || parent(left[1]) == Some(runner_pid);
    crate::common::kill_9(child);
    let gone = gone(&left);
    assert!(orphan_adopted, "{} was not runner's child", left[0]);
    assert!(
        in_group_ended_or_adopted,
        "{} was neither ended with its step nor runner's child",
        left[1]
    );
    assert!(
        gone,
        "what the killed supervisor left ({left:?}) outlived runner's kill -9"
    );
}

/// What a killed supervisor left to runner is told to the guardian as soon as runner sees the
/// supervisor gone, not once the step is over: the step still waits (up to its grace) for its
/// output, which the orphan holds open, and a `kill -9` of runner then must not leave it.
#[test]
fn what_a_killed_supervisor_left_is_gone_after_kill_9_while_its_step_ends() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "adopted.yaml",
        r#"
name: adopted
steps:
  - exec:
      shell: true
      command: "setsid sh -c 'sleep 300 & echo $! > orphan.pid'; sleep 0.2; echo k > killing; kill -9 $PPID; sleep 300"
    timeout: 5m
"#,
    );
    let child = start(d.path(), "adopted.yaml");
    wait_for_file(&d.path().join("killing"));
    let orphan = read_pid(&d.path().join("orphan.pid"));
    // Within the step's wait for its output (the orphan holds it open for seconds).
    std::thread::sleep(std::time::Duration::from_millis(800));
    crate::common::kill_9(child);
    assert!(
        gone(&[orphan]),
        "what the killed supervisor left ({orphan}) outlived runner's kill -9"
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

/// A supervisor killed on its own (`kill -9` of its pid, by another process) while its command
/// runs: runner sees it exit, ends the command's process group (the command and what it left
/// running in it) at once, while runner itself still runs the next step, and fails the step
/// saying what happened.
#[test]
fn a_supervisor_killed_alone_takes_its_commands_group_with_it() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "killed.yaml",
        r#"
name: killed supervisor
steps:
  - id: killed
    exec:
      shell: true
      command: "sleep 300 >/dev/null 2>&1 & echo $! > left.pid; echo $$ > shell.pid; echo $PPID > supervisor.pid; wait"
    continue_on_error: true
  - exec: { shell: true, command: "echo up > second.pid; while [ ! -e done ]; do sleep 0.05; done" }
    timeout: 2m
"#,
    );
    let dir = d.path().to_path_buf();
    let run = std::thread::spawn(move || flow_run(&dir).arg("killed.yaml").run());
    wait_for_file(&d.path().join("supervisor.pid"));
    let supervisor = read_pid(&d.path().join("supervisor.pid"));
    let group = [
        read_pid(&d.path().join("shell.pid")),
        read_pid(&d.path().join("left.pid")),
    ];
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(supervisor),
        nix::sys::signal::Signal::SIGKILL,
    )
    .expect("the supervisor is alive");
    // The next step waits for `done`: runner runs all along.
    let gone_while_runner_runs = gone(&group);
    wait_for_file(&d.path().join("second.pid"));
    std::fs::write(d.path().join("done"), "").unwrap();
    let ran = run.join().unwrap();
    assert!(
        gone_while_runner_runs,
        "the command's group {group:?} outlived its killed supervisor"
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let killed = crate::common::step(&ran.report, "killed");
    assert_eq!(killed["outcome"], "failed", "{killed}");
    assert_eq!(
        killed["error"]["message"],
        format!(
            "the command's supervisor (pid {supervisor}) was killed by signal 9 while the command ran; runner ended the command's process group ({})",
            group[0]
        ),
        "{killed}"
    );
}
