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

/// `DIR/dl.yaml` (`DIR`: `flows` in `d`), a flow that leaves flow files in its folder of the
/// run's artifacts: one where a page's download lands there
/// (`<artifacts>/001-visit-page/downloads/evil.yaml`, a name and bytes the page chooses), one
/// beside it. Either, if ever run, creates `pwned` in `d`.
fn downloading(d: &Path, dir: &str) -> std::path::PathBuf {
    let flows = d.join(dir);
    std::fs::create_dir_all(&flows).unwrap();
    let pwned = d.join("pwned");
    write(
        d,
        "payload.txt",
        &format!(
            "name: planted by the page\nsteps:\n  - exec: [touch, \"{}\"]\n",
            pwned.display()
        ),
    );
    let payload = d.join("payload.txt").display().to_string();
    let script = format!(
        "f=\"$1/001-visit-page\"; mkdir -p \"$f/downloads\" && cp {payload} \"$f/downloads/evil.yaml\""
    );
    write(
        &flows,
        "dl.yaml",
        &format!(
            "name: visit page\nsteps:\n  - exec: [sh, -c, '{script}', sh, \"{{{{ run.artifacts }}}}\"]\n"
        ),
    );
    pwned
}

/// B1 (attack 25): flow discovery never takes a file under a run's artifacts directory, though
/// it is inside the flows' directory (`--artifacts flows/art`): not the next run's `--list`,
/// `validate` or run, with or without `--artifacts` naming it, nor from artifacts an older
/// runner wrote (no marker, only the run's report.json beside the flows' folders), nor a
/// download with `--artifacts .`; a folder of the user's named like a flow's is still searched.
#[test]
fn discovery_takes_no_flow_from_a_runs_artifacts_inside_the_flows_directory() {
    let d = tempfile::tempdir().unwrap();
    let pwned = downloading(d.path(), "flows");
    // A folder of the user's named as runner names a flow's: its flows are flows.
    std::fs::create_dir_all(d.path().join("flows/001-login")).unwrap();
    write(
        &d.path().join("flows/001-login"),
        "login.yaml",
        "name: login\nsteps:\n  - exec: [\"true\"]\n",
    );
    let (code, said) = within(d.path(), &["run", "flows", "--artifacts", "flows/art"]);
    assert_eq!(code, 0, "{said}");
    let planted = d
        .path()
        .join("flows/art/001-visit-page/downloads/evil.yaml");
    assert!(planted.is_file(), "the download is there: {said}");
    let listed = |args: &[&str]| {
        let (code, said) = within(d.path(), args);
        assert_eq!(code, 0, "{said}");
        assert!(
            !said.contains("planted"),
            "{args:?} took the download: {said}"
        );
        assert!(said.contains("login"), "{args:?}: {said}");
    };
    listed(&["run", "flows", "--list"]);
    listed(&["run", "flows", "--list", "--artifacts", "flows/art"]);
    let (code, said) = within(d.path(), &["validate", "flows"]);
    assert_eq!(code, 0, "{said}");
    assert!(said.contains("ok: 2 files valid"), "{said}");
    let (code, said) = within(
        d.path(),
        &[
            "run",
            "flows",
            "--artifacts",
            "flows/art2",
            "--report",
            "json=r.json",
        ],
    );
    assert_eq!(code, 0, "{said}");
    assert!(!said.contains("planted"), "{said}");
    assert!(!pwned.exists(), "the page's flow ran: {said}");
    // Artifacts without runner's marker (an older runner's): their flows' downloads are still
    // left out.
    for art in ["flows/art", "flows/art2"] {
        std::fs::remove_file(d.path().join(art).join(".runner-artifacts")).unwrap();
    }
    listed(&["run", "flows", "--list"]);
    // A user's numbered folders beside a report.json of theirs are flows, walked from above
    // (review G1: they were taken for an older run's artifacts, `validate .` said `ok: 0`).
    let e2e = d.path().join("own/e2e");
    std::fs::create_dir_all(e2e.join("001-login")).unwrap();
    write(
        &e2e.join("001-login"),
        "login.yaml",
        "name: own login\nsteps:\n  - exec: [\"true\"]\n",
    );
    let own = d.path().join("own");
    let (code, said) = within(&own, &["run", ".", "--report", "json=e2e/report.json"]);
    assert_eq!(code, 0, "{said}");
    let (code, said) = within(&own, &["run", ".", "--list"]);
    assert_eq!(code, 0, "{said}");
    assert!(said.contains("own login"), "{said}");
    // Artifacts into a folder of flows are refused (attack 26, C1), and a marker there (an
    // older runner's, or planted) makes the folder runner's output, which a walk from above
    // says, naming the flow it leaves out.
    let (code, said) = within(
        &own,
        &["run", "e2e/001-login", "--artifacts", "e2e/001-login"],
    );
    assert_eq!(code, 2, "{said}");
    std::fs::write(e2e.join("001-login/.runner-artifacts"), "x").unwrap();
    let (_, said) = within(&own, &["run", ".", "--list"]);
    assert!(!said.contains("own login"), "{said}");
    assert!(
        said.contains("warning: e2e/001-login holds runner's marker .runner-artifacts")
            && said.contains("\"e2e/001-login/login.yaml\""),
        "{said}"
    );
    // And validate of a directory with no flow file is no pass.
    std::fs::create_dir_all(d.path().join("empty")).unwrap();
    let (code, said) = within(d.path(), &["validate", "empty"]);
    assert_eq!(code, 2, "{said}");
    assert!(said.contains("no flow file found"), "{said}");
    // Nor a report: `--artifacts` names them.
    std::fs::remove_file(d.path().join("flows/art/report.json")).unwrap();
    std::fs::remove_dir_all(d.path().join("flows/art2")).unwrap();
    listed(&["run", "flows", "--list", "--artifacts", "flows/art"]);
    // Artifacts that hold a flow file of the user's (one written there after the run): their
    // flows' folders are still runner's, the user's flow is a flow.
    let pwned = downloading(d.path(), "dl");
    let flat = d.path().join("flat");
    let (code, said) = within(d.path(), &["run", "dl", "--artifacts", "flat"]);
    assert_eq!(code, 0, "{said}");
    write(
        &flat,
        "keep.yaml",
        "name: kept\nsteps:\n  - exec: [\"true\"]\n",
    );
    assert!(flat.join("001-visit-page/downloads/evil.yaml").is_file());
    // Named as the folder to run, a marked folder is runner's output all the same: no flow is
    // taken from it (the download is not even named), and the flow file there is named.
    let (_, said) = within(&flat, &["run", ".", "--list"]);
    assert!(!said.contains("evil"), "{said}");
    assert!(
        said.contains("\"./keep.yaml\"") || said.contains("\"keep.yaml\""),
        "{said}"
    );
    assert!(!pwned.exists());
}

/// C1 (attack 26): `--artifacts tests` named the folder of the flows: the run skipped every flow
/// under it without a word (exit 0, "1 passed"), and the marker it left kept later runs and
/// `validate .` skipping them. Now `--artifacts` on a folder that holds flow files, or at or
/// above the flows run, is refused before anything runs (exit 2, nothing written there), and a
/// marked folder a walk leaves out is named, with the flow files in it, never skipped silently.
#[test]
fn artifacts_on_a_folder_of_flows_is_refused_and_a_marker_hides_no_flow_silently() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    std::fs::create_dir_all(p.join("tests/checkout")).unwrap();
    write(
        &p.join("tests/checkout"),
        "b.yaml",
        "name: checkout\nsteps:\n  - exec: [sh, -c, \"exit 1\"]\n",
    );
    write(p, "top.yaml", "name: top\nsteps:\n  - exec: [echo, top]\n");
    for args in [
        &["run", ".", "--artifacts", "tests"][..],
        &["run", "tests", "--artifacts", "tests"],
        &["run", "tests/checkout", "--artifacts", "tests"],
        &["run", "tests", "--artifacts", "."],
        &["run", "top.yaml", "--artifacts", "tests"],
        &["run", ".", "--list", "--artifacts", "tests"],
    ] {
        let (code, said) = within(p, args);
        assert_eq!(code, 2, "{args:?}: {said}");
        assert!(said.contains("--artifacts"), "{args:?}: {said}");
        assert!(!said.contains("passed"), "{args:?}: {said}");
        assert!(!p.join("tests/.runner-artifacts").exists(), "{args:?}");
        assert!(!p.join(".runner-artifacts").exists(), "{args:?}");
    }
    let (_, said) = within(p, &["run", ".", "--artifacts", "tests"]);
    assert!(said.contains("holds flow files"), "{said}");
    assert!(said.contains("checkout/b.yaml"), "{said}");
    // A marker in the folder of flows (left by an older runner, or planted): the folder is
    // runner's output (everything under a marked folder is: review of session 23, F3), and
    // every walk that leaves it out says so, naming its flow files, under `run` and
    // `validate` alike.
    std::fs::write(p.join("tests/.runner-artifacts"), "x").unwrap();
    write(
        &p.join("tests"),
        "c2.yaml",
        "name: c2\nsteps:\n  - exec: [\"true\"]\n",
    );
    let noted = |said: &str| {
        said.contains("warning: tests holds runner's marker .runner-artifacts")
            && said.contains("\"tests/c2.yaml\", \"tests/checkout/b.yaml\"")
            && said.contains("remove the marker if they are yours")
    };
    let (code, said) = within(p, &["run", ".", "--artifacts", "art"]);
    assert_eq!(code, 0, "{said}");
    assert!(noted(&said), "{said}");
    let (code, said) = within(p, &["validate", "."]);
    assert_eq!(code, 0, "{said}");
    assert!(noted(&said) && said.contains("ok: 1 file valid"), "{said}");
    // Without the marker they are flows again.
    std::fs::remove_file(p.join("tests/.runner-artifacts")).unwrap();
    let (code, said) = within(p, &["run", ".", "--list"]);
    assert_eq!(code, 0, "{said}");
    assert!(said.contains("checkout") && said.contains("c2"), "{said}");
}

/// E6 (attack 28): `--artifacts notes`, a user's folder holding files of theirs and no marker,
/// was written into (`001-a/001-exec.stdout` beside `001-a/important.txt`) and marked
/// `.runner-artifacts` for good, which made all of it runner's output for later walks. Now it
/// is refused before anything runs (exit 2), left as it was; a new folder, an empty one (a
/// `.gitkeep` in it; or only what a file manager leaves in a folder it showed: macOS Finder's
/// `.DS_Store`, Windows Explorer's `Thumbs.db` and `desktop.ini`, refused before: review R5 of
/// session 25) and a run's own artifacts (marked) are taken, the same one again too.
#[test]
fn artifacts_on_a_users_folder_is_refused_and_left_as_it_was() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(p, "a.yaml", "name: a\nsteps:\n  - exec: [echo, hi]\n");
    std::fs::create_dir_all(p.join("notes/001-a")).unwrap();
    write(&p.join("notes/001-a"), "important.txt", "mine");
    write(&p.join("notes"), "index.html", "<p>mine</p>");
    let (code, said) = within(p, &["run", "a.yaml", "--artifacts", "notes"]);
    assert_eq!(code, 2, "{said}");
    assert!(
        said.contains("notes\" is a folder that is not runner's")
            && said.contains("\"001-a\", \"index.html\""),
        "{said}"
    );
    assert!(!said.contains("passed"), "{said}");
    assert!(!p.join("notes/.runner-artifacts").exists());
    let kept: Vec<_> = std::fs::read_dir(p.join("notes/001-a"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(kept, ["important.txt"]);
    std::fs::create_dir_all(p.join("empty")).unwrap();
    write(&p.join("empty"), ".gitkeep", "");
    std::fs::create_dir_all(p.join("shown")).unwrap();
    for name in [".DS_Store", "Thumbs.db", "desktop.ini"] {
        write(&p.join("shown"), name, "x");
    }
    for dir in ["new", "new", "empty", "empty", "shown", "shown"] {
        let (code, said) = within(p, &["run", "a.yaml", "--artifacts", dir]);
        assert_eq!(code, 0, "{dir}: {said}");
        assert!(said.contains("1 passed"), "{dir}: {said}");
        assert!(p.join(dir).join(".runner-artifacts").is_file(), "{dir}");
    }
}

/// F3 (review of session 23): a flow that saves a file with a flow's extension at the top of
/// its run's artifacts (`kubectl get -o yaml > {{ run.artifacts }}/cluster-state.yaml`) made the
/// next run into the same `--artifacts` refused ("holds flow files", exit 2) and `validate .`
/// fail on it. Everything under a marked folder is runner's output, never a flow: the same run
/// twice passes, `validate .` passes, and a file there that reads as a flow is not run either.
#[test]
fn a_file_a_flow_writes_into_its_artifacts_is_no_flow_for_later_runs() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    std::fs::create_dir_all(p.join("flows")).unwrap();
    write(
        &p.join("flows"),
        "dump.yaml",
        "name: dump\nsteps:\n  - exec: \"sh -c 'printf \\\"kind: ConfigMap\\\\n\\\" > {{ run.artifacts }}/cluster-state.yaml'\"\n",
    );
    for round in 0..2 {
        let (code, said) = within(p, &["run", ".", "--artifacts", "art"]);
        assert_eq!(code, 0, "round {round}: {said}");
        assert!(said.contains("1 passed"), "round {round}: {said}");
    }
    assert!(p.join("art/cluster-state.yaml").is_file());
    let (code, said) = within(p, &["validate", "."]);
    assert_eq!(code, 0, "{said}");
    assert!(said.contains("ok: 1 file valid"), "{said}");
    // A file there that reads as a flow is runner's output too (written by a flow, or a
    // page), not run, and the run says which it left out.
    std::fs::create_dir_all(p.join("art/sub")).unwrap();
    write(
        &p.join("art/sub"),
        "gen.yaml",
        "name: generated\nsteps:\n  - exec: [\"false\"]\n",
    );
    let (code, said) = within(p, &["run", ".", "--artifacts", "art"]);
    assert_eq!(code, 0, "{said}");
    assert!(!said.contains("generated"), "{said}");
    assert!(said.contains("1 passed"), "{said}");
    assert!(
        said.contains("warning: art holds runner's marker") && said.contains("art/sub/gen.yaml"),
        "{said}"
    );
    assert!(!said.contains("cluster-state"), "{said}");
}

/// The flow an atlas replay writes into its artifacts (`001-replay.yaml`, `atlas verify
/// --report` keeps them) is runner's own: a later walk that leaves those artifacts out does not
/// warn about it as a user's flow hidden by the marker, while a flow of the user's there still
/// is named.
#[test]
fn an_atlas_replays_flow_in_the_artifacts_is_not_warned_about() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(p, "a.yaml", "name: a\nsteps:\n  - log: hi\n");
    let (code, said) = within(p, &["run", "a.yaml", "--artifacts", "art"]);
    assert_eq!(code, 0, "{said}");
    write(
        &p.join("art"),
        "001-replay.yaml",
        "name: replay\nsteps:\n  - open: \"http://127.0.0.1:9/\"\n",
    );
    let (code, said) = within(p, &["validate", "."]);
    assert_eq!(code, 0, "{said}");
    assert!(!said.contains("warning"), "{said}");
    write(
        &p.join("art"),
        "mine.yaml",
        "name: mine\nsteps:\n  - log: hi\n",
    );
    let (_, said) = within(p, &["validate", "."]);
    assert!(
        said.contains("warning: art holds runner's marker") && said.contains("art/mine.yaml"),
        "{said}"
    );
    assert!(!said.contains("001-replay.yaml"), "{said}");
}
