//! A shard's report is input from outside (issue 27, F6 and F10): `merge-reports` reads each
//! shard once and within a cap, counts from the flows it lists (a shard whose own counts or
//! times contradict its flows is refused), shows no path of the merging machine and no control
//! character, and reads from a shard's directory only the files runner's records name there:
//! never a dot-directory such as `.git`.

use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::common::{fixture, output, runner, write};

/// A shard's report as a run writes it: `flows` (each `(name, status)`), counts made from them.
fn shard(flows: &[(&str, &str)]) -> Value {
    let list: Vec<Value> = flows
        .iter()
        .map(|(name, status)| {
            let outcome = if *status == "passed" {
                "passed"
            } else {
                "failed"
            };
            json!({
                "name": name, "file": format!("{name}.yaml"), "status": status, "duration_ms": 40,
                "steps": [{"index": 0, "id": null, "name": "exec", "action": "exec",
                    "outcome": outcome, "conclusion": outcome, "attempts": 1, "flaky": false,
                    "duration_ms": 30, "error": null, "outputs": {"stdout": "hi"},
                    "location": format!("{name}.yaml:3:5"), "finally": false}],
                "error": null, "flaky": false, "setup_ms": 2
            })
        })
        .collect();
    let count = |s: &str| flows.iter().filter(|f| f.1 == s).count();
    json!({
        "run_id": "r1", "flows": list,
        "summary": {"total": flows.len(), "passed": count("passed"), "failed": count("failed"),
            "errors": 0, "interrupted": 0, "flaky": 0, "skipped": 0, "duration_ms": 100}
    })
}

fn merge(dir: &Path, args: &[&str]) -> (i32, String) {
    let mut c = runner(dir);
    c.arg("merge-reports").args(args);
    let (code, _, stderr) = output(c);
    (code, stderr)
}

/// A shard's report over the cap (128 MiB) is refused before it is parsed: exit 2, the cap
/// named, nothing written.
#[test]
fn merge_reports_refuses_a_shard_report_over_its_cap() {
    let d = tempfile::tempdir().unwrap();
    // A valid report, made longer than the cap by the spaces JSON allows after it.
    let mut text = shard(&[("a", "passed")]).to_string().into_bytes();
    text.resize(128 * 1024 * 1024 + 1, b' ');
    std::fs::write(d.path().join("big.json"), &text).unwrap();
    let (code, stderr) = merge(
        d.path(),
        &[
            "big.json",
            "--report",
            "json=out.json",
            "--report",
            "html=h",
        ],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains(
            "big.json is larger than 128 MiB, the most merge-reports reads of a shard's report"
        ),
        "{stderr}"
    );
    assert!(!d.path().join("out.json").exists() && !d.path().join("h").exists());
}

/// Shard reports over 512 MiB together are refused before any is read (each under its own
/// cap: three 38 MB shards used to cost 904 MB): exit 2, the total and the cap named, nothing
/// written. The files are sparse (110 MiB each, no disk used), refused by their sizes.
#[test]
fn merge_reports_refuses_shard_reports_over_512_mib_together() {
    let d = tempfile::tempdir().unwrap();
    let mut names = Vec::new();
    for i in 1..=5 {
        let name = format!("s{i}.json");
        let f = std::fs::File::create(d.path().join(&name)).unwrap();
        f.set_len(110 * 1024 * 1024).unwrap();
        names.push(name);
    }
    let mut args: Vec<&str> = names.iter().map(String::as_str).collect();
    args.extend(["--report", "json=out.json", "--report", "html=h"]);
    let (code, stderr) = merge(d.path(), &args);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains(
            "the shard reports are 550 MiB together, more than the 512 MiB merge-reports reads"
        ),
        "{stderr}"
    );
    assert!(!d.path().join("out.json").exists() && !d.path().join("h").exists());
    // Under a directory, the same.
    let (code, stderr) = merge(d.path(), &[".", "--report", "json=out.json"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("550 MiB together"), "{stderr}");
}

/// A 13 MB shard whose outputs are a long list of small numbers (the shape that costs a parsed
/// tree the most: 32 bytes a number) merges within 400 MB of address space: the shard is parsed
/// once, its outputs kept as the text they are.
#[test]
fn merge_reports_of_a_13_mb_shard_stays_within_400_mb() {
    let d = tempfile::tempdir().unwrap();
    let mut r = shard(&[("big", "passed")]);
    r["flows"][0]["steps"][0]["outputs"] = json!({ "value": vec![0; 6_500_000] });
    std::fs::write(d.path().join("shard.json"), r.to_string()).unwrap();
    let out = Command::new("sh")
        .args(["-c", "ulimit -v 409600 && exec \"$0\" \"$@\""])
        .arg(env!("CARGO_BIN_EXE_runner"))
        .args(["merge-reports", "shard.json", "--report", "json=out.json"])
        .args(["--report", "html=h", "--report", "junit=j.xml"])
        .current_dir(d.path())
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let merged: Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("out.json")).unwrap()).unwrap();
    assert_eq!(
        merged["flows"][0]["steps"][0]["outputs"]["value"]
            .as_array()
            .unwrap()
            .len(),
        6_500_000
    );
}

/// The merged counts are the flows' own: a shard whose summary says otherwise (more passed,
/// a total of a million) or whose times contradict its flows (a flow longer than its run, a
/// step longer than its flow) is refused, exit 2, nothing written.
#[test]
fn merge_reports_counts_the_flows_and_refuses_a_shard_that_contradicts_them() {
    let d = tempfile::tempdir().unwrap();
    let good = shard(&[("a", "passed"), ("b", "failed")]);
    let lies: [(&str, Value, &str); 5] = [
        (
            "/summary/passed",
            json!(2),
            "its summary counts 2 passed; its flows, 1",
        ),
        (
            "/summary/total",
            json!(1_000_000),
            "its summary counts 1000000 flows",
        ),
        (
            "/summary/duration_ms",
            json!(1),
            "flow \"a\" took 40 ms, longer than the whole run (1 ms)",
        ),
        (
            "/flows/0/steps/0/duration_ms",
            json!(1_000u64),
            "a step of flow \"a\" took 1000 ms, longer than the flow (40 ms)",
        ),
        (
            "/flows/1/setup_ms",
            json!(41),
            "flow \"b\" took 40 ms, less than its setup (41 ms)",
        ),
    ];
    for (ptr, value, why) in lies {
        let mut r = good.clone();
        *r.pointer_mut(ptr).unwrap() = value;
        std::fs::write(d.path().join("s.json"), r.to_string()).unwrap();
        let (code, stderr) = merge(d.path(), &["s.json", "--report", "json=out.json"]);
        assert_eq!(code, 2, "{ptr}: {stderr}");
        assert!(
            stderr.contains("s.json: ") && stderr.contains(why),
            "{why}: {stderr}"
        );
        assert!(!d.path().join("out.json").exists(), "{ptr}");
    }
    std::fs::write(d.path().join("s.json"), good.to_string()).unwrap();
    let (code, stderr) = merge(d.path(), &["s.json", "--report", "json=out.json"]);
    // The merged run has a flow that did not pass: exit 1, its reports written.
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("merged 1 report(s): 2 flows, 1 passed, 1 failed"),
        "{stderr}"
    );
}

/// Steps run one after another: a shard whose steps together took longer than their flow (or
/// than the step they are in) is refused, as one whose times pass 7 days (`u64::MAX` ms, with
/// every time above it as large, would show as 18446744073709552 s), exit 2, nothing written.
#[test]
fn merge_reports_refuses_steps_longer_together_than_their_flow_and_times_past_7_days() {
    let d = tempfile::tempdir().unwrap();
    let good = shard(&[("a", "passed")]);
    let step = good["flows"][0]["steps"][0].clone();
    let mut two = good.clone();
    two["flows"][0]["steps"] = json!([step, step]);
    let mut nested = good.clone();
    nested["flows"][0]["steps"][0]["steps"] = json!([step, step]);
    let mut huge = good.clone();
    for ptr in [
        "/summary/duration_ms",
        "/flows/0/duration_ms",
        "/flows/0/steps/0/duration_ms",
    ] {
        *huge.pointer_mut(ptr).unwrap() = json!(u64::MAX);
    }
    let mut week = good.clone();
    for ptr in ["/summary/duration_ms", "/flows/0/duration_ms"] {
        *week.pointer_mut(ptr).unwrap() = json!(604_800_001u64);
    }
    for (r, why) in [
        (
            two,
            "the 2 steps of flow \"a\" took 60 ms together, one after another, longer than the flow (40 ms)",
        ),
        (
            nested,
            "the 2 steps of flow \"a\" took 60 ms together, one after another, longer than the step they are in (30 ms)",
        ),
        (
            huge,
            "its run took 18446744073709551615 ms, more than 7 days",
        ),
        (week, "its run took 604800001 ms, more than 7 days"),
    ] {
        std::fs::write(d.path().join("s.json"), r.to_string()).unwrap();
        let (code, stderr) = merge(
            d.path(),
            &["s.json", "--report", "json=out.json", "--report", "html=h"],
        );
        assert_eq!(code, 2, "{why}: {stderr}");
        assert!(stderr.contains(why), "{why}: {stderr}");
        assert!(!d.path().join("out.json").exists() && !d.path().join("h").exists());
    }
    // Steps that together fill their flow exactly, and a run of 7 days, are a run's.
    let mut full = good.clone();
    full["flows"][0]["steps"] = json!([step, step]);
    full["flows"][0]["duration_ms"] = json!(60);
    full["summary"]["duration_ms"] = json!(604_800_000u64);
    std::fs::write(d.path().join("s.json"), full.to_string()).unwrap();
    let (code, stderr) = merge(d.path(), &["s.json", "--report", "json=out.json"]);
    assert_eq!(code, 0, "{stderr}");
}

/// What `merge-reports` says of a shard's files names them as the shard does, relative to its
/// directory: never the merging machine's absolute paths; and neither its notes nor the page
/// carry a control character from a shard (a NUL, an escape sequence).
#[test]
fn merge_reports_notes_show_no_local_path_and_no_control_character() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join("shard")).unwrap();
    write(d.path(), "outside.png", "x");
    let mut r = shard(&[("a", "failed"), ("b", "failed")]);
    r["flows"][0]["steps"][0]["failure_artifacts"] =
        json!({"screenshot": "../outside.png", "snapshot": "missing.txt"});
    r["flows"][1]["steps"][0]["failure_artifacts"] =
        json!({"screenshot": "a\u{0}b\u{1b}[2J.png", "snapshot": "x\u{7}y.txt"});
    r["flows"][1]["web_server_log"] = json!("log\u{0}\u{1b}]0;title\u{7}.log");
    std::fs::write(d.path().join("shard/report.json"), r.to_string()).unwrap();
    let (code, stderr) = merge(d.path(), &["shard", "--report", "html=h"]);
    // The merged run has a flow that did not pass: exit 1, its reports written.
    assert_eq!(code, 1, "{stderr}");
    let real = std::fs::canonicalize(d.path()).unwrap();
    for local in [real.display().to_string(), d.path().display().to_string()] {
        assert!(!stderr.contains(&local), "{local} in: {stderr}");
    }
    assert!(
        stderr.contains(
            "flow \"a\": screenshot \"../outside.png\" left out of the report: it is not inside the shard's directory shard"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("\"missing.txt\" left out"), "{stderr}");
    let html = std::fs::read_to_string(d.path().join("h/index.html")).unwrap();
    for text in [&stderr, &html] {
        assert!(
            !text
                .chars()
                .any(|c| c.is_control() && c != '\n' && c != '\t'),
            "a control character in: {text:?}"
        );
    }
    assert!(!html.contains(&real.display().to_string()), "{html}");
}

/// A shard directory at a repository's root: the report names `.git/config` (as a snapshot,
/// a server log and an error's place) and a flow file outside the artifacts; none of them is
/// read into the merged page. The failure screenshot and snapshot a run keeps in its default
/// artifacts (`.runner/runs/<id>`, runner's own directory) are still shown.
#[test]
fn merge_reports_reads_no_dot_directory_of_a_shard() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        &format!(
            "name: real\nweb_server: {{ static: \"{}\" }}\nsteps:\n  - open: \"{{{{ web_server.url }}}}/index.html\"\n  - click: \"#no-such-button\"\n    timeout: 1s\n",
            fixture("site").display()
        ),
    );
    let mut c = runner(d.path());
    c.args(["run", "f.yaml", "--report", "json=report.json"]);
    let (code, _, stderr) = output(c);
    assert_eq!(code, 1, "{stderr}");
    std::fs::create_dir(d.path().join(".git")).unwrap();
    write(
        &d.path().join(".git"),
        "config",
        "[remote] url = https://user:GIT-SECRET@example.com\n",
    );
    write(d.path(), "notes.yaml", "FLOW-FILE-SECRET: 1\n");
    let mut r: Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("report.json")).unwrap())
            .unwrap();
    let mut copy = r["flows"][0].clone();
    copy["name"] = json!("copy");
    let step = &mut copy["steps"][1];
    step["failure_artifacts"]["snapshot"] = json!(".git/config");
    step["error"]["location"] = json!("notes.yaml:1:1");
    copy["web_server_log"] = json!(".git/config");
    copy["error"] = json!({"kind": "assertion", "message": "m", "location": ".git/config:1:1"});
    r["flows"].as_array_mut().unwrap().push(copy);
    r["summary"]["total"] = json!(2);
    r["summary"]["failed"] = json!(2);
    std::fs::write(d.path().join("report.json"), r.to_string()).unwrap();
    let (code, stderr) = merge(d.path(), &["report.json", "--report", "html=h"]);
    // The merged run has a flow that did not pass: exit 1, its reports written.
    assert_eq!(code, 1, "{stderr}");
    let html = std::fs::read_to_string(d.path().join("h/index.html")).unwrap();
    for secret in ["GIT-SECRET", "FLOW-FILE-SECRET"] {
        assert!(!html.contains(secret), "{secret} in the page");
    }
    for f in walkdir::WalkDir::new(d.path().join("h"))
        .into_iter()
        .flatten()
    {
        if f.file_type().is_file() {
            let bytes = std::fs::read(f.path()).unwrap();
            assert!(
                !String::from_utf8_lossy(&bytes).contains("GIT-SECRET"),
                "{}",
                f.path().display()
            );
        }
    }
    assert!(
        stderr.contains("\".git/config\" left out of the report: it is in a dot-directory"),
        "{stderr}"
    );
    // The run's own failure screenshots (under `.runner/runs/`) are shown for both flows.
    let failed = "alt=\"the page when the step failed\"";
    assert_eq!(html.matches(failed).count(), 2, "{html}");
    assert_eq!(
        html.matches("<summary>page snapshot</summary>").count(),
        1,
        "{html}"
    );
}

/// A shard whose flow status contradicts its steps is refused (exit 2, naming the shard and the
/// flow), as a run decides a flow's status: a real run's failed flow edited to `passed` (its
/// counts edited to match, its step still failed with no `continue_on_error`); a failed step
/// whose kind makes the flow an `error`, said `failed`; a flow passed after a retry that says it
/// is not flaky; a step whose `environment` error `continue_on_error` is said to tolerate. What
/// a run does write (a failed step in an interrupted flow, a tolerated failure in a passed
/// flow, a flaky pass after a retry) merges.
#[test]
fn merge_reports_refuses_a_flow_whose_status_contradicts_its_steps() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        "name: ex\nsteps:\n  - exec: [\"false\"]\n",
    );
    let mut c = runner(d.path());
    c.args(["run", "f.yaml", "--artifacts", "s1/art"])
        .args(["--report", "json=s1/report.json"]);
    let (code, _, stderr) = output(c);
    assert_eq!(code, 1, "{stderr}");
    std::fs::remove_file(d.path().join("s1/art/report.json")).unwrap();
    let text = std::fs::read_to_string(d.path().join("s1/report.json")).unwrap();
    let mut r: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(r["flows"][0]["steps"][0]["conclusion"], "failed", "{r}");
    r["flows"][0]["status"] = json!("passed");
    r["summary"]["passed"] = json!(1);
    r["summary"]["failed"] = json!(0);
    std::fs::write(d.path().join("s1/report.json"), r.to_string()).unwrap();
    let (code, stderr) = merge(d.path(), &["s1", "--report", "junit=m.xml"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("s1/report.json: flow \"ex\" is \"passed\", but its step \"exec false\" concluded failed (command_failed)")
            && stderr.contains("the flow is then failed or interrupted: not the report a run wrote"),
        "{stderr}"
    );
    assert!(!d.path().join("m.xml").exists());

    let failed_step = |kind: &str| {
        let mut r = shard(&[("a", "failed")]);
        r["flows"][0]["steps"][0]["error"] = json!({"kind": kind, "message": "m"});
        r
    };
    let mut env_said_failed = failed_step("environment");
    env_said_failed["flows"][0]["status"] = json!("failed");
    let mut retried_not_flaky = shard(&[("a", "passed")]);
    retried_not_flaky["flows"][0]["retry_errors"] = json!([{"kind": "assertion", "message": "m"}]);
    let mut env_tolerated = shard(&[("a", "passed")]);
    let step = &mut env_tolerated["flows"][0]["steps"][0];
    step["outcome"] = json!("failed");
    step["error"] = json!({"kind": "environment", "message": "m"});
    for (r, why) in [
        (
            env_said_failed,
            "flow \"a\" is \"failed\", but its step \"exec\" concluded failed (environment) (no continue_on_error tolerated it): the flow is then error or interrupted",
        ),
        (
            retried_not_flaky,
            "flow \"a\" says it is not flaky, but a step of it is flaky, or it passed after a retry",
        ),
        (
            env_tolerated,
            "flow \"a\" has a step \"exec\" that failed (environment) but concludes \"passed\"",
        ),
    ] {
        std::fs::write(d.path().join("s.json"), r.to_string()).unwrap();
        let (code, stderr) = merge(d.path(), &["s.json", "--report", "json=out.json"]);
        assert_eq!(code, 2, "{why}: {stderr}");
        assert!(
            stderr.contains(&format!("s.json: {why}")),
            "{why}: {stderr}"
        );
        assert!(!d.path().join("out.json").exists());
    }

    let mut interrupted = failed_step("timeout");
    interrupted["flows"][0]["status"] = json!("interrupted");
    interrupted["summary"]["failed"] = json!(0);
    interrupted["summary"]["interrupted"] = json!(1);
    let mut tolerated = shard(&[("a", "passed")]);
    let step = &mut tolerated["flows"][0]["steps"][0];
    step["outcome"] = json!("failed");
    step["error"] = json!({"kind": "command_failed", "message": "m"});
    let mut flaky = shard(&[("a", "passed")]);
    flaky["flows"][0]["retry_errors"] = json!([{"kind": "assertion", "message": "m"}]);
    flaky["flows"][0]["flaky"] = json!(true);
    flaky["summary"]["flaky"] = json!(1);
    // A failed or interrupted flow is the merged run's failure (exit 1); a tolerated step and a
    // flaky flow pass.
    for (r, exit) in [
        (failed_step("assertion"), 1),
        (interrupted, 1),
        (tolerated, 0),
        (flaky, 0),
    ] {
        std::fs::write(d.path().join("s.json"), r.to_string()).unwrap();
        let (code, stderr) = merge(d.path(), &["s.json", "--report", "json=out.json"]);
        assert_eq!(code, exit, "{r}: {stderr}");
        // An interrupted flow is counted where the others are: the summary line, the page.
        if r["flows"][0]["status"] == "interrupted" {
            assert!(stderr.contains("0 skipped, 1 interrupted"), "{stderr}");
            let (code, stderr) = merge(d.path(), &["s.json", "--report", "html=h"]);
            assert_eq!(code, 1, "{stderr}");
            let page = std::fs::read_to_string(d.path().join("h/index.html")).unwrap();
            assert!(page.contains("<span>1 interrupted</span>"), "{page}");
        }
    }
}

/// A tiny shard that names one big file many times, by `./`-prefixed variants of its name too
/// (issue 27, F3): each file a shard names is read and taken into the HTML report once, so the
/// report is about one copy of it, not one a mention. Every mention still shows it: the later
/// ones refer to the first.
#[test]
fn merge_reports_takes_each_file_a_shard_names_once() {
    const MIB: usize = 1024 * 1024;
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("shard");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("s.snapshot.txt"), "A".repeat(4 * MIB)).unwrap();
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    png.resize(MIB, 0);
    std::fs::write(dir.join("p.png"), &png).unwrap();
    let n = 20;
    let named = |i: usize, f: &str| format!("{}{f}", "./".repeat(i));
    let steps: Vec<Value> = (0..n)
        .map(|i| {
            json!({"index": i, "id": null, "name": format!("s{i}"), "action": "exec",
                "outcome": "passed", "conclusion": "passed", "attempts": 1, "flaky": false,
                "duration_ms": 1, "error": null, "outputs": {}, "location": "a.yaml:3:5",
                "finally": false, "failure_artifacts": {"screenshot": named(i, "p.png"),
                "snapshot": named(i, "s.snapshot.txt")}})
        })
        .collect();
    let trace: Vec<Value> = (0..n)
        .map(|i| {
            json!({"name": format!("s{i}"), "outcome": "passed", "snapshot": named(n - i, "s.snapshot.txt"),
                "picture": named(n - i, "p.png")})
        })
        .collect();
    write(&dir, "t.log", &json!({ "steps": trace }).to_string());
    let mut r = shard(&[("a", "passed")]);
    r["flows"][0]["steps"] = Value::Array(steps);
    r["flows"][0]["trace"] = json!("t.log");
    write(&dir, "report.json", &r.to_string());
    assert!(r.to_string().len() < 16 * 1024, "the shard is tiny");
    let (code, stderr) = merge(d.path(), &["shard/report.json", "--report", "html=m"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(!stderr.contains("left out"), "{stderr}");
    let html = std::fs::read_to_string(d.path().join("m/index.html")).unwrap();
    assert!(
        html.len() < 5 * MIB,
        "the page is {} bytes, for a 4 MiB file named {} times",
        html.len(),
        2 * n
    );
    assert_eq!(html.matches(&"A".repeat(4 * MIB)).count(), 1);
    // Each mention shows it: the first holds the text, the others refer to it.
    assert_eq!(
        html.matches("<pre data-same=").count(),
        2 * n - 1,
        "{}",
        &html[..4000]
    );
    // The copied files (runner's mark on its folder left out).
    let assets: Vec<_> = std::fs::read_dir(d.path().join("m/assets"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name() != ".runner-assets")
        .collect();
    assert_eq!(assets.len(), 1, "{assets:?}");
    assert_eq!(
        html.matches("src=\"assets/1.png\"").count(),
        3 * n,
        "{}",
        &html[..4000]
    );
}
