//! What `--report KIND=PATH` does to what is already at PATH (issue 27, round four: C): a
//! regular file is replaced whole (as before); a FIFO, a character device (`/dev/null`) and
//! `/dev/stdout` are written through, as a shell's `>` writes, never replaced; a directory or a
//! socket is refused before the run, naming it (exit 2).

use std::os::unix::fs::FileTypeExt;
use std::path::Path;

use crate::common::{output, runner, write};

/// A passing flow `ok.yaml` in `dir`.
fn ok_flow(dir: &Path) {
    write(dir, "ok.yaml", "name: ok\nsteps:\n  - exec: [\"true\"]\n");
}

/// `runner run ok.yaml` in `dir` with these `--report`s: (exit code, stdout, stderr).
fn run_with(dir: &Path, reports: &[&str]) -> (i32, String, String) {
    let mut c = runner(dir);
    c.args(["run", "ok.yaml", "--artifacts", "art"]);
    for r in reports {
        c.args(["--report", r]);
    }
    let r = output(c);
    assert!(!r.2.contains("panicked"), "{}", r.2);
    r
}

#[test]
fn a_fifo_report_path_is_written_through_not_replaced() {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let d = tempfile::tempdir().unwrap();
    ok_flow(d.path());
    let fifo = d.path().join("myfifo");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
    // The reader is there before the run (opened without waiting for a writer); the report,
    // a few kilobytes, fits in the pipe, so it is read once the run is over.
    let mut reader = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits())
        .open(&fifo)
        .unwrap();
    let (code, _, stderr) = run_with(d.path(), &["json=myfifo"]);
    assert_eq!(code, 0, "{stderr}");
    let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
    assert!(kind.is_fifo(), "the FIFO was replaced: {kind:?}");
    let mut text = String::new();
    reader.read_to_string(&mut text).unwrap();
    let report: serde_json::Value = serde_json::from_str(&text).expect("the report, whole");
    assert_eq!(report["summary"]["passed"], 1, "{report}");
}

#[test]
fn dev_null_and_dev_stdout_are_written_through() {
    let d = tempfile::tempdir().unwrap();
    ok_flow(d.path());
    let (code, stdout, stderr) = run_with(d.path(), &["junit=/dev/null", "json=/dev/stdout"]);
    assert_eq!(code, 0, "{stderr}");
    let null = std::fs::symlink_metadata("/dev/null").unwrap().file_type();
    assert!(null.is_char_device(), "/dev/null was replaced: {null:?}");
    let out = std::fs::symlink_metadata("/dev/stdout")
        .unwrap()
        .file_type();
    assert!(out.is_symlink(), "/dev/stdout was replaced: {out:?}");
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("the report on stdout");
    assert_eq!(report["summary"]["passed"], 1, "{report}");
}

#[test]
fn a_report_path_that_is_a_directory_or_a_socket_is_refused_before_the_run() {
    let d = tempfile::tempdir().unwrap();
    ok_flow(d.path());
    std::fs::create_dir(d.path().join("adir")).unwrap();
    let _socket = std::os::unix::net::UnixListener::bind(d.path().join("sock")).unwrap();
    for (report, says) in [
        ("json=adir", "adir is a directory"),
        ("junit=sock", "sock is a socket"),
    ] {
        let (code, _, stderr) = run_with(d.path(), &[report]);
        assert_eq!(code, 2, "{report}: {stderr}");
        assert!(stderr.contains(says), "{report}: {stderr}");
        assert!(
            !stderr.contains("▶ ok"),
            "{report}: the run started: {stderr}"
        );
    }
    assert!(d.path().join("adir").is_dir());
    let sock = std::fs::symlink_metadata(d.path().join("sock")).unwrap();
    assert!(sock.file_type().is_socket());
}

/// A report path that is one of the run's own inputs (a flow, a sub-flow, a var file,
/// runner.toml), however it is spelled, is refused before the run (exit 2), naming it, and the
/// input is left as it was: `json=f.yaml` used to write the report over the flow being run.
/// (An input that holds something is not a report either: that refusal may come first. An
/// empty var file is an input, though no report would destroy anything in it.)
#[test]
fn a_report_path_that_is_an_input_of_the_run_is_refused_before_the_run() {
    let d = tempfile::tempdir().unwrap();
    let flow = "name: f\nvars: { X: \"1\" }\nsteps:\n  - log: \"{{ vars.X }}\"\n  - run_flow: sub/_s.yaml\n";
    write(d.path(), "f.yaml", flow);
    std::fs::create_dir(d.path().join("sub")).unwrap();
    let sub = "name: s\nsteps:\n  - log: sub\n";
    write(d.path(), "sub/_s.yaml", sub);
    write(d.path(), "v.env", "X=2\n");
    let toml = "reports = [\"json=fromtoml.json\"]\n";
    write(d.path(), "runner.toml", toml);
    std::os::unix::fs::symlink(".", d.path().join("here")).unwrap();
    let run = |reports: &[&str]| {
        let mut c = runner(d.path());
        c.args(["run", "f.yaml", "--var-file", "v.env", "--artifacts", "art"]);
        for r in reports {
            c.args(["--report", r]);
        }
        output(c)
    };
    for (report, input) in [
        ("json=f.yaml", "f.yaml"),
        ("junit=./v.env", "v.env"),
        ("json=sub/../f.yaml", "f.yaml"),
        ("junit=sub/_s.yaml", "sub/_s.yaml"),
        ("json=runner.toml", "runner.toml"),
        ("json=here/f.yaml", "here/f.yaml"),
        ("json=here/sub/_s.yaml", "sub/_s.yaml"),
    ] {
        let (code, _, stderr) = run(&[report]);
        assert_eq!(code, 2, "{report}: {stderr}");
        assert!(
            (stderr.contains("is an input of this run") || stderr.contains("is not a report"))
                && stderr.contains(input),
            "{report}: {stderr}"
        );
        assert!(
            !stderr.contains("▶ f"),
            "{report}: the run started: {stderr}"
        );
    }
    // runner.toml's own `reports`, over itself.
    write(
        d.path(),
        "runner.toml",
        "reports = [\"json=runner.toml\"]\n",
    );
    let (code, _, stderr) = run(&[]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("is an input of this run") || stderr.contains("is not a report"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(d.path().join("runner.toml")).unwrap(),
        "reports = [\"json=runner.toml\"]\n"
    );
    write(d.path(), "runner.toml", toml);
    assert_eq!(
        std::fs::read_to_string(d.path().join("f.yaml")).unwrap(),
        flow
    );
    assert_eq!(
        std::fs::read_to_string(d.path().join("sub/_s.yaml")).unwrap(),
        sub
    );
    assert_eq!(
        std::fs::read_to_string(d.path().join("v.env")).unwrap(),
        "X=2\n"
    );
    // A report beside them is written.
    let (code, _, stderr) = run(&["json=out.json"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(d.path().join("out.json").is_file());
}

/// A report is written only where nothing is, or over a report of its kind (runner's JSON
/// report, a JUnit file, runner's HTML report): any other file there is refused before the run
/// (exit 2) and left as it was. `json=app.py` replaced the server the run starts, an upload or
/// an agent profile, none of which runner knows as an input of the run.
#[test]
fn a_report_is_never_written_over_a_file_that_is_not_a_report() {
    let d = tempfile::tempdir().unwrap();
    ok_flow(d.path());
    write(d.path(), "app.py", "print('my server')\n");
    // A GitHub job's JSON names a `run_id` too: not runner's report.
    write(
        d.path(),
        "job.json",
        "{\"id\": 42, \"run_id\": 7, \"name\": \"build\"}\n",
    );
    // Nor is a JSON file that opens with a `run_id` but has no report's `flows` and `summary`
    // (review s22, G3: merge-reports and this check now ask one rule).
    write(
        d.path(),
        "other.json",
        "{\"run_id\": 7, \"id\": 42, \"name\": \"build\"}\n",
    );
    write(d.path(), "notes.xml", "<notes><n>keep me</n></notes>\n");
    std::fs::create_dir(d.path().join("site")).unwrap();
    write(
        d.path(),
        "site/index.html",
        "<!doctype html><title>my site</title>\n",
    );
    for (report, file) in [
        ("json=app.py", "app.py"),
        ("json=job.json", "job.json"),
        ("json=other.json", "other.json"),
        ("junit=notes.xml", "notes.xml"),
        ("html=site", "site/index.html"),
    ] {
        let before = std::fs::read_to_string(d.path().join(file)).unwrap();
        let (code, _, stderr) = run_with(d.path(), &[report]);
        assert_eq!(code, 2, "{report}: {stderr}");
        assert!(
            stderr.contains("is not a report") && stderr.contains(file),
            "{report}: {stderr}"
        );
        assert!(!stderr.contains("▶"), "{report}: the run started: {stderr}");
        assert_eq!(
            std::fs::read_to_string(d.path().join(file)).unwrap(),
            before
        );
    }
    // Reports of their kind are replaced, run after run; an empty file too.
    write(d.path(), "empty.json", "");
    for _ in 0..2 {
        let (code, _, stderr) = run_with(
            d.path(),
            &["json=r.json", "junit=r.xml", "html=rep", "json=empty.json"],
        );
        assert_eq!(code, 0, "{stderr}");
    }
    let json = std::fs::read_to_string(d.path().join("r.json")).unwrap();
    assert!(json.contains("\"run_id\""), "{json}");
    // A report of another kind is not one of this kind.
    let (code, _, stderr) = run_with(d.path(), &["junit=r.json"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("is not a report"), "{stderr}");
}

/// `runner run ok.yaml --artifacts <artifacts>` in `dir` with these `--report`s.
fn run_into(dir: &Path, artifacts: &str, reports: &[&str]) -> (i32, String, String) {
    let mut c = runner(dir);
    c.args(["run", "ok.yaml", "--artifacts", artifacts]);
    for r in reports {
        c.args(["--report", r]);
    }
    let r = output(c);
    assert!(!r.2.contains("panicked"), "{}", r.2);
    r
}

/// The `report.json` a run writes into its artifacts is a file runner writes by a name it was
/// given (`--artifacts userdir`): a user's `userdir/report.json` (another tool's JSON) is
/// refused before the run (exit 2) and kept; it was replaced by the run's report (attack 26,
/// C12). A run's earlier report there is replaced, run after run.
#[test]
fn a_runs_report_in_the_artifacts_never_replaces_a_users_file() {
    let d = tempfile::tempdir().unwrap();
    ok_flow(d.path());
    let theirs = "{\"lighthouse\": \"my data\"}\n";
    std::fs::create_dir(d.path().join("userdir")).unwrap();
    write(d.path(), "userdir/report.json", theirs);
    let (code, _, stderr) = run_into(d.path(), "userdir", &[]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("userdir/report.json exists and is not")
            && stderr.contains("runner does not write over it"),
        "{stderr}"
    );
    assert!(!stderr.contains("▶"), "the run started: {stderr}");
    assert_eq!(
        std::fs::read_to_string(d.path().join("userdir/report.json")).unwrap(),
        theirs
    );
    for _ in 0..2 {
        let (code, _, stderr) = run_into(d.path(), "art", &[]);
        assert_eq!(code, 0, "{stderr}");
    }
    let ours = std::fs::read_to_string(d.path().join("art/report.json")).unwrap();
    assert!(ours.starts_with("{\n  \"run_id\""), "{ours}");
}

/// An HTML report's `assets/` is written only where runner made it (it holds runner's mark) or
/// where there is none: a folder `site2/` without an `index.html` but with a user's
/// `assets/1.log` and `assets/2.png` is refused before the run (exit 2) and kept; both were
/// replaced by the run's web server log and screenshot (attack 26, C12). A report's own folder
/// is written again, run after run, its server log copied each time.
#[test]
fn an_html_reports_assets_go_only_into_a_folder_runner_made() {
    let d = tempfile::tempdir().unwrap();
    ok_flow(d.path());
    write(
        d.path(),
        "runner.toml",
        "[[web_server]]\nname = \"app\"\ncommand = [\"python3\", \"-m\", \"http.server\", \"{{ web_server.port }}\"]\nport = \"auto\"\n",
    );
    std::fs::create_dir_all(d.path().join("site2/assets")).unwrap();
    for f in ["site2/assets/1.log", "site2/assets/2.png"] {
        write(d.path(), f, "USER\n");
    }
    let (code, _, stderr) = run_into(d.path(), "art", &["html=site2"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("site2/assets") && stderr.contains("runner did not make"),
        "{stderr}"
    );
    assert!(!stderr.contains("▶"), "the run started: {stderr}");
    for f in ["site2/assets/1.log", "site2/assets/2.png"] {
        assert_eq!(std::fs::read_to_string(d.path().join(f)).unwrap(), "USER\n");
    }
    assert!(!d.path().join("site2/index.html").exists());
    for _ in 0..2 {
        let (code, _, stderr) = run_into(d.path(), "art", &["html=rep"]);
        assert_eq!(code, 0, "{stderr}");
        let log = std::fs::read_to_string(d.path().join("rep/assets/1.log")).unwrap();
        assert_eq!(
            log,
            std::fs::read_to_string(d.path().join("art/web_server/app.log")).unwrap()
        );
    }
}

/// A JUnit report or an HTML page is runner's only when it opens as runner writes it (its
/// generator mark at the head), not when `<testsuite` or the mark is anywhere in its first
/// 4 KiB: another tool's JUnit report (pytest's), a Markdown note that talks of JUnit or of
/// runner's mark, are refused before the run (exit 2) and kept; `junit=` replaced both with
/// runner's JUnit (attack 27, D4). Runner's own is replaced, run after run, and so is a JUnit
/// report written before the mark (`<testsuites name="runner"` after the XML declaration).
#[test]
fn a_junit_report_or_page_is_written_only_over_one_that_opens_as_runners() {
    let d = tempfile::tempdir().unwrap();
    ok_flow(d.path());
    let pytest = "<?xml version=\"1.0\" encoding=\"utf-8\"?><testsuites><testsuite name=\"pytest\" errors=\"0\" failures=\"0\" skipped=\"0\" tests=\"412\" time=\"88.1\"><testcase classname=\"tests.test_api\" name=\"test_login\" time=\"0.2\"/></testsuite></testsuites>\n";
    write(d.path(), "results.xml", pytest);
    write(
        d.path(),
        "notes.md",
        "# How we write JUnit\nOur CI merges every `<testsuite>` element of the reports into one.\n",
    );
    std::fs::create_dir(d.path().join("site")).unwrap();
    write(
        d.path(),
        "site/index.html",
        "<!doctype html><title>runner report notes</title>\n<p>runner marks its pages with <code><meta name=\"generator\" content=\"runner\"></code></p>\n",
    );
    for (report, file) in [
        ("junit=results.xml", "results.xml"),
        ("junit=notes.md", "notes.md"),
        ("html=site", "site/index.html"),
    ] {
        let before = std::fs::read_to_string(d.path().join(file)).unwrap();
        let (code, _, stderr) = run_with(d.path(), &[report]);
        assert_eq!(code, 2, "{report}: {stderr}");
        assert!(
            stderr.contains("is not a report") && stderr.contains(file),
            "{report}: {stderr}"
        );
        assert!(!stderr.contains("▶"), "{report}: the run started: {stderr}");
        assert_eq!(
            std::fs::read_to_string(d.path().join(file)).unwrap(),
            before
        );
    }
    let old = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"runner\" tests=\"1\" skipped=\"0\" failures=\"0\" errors=\"0\" time=\"0.011\">\n</testsuites>\n";
    write(d.path(), "old.xml", old);
    for _ in 0..2 {
        let (code, _, stderr) = run_with(d.path(), &["junit=j.xml", "junit=old.xml"]);
        assert_eq!(code, 0, "{stderr}");
    }
    let ours = std::fs::read_to_string(d.path().join("old.xml")).unwrap();
    assert!(ours.contains("<testcase name=\"ok\""), "{ours}");
}
