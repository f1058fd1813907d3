//! Golden files: `validate` on every file under `tests/fixtures/invalid/` and `run` on every
//! flow under `tests/fixtures/failing/`, their stderr compared to `<file>.stderr` beside it.
//! `UPDATE_GOLDEN=1` rewrites the expected files.

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

/// Compares what `stderr_of` gives for each file with `<file>.stderr` beside it;
/// `UPDATE_GOLDEN=1` rewrites the expected files instead.
fn golden(dir: &Path, names: &[String], mut stderr_of: impl FnMut(&str) -> String) {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut mismatches = Vec::new();
    for name in names {
        let stderr = stderr_of(name);
        let golden = dir.join(format!("{name}.stderr"));
        if update {
            std::fs::write(&golden, &stderr).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&golden)
            .unwrap_or_else(|_| panic!("missing {}; run with UPDATE_GOLDEN=1", golden.display()));
        if expected != stderr {
            mismatches.push(format!(
                "--- {name}: expected\n{expected}\n--- got\n{stderr}"
            ));
        }
    }
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
    golden(&dir, &names, |name| {
        let artifacts = tempfile::tempdir().unwrap();
        let mut cmd = runner(&dir);
        cmd.args(["run", name, "--artifacts"]).arg(artifacts.path());
        let (code, _, stderr) = output(cmd);
        assert_eq!(code, 1, "{name} must fail (exit 1); stderr:\n{stderr}");
        times
            .replace_all(
                &stderr
                    .replace(&artifacts.path().display().to_string(), "<artifacts>")
                    .replace(&dir.display().to_string(), "<dir>"),
                "<t>",
            )
            .into_owned()
    });
}
