//! Which reports `merge-reports` takes, and whether they make a whole run (twelfth attack, A5
//! and A6): a shard's report says which shard it is (`shard: {index, total}`), a merge of a set
//! with a shard missing or given twice is refused, naming the shards, and under a directory
//! only the reports runner writes are taken, never a JSON file in a flow's folder (a page's
//! download lands in `<artifacts>/NNN-flow/downloads/`, under a name and with bytes the page
//! chooses).

use std::path::Path;

use serde_json::Value;

use crate::common::{output, runner, write};

/// Four one-step flows in `dir`, `f4` failing.
fn suite(dir: &Path) {
    for (name, cmd) in [
        ("f1", "true"),
        ("f2", "true"),
        ("f3", "true"),
        ("f4", "false"),
    ] {
        write(
            dir,
            &format!("{name}.yaml"),
            &format!("name: {name}\nsteps:\n  - exec: [\"{cmd}\"]\n"),
        );
    }
}

/// `runner run . --shard I/N --report json=sI/shard.json --artifacts sI/art`: its exit code.
fn run_shard(dir: &Path, i: usize, n: usize) -> i32 {
    let mut c = runner(dir);
    c.args(["run", "."])
        .args(["--shard", &format!("{i}/{n}")])
        .args(["--report", &format!("json=s{i}/shard.json")])
        .args(["--artifacts", &format!("s{i}/art")]);
    let (code, _, stderr) = output(c);
    assert!(!stderr.contains("panicked"), "{stderr}");
    code
}

/// `runner merge-reports ARGS --report json=m.json`: (exit code, stderr).
fn merge(dir: &Path, args: &[&str]) -> (i32, String) {
    let mut c = runner(dir);
    c.arg("merge-reports")
        .args(args)
        .args(["--report", "json=m.json"]);
    let (code, _, stderr) = output(c);
    (code, stderr)
}

fn read(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// The names of the flows a merged report lists.
fn names(report: &Value) -> Vec<String> {
    report["flows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap().to_string())
        .collect()
}

/// The merged run's verdict is merge-reports' exit code, as README's table says (0: every flow
/// passed, 1: a flow failed), once its reports are written: a merge job that gates a PR while
/// its shard jobs go on past a failure (so that every shard uploads) was green (exit 0) with
/// a failed flow (attack 30, F12). A set whose flows all pass merges with 0.
#[test]
fn merge_reports_exits_1_when_the_merged_run_has_a_flow_that_did_not_pass() {
    let d = tempfile::tempdir().unwrap();
    suite(d.path());
    assert_eq!(run_shard(d.path(), 1, 2), 0);
    assert_eq!(run_shard(d.path(), 2, 2), 1);
    let (code, stderr) = merge(d.path(), &["s1", "s2"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("4 flows, 3 passed, 1 failed"), "{stderr}");
    let m = read(&d.path().join("m.json"));
    assert_eq!(m["summary"]["failed"], 1, "{m}");

    let green = tempfile::tempdir().unwrap();
    for name in ["g1", "g2"] {
        write(
            green.path(),
            &format!("{name}.yaml"),
            &format!("name: {name}\nsteps:\n  - exec: [\"true\"]\n"),
        );
    }
    assert_eq!(run_shard(green.path(), 1, 2), 0);
    assert_eq!(run_shard(green.path(), 2, 2), 0);
    let (code, stderr) = merge(green.path(), &["s1", "s2"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("2 flows, 2 passed, 0 failed"), "{stderr}");
}

/// Each shard's report says which shard it is; merging the shards that arrived, one missing
/// (its job died before it uploaded), is refused, naming the missing one, and nothing is
/// written: it used to be green (exit 0) without the missing shard's failure. A shard given
/// twice is refused too; the whole set merges. A shard left empty (more shards than flows)
/// writes its report all the same, so the set is whole.
#[test]
fn merge_reports_refuses_a_set_of_shards_with_one_missing_or_twice() {
    let d = tempfile::tempdir().unwrap();
    suite(d.path());
    assert_eq!(run_shard(d.path(), 1, 2), 0);
    assert_eq!(run_shard(d.path(), 2, 2), 1);
    for i in [1, 2] {
        for p in [format!("s{i}/shard.json"), format!("s{i}/art/report.json")] {
            let shard = &read(&d.path().join(&p))["shard"];
            assert_eq!(shard["index"], i, "{p}");
            assert_eq!(shard["total"], 2, "{p}");
            assert_eq!(shard["selection"]["flows"], 4, "{p}");
        }
    }

    let (code, stderr) = merge(d.path(), &["s1"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("shard 2 of 2 is missing"), "{stderr}");
    assert!(
        !d.path().join("m.json").exists(),
        "a merge with a shard missing was written"
    );

    copy_dir(&d.path().join("s1"), &d.path().join("s1again"));
    let (code, stderr) = merge(d.path(), &["s1", "s1again", "s2"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("shard 1 of 2 is given twice"), "{stderr}");
    assert!(!d.path().join("m.json").exists());

    let (code, stderr) = merge(d.path(), &["s1", "s2"]);
    // The merged run has a flow that did not pass: exit 1, its reports written.
    assert_eq!(code, 1, "{stderr}");
    let m = read(&d.path().join("m.json"));
    assert_eq!(m["summary"]["total"], 4, "{m}");
    assert_eq!(m["summary"]["failed"], 1, "{m}");
    assert!(
        m.get("shard").is_none(),
        "a merged report is no shard's: {m}"
    );

    // Five shards of four flows: the fifth is empty, and says so in a report of its own.
    std::fs::remove_file(d.path().join("m.json")).unwrap();
    let s = d.path();
    for i in 1..=5 {
        let code = run_shard(s, i, 5);
        assert_eq!(code, i32::from(i == 4), "shard {i}");
    }
    let empty = read(&s.join("s5/shard.json"));
    assert_eq!(empty["shard"]["index"], 5);
    assert_eq!(empty["shard"]["total"], 5);
    assert_eq!(empty["shard"]["selection"]["flows"], 4);
    assert_eq!(empty["flows"], serde_json::json!([]), "{empty}");
    let (code, stderr) = merge(s, &["s4", "s5"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("shards 1, 2 and 3 of 5 are missing"),
        "{stderr}"
    );
    let (code, stderr) = merge(s, &["s1", "s2", "s3", "s4", "s5"]);
    // The merged run has a flow that did not pass: exit 1, its reports written.
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(read(&s.join("m.json"))["summary"]["total"], 4);
}

/// A shard's report and an unsharded run's report are not one run: refused, naming both.
#[test]
fn merge_reports_refuses_shards_mixed_with_an_unsharded_run() {
    let d = tempfile::tempdir().unwrap();
    suite(d.path());
    assert_eq!(run_shard(d.path(), 1, 2), 0);
    let mut c = runner(d.path());
    c.args(["run", "f4.yaml", "--report", "json=whole/r.json"])
        .args(["--artifacts", "whole/art"]);
    assert_eq!(output(c).0, 1);
    let (code, stderr) = merge(d.path(), &["s1/shard.json", "whole/r.json"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("whole/r.json is no shard's report"),
        "{stderr}"
    );
    assert!(!d.path().join("m.json").exists());
}

/// A report-shaped JSON file in a flow's folder (where a page's downloads land) is never taken
/// for a shard's report: it used to add the page's flows to the merged report (a flow
/// `injected by the page`, passed), or, naming a real flow, to stop the merge (exit 2).
#[test]
fn merge_reports_takes_no_report_from_a_flows_folder() {
    let d = tempfile::tempdir().unwrap();
    suite(d.path());
    assert_eq!(run_shard(d.path(), 1, 2), 0);
    assert_eq!(run_shard(d.path(), 2, 2), 1);
    // What a page could download: shard 2's report, its passed flow renamed, and a copy as it is.
    let mut injected = read(&d.path().join("s2/shard.json"));
    let passed = injected["flows"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|f| f["status"] == "passed")
        .unwrap();
    passed["name"] = "injected by the page".into();
    let downloads = d.path().join("s1/art/001-f1/downloads");
    std::fs::create_dir_all(&downloads).unwrap();
    let text = serde_json::to_string(&injected).unwrap();
    std::fs::write(downloads.join("export.json"), &text).unwrap();
    std::fs::write(downloads.join("report.json"), &text).unwrap();
    let copy = std::fs::read(d.path().join("s2/shard.json")).unwrap();
    std::fs::write(downloads.join("copy.json"), copy).unwrap();
    // And in a sub-flow's folder, deeper.
    let sub = d.path().join("s1/art/001-f1/002-sub/downloads");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(sub.join("report.json"), &text).unwrap();

    let (code, stderr) = merge(d.path(), &["s1", "s2"]);
    // The merged run has a flow that did not pass: exit 1, its reports written.
    assert_eq!(code, 1, "{stderr}");
    let m = read(&d.path().join("m.json"));
    assert_eq!(names(&m), ["f1", "f2", "f3", "f4"], "{m}");
    assert_eq!(m["summary"]["total"], 4, "{m}");
}

/// Copies the regular files under `from` to `to`.
fn copy_dir(from: &Path, to: &Path) {
    for e in walkdir::WalkDir::new(from) {
        let e = e.unwrap();
        let dest = to.join(e.path().strip_prefix(from).unwrap());
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else if e.file_type().is_file() {
            std::fs::copy(e.path(), &dest).unwrap();
        }
    }
}

/// Reports a CI downloads into folders named like a run's flow folders (`2026-11-28/`,
/// `123-linux/`: digits, `-`, lowercase) are merged: every such folder at any depth used to be
/// passed over without a word, so unsharded reports there were left out of a green merge (and a
/// set of shards there was "missing"). Only the flow folders of a run's artifacts (beside the
/// `report.json` the run wrote) are not searched, a page's download there is still never taken,
/// and a note names what was not searched.
#[test]
fn merge_reports_takes_reports_in_folders_named_like_a_flows_folder() {
    let d = tempfile::tempdir().unwrap();
    suite(d.path());
    let run = |args: &[&str]| {
        let mut c = runner(d.path());
        c.arg("run").args(args);
        let (code, _, stderr) = output(c);
        assert!(!stderr.contains("panicked"), "{stderr}");
        code
    };
    // Unsharded runs: f1 and f2 pass, f4 fails in one under `123-linux/`.
    assert_eq!(
        run(&["f1.yaml", "f2.yaml", "--artifacts", "reports/mac"]),
        0
    );
    let fails = ["f4.yaml", "--artifacts", "reports/123-linux/art"];
    assert_eq!(run(&fails), 1);
    let (code, stderr) = merge(d.path(), &["reports"]);
    // The merged run has a flow that did not pass: exit 1, its reports written.
    assert_eq!(code, 1, "{stderr}");
    let m = read(&d.path().join("m.json"));
    assert_eq!(names(&m), ["f1", "f2", "f4"], "{m}");
    assert_eq!(m["summary"]["failed"], 1, "{m}");

    // Two shards, each its artifacts (and the report.json a run writes there) in a folder of
    // the day's; a page's download in a flow's folder of shard 1 is not taken.
    std::fs::remove_dir_all(d.path().join("reports")).unwrap();
    for i in [1, 2] {
        let art = format!("reports/2026-11-28/shard{i}");
        assert_eq!(
            run(&[".", "--shard", &format!("{i}/2"), "--artifacts", &art]),
            i32::from(i == 2)
        );
    }
    let day = d.path().join("reports/2026-11-28");
    let mut injected = read(&day.join("shard2/report.json"));
    injected["flows"][0]["name"] = "injected by the page".into();
    let downloads = day.join("shard1/001-f1/downloads");
    std::fs::create_dir_all(&downloads).unwrap();
    std::fs::write(downloads.join("report.json"), injected.to_string()).unwrap();
    let (code, stderr) = merge(d.path(), &["reports"]);
    // The merged run has a flow that did not pass: exit 1, its reports written.
    assert_eq!(code, 1, "{stderr}");
    let m = read(&d.path().join("m.json"));
    assert_eq!(names(&m), ["f1", "f2", "f3", "f4"], "{m}");
    assert_eq!(m["summary"]["failed"], 1, "{m}");
    assert!(
        stderr.contains(
            "note: \"reports/2026-11-28/shard1\" holds a run's artifacts: its flows' folders are not searched for reports (\"001-f1\", \"002-f3\")"
        ),
        "{stderr}"
    );
}

/// B12 (attack 25): `merge-reports --report` naming one of the shard reports it merges is
/// refused (exit 2) before anything is written, whatever the spelling, named or found under a
/// directory: it used to replace shard 1's report with the merged one (exit 0).
#[test]
fn merge_reports_writes_no_report_over_a_shard_it_merges() {
    let d = tempfile::tempdir().unwrap();
    let s = d.path();
    suite(s);
    assert_eq!(run_shard(s, 1, 2), 0);
    assert_eq!(run_shard(s, 2, 2), 1);
    let before = std::fs::read(s.join("s1/shard.json")).unwrap();
    for (inputs, target) in [
        (
            &["s1/shard.json", "s2/shard.json"][..],
            "json=s1/shard.json",
        ),
        (
            &["s1/shard.json", "s2/shard.json"][..],
            "json=./s2/../s1/shard.json",
        ),
        (&["s1", "s2"][..], "json=s1/shard.json"),
        (&["s1", "s2"][..], "json=s1/art/report.json"),
    ] {
        let mut c = runner(s);
        c.arg("merge-reports")
            .args(inputs)
            .args(["--report", target]);
        let (code, _, stderr) = output(c);
        assert_eq!(code, 2, "{inputs:?} {target}: {stderr}");
        assert!(
            stderr.contains("is one of the reports merged"),
            "{inputs:?} {target}: {stderr}"
        );
        assert_eq!(std::fs::read(s.join("s1/shard.json")).unwrap(), before);
        assert!(read(&s.join("s1/art/report.json"))["shard"]["index"] == 1);
    }
}

/// `runner run . --shard I/N ARGS --report json=NAME/shard.json --artifacts NAME/art` in
/// `dir`: its exit code.
fn run_shard_with(dir: &Path, shard: &str, args: &[&str], name: &str) -> i32 {
    let mut c = runner(dir);
    c.args(["run", ".", "--shard", shard])
        .args(args)
        .args(["--report", &format!("json={name}/shard.json")])
        .args(["--artifacts", &format!("{name}/art")]);
    let (code, _, stderr) = output(c);
    assert!(!stderr.contains("panicked"), "{stderr}");
    code
}

/// B9 (attack 25): shards whose runs selected different flows (another `--grep`, a flow added
/// between the jobs) are refused, each named with its selection: they used to merge green with
/// the failing `f5` in neither. Shards of one selection merge to the summary the unsharded run
/// with the same filter writes (the flows it left out counted as skipped), and a shard that
/// lists fewer flows than its selection (a flow taken out by hand) is refused.
#[test]
fn merge_reports_refuses_shards_of_different_selections() {
    let d = tempfile::tempdir().unwrap();
    let s = d.path();
    suite(s);
    write(s, "f5.yaml", "name: f5\nsteps:\n  - exec: [\"false\"]\n");
    let grep = ["--grep", "f[1-4]"];
    assert_eq!(run_shard_with(s, "1/2", &grep, "x1"), 0);
    assert_eq!(run_shard_with(s, "2/2", &[], "y2"), 1);
    let (code, stderr) = merge(s, &["x1", "y2"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("different selections"), "{stderr}");
    assert!(
        stderr.contains("x1/shard.json") && stderr.contains("y2/shard.json"),
        "{stderr}"
    );
    assert!(stderr.contains("--grep `f[1-4]`"), "{stderr}");
    assert!(!s.join("m.json").exists());

    // One selection: the merge is the unsharded run's.
    assert_eq!(run_shard_with(s, "2/2", &grep, "x2"), 1);
    let (code, stderr) = merge(s, &["x1", "x2"]);
    // The merged run has a flow that did not pass: exit 1, its reports written.
    assert_eq!(code, 1, "{stderr}");
    let mut c = runner(s);
    c.args(["run", ".", "--grep", "f[1-4]", "--report", "json=u/r.json"])
        .args(["--artifacts", "u/art"]);
    assert_eq!(output(c).0, 1);
    let mut merged = read(&s.join("m.json"))["summary"].clone();
    let mut whole = read(&s.join("u/r.json"))["summary"].clone();
    merged["duration_ms"] = Value::Null;
    whole["duration_ms"] = Value::Null;
    assert_eq!(merged, whole);
    assert_eq!(whole["skipped"], 1, "{whole}");

    // Shard 2 of the whole suite with its failing f4 taken out, counted as skipped.
    std::fs::remove_file(s.join("m.json")).unwrap();
    assert_eq!(run_shard_with(s, "1/2", &[], "w1"), 1);
    let mut edited = read(&s.join("y2/shard.json"));
    edited["flows"]
        .as_array_mut()
        .unwrap()
        .retain(|f| f["name"] != "f4");
    edited["summary"]["failed"] = 0.into();
    edited["summary"]["skipped"] = 4.into();
    std::fs::create_dir(s.join("e2")).unwrap();
    std::fs::write(s.join("e2/shard.json"), edited.to_string()).unwrap();
    let (code, stderr) = merge(s, &["w1/shard.json", "e2/shard.json"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("4 of the 5 flows"), "{stderr}");
    assert!(!s.join("m.json").exists());
}

/// B11 (attack 25): `--shard` keeps a flow that loads a saved `browser.state` in the shard of
/// the flow that saves it (it used to put them in different shards: the loading shard failed
/// in CI, or passed on a stale state file); every flow is in exactly one shard.
#[test]
fn a_shard_keeps_a_state_saver_with_its_loaders() {
    let d = tempfile::tempdir().unwrap();
    let s = d.path();
    write(
        s,
        "a-signin.yaml",
        "name: sign in\nsteps:\n  - open: \"https://example.invalid/\"\n  - state: { save: .auth/user.json }\n",
    );
    write(
        s,
        "b-dash.yaml",
        "name: dashboard\nbrowser: { state: .auth/user.json }\nsteps:\n  - open: \"https://example.invalid/\"\n",
    );
    write(
        s,
        "y-more.yaml",
        "name: more\nbrowser: { state: .auth/user.json }\nsteps:\n  - open: \"https://example.invalid/\"\n",
    );
    for n in ["c", "d", "e"] {
        write(
            s,
            &format!("{n}.yaml"),
            &format!("name: {n}\nsteps:\n  - exec: [\"true\"]\n"),
        );
    }
    for total in [2, 3] {
        let mut seen: Vec<String> = Vec::new();
        let mut with_signin = Vec::new();
        for i in 1..=total {
            let mut c = runner(s);
            c.args(["run", ".", "--list", "--shard", &format!("{i}/{total}")]);
            let (code, out, err) = output(c);
            assert_eq!(code, 0, "{err}");
            // Three flows joined by the state: more than a third of the six, not more than half.
            assert_eq!(
                err.contains(
                    "3 of the 6 flows selected are joined by a saved browser.state with `sign in`"
                ) && err.contains("the shards are uneven"),
                total == 3,
                "{total} shards: {err}"
            );
            let names: Vec<String> = out
                .lines()
                .filter_map(|l| l.split_once(": ").map(|(_, n)| n.to_string()))
                .collect();
            if names.iter().any(|n| n == "sign in") {
                with_signin = names.clone();
            }
            seen.extend(names);
        }
        for loader in ["dashboard", "more"] {
            assert!(
                with_signin.iter().any(|n| n == loader),
                "{total} shards: {loader} is not with sign in: {with_signin:?}"
            );
        }
        seen.sort();
        assert_eq!(
            seen,
            ["c", "d", "dashboard", "e", "more", "sign in"],
            "{total}"
        );
    }
}

/// `runner run PATH --shard I/2 ARGS --report json=<s>/sI/shard.json --artifacts
/// <s>/sI/art` in `cwd` (`s`: where the shards' folders go): its exit code.
fn run_shard_from(cwd: &Path, path: &str, i: usize, args: &[&str], s: &Path) -> i32 {
    let out = s.join(format!("s{i}"));
    let mut c = runner(cwd);
    c.args(["run", path, "--shard", &format!("{i}/2")])
        .args(args)
        .arg("--report")
        .arg(format!("json={}", out.join("shard.json").display()))
        .arg("--artifacts")
        .arg(out.join("art"));
    let (code, _, stderr) = output(c);
    assert!(!stderr.contains("panicked"), "{stderr}");
    code
}

/// R4 (review s22): what a shard records of its run's selection does not depend on how its job
/// named the flows: one job in the project's root (runner.toml's folder, else the repository's)
/// running `e2e`, the other inside `e2e/` running `.` or the folder's absolute path, the tags
/// given in another order. Such shards were refused as "different selections"; they merge, to
/// the flows the tags select. Other flows (another tag) are still refused.
#[test]
fn shards_merge_whatever_their_jobs_working_directory_and_filter_order() {
    for root_file in ["runner.toml", ".git"] {
        let d = tempfile::tempdir().unwrap();
        let s = d.path();
        if root_file == ".git" {
            std::fs::create_dir(s.join(".git")).unwrap();
        } else {
            write(s, root_file, "jobs = 1\n");
        }
        let e2e = s.join("e2e");
        std::fs::create_dir(&e2e).unwrap();
        for (name, tags) in [("a", "[x]"), ("b", "[y]"), ("c", "[x, y]"), ("d", "[z]")] {
            write(
                &e2e,
                &format!("{name}.yaml"),
                &format!("name: {name}\ntags: {tags}\nsteps:\n  - exec: [\"true\"]\n"),
            );
        }
        let xy = ["--tag", "x", "--tag", "y"];
        let yx = ["--tag", "y", "--tag", "x", "--tag", "y"];
        assert_eq!(run_shard_from(s, "e2e", 1, &xy, s), 0, "{root_file}");
        assert_eq!(run_shard_from(&e2e, ".", 2, &yx, s), 0, "{root_file}");
        let (code, stderr) = merge(s, &["s1", "s2"]);
        assert_eq!(code, 0, "{root_file}: {stderr}");
        let m = read(&s.join("m.json"));
        assert_eq!(names(&m), ["a", "b", "c"], "{root_file}: {m}");
        assert_eq!(m["summary"]["total"], 4, "{root_file}: {m}");
        assert_eq!(m["summary"]["skipped"], 1, "{root_file}: {m}");

        let abs = e2e.display().to_string();
        std::fs::remove_file(s.join("m.json")).unwrap();
        std::fs::remove_dir_all(s.join("s2")).unwrap();
        assert_eq!(run_shard_from(&e2e, &abs, 2, &yx, s), 0, "{root_file}");
        let (code, stderr) = merge(s, &["s1", "s2"]);
        assert_eq!(code, 0, "{root_file}: {stderr}");

        std::fs::remove_file(s.join("m.json")).unwrap();
        std::fs::remove_dir_all(s.join("s2")).unwrap();
        assert_eq!(run_shard_from(&e2e, ".", 2, &["--tag", "z"], s), 0);
        let (code, stderr) = merge(s, &["s1", "s2"]);
        assert_eq!(code, 2, "{root_file}: {stderr}");
        assert!(stderr.contains("different selections"), "{stderr}");
        assert!(!s.join("m.json").exists());
    }
}

/// W1 (review s22): a shard whose run was killed before it wrote its report (no report.json at
/// the top of its artifacts, no shard.json) leaves its flows' folders; a page's download there
/// named `report.json` and shaped as that shard's report is never taken for it, with runner's
/// marker in the artifacts or without it (an upload that leaves out hidden files): the merge
/// says the shard is missing. It used to merge green (exit 0). Nor is a report.json in a flow's
/// folder of marked artifacts taken.
#[test]
fn merge_reports_takes_no_download_for_a_killed_shards_report() {
    let d = tempfile::tempdir().unwrap();
    let s = d.path();
    suite(s);
    assert_eq!(run_shard(s, 1, 2), 0);
    assert_eq!(run_shard(s, 2, 2), 1);
    let report = std::fs::read(s.join("s2/shard.json")).unwrap();
    std::fs::remove_file(s.join("s2/shard.json")).unwrap();
    std::fs::remove_file(s.join("s2/art/report.json")).unwrap();
    let mut flow_dirs: Vec<_> = std::fs::read_dir(s.join("s2/art"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    flow_dirs.sort();
    assert!(!flow_dirs.is_empty(), "shard 2 left no flow folder");
    let downloads = flow_dirs[0].join("downloads");
    std::fs::create_dir_all(&downloads).unwrap();
    std::fs::write(downloads.join("report.json"), &report).unwrap();
    std::fs::write(flow_dirs[flow_dirs.len() - 1].join("report.json"), &report).unwrap();

    let (code, stderr) = merge(s, &["s1", "s2"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("shard 2 of 2 is missing"), "{stderr}");
    assert!(!s.join("m.json").exists());

    // Without the marker: the flow's folder is anyone's, its downloads still runner's.
    std::fs::remove_file(s.join("s2/art/.runner-artifacts")).unwrap();
    std::fs::remove_file(flow_dirs[flow_dirs.len() - 1].join("report.json")).unwrap();
    let (code, stderr) = merge(s, &["s1", "s2"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("shard 2 of 2 is missing"), "{stderr}");
    assert!(!s.join("m.json").exists());
}
