//! A sub-flow's `finally` inside a `group` whose `timeout` ran out: it runs, however deep, with
//! a grace of its own past the group's time (as after an interrupt), bounded by that grace; the
//! flow still fails with the group's timeout.

use std::time::{Duration, Instant};

use crate::common::{Ran, flow_run, write};

/// `f.yaml`: a group of 1 s around a group around `run_flow: _mid.yaml`, which runs
/// `_sub.yaml` (a 5 s sleep); both sub-flows clean up in `finally`, the top flow too.
fn nested(dir: &std::path::Path, sub_finally: &str) {
    write(
        dir,
        "f.yaml",
        r#"name: top
steps:
  - group:
      name: outer
      steps:
        - group:
            name: inner
            steps:
              - run_flow: { path: _mid.yaml }
    timeout: 1s
finally:
  - exec: { command: "echo top > top.txt", shell: true }
"#,
    );
    write(
        dir,
        "_mid.yaml",
        r#"name: mid
steps:
  - run_flow: { path: _sub.yaml }
finally:
  - exec: { command: "echo mid > mid.txt", shell: true }
"#,
    );
    write(
        dir,
        "_sub.yaml",
        &format!("name: sub\nsteps:\n  - exec: [\"sleep\", \"5\"]\nfinally:\n{sub_finally}"),
    );
}

/// The flow failed with the group's timeout, named as such.
fn failed_by_the_group(ran: &Ran) {
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    let outer = &ran.report["flows"][0]["steps"][0];
    assert_eq!(outer["outcome"], "failed", "{outer}");
    assert_eq!(outer["error"]["kind"], "timeout", "{outer}");
    let message = outer["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("sub-flow `sub` failed at step `exec sleep 5`")
            && message.ends_with("(the `group`'s `timeout` of 1s ran out)"),
        "{message}"
    );
    assert_eq!(ran.report["flows"][0]["status"], "failed");
}

#[test]
fn a_sub_flows_finally_runs_after_the_groups_time_ran_out_at_every_depth() {
    let d = tempfile::tempdir().unwrap();
    nested(
        d.path(),
        "  - exec: { command: \"sleep 0.3; echo cleaned > cleaned.txt\", shell: true }\n",
    );
    let ran = flow_run(d.path())
        .arg("f.yaml")
        .run_within(Duration::from_secs(30));
    failed_by_the_group(&ran);
    for (file, text) in [
        ("cleaned.txt", "cleaned"),
        ("mid.txt", "mid"),
        ("top.txt", "top"),
    ] {
        let written = std::fs::read_to_string(d.path().join(file));
        assert_eq!(
            written.ok().as_deref().map(str::trim),
            Some(text),
            "{file}: {}",
            ran.stderr
        );
    }
    assert!(!ran.stderr.contains("not started"), "{}", ran.stderr);
}

#[test]
fn a_finally_past_the_groups_time_has_its_grace_and_no_more() {
    let d = tempfile::tempdir().unwrap();
    // A cleanup longer than the engine's own margin past a step's time (5 s), then one that
    // hangs: the first is done, the second cut at the grace's end (10 s after `finally` began).
    nested(
        d.path(),
        "  - exec: { command: \"sleep 6; echo cleaned > cleaned.txt\", shell: true }\n  - exec: [\"sleep\", \"100\"]\n",
    );
    let started = Instant::now();
    let ran = flow_run(d.path())
        .arg("f.yaml")
        .run_within(Duration::from_secs(40));
    let took = started.elapsed();
    failed_by_the_group(&ran);
    assert!(
        d.path().join("cleaned.txt").exists(),
        "the long cleanup was cut: {}",
        ran.stderr
    );
    assert!(took < Duration::from_secs(20), "took {took:?}");
    // The sub-flow's steps: its sleep, its cleanup, the hanging step cut by the grace.
    let sub = &ran.report["flows"][0]["steps"][0]["steps"][0]["steps"][0]["steps"][0]["steps"];
    let hang = &sub[2];
    assert_eq!(hang["name"], "exec sleep 100", "{sub}");
    assert_eq!(hang["finally"], true, "{hang}");
    assert_eq!(hang["error"]["kind"], "timeout", "{hang}");
    // The flows around it still cleaned up, within their own grace.
    assert!(d.path().join("mid.txt").exists(), "{}", ran.stderr);
    assert!(d.path().join("top.txt").exists(), "{}", ran.stderr);
}

#[test]
fn a_run_flows_own_timeout_ends_its_steps_and_its_finally_still_runs() {
    let d = tempfile::tempdir().unwrap();
    nested(
        d.path(),
        "  - exec: { command: \"echo cleaned > cleaned.txt\", shell: true }\n",
    );
    write(
        d.path(),
        "f.yaml",
        "name: top\nsteps:\n  - run_flow: { path: _sub.yaml }\n    timeout: 1s\n",
    );
    let started = Instant::now();
    let ran = flow_run(d.path())
        .arg("f.yaml")
        .run_within(Duration::from_secs(30));
    // Its 5 s sleep was cut at the step's 1 s, not let run to its end.
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    let step = &ran.report["flows"][0]["steps"][0];
    assert_eq!(step["error"]["kind"], "timeout", "{step}");
    let message = step["error"]["message"].as_str().unwrap();
    assert!(
        message
            .starts_with("sub-flow `sub` failed at step `exec sleep 5`: command timed out after ")
            && message.ends_with("(the `run_flow`'s `timeout` of 1s ran out)"),
        "{message}"
    );
    assert!(d.path().join("cleaned.txt").exists(), "{}", ran.stderr);
}

#[test]
fn a_retried_step_inside_a_group_stops_at_the_groups_time() {
    // The group's 2 s cap all its steps' attempts and the waits between them: a step failing
    // at once with 20 s between retries ends when the group's time does, as a timeout.
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        r#"name: top
steps:
  - group:
      name: g
      steps:
        - exec: ["false"]
          retry: { attempts: 3, delay: 20s }
    timeout: 2s
"#,
    );
    let started = Instant::now();
    let ran = flow_run(d.path())
        .arg("f.yaml")
        .run_within(Duration::from_secs(60));
    let took = started.elapsed();
    assert!(took < Duration::from_secs(12), "took {took:?}");
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    let group = &ran.report["flows"][0]["steps"][0];
    assert_eq!(group["error"]["kind"], "timeout", "{group}");
    let retried = &group["steps"][0];
    assert_eq!(retried["error"]["kind"], "timeout", "{retried}");
    assert_eq!(retried["attempts"], 1, "{retried}");
}
