//! The command line: exit codes, sharding, tags, dry runs, validation of good files.

use serde_json::Value;

use crate::common::{Ran, all_gone, flow_run, output, root, runner, write};

/// Flows `--fail-fast` never started are in every report as skipped, not left out: a JUnit
/// dashboard showed 1 test of a 3-flow run (`tests="1" skipped="0"`) while the console said
/// 2 skipped.
#[test]
fn flows_never_started_are_reported_as_skipped() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "a.yaml", "name: a\nsteps:\n  - exec: \"false\"\n");
    write(d.path(), "b.yaml", "name: b\nsteps:\n  - exec: \"true\"\n");
    write(d.path(), "c.yaml", "name: c\nsteps:\n  - exec: \"true\"\n");
    let Ran {
        code,
        stderr,
        report,
        ..
    } = flow_run(d.path())
        .args(["a.yaml", "b.yaml", "c.yaml", "--fail-fast"])
        .args(["--report", "junit=j.xml", "--report", "html=h"])
        .run();
    assert_eq!(code, 1, "{stderr}");
    let flows: Vec<(&str, &str)> = report["flows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["name"].as_str().unwrap(), f["status"].as_str().unwrap()))
        .collect();
    assert_eq!(flows, [("a", "failed"), ("b", "skipped"), ("c", "skipped")]);
    assert_eq!(
        report["flows"][1]["error"]["message"],
        "not run: --fail-fast stopped the run after a failure"
    );
    assert_eq!(report["summary"]["skipped"], 2);
    assert_eq!(report["summary"]["total"], 3);
    let junit = std::fs::read_to_string(d.path().join("j.xml")).unwrap();
    let doc = roxmltree::Document::parse(&junit).unwrap();
    let suites = doc.root_element();
    assert_eq!(suites.attribute("tests"), Some("3"), "{junit}");
    assert_eq!(suites.attribute("skipped"), Some("2"), "{junit}");
    let skipped: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase") && n.children().any(|c| c.has_tag_name("skipped")))
        .map(|n| n.attribute("name").unwrap())
        .collect();
    assert_eq!(skipped, ["b", "c"], "{junit}");
    let html = std::fs::read_to_string(d.path().join("h/index.html")).unwrap();
    assert!(html.contains("not run: --fail-fast stopped the run after a failure"));
    // Merged (as a shard's report would be), the counts stay the run's.
    let mut c = runner(d.path());
    c.args([
        "merge-reports",
        "report.json",
        "--report",
        "json=merged.json",
    ]);
    let (code, _, stderr) = output(c);
    // The merged run has a flow that did not pass: exit 1, its reports written.
    assert_eq!(code, 1, "{stderr}");
    let merged: Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("merged.json")).unwrap())
            .unwrap();
    assert_eq!(merged["summary"], {
        let mut s = report["summary"].clone();
        s["duration_ms"] = merged["summary"]["duration_ms"].clone();
        s
    });
    assert_eq!(merged["flows"].as_array().unwrap().len(), 3);
    // On GitHub, only the failure that stopped the run is annotated.
    let mut c = runner(d.path());
    c.args([
        "run",
        "a.yaml",
        "b.yaml",
        "--fail-fast",
        "--format",
        "github",
    ]);
    let (_, stdout, _) = output(c);
    assert_eq!(stdout.matches("::error ").count(), 1, "{stdout}");
}

#[test]
fn exit_codes() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "ok.yaml", "name: ok\nsteps:\n  - log: hi\n");
    write(
        d.path(),
        "fail.yaml",
        "name: fail\nsteps:\n  - exec: [\"false\"]\n",
    );
    write(d.path(), "bad.yaml", "name: bad\nsteps:\n  - lgo: hi\n");
    write(
        d.path(),
        "agent.yaml",
        "name: agent\nsteps:\n  - agent: { profile: missing-bin, prompt: hi }\n",
    );
    // An agent profile whose binary is not installed: an environment problem.
    std::fs::create_dir(d.path().join("profiles")).unwrap();
    write(
        &d.path().join("profiles"),
        "missing.toml",
        "label = \"missing-bin\"\nexecutor_type = \"MISSING\"\nkind = \"generic\"\n[command]\nbinary = \"runner-test-no-such-agent\"\n",
    );
    let code = |args: &[&str]| {
        let mut c = runner(d.path());
        c.args(args);
        output(c).0
    };
    assert_eq!(code(&["run", "ok.yaml"]), 0);
    assert_eq!(code(&["run", "fail.yaml"]), 1);
    assert_eq!(code(&["run", "bad.yaml"]), 2);
    assert_eq!(code(&["run", "missing.yaml"]), 2);
    assert_eq!(code(&["run", "ok.yaml", "--shard", "3/2"]), 2);
    assert_eq!(code(&["run", "ok.yaml", "--var", "novalue"]), 2);
    assert_eq!(code(&["frobnicate"]), 2);
    assert_eq!(code(&["run", "agent.yaml"]), 3);
    assert_eq!(code(&["validate", "ok.yaml", "fail.yaml", "agent.yaml"]), 0);
    assert_eq!(code(&["validate", "bad.yaml"]), 2);
    assert_eq!(code(&["--version"]), 0);
}

#[test]
fn invalid_flows_run_nothing() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "a.yaml",
        "name: a\nsteps:\n  - exec: { command: \"touch ran\", shell: true }\n",
    );
    write(
        d.path(),
        "b.yaml",
        "name: b\nsteps:\n  - log: \"{{ vars.nope }}\"\n",
    );
    let mut c = runner(d.path());
    c.args(["run", "."]);
    let (code, _, stderr) = output(c);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("b.yaml:3:14: error: unknown var `nope`"),
        "{stderr}"
    );
    assert!(
        !d.path().join("ran").exists(),
        "a flow ran although another was invalid"
    );
}

#[test]
fn interrupt_stops_children_and_exits_130() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "long.yaml",
        r#"
name: long
steps:
  - exec: { command: 'sleep 300 & echo $! > child.pid; wait', shell: true }
    timeout: 5m
"#,
    );
    let mut c = runner(d.path());
    c.args(["run", "long.yaml", "--report", "json=r.json"]);
    c.stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let child = c.spawn().unwrap();
    let pidfile = d.path().join("child.pid");
    crate::common::wait_for_file(&pidfile);
    let grandchild: i32 = crate::common::read_pid(&pidfile);
    crate::common::interrupt(child);
    assert!(
        !crate::common::pid_alive(grandchild),
        "the step's child outlived runner"
    );
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("r.json")).unwrap()).unwrap();
    assert_eq!(r["flows"][0]["status"], "interrupted");
}

/// A run with a step whose shell and background child write their pids; returns the runner.
fn start_long_run(dir: &std::path::Path) -> (std::process::Child, i32, i32) {
    write(
        dir,
        "long.yaml",
        r#"
name: long
steps:
  - exec: { command: 'echo $$ > shell.pid; sleep 300 & echo $! > child.pid; wait', shell: true }
    timeout: 5m
finally:
  - exec: { command: 'echo cleaned > cleaned.txt', shell: true }
"#,
    );
    let mut c = runner(dir);
    c.args(["run", "long.yaml", "--report", "json=r.json"]);
    c.stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let child = c.spawn().unwrap();
    crate::common::wait_for_file(&dir.join("child.pid"));
    crate::common::wait_for_file(&dir.join("shell.pid"));
    let shell = crate::common::read_pid(&dir.join("shell.pid"));
    let grandchild = crate::common::read_pid(&dir.join("child.pid"));
    (child, shell, grandchild)
}

#[test]
fn kill_9_of_runner_leaves_no_process_behind() {
    let d = tempfile::tempdir().unwrap();
    let (child, shell, grandchild) = start_long_run(d.path());
    crate::common::kill_9(child);
    assert!(
        all_gone(&[shell, grandchild]),
        "after kill -9 of runner, its step's processes {shell} and {grandchild} live on"
    );
}

/// `runner __bound PID -- PROGRAM` (how runner starts Chromium) becomes PROGRAM and dies with its
/// parent by itself, with no guardian: here its parent, a shell, is killed with SIGKILL.
#[test]
fn a_bound_program_dies_with_its_parent() {
    let d = tempfile::tempdir().unwrap();
    let bin = env!("CARGO_BIN_EXE_runner");
    let shell = std::process::Command::new("sh")
        .args([
            "-c",
            r#""$0" __bound $$ -- sleep 60 & echo $! > bound.pid; wait"#,
            bin,
        ])
        .current_dir(d.path())
        .spawn()
        .unwrap();
    crate::common::wait_for_file(&d.path().join("bound.pid"));
    let bound = crate::common::read_pid(&d.path().join("bound.pid"));
    let comm = || std::fs::read_to_string(format!("/proc/{bound}/comm")).unwrap_or_default();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while comm().trim() != "sleep" && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(
        comm().trim(),
        "sleep",
        "`__bound` did not become its program"
    );
    crate::common::kill_9(shell);
    let gone = all_gone(&[bound]);
    let _ = nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(bound),
        nix::sys::signal::Signal::SIGKILL,
    );
    assert!(gone, "the bound program {bound} outlived its parent");
}

#[test]
fn sighup_is_an_interrupt_like_sigterm() {
    let d = tempfile::tempdir().unwrap();
    let (child, shell, grandchild) = start_long_run(d.path());
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGHUP,
    )
    .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    assert!(all_gone(&[shell, grandchild]));
    // `finally` ran on the interrupt.
    assert!(d.path().join("cleaned.txt").exists());
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("r.json")).unwrap()).unwrap();
    assert_eq!(r["flows"][0]["status"], "interrupted");
}

#[test]
fn shards_split_deterministically() {
    let d = tempfile::tempdir().unwrap();
    for i in 0..7 {
        write(
            d.path(),
            &format!("f{i}.yaml"),
            &format!("name: flow {i}\nsteps:\n  - log: {i}\n"),
        );
    }
    let names = |shard: &str| {
        let mut c = runner(d.path());
        c.args(["run", ".", "--dry-run", "--shard", shard]);
        let (code, stdout, _) = output(c);
        assert_eq!(code, 0);
        stdout
            .lines()
            .filter(|l| l.starts_with("flow "))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    // More shards than flows: the empty ones pass.
    let mut c = runner(d.path());
    c.args(["run", ".", "--shard", "9/9"]);
    let (code, _, stderr) = output(c);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("no flows in this shard"), "{stderr}");
    let all: Vec<Vec<String>> = (1..=3).map(|i| names(&format!("{i}/3"))).collect();
    assert_eq!(all[0].len() + all[1].len() + all[2].len(), 7);
    let mut union: Vec<String> = all.concat();
    union.sort();
    union.dedup();
    assert_eq!(union.len(), 7, "shards overlap or miss flows");
    assert_eq!(
        names("2/3"),
        all[1],
        "the same shard twice gives the same flows"
    );
}

/// A 7-flow suite: passes, a failure, a flaky flow (fails once, then passes), an environment
/// error (a missing secret).
fn suite(dir: &std::path::Path) {
    for i in 0..7 {
        let steps = match i {
            3 => "  - exec: \"false\"\n".to_string(),
            5 => "  - exec: { command: \"test -f marker || { touch marker; exit 1; }\", shell: true }\n    retry: 2\n"
                .to_string(),
            _ => format!("  - exec: \"echo {i}\"\n"),
        };
        let secrets = if i == 6 {
            "secrets: [MERGE_TEST_NOPE]\n"
        } else {
            ""
        };
        write(
            dir,
            &format!("f{i}.yaml"),
            &format!("name: flow {i}\n{secrets}steps:\n{steps}"),
        );
    }
}

/// A JSON report's flows as (file name, flow name, status, flaky), and its counts but time.
fn flows_and_counts(path: &std::path::Path) -> (Vec<(String, String, String, bool)>, Value) {
    let r: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let flows = r["flows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let file = std::path::Path::new(f["file"].as_str().unwrap());
            (
                file.file_name().unwrap().to_string_lossy().into_owned(),
                f["name"].as_str().unwrap().to_string(),
                f["status"].as_str().unwrap().to_string(),
                f["flaky"].as_bool().unwrap(),
            )
        })
        .collect();
    let mut counts = r["summary"].clone();
    counts.as_object_mut().unwrap().remove("duration_ms");
    (flows, counts)
}

#[test]
fn merged_shard_reports_equal_the_unsharded_run() {
    let whole = tempfile::tempdir().unwrap();
    suite(whole.path());
    let mut c = runner(whole.path());
    c.args(["run", ".", "--report", "json=all.json"]);
    let (code, _, stderr) = output(c);
    assert_eq!(code, 3, "{stderr}");
    let sharded = tempfile::tempdir().unwrap();
    suite(sharded.path());
    for i in 1..=3 {
        let mut c = runner(sharded.path());
        c.args(["run", ".", "--shard", &format!("{i}/3")])
            .args(["--report", &format!("json=shards/{i}/report.json")]);
        output(c);
    }
    let mut c = runner(sharded.path());
    c.args(["merge-reports", "shards"])
        .args([
            "--report",
            "json=merged.json",
            "--report",
            "junit=merged.xml",
        ])
        .args(["--report", "html=merged-html"]);
    let (code, _, stderr) = output(c);
    // The merged run has a flow that did not pass: exit 1, its reports written.
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("merged 3 report(s): 7 flows"), "{stderr}");
    let (all, all_counts) = flows_and_counts(&whole.path().join("all.json"));
    let (merged, merged_counts) = flows_and_counts(&sharded.path().join("merged.json"));
    assert_eq!(merged, all);
    assert_eq!(merged_counts, all_counts);
    assert_eq!(all_counts["skipped"], 0, "{all_counts}");
    assert!(
        all.iter().any(|f| f.3),
        "the suite has a flaky flow: {all:?}"
    );
    // JUnit and HTML are written from the merged document as a run writes them.
    let xml = std::fs::read_to_string(sharded.path().join("merged.xml")).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let cases = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .count();
    let failures = doc
        .descendants()
        .filter(|n| n.has_tag_name("failure"))
        .count();
    let errors = doc
        .descendants()
        .filter(|n| n.has_tag_name("error"))
        .count();
    let reruns = doc
        .descendants()
        .filter(|n| n.has_tag_name("flakyFailure"))
        .count();
    assert_eq!((cases, failures, errors, reruns), (7, 1, 1, 1), "{xml}");
    let html = std::fs::read_to_string(sharded.path().join("merged-html/index.html")).unwrap();
    assert!(html.contains("5 of 7 flows passed"), "{html}");

    // The same shard twice, or a file that is not a report, is refused, and nothing written.
    let mut c = runner(sharded.path());
    c.args([
        "merge-reports",
        "shards/1/report.json",
        "shards/1/report.json",
    ])
    .args(["--report", "json=twice.json"]);
    let (code, _, stderr) = output(c);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("give each shard's report once"), "{stderr}");
    assert!(!sharded.path().join("twice.json").exists());
    write(sharded.path(), "bad.json", "{\"flows\": 3}");
    let mut c = runner(sharded.path());
    c.args(["merge-reports", "bad.json", "--report", "json=x.json"]);
    let (code, _, stderr) = output(c);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("bad.json is not a runner JSON report"),
        "{stderr}"
    );
}

/// A shard's report is input from outside: a flow status (or a step's outcome) runner does not
/// write is refused, exit 2, nothing written; it never reaches the HTML raw.
#[test]
fn merge_reports_refuses_a_status_runner_never_writes() {
    let d = tempfile::tempdir().unwrap();
    let flow = |status: &str, outcome: &str| {
        format!(
            r#"{{"run_id":"r","summary":{{"total":1,"passed":0,"failed":1,"errors":0,"interrupted":0,"flaky":0,"skipped":0,"duration_ms":1}},"flows":[{{"name":"f","file":"f.yaml","status":{},"duration_ms":1,"steps":[{{"index":0,"id":null,"name":"s","action":"log","outcome":{},"conclusion":{},"attempts":1,"flaky":false,"duration_ms":0,"error":{},"location":"f.yaml:3:5","finally":false}}],"error":null,"flaky":false}}]}}"#,
            serde_json::json!(status),
            serde_json::json!(outcome),
            serde_json::json!(outcome),
            // (A failed step says why, as runner writes it: merge-reports checks that a flow's
            // status agrees with its steps.)
            if outcome == "failed" {
                r#"{"kind":"command_failed","message":"exit status 1"}"#
            } else {
                "null"
            }
        )
    };
    let script = "x\"><script>alert(1)</script>";
    for (status, outcome) in [(script, "passed"), ("failed", script)] {
        write(d.path(), "evil.json", &flow(status, outcome));
        let mut c = runner(d.path());
        c.args(["merge-reports", "evil.json", "--report", "html=out"]);
        let (code, _, stderr) = output(c);
        assert_eq!(code, 2, "{stderr}");
        assert!(
            stderr.contains("evil.json") && stderr.contains("not a status runner writes"),
            "{stderr}"
        );
        assert!(!d.path().join("out").exists(), "nothing is written");
    }
    // The statuses runner writes still merge.
    write(d.path(), "good.json", &flow("failed", "failed"));
    let mut c = runner(d.path());
    c.args(["merge-reports", "good.json", "--report", "html=out"]);
    let (code, _, stderr) = output(c);
    // The merged run has a flow that did not pass: exit 1, its reports written.
    assert_eq!(code, 1, "{stderr}");
    let html = std::fs::read_to_string(d.path().join("out/index.html")).unwrap();
    assert!(html.contains("data-status=\"failed\""), "{html}");
}

#[test]
fn github_actions_get_annotations_on_the_failing_line_and_a_job_summary() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        "name: gh flow\nsteps:\n  - exec: \"echo hi\"\n  - exec: \"false\"\n",
    );
    write(
        d.path(),
        "g.yaml",
        "name: fine, really\nsteps:\n  - exec: \"true\"\n",
    );
    let mut c = runner(d.path());
    c.env("GITHUB_ACTIONS", "true")
        .env("GITHUB_STEP_SUMMARY", d.path().join("summary.md"))
        .args(["run", "."]);
    let (code, stdout, stderr) = output(c);
    assert_eq!(code, 1, "{stderr}");
    let errors: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("::error "))
        .collect();
    assert_eq!(errors.len(), 1, "{stdout}");
    assert!(
        errors[0].starts_with("::error file=f.yaml,line=4,col=5,title=gh flow%3A step `exec false` failed::command_failed: "),
        "{stdout}"
    );
    let summary = std::fs::read_to_string(d.path().join("summary.md")).unwrap();
    assert!(
        summary.contains("### runner: 1 of 2 flows passed"),
        "{summary}"
    );
    let rows: Vec<&str> = summary
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| flow"))
        .collect();
    assert!(
        rows[0].starts_with(r"| gh flow | failed | f\.yaml | `exec false` at f\.yaml\:4\:5"),
        "{summary}"
    );
    assert!(
        rows[1].starts_with(r"| fine\, really | passed |"),
        "{summary}"
    );
    // Text from outside (a command's stderr, a flow's name) is shown as text: the job summary
    // is Markdown and GitHub renders HTML, links and images in it.
    write(
        d.path(),
        "h.yaml",
        "name: \"<b>bold</b> [x](http://evil.example)\"\nsteps:\n  - exec: [sh, -c, 'echo \"<img src=http://evil.example/p.png> **b** [c](http://evil.example)\" >&2; exit 1']\n",
    );
    std::fs::remove_file(d.path().join("summary.md")).unwrap();
    let mut c = runner(d.path());
    c.env("GITHUB_ACTIONS", "true")
        .env("GITHUB_STEP_SUMMARY", d.path().join("summary.md"))
        .args(["run", "h.yaml"]);
    let (code, _, stderr) = output(c);
    assert_eq!(code, 1, "{stderr}");
    let summary = std::fs::read_to_string(d.path().join("summary.md")).unwrap();
    let row = summary
        .lines()
        .find(|l| l.contains("bold"))
        .unwrap_or_else(|| panic!("{summary}"));
    // The step's name is a code span (shown as it is): the rest is searched.
    let parts: Vec<&str> = row.splitn(3, '`').collect();
    assert_eq!(parts.len(), 3, "{row}");
    let row = format!("{}{}", parts[0], parts[2]);
    // Every character Markdown or HTML reads is escaped (CommonMark shows `\<` as `<`).
    let b = row.as_bytes();
    for (i, c) in b.iter().enumerate() {
        if b"<>[]()*!".contains(c) {
            assert!(
                i > 0 && b[i - 1] == b'\\',
                "unescaped `{}` in {row}",
                *c as char
            );
        }
    }
    assert!(
        row.contains(r"\<img src\=http\:\/\/evil\.example\/p\.png\>"),
        "{row}"
    );
    // Not on GitHub Actions: no workflow commands, unless asked for.
    let mut c = runner(d.path());
    c.args(["run", "."]);
    let (_, stdout, _) = output(c);
    assert!(!stdout.contains("::error"), "{stdout}");
    let mut c = runner(d.path());
    c.args(["run", ".", "--format", "github"]);
    let (_, stdout, _) = output(c);
    assert!(
        stdout.contains("::error file=f.yaml,line=4,col=5,"),
        "{stdout}"
    );
}

#[test]
fn github_annotations_and_the_job_summary_carry_no_control_characters() {
    // A command's output (and a name) with a screen clear, a window title, a raw control byte.
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        r#"name: "evil\e]0;flow-title\a 100%, really: \x01flow"
steps:
  - exec:
      command: [sh, -c, 'printf %s "$OUT" >&2; exit 3']
      env: { OUT: "\e[2J\e]0;pwned-title\a\x01boom 50%\r\n" }
"#,
    );
    let mut c = runner(d.path());
    c.env("GITHUB_ACTIONS", "true")
        .env("GITHUB_STEP_SUMMARY", d.path().join("summary.md"))
        .args(["run", "."]);
    let (code, stdout, stderr) = output(c);
    assert_eq!(code, 1, "{stderr}");
    let controls = |s: &str| s.chars().any(|c| c.is_control() && c != '\n');
    let errors: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("::error "))
        .collect();
    assert_eq!(errors.len(), 1, "{stdout}");
    let error = errors[0];
    assert!(!controls(error), "{error:?}");
    // The escape sequences go whole (no `[2J`, no window title), the text stays, escaped per
    // the workflow command format: `%`, `:` and `,` in properties, `%` in the message.
    assert!(
        error.starts_with(
            "::error file=f.yaml,line=3,col=5,title=evil 100%25%2C really%3A flow%3A step "
        ),
        "{error:?}"
    );
    assert!(
        error.ends_with("::command_failed: command exited with code 3; stderr: boom 50%25"),
        "{error:?}"
    );
    let summary = std::fs::read_to_string(d.path().join("summary.md")).unwrap();
    assert!(!controls(&summary), "{summary:?}");
    assert!(
        !summary.contains("[2J") && !summary.contains("-title"),
        "{summary:?}"
    );
    assert!(
        summary.contains(r"| evil 100\%\, really\: flow | failed | f\.yaml | "),
        "{summary:?}"
    );
    assert!(summary.contains(r"stderr\: boom 50\% |"), "{summary:?}");
}

/// The JUnit XML and the HTML report show a command's output and the failure message as the
/// console does: escape sequences whole, control characters and bidirectional overrides and
/// isolates (U+202A–U+202E, U+2066–U+2069) go — a CI page that renders the JUnit message would
/// show text reordered (review of session 25, F3: they stayed there). report.json is data: it
/// keeps the text as it was (masked), for `merge-reports` to show as these do.
#[test]
fn junit_and_html_reports_carry_no_bidi_controls() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "out.sh",
        r"printf 'file\342\200\256gpj.exe\n'
printf 'ctl\033[31mRED\007bel \342\200\256RLO iso\342\201\246x\342\201\251y \342\200\252e\n' >&2
exit 1
",
    );
    write(
        d.path(),
        "f.yaml",
        "name: bidi\nsteps:\n  - exec: [sh, out.sh]\n",
    );
    let mut c = runner(d.path());
    c.args([
        "run",
        "f.yaml",
        "--report",
        "junit=j.xml",
        "--report",
        "html=h",
        "--report",
        "json=r.json",
    ]);
    let (code, _, stderr) = output(c);
    assert_eq!(code, 1, "{stderr}");
    let bidi = |c: char| matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
    for file in ["j.xml", "h/index.html"] {
        let text = std::fs::read_to_string(d.path().join(file)).unwrap();
        let shown: Vec<char> = text
            .chars()
            .filter(|&c| bidi(c) || c == '\u{1b}' || c == '\u{7}')
            .collect();
        assert!(shown.is_empty(), "{file}: {shown:?}");
        // (The HTML report's view of the outputs as JSON shows the ESC escaped, `\u001b`.)
        if file.ends_with("xml") {
            assert!(!text.contains("[31m"), "{file}");
        }
        // The text around them stays (the JUnit XML shows the failure, stderr in it; the HTML
        // report stdout too).
        assert!(text.contains("ctlREDbel RLO isoxy e"), "{file}");
        if file.ends_with("html") {
            assert!(text.contains("filegpj.exe"), "{file}");
        }
    }
    let json = std::fs::read_to_string(d.path().join("r.json")).unwrap();
    assert!(
        json.contains('\u{202e}'),
        "report.json keeps the data as it was"
    );
}

/// On GitHub Actions a line that starts with `::` (after spaces) is a workflow command:
/// `::stop-commands::TOKEN` would turn off every annotation after it. A name is one line (its
/// line feeds, carriage returns and Unicode line separators become spaces), and no line runner
/// prints from text it did not make (a command's output in an error, a name) starts with `::`;
/// its own annotations do.
#[test]
fn no_line_runner_prints_on_github_actions_is_a_workflow_command_but_its_own() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "gh.yaml",
        r#"name: "ok\n::warning::flow-name\r::notice::cr"
steps:
  - id: a
    exec: ["printf", "x\n::stop-commands::tok123\n"]
  - name: "check {{ steps.a.stdout }}"
    exec: ["false"]
    continue_on_error: true
  - exec: { command: ["false"], cwd: "{{ steps.a.stdout }}" }
    continue_on_error: true
  - name: "lit\u2028::notice::lit\u2029::notice::par"
    exec: [sh, -c, 'printf "first\n::error::from-stderr\n  ::add-mask::x\n" >&2; exit 3']
    retry: { attempts: 2, delay: 10ms }
"#,
    );
    let mut c = runner(d.path());
    c.env("GITHUB_ACTIONS", "true")
        .env("GITHUB_STEP_SUMMARY", d.path().join("summary.md"))
        .args(["run", "gh.yaml"]);
    let (code, stdout, stderr) = output(c);
    assert_eq!(code, 1, "{stderr}");
    // Each name is on one line, as written.
    for name in [
        "check x ::stop-commands::tok123 (",
        "lit ::notice::lit ::notice::par (",
        "ok ::warning::flow-name ::notice::cr failed in ",
        "lit ::notice::lit ::notice::par: attempt 1 failed",
    ] {
        assert!(stderr.contains(name), "no `{name}` in:\n{stderr}");
    }
    // Text from outside is still shown, not as commands: an error message's line that starts
    // with `::` (the working directory named by the command's output) gets a `·` before it.
    assert!(stderr.contains("from-stderr"), "{stderr}");
    assert!(
        stderr.contains("\n      ·::stop-commands::tok123 does not exist"),
        "{stderr}"
    );
    for (what, text) in [("stdout", &stdout), ("stderr", &stderr)] {
        for line in text.lines() {
            let command = line.trim_start().starts_with("::");
            let own = what == "stdout" && line.starts_with("::error file=gh.yaml,");
            assert!(
                !command || own,
                "a workflow command in {what}: {line:?}\n{text}"
            );
        }
    }
    assert_eq!(
        stdout.lines().filter(|l| l.starts_with("::error ")).count(),
        1,
        "{stdout}"
    );
}

#[test]
fn grep_list_repeat_retries_and_pass_with_no_flows() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "a.yaml",
        "name: login works\nsteps:\n  - exec: \"true\"\n",
    );
    write(
        d.path(),
        "b.yaml",
        "name: login fails\nsteps:\n  - exec: \"false\"\n",
    );
    // Fails on its first run, passes on the next (a file remembers).
    write(
        d.path(),
        "c.yaml",
        "name: search\nsteps:\n  - exec: { command: \"echo run >> runs; [ $(wc -l < runs) -ge 2 ]\", shell: true }\n",
    );
    let run = |args: &[&str]| {
        let mut c = runner(d.path());
        c.arg("run").args(args);
        output(c)
    };
    let (code, out, err) = run(&[".", "--list", "--grep", "^login"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "a.yaml: login works\nb.yaml: login fails\n");
    let (_, out, _) = run(&[".", "--list", "--grep", "login", "--grep-invert", "fails"]);
    assert_eq!(out, "a.yaml: login works\n");
    let (code, _, err) = run(&[".", "--grep", "(unclosed"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--grep `(unclosed` is not a regular expression"),
        "{err}"
    );
    let (code, _, err) = run(&[".", "--grep", "nothing like it"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = run(&[".", "--grep", "nothing like it", "--pass-with-no-flows"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        std::fs::read_dir(d.path())
            .unwrap()
            .all(|e| e.unwrap().file_name() != "runs"),
        "nothing ran"
    );

    // --repeat-each: every run is a result of its own.
    let (code, _, err) = run(&["a.yaml", "--repeat-each", "3", "--report", "json=r.json"]);
    assert_eq!(code, 0, "{err}");
    let r: Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("r.json")).unwrap()).unwrap();
    let names: Vec<&str> = r["flows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "login works [1/3]",
            "login works [2/3]",
            "login works [3/3]"
        ]
    );
    assert_eq!(r["summary"]["total"], 3);
    assert_eq!(r["summary"]["passed"], 3);

    // --retries: a flow that passes on its second run is flaky, and keeps why the first failed.
    let (code, _, err) = run(&[
        "c.yaml",
        "--retries",
        "1",
        "--report",
        "json=c.json",
        "--report",
        "junit=c.xml",
    ]);
    assert_eq!(code, 0, "{err}");
    let r: Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("c.json")).unwrap()).unwrap();
    let f = &r["flows"][0];
    assert_eq!(
        (f["status"].as_str(), f["flaky"].as_bool()),
        (Some("passed"), Some(true)),
        "{f}"
    );
    assert!(
        f["retry_errors"][0]["message"]
            .as_str()
            .unwrap()
            .starts_with("step `exec"),
        "{f}"
    );
    assert_eq!(r["summary"]["flaky"], 1);
    let xml = std::fs::read_to_string(d.path().join("c.xml")).unwrap();
    assert!(
        xml.contains("<flakyFailure") && xml.contains("run 1 of the flow failed"),
        "{xml}"
    );
    // A flow that always fails runs 1 + N times and fails; without --retries, once.
    let (code, _, _) = run(&["b.yaml", "--retries", "2", "--report", "json=b.json"]);
    assert_eq!(code, 1);
    let r: Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("b.json")).unwrap()).unwrap();
    assert_eq!(
        r["flows"][0]["retry_errors"].as_array().unwrap().len(),
        2,
        "{r}"
    );
    assert_eq!(
        r["flows"].as_array().unwrap().len(),
        1,
        "one result per flow"
    );
}

#[test]
fn a_project_file_gives_defaults_the_command_line_overrides() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "runner.toml",
        "flows = [\"flows\"]\njobs = 2\nreports = [\"json=out/report.json\"]\n\n[vars]\ngreeting = \"hello from the project\"\n",
    );
    std::fs::create_dir_all(d.path().join("flows")).unwrap();
    write(
        d.path(),
        "flows/a.yaml",
        "name: uses the project's var\nsteps:\n  - exec: \"echo {{ vars.greeting }}\"\n",
    );
    write(
        d.path(),
        "flows/b.yaml",
        "name: has its own\nvars:\n  greeting: its own\nsteps:\n  - exec: \"echo {{ vars.greeting }}\"\n",
    );
    let stdout_of = |report: &std::path::Path| -> Vec<String> {
        let r: Value = serde_json::from_str(&std::fs::read_to_string(report).unwrap()).unwrap();
        r["flows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                f["steps"][0]["outputs"]["stdout"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect()
    };
    // No paths, no --report: the project file's.
    let mut c = runner(d.path());
    c.arg("run");
    let (code, _, stderr) = output(c);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stdout_of(&d.path().join("out/report.json")),
        ["hello from the project", "its own"]
    );
    // `validate` knows the project's vars, and checks its flows.
    let mut c = runner(d.path());
    c.arg("validate");
    let (code, _, stderr) = output(c);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("ok: 2 files valid"), "{stderr}");
    // Found from a directory below it; its paths stay relative to the file.
    let mut c = runner(&d.path().join("flows"));
    c.args(["run", "--list"]);
    let (code, out, stderr) = output(c);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(out.lines().count(), 2, "{out}");
    // The command line wins: --var over the project's vars, --report over its reports.
    let mut c = runner(d.path());
    c.args([
        "run",
        "flows/a.yaml",
        "--var",
        "greeting=from the command line",
    ])
    .args(["--report", "json=cli.json"]);
    let (code, _, stderr) = output(c);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stdout_of(&d.path().join("cli.json")),
        ["from the command line"]
    );
    // A misspelt setting is refused, pointing at its line.
    write(d.path(), "runner.toml", "flows = [\"flows\"]\njobz = 2\n");
    let mut c = runner(d.path());
    c.arg("run");
    let (code, _, stderr) = output(c);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("runner.toml:2"), "{stderr}");
    assert!(stderr.contains("jobz"), "{stderr}");
    // Its jobs and retries are used: two flows that each wait for the other to start pass only
    // when they run at once (jobs = 2), and a flow that fails once passes on its retry, flaky.
    let meet = |me: &str, other: &str| {
        format!(
            "name: meet {me}\nsteps:\n  - exec: {{ command: \"touch {me}; for i in $(seq 50); do [ -f {other} ] && exit 0; sleep 0.1; done; exit 1\", shell: true }}\n"
        )
    };
    std::fs::create_dir_all(d.path().join("pair")).unwrap();
    write(d.path(), "pair/a.yaml", &meet("a", "b"));
    write(d.path(), "pair/b.yaml", &meet("b", "a"));
    write(
        d.path(),
        "pair/c.yaml",
        "name: once\nsteps:\n  - exec: { command: \"[ -f c ] || { touch c; exit 1; }\", shell: true }\n",
    );
    write(
        d.path(),
        "runner.toml",
        "flows = [\"pair\"]\njobs = 2\nretries = 1\nreports = [\"json=pair.json\"]\n",
    );
    let mut c = runner(d.path());
    c.arg("run");
    let (code, _, stderr) = output(c);
    assert_eq!(code, 0, "{stderr}");
    let r: Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("pair.json")).unwrap())
            .unwrap();
    assert_eq!(r["summary"]["passed"], 3, "{r}");
    assert_eq!(r["summary"]["flaky"], 1, "{r}");
    // Its timeouts apply to flows that set none.
    write(
        d.path(),
        "runner.toml",
        "flows = [\"slow\"]\ntimeout = \"1s\"\n",
    );
    std::fs::create_dir_all(d.path().join("slow")).unwrap();
    write(
        d.path(),
        "slow/s.yaml",
        "name: slow\nsteps:\n  - exec: \"sleep 5\"\n",
    );
    let mut c = runner(d.path());
    c.arg("run");
    let started = std::time::Instant::now();
    let (code, _, stderr) = output(c);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("timed out after 1s"), "{stderr}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(5),
        "the 1s timeout applied"
    );
    let mut c = runner(d.path());
    c.args(["schema", "config"]);
    let (code, out, _) = output(c);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        std::fs::read_to_string(root().join("schemas/config.schema.json")).unwrap()
    );
}

#[test]
fn tags_filter_flows() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "a.yaml",
        "name: a\ntags: [smoke]\nsteps:\n  - log: a\n",
    );
    write(
        d.path(),
        "b.yaml",
        "name: b\ntags: [slow]\nsteps:\n  - log: b\n",
    );
    let Ran {
        code,
        stderr,
        report: r,
        ..
    } = flow_run(d.path()).args([".", "--tag", "smoke"]).run();
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(r["flows"].as_array().unwrap().len(), 1);
    assert_eq!(r["flows"][0]["name"], "a");
    let mut c = runner(d.path());
    c.args(["run", ".", "--exclude-tag", "smoke", "--dry-run"]);
    let (_, stdout, _) = output(c);
    assert!(
        stdout.contains("b (") && !stdout.contains("a ("),
        "{stdout}"
    );
}

#[test]
fn vars_from_the_command_line_and_files() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "v.yaml",
        "name: v\nvars:\n  who: default\n  greeting: \"hi {{ vars.who }}\"\nsteps:\n  - expect: { that: \"{{ vars.greeting == 'hi cli' and vars.extra == 'from file' }}\" }\n",
    );
    write(d.path(), "vars.env", "# comment\nextra=\"from file\"\n");
    let mut c = runner(d.path());
    c.args([
        "run",
        "v.yaml",
        "--var",
        "who=cli",
        "--var-file",
        "vars.env",
        "--var",
        "whom=typo",
    ]);
    let (code, _, stderr) = output(c);
    assert_eq!(code, 0, "{stderr}");
    // A var no flow uses is most likely misspelled: a warning, the run goes on.
    assert!(
        stderr.contains("warning: --var whom is not used by any flow"),
        "{stderr}"
    );
    assert!(!stderr.contains("--var who "), "{stderr}");
}

#[test]
fn run_help_lists_every_report_kind() {
    let mut c = runner(&root());
    c.args(["run", "--help"]);
    let (code, stdout, _) = output(c);
    assert_eq!(code, 0);
    assert!(
        stdout.contains("junit=PATH, json=PATH, html=DIR"),
        "{stdout}"
    );
}

#[test]
fn parallel_jobs_do_not_interleave() {
    let d = tempfile::tempdir().unwrap();
    for i in 0..4 {
        write(
            d.path(),
            &format!("f{i}.yaml"),
            &format!(
                "name: flow{i}\nsteps:\n  - log: start{i}\n  - exec: [sleep, \"0.2\"]\n  - log: end{i}\n"
            ),
        );
    }
    let Ran { code, stderr, .. } = flow_run(d.path()).args([".", "--jobs", "2"]).run();
    assert_eq!(code, 0, "{stderr}");
    for i in 0..4 {
        let lines: Vec<&str> = stderr.lines().collect();
        let start = lines
            .iter()
            .position(|l| l.starts_with(&format!("▶ flow{i} ")))
            .unwrap();
        let end = lines
            .iter()
            .position(|l| l.contains(&format!("flow{i} passed")))
            .unwrap();
        assert!(
            lines[start..end]
                .iter()
                .all(|l| !l.contains("flow") || l.contains(&format!("flow{i}"))),
            "flow{i}'s lines are interleaved:\n{stderr}"
        );
    }
}

#[test]
fn shipped_workflows_and_profiles_validate() {
    let mut c = runner(&root());
    c.args(["validate", "workflows", "profiles"]);
    let (code, _, stderr) = output(c);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn random_bytes_never_panic() {
    let d = tempfile::tempdir().unwrap();
    // A small deterministic generator: the same inputs on every run.
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let seeds = [
        "name: x\nsteps:\n  - log: hi\n",
        "name = \"x\"\n[[steps]]\nlog = \"hi\"\n",
    ];
    let mut paths = Vec::new();
    for i in 0..60 {
        let mut bytes = seeds[i % 2].as_bytes().to_vec();
        for _ in 0..(next() % 12) {
            let pos = (next() as usize) % (bytes.len() + 1);
            let b = (next() % 256) as u8;
            if next() % 2 == 0 && pos < bytes.len() {
                bytes[pos] = b;
            } else {
                bytes.insert(pos, b);
            }
        }
        let ext = if i % 2 == 0 { "yaml" } else { "toml" };
        let p = d.path().join(format!("r{i}.{ext}"));
        std::fs::write(&p, &bytes).unwrap();
        paths.push(p);
    }
    let mut c = runner(d.path());
    c.arg("validate").args(&paths);
    let (code, _, stderr) = output(c);
    assert!(code == 0 || code == 2, "exit {code}\n{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn ctrl_c_while_a_web_server_starts_is_an_interrupt() {
    let d = tempfile::tempdir().unwrap();
    let port = crate::common::free_port();
    write(
        d.path(),
        "f.yaml",
        &format!(
            "name: slow server\nweb_server:\n  command: [sh, -c, 'echo $$ > server.pid; exec sleep 300']\n  url: http://127.0.0.1:{port}/\n  ready_timeout: 2m\nsteps:\n  - log: never\n"
        ),
    );
    let mut c = runner(d.path());
    c.args(["run", "f.yaml", "--report", "json=r.json"]);
    c.stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    let child = c.spawn().unwrap();
    crate::common::wait_for_file(&d.path().join("server.pid"));
    let server = crate::common::read_pid(&d.path().join("server.pid"));
    let started = std::time::Instant::now();
    crate::common::interrupt(child);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(20),
        "the interrupt waited for ready_timeout"
    );
    assert!(all_gone(&[server]), "the server command outlived runner");
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("r.json")).unwrap()).unwrap();
    assert_eq!(r["flows"][0]["status"], "interrupted");
}

#[test]
fn endless_and_oversized_files_are_refused() {
    // A device never ends: it is refused before a byte is read, as every file runner reads
    // that is not a regular one (tests/inputs.rs has the FIFOs); a regular file past 10 MB is
    // refused by its size.
    let d = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink("/dev/urandom", d.path().join("random.yaml")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", d.path().join("zero.env")).unwrap();
    std::fs::File::create(d.path().join("big.env"))
        .unwrap()
        .set_len(11 * 1024 * 1024)
        .unwrap();
    write(d.path(), "ok.yaml", "name: ok\nsteps:\n  - log: hi\n");
    let mut c = runner(d.path());
    c.args(["validate", "random.yaml"]);
    let (code, _, stderr) = output(c);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("random.yaml: cannot read the file: it is a device, not a regular file"),
        "{stderr}"
    );
    for (file, want) in [
        ("zero.env", "it is a device, not a regular file"),
        ("big.env", "config files may be at most 10 MB"),
    ] {
        let mut c = runner(d.path());
        c.args(["run", "ok.yaml", "--var-file", file]);
        let (code, _, stderr) = output(c);
        assert_eq!(code, 2, "{stderr}");
        assert!(stderr.contains(want), "{file}: {stderr}");
    }
}

#[test]
fn doctor_names_the_browser_of_headless_runs() {
    // On this machine (after scripts/setup) everything a flow needs is there; the browser of
    // headless runs is the headless shell when installed, or the one the user named.
    let d = tempfile::tempdir().unwrap();
    let doctor = |named: Option<&str>| {
        let mut c = runner(d.path());
        c.arg("doctor");
        match named {
            Some(p) => c.env("AGENT_BROWSER_EXECUTABLE_PATH", p),
            None => c.env_remove("AGENT_BROWSER_EXECUTABLE_PATH"),
        };
        output(c)
    };
    let (code, out, err) = doctor(None);
    assert_eq!(code, 0, "{out}{err}");
    let line = out
        .lines()
        .find(|l| l.contains("headless browser:"))
        .unwrap_or_else(|| panic!("{out}"))
        .to_string();
    let shell = "/usr/lib/chromium/chromium-headless-shell";
    if std::path::Path::new(shell).is_file() {
        assert!(line.starts_with("ok ") && line.contains(shell), "{line}");
    } else {
        assert!(line.contains("the same chromium"), "{line}");
    }
    assert!(out.contains("ok   headless launch:"), "{out}");
    let (code, out, err) = doctor(Some("/usr/bin/chromium"));
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains(
            "headless browser: /usr/bin/chromium (named by AGENT_BROWSER_EXECUTABLE_PATH)"
        ),
        "{out}"
    );
}
