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
            assert_eq!(*shard, serde_json::json!({"index": i, "total": 2}), "{p}");
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
    assert_eq!(code, 0, "{stderr}");
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
    assert_eq!(empty["shard"], serde_json::json!({"index": 5, "total": 5}));
    assert_eq!(empty["flows"], serde_json::json!([]), "{empty}");
    let (code, stderr) = merge(s, &["s4", "s5"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("shards 1, 2 and 3 of 5 are missing"),
        "{stderr}"
    );
    let (code, stderr) = merge(s, &["s1", "s2", "s3", "s4", "s5"]);
    assert_eq!(code, 0, "{stderr}");
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
    assert_eq!(code, 0, "{stderr}");
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
    assert_eq!(code, 0, "{stderr}");
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
    assert_eq!(code, 0, "{stderr}");
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
