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
