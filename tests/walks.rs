//! `run DIR` and `validate DIR` take the flows inside DIR (issue 27, round four: D): a symlink
//! in it that leads outside (a folder, `/` itself, or a file) is not followed, and the run says
//! so once, naming it; a link that stays inside is followed as before.

use std::path::Path;
use std::time::Duration;

use crate::common::{output_within, runner, write};

/// `runner ARGS` in `dir`, over within 60 s: (exit code, stdout + stderr).
fn within(dir: &Path, args: &[&str]) -> (i32, String) {
    let mut c = runner(dir);
    c.args(args);
    let (code, out, err) = output_within(c, Duration::from_secs(60));
    assert!(!err.contains("panicked"), "{err}");
    (code, format!("{out}{err}"))
}

/// `a/` holding a passing flow, a folder inside it reached by a link (`a/again -> sub`), and
/// links out: to a folder holding a broken flow, to that flow itself, and to `/`.
fn tree(d: &Path) {
    let a = d.join("a");
    std::fs::create_dir_all(a.join("sub")).unwrap();
    write(&a, "ok.yaml", "name: ok\nsteps:\n  - exec: [\"true\"]\n");
    write(
        &a.join("sub"),
        "inner.yaml",
        "name: inner\nsteps:\n  - exec: [\"true\"]\n",
    );
    std::fs::create_dir(d.join("outside")).unwrap();
    write(&d.join("outside"), "bad.yaml", "name: bad\nstepz: []\n");
    std::os::unix::fs::symlink("sub", a.join("again")).unwrap();
    std::os::unix::fs::symlink("../outside", a.join("out")).unwrap();
    std::os::unix::fs::symlink("../outside/bad.yaml", a.join("linked.yaml")).unwrap();
    std::os::unix::fs::symlink("/", a.join("root")).unwrap();
}

#[test]
fn validate_dir_follows_no_symlink_out_of_the_directory_and_says_so_once() {
    let d = tempfile::tempdir().unwrap();
    tree(d.path());
    let (code, said) = within(d.path(), &["validate", "a"]);
    assert_eq!(code, 0, "{said}");
    assert!(
        !said.contains("bad.yaml:"),
        "a file outside was read: {said}"
    );
    // ok.yaml, sub/inner.yaml and again/inner.yaml (a link inside is followed).
    assert!(said.contains("ok: 3 files valid"), "{said}");
    for link in ["a/out", "a/linked.yaml", "a/root"] {
        let notes = said
            .lines()
            .filter(|l| l.starts_with("warning: ") && l.contains(&format!("{link} ")))
            .count();
        assert_eq!(notes, 1, "{link} said once: {said}");
    }
    assert!(
        said.contains("warning: a/root leads outside a (to /): not followed"),
        "{said}"
    );
}

#[test]
fn run_dir_runs_only_the_flows_inside_the_directory() {
    let d = tempfile::tempdir().unwrap();
    tree(d.path());
    let (code, said) = within(
        d.path(),
        &["run", "a", "--artifacts", "art", "--report", "json=r.json"],
    );
    assert_eq!(code, 0, "{said}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("r.json")).unwrap()).unwrap();
    assert_eq!(report["summary"]["total"], 3, "{report}");
    assert!(said.contains("warning: a/out leads outside a"), "{said}");
}
