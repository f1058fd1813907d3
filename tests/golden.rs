//! Golden files: `validate` on every file under `tests/fixtures/invalid/` and `run` on every
//! flow under `tests/fixtures/failing/`, their stderr compared to `<file>.stderr` beside it; a
//! small suite under `tests/fixtures/golden-run/` (a pass, a flaky retry, a skipped step, a
//! failure, a flow never run), its console and its JSON and JUnit reports compared to
//! `expected/`. `UPDATE_GOLDEN=1` rewrites the expected files.

use std::path::Path;

use crate::common::{fixture, output, runner};

/// The files of a corpus directory, sorted.
fn corpus(dir: &Path, keep: impl Fn(&str) -> bool) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| keep(n))
        .collect();
    names.sort();
    names
}

/// Compares `actual` with the file at `expected` (or, with `UPDATE_GOLDEN=1`, writes it there):
/// the mismatch, if any, as a message that shows both.
fn compare(expected: &Path, actual: &str) -> Option<String> {
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(expected, actual).unwrap();
        return None;
    }
    let want = std::fs::read_to_string(expected)
        .unwrap_or_else(|_| panic!("missing {}; run with UPDATE_GOLDEN=1", expected.display()));
    (want != actual).then(|| {
        format!(
            "--- {}: expected\n{want}\n--- got\n{actual}",
            expected.display()
        )
    })
}

/// Compares what `stderr_of` gives for each file with `<file>.stderr` beside it.
fn golden(dir: &Path, names: &[String], mut stderr_of: impl FnMut(&str) -> String) {
    let mismatches: Vec<String> = names
        .iter()
        .filter_map(|name| compare(&dir.join(format!("{name}.stderr")), &stderr_of(name)))
        .collect();
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

#[test]
fn invalid_corpus_matches_golden_files() {
    let dir = fixture("invalid");
    let names = corpus(&dir, |n| {
        [".yaml", ".yml", ".toml"].iter().any(|e| n.ends_with(e))
    });
    assert!(names.len() >= 30, "the corpus has {} files", names.len());
    golden(&dir, &names, |name| {
        let mut cmd = runner(&dir);
        cmd.args(["validate", name]);
        let (code, stdout, stderr) = output(cmd);
        assert_eq!(
            code, 2,
            "{name} must be invalid (exit 2); stderr:\n{stderr}"
        );
        assert!(stdout.is_empty(), "{name}: human diagnostics go to stderr");
        assert!(!stderr.contains("panicked"), "{name} panicked:\n{stderr}");
        stderr
    });
}

#[test]
fn json_and_github_formats() {
    let dir = fixture("invalid");
    let mut cmd = runner(&dir);
    cmd.args(["validate", "--format", "json", "many-problems.yaml"]);
    let (code, stdout, _) = output(cmd);
    assert_eq!(code, 2);
    let list: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let list = list.as_array().unwrap();
    assert_eq!(list.len(), 5, "{stdout}");
    assert_eq!(list[0]["file"], "many-problems.yaml");
    assert_eq!(list[0]["line"], 5);
    assert_eq!(list[0]["col"], 5);
    assert_eq!(list[0]["pointer"], "/steps/0/clik");
    assert_eq!(list[0]["message"], "unknown key `clik` in a step");
    assert_eq!(list[0]["help"], "did you mean `click`?");

    let mut cmd = runner(&dir);
    cmd.args(["validate", "--format", "github", "unknown-var.yaml"]);
    let (code, stdout, _) = output(cmd);
    assert_eq!(code, 2);
    assert_eq!(
        stdout.trim(),
        "::error file=unknown-var.yaml,line=5,col=15::unknown var `base_ur` (help: did you mean `base_url`?)"
    );
}

/// Run-time failures print their source line like `validate` does: every flow under
/// `tests/fixtures/failing/` (but `_` sub-flows) fails, and its stderr (timings and the
/// fixture directory normalized) matches `<file>.stderr`. `UPDATE_GOLDEN=1` rewrites them.
#[test]
fn run_time_failures_match_golden_files() {
    let dir = fixture("failing");
    let names = corpus(&dir, |n| {
        n.to_ascii_lowercase().ends_with(".yaml") && !n.starts_with('_')
    });
    assert!(names.len() >= 4, "the corpus has {} files", names.len());
    let times = regex::Regex::new(r"\d+(\.\d+)?m?s\b").unwrap();
    // The flows' web servers listen on a free port.
    let ports = regex::Regex::new(r"127\.0\.0\.1:\d+").unwrap();
    golden(&dir, &names, |name| {
        let artifacts = tempfile::tempdir().unwrap();
        let mut cmd = runner(&dir);
        cmd.args(["run", name, "--artifacts"]).arg(artifacts.path());
        let (code, _, stderr) = output(cmd);
        assert_eq!(code, 1, "{name} must fail (exit 1); stderr:\n{stderr}");
        let stderr = stderr
            .replace(&artifacts.path().display().to_string(), "<artifacts>")
            .replace(&dir.display().to_string(), "<dir>");
        let stderr = times.replace_all(&stderr, "<t>");
        ports.replace_all(&stderr, "127.0.0.1:<port>").into_owned()
    });
}

/// What changes from one run to the next, as placeholders: the run's directory, run ids, dates,
/// and every time and duration (the console's `12ms`/`1.5s`, the JSON's `duration_ms` and
/// `setup_ms`, JUnit's
/// `time`).
fn normalize(text: &str, dir: &Path) -> String {
    let mut text = text.to_string();
    for d in [dir.canonicalize().unwrap(), dir.to_path_buf()] {
        text = text.replace(&d.display().to_string(), "<dir>");
    }
    let rules = [
        (r"\b\d{8}T\d{6}-\d+\b", "<run-id>"),
        (
            r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?",
            "<date>",
        ),
        (r#""duration_ms": \d+"#, r#""duration_ms": "<ms>""#),
        (r#""setup_ms": \d+"#, r#""setup_ms": "<ms>""#),
        (r#"\btime="[\d.]+""#, r#"time="<t>""#),
        (r"\b\d+(\.\d+)?(ms|s)\b", "<t>"),
    ];
    for (pattern, placeholder) in rules {
        text = regex::Regex::new(pattern)
            .unwrap()
            .replace_all(&text, placeholder)
            .into_owned();
    }
    text
}

/// A small suite run as CI runs it (`CI=true NO_COLOR=1`, one job, `--fail-fast`): what the
/// console prints and what the JSON and JUnit reports say, times and paths normalized, match
/// `tests/fixtures/golden-run/expected/`.
#[test]
fn a_run_s_console_and_reports_match_golden_files() {
    let suite = fixture("golden-run");
    let flows = corpus(&suite, |n| n.to_ascii_lowercase().ends_with(".yaml"));
    assert_eq!(flows.len(), 5, "{flows:?}");
    // A copy, so the flaky step's marker file starts absent and stays out of the repository.
    let d = tempfile::tempdir().unwrap();
    for f in &flows {
        std::fs::copy(suite.join(f), d.path().join(f)).unwrap();
    }
    let mut cmd = runner(d.path());
    cmd.args([
        "run",
        ".",
        "--jobs",
        "1",
        "--fail-fast",
        "--artifacts",
        "art",
    ])
    .args([
        "--report",
        "json=report.json",
        "--report",
        "junit=junit.xml",
    ]);
    let (code, stdout, stderr) = output(cmd);
    assert_eq!(code, 1, "the suite has one failure; stderr:\n{stderr}");
    assert!(stdout.is_empty(), "the console writes to stderr: {stdout}");
    let read = |f: &str| std::fs::read_to_string(d.path().join(f)).unwrap();
    let expected = suite.join("expected");
    let mismatches: Vec<String> = [
        ("console.stderr", stderr),
        ("report.json", read("report.json")),
        ("junit.xml", read("junit.xml")),
    ]
    .into_iter()
    .filter_map(|(name, text)| compare(&expected.join(name), &normalize(&text, d.path())))
    .collect();
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

/// A failure inside a sub-flow of a sub-flow is located by its call chain
/// (`subflow-nested.yaml:4:5 > _calls-failing-part.yaml:4:5 > _failing-part.yaml:3:5`) in every
/// report: the JSON, JUnit, HTML and GitHub annotations (the annotation's file and line are
/// where it failed; its message names the chain).
#[test]
fn a_sub_flow_failure_names_its_call_chain_in_every_report() {
    let dir = fixture("failing");
    let d = tempfile::tempdir().unwrap();
    let mut cmd = runner(&dir);
    cmd.args([
        "run",
        "subflow-nested.yaml",
        "--format",
        "github",
        "--artifacts",
    ])
    .arg(d.path().join("art"))
    .arg("--report")
    .arg(format!("json={}", d.path().join("r.json").display()))
    .arg("--report")
    .arg(format!("junit={}", d.path().join("j.xml").display()))
    .arg("--report")
    .arg(format!("html={}", d.path().join("html").display()));
    let (code, stdout, stderr) = output(cmd);
    assert_eq!(code, 1, "{stderr}");
    let chain =
        "subflow-nested.yaml:4:5 &gt; _calls-failing-part.yaml:4:5 &gt; _failing-part.yaml:3:5";
    let plain = chain.replace("&gt;", ">");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("r.json")).unwrap()).unwrap();
    let step = &json["flows"][0]["steps"][1];
    assert_eq!(step["error"]["location"], plain.as_str(), "{step:#}");
    let junit = std::fs::read_to_string(d.path().join("j.xml")).unwrap();
    assert!(junit.contains(chain), "{junit}");
    let html = std::fs::read_to_string(d.path().join("html/index.html")).unwrap();
    assert!(html.contains(chain), "{html}");
    let annotation = stdout
        .lines()
        .chain(stderr.lines())
        .find(|l| l.starts_with("::error "))
        .unwrap_or_else(|| panic!("no annotation: {stdout}\n{stderr}"));
    assert!(
        annotation.contains("file=_failing-part.yaml,line=3,col=5,") && annotation.contains(&plain),
        "{annotation}"
    );
}
