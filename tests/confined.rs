//! What runner reads and writes stays where it belongs (issue 27, items 2 and 3): a report takes
//! the files it shows only from runner's own records (a flow's outputs are data), a merged
//! shard's only from regular files inside the shard's directory, capped; `merge-reports DIR`
//! takes the layout a run writes; `atlas export --out DIR` writes inside DIR only; an artifact
//! path that leaves the artifacts directory is refused by `validate` as by the run.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{Ran, fixture, flow_run, output, runner, write};

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n";

/// A flow on the static test site whose last step fails on the page (leaving a screenshot and
/// a snapshot), after `before` (steps, indented by two).
fn failing_flow(name: &str, before: &str) -> String {
    format!(
        "name: {name}\nweb_server: {{ static: \"{}\" }}\nsteps:\n{before}  - open: \"{{{{ web_server.url }}}}/index.html\"\n  - click: \"#no-such-button\"\n    timeout: 1s\n",
        fixture("site").display()
    )
}

/// The files under `dir` (none when it does not exist), sorted.
/// The files runner copied into an HTML report's `assets/` (its mark on the folder left out).
fn assets_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = files_under(dir);
    out.retain(|p| !p.ends_with(".runner-assets"));
    out
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(walkdir::DirEntry::into_path)
        .collect();
    out.sort();
    out
}

/// A sub-flow's `outputs` shaped like `failure_artifacts` (naming files outside the run) are
/// the step's data, kept as such in the JSON report; the HTML report and the console show only
/// the screenshot runner itself took of the step that failed.
#[test]
fn a_sub_flows_outputs_are_data_never_files_the_report_reads() {
    let d = tempfile::tempdir().unwrap();
    let secret = write(d.path(), "secret.txt", "TOP SECRET LINE\n");
    write(
        d.path(),
        "_sub.yaml",
        &format!(
            "name: sub\nsteps:\n  - log: hi\noutputs:\n  failure_artifacts:\n    screenshot: \"{0}\"\n    snapshot: \"{0}\"\n",
            secret.display()
        ),
    );
    write(
        d.path(),
        "f.yaml",
        &failing_flow("outputs are data", "  - id: sub\n    run_flow: _sub.yaml\n"),
    );
    let Ran {
        code,
        stderr,
        report,
        ..
    } = flow_run(d.path())
        // The failure's screenshot alone: a trace would add pictures of its own.
        .args(["f.yaml", "--report", "html=h", "--trace", "off"])
        .run();
    assert_eq!(code, 1, "{stderr}");
    // The HTML shows the screenshot of the failed click, and nothing of the secret file.
    let html = std::fs::read_to_string(d.path().join("h/index.html")).unwrap();
    assert!(!html.contains("TOP SECRET"), "{html}");
    assert_eq!(html.matches("<img class=\"shot\"").count(), 1, "{html}");
    let assets = assets_under(&d.path().join("h/assets"));
    assert_eq!(assets.len(), 1, "{assets:?}");
    assert!(std::fs::read(&assets[0]).unwrap().starts_with(PNG));
    let steps = &report["flows"][0]["steps"];
    // The sub-flow's outputs are kept as data; they are not runner's record.
    assert_eq!(
        steps[0]["outputs"]["failure_artifacts"]["screenshot"],
        secret.display().to_string()
    );
    assert!(steps[0].get("failure_artifacts").is_none(), "{}", steps[0]);
    // The failed click has runner's record: files inside the run's artifacts.
    let shot = steps[2]["failure_artifacts"]["screenshot"]
        .as_str()
        .unwrap();
    assert!(
        shot.starts_with(&d.path().join("art").display().to_string()),
        "{shot}"
    );
    assert!(std::fs::read(shot).unwrap().starts_with(PNG));
    // The console's summary names the real screenshot.
    assert!(stderr.contains(&format!("screenshot: {shot}")), "{stderr}");
    assert!(!stderr.contains(&format!("screenshot: {}", secret.display())));
}

/// Two shards run as CI runs them, each with its artifacts inside its report's folder (the run
/// writes a second `report.json` there) and a JSON file that is not a report (a download):
/// `merge-reports` of their folders merges them, screenshots, snapshots and the failed flows'
/// traces (their filmstrips) shown, the traces' files not taken for reports.
#[test]
fn merge_reports_takes_the_layout_a_run_writes() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join("flows")).unwrap();
    write(&d.path().join("flows"), "a.yaml", &failing_flow("a", ""));
    write(&d.path().join("flows"), "b.yaml", &failing_flow("b", ""));
    for i in 1..=2 {
        let mut c = runner(d.path());
        c.args(["run", "flows", "--shard", &format!("{i}/2")])
            .args(["--report", &format!("json=shard{i}/shard.json")])
            .args(["--artifacts", &format!("shard{i}/art")]);
        let (code, _, stderr) = output(c);
        assert_eq!(code, 1, "{stderr}");
        assert!(d.path().join(format!("shard{i}/art/report.json")).is_file());
    }
    let merge = || {
        let mut c = runner(d.path());
        c.args(["merge-reports", "shard1", "shard2"]).args([
            "--report",
            "json=merged.json",
            "--report",
            "html=merged",
        ]);
        output(c)
    };
    let (code, _, stderr) = merge();
    // The merged run has a flow that did not pass: exit 1, its reports written.
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("merged 2 report(s): 2 flows"), "{stderr}");
    // A JSON file that is not a report, where a run keeps its downloads, is passed over.
    std::fs::create_dir_all(d.path().join("shard2/art/downloads")).unwrap();
    write(
        &d.path().join("shard2/art/downloads"),
        "todos.json",
        "[{\"title\": \"a\"}]",
    );
    let (code, _, stderr) = merge();
    // The merged run has a flow that did not pass: exit 1, its reports written.
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("merged 2 report(s): 2 flows"), "{stderr}");
    assert!(
        stderr.contains("todos.json\" is passed over: not a runner JSON report"),
        "{stderr}"
    );
    assert!(!stderr.contains("left out"), "{stderr}");
    assert!(!stderr.contains("trace.json"), "{stderr}");
    let merged: Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("merged.json")).unwrap())
            .unwrap();
    assert_eq!(merged["summary"]["failed"], 2, "{merged}");
    let html = std::fs::read_to_string(d.path().join("merged/index.html")).unwrap();
    let failed = "alt=\"the page when the step failed\"";
    assert_eq!(html.matches(failed).count(), 2, "{html}");
    assert_eq!(
        html.matches("<summary>page snapshot</summary>").count(),
        2,
        "{html}"
    );
    // Each failed flow's filmstrip: the picture after its `open` (a JPEG) and its failure's
    // screenshot.
    assert_eq!(html.matches("class=\"filmstrip\"").count(), 2, "{html}");
    let assets = assets_under(&d.path().join("merged/assets"));
    let png = |a: &&PathBuf| std::fs::read(a).unwrap().starts_with(PNG);
    let jpeg = |a: &&PathBuf| std::fs::read(a).unwrap().starts_with(&[0xFF, 0xD8, 0xFF]);
    assert_eq!(assets.iter().filter(png).count(), 2, "{assets:?}");
    assert!(assets.iter().filter(jpeg).count() >= 2, "{assets:?}");
    assert_eq!(
        assets.iter().filter(|a| png(a) || jpeg(a)).count(),
        assets.len(),
        "{assets:?}"
    );
    // Named one by one, a shard's two copies are still the same shard given twice.
    let mut c = runner(d.path());
    c.args([
        "merge-reports",
        "shard1/shard.json",
        "shard1/art/report.json",
    ])
    .args(["--report", "json=twice.json"]);
    let (code, _, stderr) = output(c);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("give each shard's report once"), "{stderr}");
}

/// `merge-reports` run with 4 GiB of address space at most, and ended (failing the test) if it
/// has not finished in 60 s: (exit code, stdout, stderr).
fn merge_bounded(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = dir.join("merge.out");
    let err = dir.join("merge.err");
    let mut child = Command::new("sh")
        .args(["-c", "ulimit -v 4194304 && exec \"$0\" \"$@\""])
        .arg(env!("CARGO_BIN_EXE_runner"))
        .arg("merge-reports")
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("CI", "true")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "merge-reports hung:\n{}",
                std::fs::read_to_string(&err).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    (
        status.code().unwrap_or(-1),
        std::fs::read_to_string(&out).unwrap(),
        std::fs::read_to_string(&err).unwrap(),
    )
}

/// A shard's report names files: its own screenshot (shown), then `/etc/passwd`, `..`, a symlink
/// out, `/dev/zero`, a FIFO, a file over the cap, an error located in `/etc/passwd`. Each is
/// left out with a note on the page and a warning; the merge neither hangs nor grows without
/// bound, and nothing of those files is in the report.
#[test]
fn merge_reports_reads_only_regular_files_inside_the_shard() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "f.yaml", &failing_flow("real", ""));
    let shard = d.path().join("shard");
    let mut c = runner(d.path());
    // No trace of its own: each flow below names a trace that is not the shard's to give.
    c.args(["run", "f.yaml", "--report", "json=shard/shard.json"])
        .args(["--artifacts", "shard/art", "--trace", "off"]);
    let (code, _, stderr) = output(c);
    assert_eq!(code, 1, "{stderr}");
    write(d.path(), "outside.png", "SECRET-OUTSIDE");
    std::os::unix::fs::symlink(d.path().join("outside.png"), shard.join("link-out")).unwrap();
    nix::unistd::mkfifo(&shard.join("fifo"), nix::sys::stat::Mode::S_IRWXU).unwrap();
    std::fs::write(shard.join("big.txt"), vec![b'x'; 9 * 1024 * 1024]).unwrap();
    let mut r: Value =
        serde_json::from_str(&std::fs::read_to_string(shard.join("shard.json")).unwrap()).unwrap();
    let real = r["flows"][0].clone();
    let fifo = shard.join("fifo").display().to_string();
    let named = [
        ("passwd", "/etc/passwd", "/etc/passwd"),
        ("dotdot", "../outside.png", "art/../../outside.png"),
        ("symlink", "link-out", "link-out"),
        ("zero", "/dev/zero", "/dev/zero"),
        ("fifo", "fifo", fifo.as_str()),
        ("big", "big.txt", "big.txt"),
    ];
    for (name, screenshot, snapshot) in named {
        let mut f = real.clone();
        f["name"] = json!(name);
        let step = &mut f["steps"][1];
        assert_eq!(step["outcome"], "failed", "{step}");
        // Where runner records them, and where a flow's outputs could say the same.
        let arts = json!({"screenshot": screenshot, "snapshot": snapshot});
        step["failure_artifacts"] = arts.clone();
        step["outputs"]["failure_artifacts"] = arts;
        step["error"]["location"] = json!("/etc/passwd:1:1");
        f["web_server_log"] = json!("/etc/passwd");
        f["trace"] = json!(snapshot);
        r["flows"].as_array_mut().unwrap().push(f);
    }
    // Counted as a run counts them: a shard's summary must agree with its flows.
    let n = r["flows"].as_array().unwrap().len();
    r["summary"]["total"] = json!(n);
    r["summary"]["failed"] = json!(n);
    r["web_servers"] =
        json!([{"name": "api", "url": "http://x", "log": "fifo", "start_ms": 1, "reused": false}]);
    std::fs::write(shard.join("shard.json"), r.to_string()).unwrap();

    let (code, _, stderr) = merge_bounded(
        d.path(),
        &[
            "shard/shard.json",
            "--report",
            "html=merged",
            "--report",
            "json=merged.json",
        ],
    );
    // The merged run has a flow that did not pass: exit 1, its reports written.
    assert_eq!(code, 1, "{stderr}");
    for why in [
        "\"/etc/passwd\" left out of the report: it is not inside the shard's directory",
        "\"../outside.png\" left out of the report: it is not inside",
        "\"link-out\" left out of the report: it is not inside",
        "\"/dev/zero\" left out of the report: it is not inside",
        "\"fifo\" left out of the report: it is not a regular file",
        "\"big.txt\" left out of the report: it is larger than 8 MiB",
        "web server log \"/etc/passwd\" left out",
        "web server log \"fifo\" left out of the report: it is not a regular file",
    ] {
        assert!(stderr.contains(why), "{why}: {stderr}");
    }
    assert!(
        stderr
            .lines()
            .filter(|l| l.starts_with("warning: "))
            .count()
            >= 14,
        "{stderr}"
    );
    // A trace is read as confined as the rest.
    assert!(
        stderr.contains("trace \"/etc/passwd\" left out of the report: it is not inside"),
        "{stderr}"
    );
    let html = std::fs::read_to_string(d.path().join("merged/index.html")).unwrap();
    for leaked in ["root:x:0", "SECRET-OUTSIDE", "xxxxxxxx", "1 │"] {
        assert!(!html.contains(leaked), "{leaked} in the page");
    }
    assert_eq!(
        html.matches("<img class=\"shot\"").count(),
        1,
        "the real one"
    );
    assert_eq!(html.matches("screenshot left out").count(), 6, "{html}");
    assert_eq!(html.matches("snapshot left out").count(), 6, "{html}");
    let assets = assets_under(&d.path().join("merged/assets"));
    assert_eq!(assets.len(), 1, "{assets:?}");
    assert!(std::fs::read(&assets[0]).unwrap().starts_with(PNG));
    // The JSON report keeps the shard's paths as data: nothing is read for it.
    let merged = std::fs::read_to_string(d.path().join("merged.json")).unwrap();
    assert!(merged.contains("/dev/zero") && !merged.contains("root:x:0"));
}

/// `atlas export --out DIR` names its file after the edge's stored `script_name`: one that is
/// not a plain file name (`../../x`, an absolute path: the atlas on disk is anyone's to edit) is
/// refused (exit 2) and nothing is written, in DIR or outside it.
#[test]
fn atlas_export_writes_only_inside_out() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "record.yaml",
        &format!(
            "name: record\nweb_server: {{ static: \"{}\" }}\natlas: atlas\nsteps:\n  - open: \"{{{{ web_server.url }}}}/index.html\"\n  - link_state: home\n  - click: {{ role: link, text: About us }}\n  - id: about\n    link_state: about\n",
            fixture("atlas-site").display()
        ),
    );
    let Ran {
        code,
        stderr,
        report,
        ..
    } = flow_run(d.path()).arg("record.yaml").run();
    assert_eq!(code, 0, "{stderr}");
    let about = crate::common::step(&report, "about")["outputs"]["node_id"]
        .as_str()
        .unwrap()
        .to_string();
    let meta = files_under(&d.path().join("atlas/edges"))
        .into_iter()
        .find(|p| p.ends_with("meta.json"))
        .expect("the edge home -> about");
    let label = |script_name: &str| {
        let mut m: Value = serde_json::from_str(&std::fs::read_to_string(&meta).unwrap()).unwrap();
        m["label"] = json!({"script_name": script_name, "confidence": 1, "performed": "click link About us"});
        std::fs::write(&meta, m.to_string()).unwrap();
    };
    let export = || {
        let mut c = runner(d.path());
        c.args([
            "atlas", "export", &about, "--out", "a/b/out", "--atlas", "atlas",
        ]);
        output(c)
    };
    std::fs::create_dir_all(d.path().join("abs")).unwrap();
    let absolute = d.path().join("abs/escaped").display().to_string();
    for bad in ["../../escaped", absolute.as_str()] {
        label(bad);
        let (code, stdout, stderr) = export();
        assert_eq!(code, 2, "{bad}: {stdout}{stderr}");
        assert!(
            stderr.contains("meta.json")
                && stderr.contains(&format!("its `script_name` {bad:?} is not a file name")),
            "{stderr}"
        );
        assert!(!d.path().join("a").exists(), "{bad}: nothing is written");
        assert!(!d.path().join("abs/escaped.yaml").exists());
    }
    label("about_us");
    let (code, stdout, stderr) = export();
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.trim_end().ends_with("a/b/out/about_us.yaml"),
        "{stdout}"
    );
    assert_eq!(
        files_under(&d.path().join("a")),
        [d.path().join("a/b/out/about_us.yaml")]
    );
}

/// `download.path` with `..` or an absolute path is refused by `validate` (exit 2, at its line)
/// as `screenshot.path` is, with the message the run gives a rendered path that leaves the
/// artifacts directory.
#[test]
fn download_paths_are_refused_by_validate_as_by_the_run() {
    let d = tempfile::tempdir().unwrap();
    let flow = |path: &str| {
        format!(
            "name: dl\nweb_server: {{ static: \"{}\" }}\nvars:\n  where: \"../escaped.csv\"\nsteps:\n  - open: \"{{{{ web_server.url }}}}/downloads.html\"\n  - download: {{ target: \"#again\", path: \"{path}\" }}\n",
            fixture("site").display()
        )
    };
    for path in [
        "../escaped.csv",
        "/tmp/escaped.csv",
        "kept/../../escaped.csv",
    ] {
        write(d.path(), "f.yaml", &flow(path));
        let mut c = runner(d.path());
        c.args(["validate", "f.yaml"]);
        let (code, _, stderr) = output(c);
        assert_eq!(code, 2, "{path}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "f.yaml:7:41: error: download path `{path}` leaves the artifacts directory"
            )) && stderr.contains(
                "help: give a path relative to the run's artifacts directory, without `..`"
            ),
            "{stderr}"
        );
        // The run checks its files first: nothing runs.
        let Ran { code, stderr, .. } = flow_run(d.path()).arg("f.yaml").run();
        assert_eq!(code, 2, "{stderr}");
        assert!(
            stderr.contains("leaves the artifacts directory"),
            "{stderr}"
        );
    }
    // A NUL in a path is refused by `validate` too (no file name holds one).
    write(d.path(), "f.yaml", &flow("kept/a\\0b.csv"));
    let mut c = runner(d.path());
    c.args(["validate", "f.yaml"]);
    let (code, _, stderr) = output(c);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("download path \"kept/a\\0b.csv\" holds a NUL character"),
        "{stderr}"
    );
    // A rendered path is the run's to refuse, in the same words.
    write(d.path(), "f.yaml", &flow("{{ vars.where }}"));
    let mut c = runner(d.path());
    c.args(["validate", "f.yaml"]);
    assert_eq!(output(c).0, 0);
    let Ran { code, report, .. } = flow_run(d.path()).arg("f.yaml").run();
    assert_eq!(code, 1);
    assert_eq!(
        report["flows"][0]["steps"][1]["error"]["message"],
        "download path `../escaped.csv` leaves the artifacts directory; give a path relative to the run's artifacts directory, without `..`"
    );
    assert!(!d.path().join("escaped.csv").exists());
}

/// `state.save` stays inside the flow's directory, as `screenshot.path` and `download.path` stay
/// inside the artifacts: `..` or an absolute path is refused by `validate` (exit 2, at its line)
/// and by the run, in the same words for a path rendered from a template. A symlink on the way
/// (a folder, or the file itself: a cloned repository may hold either) fails the step, and what
/// it points to keeps its content and mode.
#[test]
fn state_save_stays_in_the_flows_directory_and_follows_no_symlink() {
    use std::os::unix::fs::PermissionsExt;
    let d = tempfile::tempdir().unwrap();
    let project = d.path().join("project");
    let outside = d.path().join("outside");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    let target = write(&outside, "target", "keep\n");
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o644)).unwrap();
    let flow = |path: &str| {
        format!(
            "name: st\nweb_server: {{ static: \"{}\" }}\nvars:\n  where: \"../escaped.json\"\nsteps:\n  - open: \"{{{{ web_server.url }}}}/index.html\"\n  - state: {{ save: \"{path}\" }}\n",
            fixture("site").display()
        )
    };
    let absolute = d.path().join("abs.json").display().to_string();
    for path in [
        "../escaped.json",
        absolute.as_str(),
        ".auth/../../escaped.json",
    ] {
        write(&project, "f.yaml", &flow(path));
        let mut c = runner(&project);
        c.args(["validate", "f.yaml"]);
        let (code, _, stderr) = output(c);
        assert_eq!(code, 2, "{path}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "f.yaml:7:20: error: state.save path `{path}` leaves the flow's directory"
            )) && stderr
                .contains("help: give a path relative to the flow's directory, without `..`"),
            "{stderr}"
        );
        let Ran { code, stderr, .. } = flow_run(&project).arg("f.yaml").run();
        assert_eq!(code, 2, "{stderr}");
        assert!(stderr.contains("leaves the flow's directory"), "{stderr}");
    }
    // A rendered path is the run's to refuse, in the same words.
    write(&project, "f.yaml", &flow("{{ vars.where }}"));
    let mut c = runner(&project);
    c.args(["validate", "f.yaml"]);
    assert_eq!(output(c).0, 0);
    let Ran { code, report, .. } = flow_run(&project).arg("f.yaml").run();
    assert_eq!(code, 1);
    assert_eq!(
        report["flows"][0]["steps"][1]["error"]["message"],
        "state.save path `../escaped.json` leaves the flow's directory; give a path relative to the flow's directory, without `..`"
    );
    assert!(!d.path().join("escaped.json").exists());
    assert!(!d.path().join("abs.json").exists());
    // Symlinks out: the folder, then the file.
    write(&project, "f.yaml", &flow(".auth/user.json"));
    let refused = |link: &str| {
        let Ran { code, report, .. } = flow_run(&project).arg("f.yaml").run();
        assert_eq!(code, 1);
        let message = report["flows"][0]["steps"][1]["error"]["message"].to_string();
        let want = format!("project/{link} is a symbolic link: runner writes no file through one");
        assert!(message.contains(&want), "{message}");
    };
    std::os::unix::fs::symlink(&outside, project.join(".auth")).unwrap();
    refused(".auth");
    std::fs::remove_file(project.join(".auth")).unwrap();
    std::fs::create_dir(project.join(".auth")).unwrap();
    std::os::unix::fs::symlink(&target, project.join(".auth/user.json")).unwrap();
    refused(".auth/user.json");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep\n");
    let mode = std::fs::metadata(&target).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o644);
    assert_eq!(files_under(&outside), std::slice::from_ref(&target));
    // Without links, the state is saved, readable by its owner only.
    std::fs::remove_file(project.join(".auth/user.json")).unwrap();
    let report = flow_run(&project).arg("f.yaml").passes();
    let saved = project.join(".auth/user.json");
    assert_eq!(
        report["flows"][0]["steps"][1]["outputs"]["path"],
        saved.display().to_string()
    );
    let mode = std::fs::metadata(&saved).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
}

/// Two `state.save` paths that differ only by a secret are both named as the reports show them
/// (`state-***.json`): the second was written over the first, and a later flow's
/// `browser.state` loaded whichever came last. The run refuses a state whose masked path it
/// already saved another state to (any flow of the run), saying so; the same path saved again
/// (the same state, updated) is written over as asked.
#[test]
fn state_saves_whose_masked_paths_are_alike_are_refused() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        &format!(
            "name: st\nsecrets: [USER_A, USER_B]\nweb_server: {{ static: \"{}\" }}\nsteps:\n  - open: \"{{{{ web_server.url }}}}/index.html\"\n  - id: a\n    state: {{ save: \"state-{{{{ secrets.USER_A }}}}.json\" }}\n  - id: again\n    state: {{ save: \"state-{{{{ secrets.USER_A }}}}.json\" }}\n  - id: b\n    state: {{ save: \"state-{{{{ secrets.USER_B }}}}.json\" }}\n",
            fixture("site").display()
        ),
    );
    let Ran {
        code,
        stdout,
        stderr,
        report,
    } = flow_run(d.path())
        .env("USER_A", "alice-9931")
        .env("USER_B", "bob-4417")
        .arg("f.yaml")
        .run();
    assert_eq!(code, 1, "{stderr}");
    let steps = &report["flows"][0]["steps"];
    let saved = d.path().join("state-***.json");
    for i in [1, 2] {
        assert_eq!(steps[i]["outcome"], "passed", "{report}");
        assert_eq!(
            steps[i]["outputs"]["path"],
            saved.display().to_string(),
            "{report}"
        );
    }
    assert_eq!(steps[3]["outcome"], "failed", "{report}");
    let message = steps[3]["error"]["message"].as_str().unwrap();
    assert_eq!(
        message,
        "state.save path `state-***.json` is where this run saved another state, from a path that differs only by a secret (a file is named with its secrets masked); give each state a path that differs outside its secrets"
    );
    assert!(saved.is_file());
    assert_eq!(
        files_under(d.path())
            .iter()
            .filter(|p| p.to_string_lossy().contains("state-"))
            .count(),
        1
    );
    for shown in [&stdout, &stderr, &report.to_string()] {
        assert!(
            !shown.contains("alice-9931") && !shown.contains("bob-4417"),
            "{shown}"
        );
    }
}

/// A NUL character, which no path or argument can hold (the system cuts it there), is refused
/// by `validate` where it is written: in a `state.save` path, an `exec` argument or its `cwd`
/// (the run would fail at the step with a misleading error, or run another command).
#[test]
fn a_nul_in_a_path_or_an_argument_is_refused_by_validate() {
    let d = tempfile::tempdir().unwrap();
    for (step, said) in [
        (
            r#"state: { save: "s\0.json" }"#,
            r#"state.save path "s\0.json" holds a NUL character"#,
        ),
        (
            r#"exec: ["tr\0ue"]"#,
            r#"an argument "tr\0ue" holds a NUL character"#,
        ),
        (
            r#"exec: { command: "true", cwd: "d\0" }"#,
            r#"`cwd` "d\0" holds a NUL character"#,
        ),
    ] {
        write(
            d.path(),
            "f.yaml",
            &format!("name: nul\nsteps:\n  - {step}\n"),
        );
        let mut c = runner(d.path());
        c.args(["validate", "f.yaml"]);
        let (code, _, stderr) = output(c);
        assert_eq!(code, 2, "{step}: {stderr}");
        assert!(stderr.contains(said), "{step}: {stderr}");
    }
}
