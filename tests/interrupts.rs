//! After an interrupt (SIGTERM, Ctrl-C), `finally` runs within one grace for the whole flow,
//! however deep its sub-flows' `finally` go, and a second interrupt ends what still runs at
//! once: `finally` steps and a server that ignores SIGTERM (twelfth attack A7: each nested
//! sub-flow's `finally` got a fresh 10 s, four levels took 40 s, a second signal changed nothing,
//! and a TERM-ignoring server held the run for its whole `stop_timeout`).

use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

use crate::common::{fixture, runner, wait_for_file, write};

fn signal(child: &Child, s: Signal) {
    kill(Pid::from_raw(child.id() as i32), s).expect("runner is alive");
}

/// Starts `runner run <args>` in `dir`, its output to files there.
fn start(dir: &Path, args: &[&str]) -> Child {
    let mut c = runner(dir);
    c.args(["run"]).args(args).args(["--artifacts", "art"]);
    c.stdout(std::fs::File::create(dir.join("out.txt")).unwrap())
        .stderr(std::fs::File::create(dir.join("err.txt")).unwrap());
    c.spawn().unwrap()
}

/// Waits (at most `limit`) for runner to exit; its exit code and how long it took.
fn ended_within(mut child: Child, limit: Duration, dir: &Path) -> (Option<i32>, Duration) {
    let since = Instant::now();
    while since.elapsed() < limit {
        if let Some(status) = child.try_wait().unwrap() {
            return (status.code(), since.elapsed());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    let err = std::fs::read_to_string(dir.join("err.txt")).unwrap_or_default();
    panic!("runner still ran {limit:?} after the signal:\n{err}");
}

#[test]
fn a_sub_flows_finally_run_by_a_finally_gets_no_grace_of_its_own() {
    let d = tempfile::tempdir().unwrap();
    // Three levels below the flow, each `finally` sleeping past the grace, then the next level.
    write(
        d.path(),
        "chain.yaml",
        "name: chain\nsteps:\n  - exec: { command: 'echo x > started; sleep 300', shell: true }\nfinally:\n  - run_flow: _c1.yaml\n",
    );
    for i in 1..=3 {
        let next = if i < 3 {
            format!("  - run_flow: _c{}.yaml\n", i + 1)
        } else {
            String::new()
        };
        // Each level's cleanup says it began.
        write(
            d.path(),
            &format!("_c{i}.yaml"),
            &format!(
                "name: c{i}\nsteps:\n  - log: c{i}\nfinally:\n  - exec: {{ command: 'echo x > cleaning-c{i}; sleep 300', shell: true }}\n{next}"
            ),
        );
    }
    let child = start(d.path(), &["chain.yaml"]);
    wait_for_file(&d.path().join("started"));
    signal(&child, Signal::SIGTERM);
    // One grace of 10 s for all three levels (30 s and more before).
    let (code, took) = ended_within(child, Duration::from_secs(60), d.path());
    assert_eq!(code, Some(130));
    assert!(
        took < Duration::from_secs(18),
        "three nested `finally` took {took:?} after SIGTERM: each got its own grace"
    );
    // The cleanup had its grace: the first level's began and ran until the grace ended.
    assert!(
        d.path().join("cleaning-c1").exists(),
        "c1's `finally` never ran"
    );
    assert!(
        took >= Duration::from_secs(9),
        "`finally` was cut after {took:?}, before its grace ended"
    );
}

#[test]
fn a_second_interrupt_ends_finally_at_once() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        "name: f\nsteps:\n  - exec: { command: 'echo x > started; sleep 300', shell: true }\nfinally:\n  - exec: { command: 'echo x > cleaning; sleep 300', shell: true }\n",
    );
    let child = start(d.path(), &["f.yaml"]);
    wait_for_file(&d.path().join("started"));
    signal(&child, Signal::SIGTERM);
    wait_for_file(&d.path().join("cleaning"));
    signal(&child, Signal::SIGINT);
    // Not the rest of the 10 s grace.
    let (code, took) = ended_within(child, Duration::from_secs(30), d.path());
    assert_eq!(code, Some(130));
    assert!(
        took < Duration::from_secs(6),
        "`finally` ran on {took:?} after a second interrupt"
    );
}

/// The second interrupt kills a `finally` command at once: it is not asked to stop first and
/// waited for (a command that ignores SIGTERM held the run 2 s more: attack 25 B14).
#[test]
fn a_second_interrupt_kills_a_finally_command_without_asking() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        "name: f\nsteps:\n  - exec: { command: 'echo x > started; sleep 300', shell: true }\nfinally:\n  - exec: { command: \"trap 'echo t > asked' TERM; echo x > cleaning; while :; do sleep 0.05; done\", shell: true }\n",
    );
    let child = start(d.path(), &["f.yaml"]);
    wait_for_file(&d.path().join("started"));
    signal(&child, Signal::SIGTERM);
    wait_for_file(&d.path().join("cleaning"));
    signal(&child, Signal::SIGINT);
    let (code, took) = ended_within(child, Duration::from_secs(30), d.path());
    assert_eq!(code, Some(130));
    assert!(
        !d.path().join("asked").exists(),
        "the command was sent SIGTERM and waited for ({took:?}) after a second interrupt"
    );
}

#[test]
fn a_second_interrupt_does_not_wait_out_a_server_that_ignores_sigterm() {
    let d = tempfile::tempdir().unwrap();
    let app = fixture("servers/app.py");
    write(
        d.path(),
        "f.yaml",
        &format!(
            "name: f\nweb_server:\n  command: [python3, \"{}\"]\n  port: auto\n  stop_timeout: 60s\n  env: {{ IGNORE_SIGTERM: \"1\" }}\nsteps:\n  - exec: {{ command: 'echo x > started; sleep 300', shell: true }}\n",
            app.display()
        ),
    );
    let child = start(d.path(), &["f.yaml"]);
    wait_for_file(&d.path().join("started"));
    signal(&child, Signal::SIGTERM);
    std::thread::sleep(Duration::from_millis(1500));
    // The first interrupt waits for the server (its `stop_timeout`): only a second cuts it.
    let mut child = child;
    assert!(
        child.try_wait().unwrap().is_none(),
        "runner did not wait for its server's stop after one interrupt"
    );
    signal(&child, Signal::SIGTERM);
    // Not its 60 s `stop_timeout`.
    let (code, took) = ended_within(child, Duration::from_secs(90), d.path());
    assert_eq!(code, Some(130));
    assert!(
        took < Duration::from_secs(6),
        "the run waited {took:?} for a server that ignores SIGTERM after a second interrupt"
    );
}
