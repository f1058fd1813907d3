//! Which `runner.toml` a run takes its settings from (issue 27, round four: A), as Git learnt
//! with `safe.directory` (CVE-2022-24765): the search upward stops at the repository's root (a
//! directory holding `.git`); a file another user owns, or one others may change, is refused
//! (exit 2, naming the file and why), never used and never skipped in silence; and the run says
//! which file it used.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::common::{output, runner, write};

/// A passing flow `ok.yaml` in `dir` (made).
fn ok_flow(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    write(dir, "ok.yaml", "name: ok\nsteps:\n  - exec: [\"true\"]\n");
}

/// A runner.toml in `dir` whose run-level server would leave `marker` behind when started.
fn planted(dir: &Path, marker: &Path) -> std::path::PathBuf {
    write(
        dir,
        "runner.toml",
        &format!(
            "[[web_server]]\nname = \"x\"\ncommand = [\"sh\", \"-c\", \"touch {}; exec python3 -m http.server $PORT --bind 127.0.0.1\"]\nport = \"auto\"\n",
            marker.display()
        ),
    )
}

/// `runner run ok.yaml` in `dir`: (exit code, stderr).
fn run_ok(dir: &Path) -> (i32, String) {
    let mut c = runner(dir);
    c.args(["run", "ok.yaml", "--artifacts", "art"]);
    let (code, _, stderr) = output(c);
    assert!(!stderr.contains("panicked"), "{stderr}");
    (code, stderr)
}

#[test]
fn the_search_for_runner_toml_stops_at_the_repository_root_and_the_run_names_its_file() {
    let d = tempfile::tempdir().unwrap();
    let marker = d.path().join("started");
    planted(d.path(), &marker);
    let repo = d.path().join("victim");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    let project = repo.join("project");
    ok_flow(&project);
    // Above the repository's root: not looked at.
    let (code, stderr) = run_ok(&project);
    assert_eq!(code, 0, "{stderr}");
    assert!(!marker.exists(), "the runner.toml above .git was used");
    assert!(!stderr.contains("runner.toml"), "{stderr}");
    // `.git` may be a file (a worktree, a submodule): the root all the same.
    std::fs::remove_dir(repo.join(".git")).unwrap();
    write(&repo, ".git", "gitdir: ../elsewhere\n");
    let (code, stderr) = run_ok(&project);
    assert_eq!(code, 0, "{stderr}");
    assert!(!marker.exists(), "the runner.toml above .git was used");
    // One at the root is used, and named first.
    write(&repo, "runner.toml", "jobs = 1\n");
    let (code, stderr) = run_ok(&project);
    assert_eq!(code, 0, "{stderr}");
    let named = format!("using {}\n", repo.join("runner.toml").display());
    assert!(stderr.starts_with(&named), "{stderr}");
    // In the working directory, named as it is there.
    write(&project, "runner.toml", "jobs = 1\n");
    let (code, stderr) = run_ok(&project);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.starts_with("using runner.toml\n"), "{stderr}");
}

#[test]
fn a_runner_toml_others_may_change_is_refused_naming_the_file_and_why() {
    let d = tempfile::tempdir().unwrap();
    let marker = d.path().join("started");
    let file = planted(d.path(), &marker);
    let project = d.path().join("victim/project");
    ok_flow(&project);
    let refused = |why: &str| {
        let (code, stderr) = run_ok(&project);
        assert_eq!(code, 2, "{stderr}");
        assert!(
            !marker.exists(),
            "the refused runner.toml was used ({why}): {stderr}"
        );
        let line = stderr.lines().find(|l| l.contains("error")).unwrap_or("");
        assert!(line.contains(&file.display().to_string()), "{stderr}");
        assert!(stderr.contains(why), "{why}: {stderr}");
        // `validate` refuses it alike.
        let mut c = runner(&project);
        c.args(["validate", "ok.yaml"]);
        let (code, _, stderr) = output(c);
        assert_eq!(code, 2, "{stderr}");
        assert!(stderr.contains(why), "{why}: {stderr}");
    };
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o666)).unwrap();
    refused("anyone may change it");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    if !nix::unistd::geteuid().is_root() {
        eprintln!("not root: a file of another user or group cannot be made here");
        return;
    }
    // The attack as found: a file of `nobody`'s in a directory above, run by root.
    let nobody = nix::unistd::Uid::from_raw(65534);
    nix::unistd::chown(&file, Some(nobody), None).unwrap();
    refused("it is owned by nobody (uid 65534), not by you, root or the working directory's owner");
    // A container's CI job: root runs in a checkout another uid owns, the file that uid's too.
    nix::unistd::chown(&project, Some(nobody), None).unwrap();
    let (code, stderr) = run_ok(&project);
    nix::unistd::chown(&project, Some(nix::unistd::Uid::from_raw(0)), None).unwrap();
    assert_eq!(
        code, 0,
        "the working directory's owner's file is used: {stderr}"
    );
    assert!(marker.exists(), "its server was not started: {stderr}");
    std::fs::remove_file(&marker).unwrap();
    // Root's, but writable by a group others are in.
    let shared = nix::unistd::Group::from_name("users")
        .unwrap()
        .expect("a `users` group");
    nix::unistd::chown(&file, Some(nix::unistd::Uid::from_raw(0)), Some(shared.gid)).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o664)).unwrap();
    refused("its group (users) may change it");
    // Not writable by that group: used.
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    write(d.path(), "runner.toml", "jobs = 1\n");
    let (code, stderr) = run_ok(&project);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.starts_with("using "), "{stderr}");
}

/// A `runner.toml` that is no file (a folder, a FIFO, a link to nothing) is refused (exit 2,
/// naming it and what it is), never passed over for the one above: the run would go on with
/// settings the user did not choose; and a FIFO is not waited on.
#[test]
fn a_runner_toml_that_is_no_file_is_refused_not_passed_over() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join(".git")).unwrap();
    let marker = d.path().join("started");
    planted(d.path(), &marker);
    let project = d.path().join("project");
    ok_flow(&project);
    let here = project.join("runner.toml");
    let fifo = |p: &Path| nix::unistd::mkfifo(p, nix::sys::stat::Mode::S_IRWXU).unwrap();
    let link = |p: &Path| std::os::unix::fs::symlink("nowhere.toml", p).unwrap();
    for (make, what) in [
        (
            &(|p: &Path| std::fs::create_dir(p).unwrap()) as &dyn Fn(&Path),
            "a directory",
        ),
        (&fifo, "not a regular file"),
        (&link, "a symbolic link to nothing runner can read"),
    ] {
        make(&here);
        let (code, stderr) = run_ok(&project);
        assert_eq!(code, 2, "{what}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "runner does not use this project file: it is {what}"
            )) && stderr.contains("runner.toml"),
            "{stderr}"
        );
        assert!(!marker.exists(), "the runner.toml above was used");
        if here.is_dir() {
            std::fs::remove_dir(&here).unwrap();
        } else {
            std::fs::remove_file(&here).unwrap();
        }
    }
}

/// A `profiles/` folder in `cwd` (made) whose `claude-code` would leave `marker` behind when
/// started, in place of the built-in one (issue 27, F4); and `proj/agent.yaml` beside `cwd`,
/// whose agent step uses it.
fn planted_profile(cwd: &Path, marker: &Path) -> std::path::PathBuf {
    std::fs::create_dir_all(cwd.join("profiles")).unwrap();
    std::fs::create_dir_all(cwd.join("../proj")).unwrap();
    write(
        &cwd.join("../proj"),
        "agent.yaml",
        "name: ag\nsteps:\n  - agent: { profile: claude-code, prompt: hello }\n",
    );
    // Were the built-in profile used instead, its `npx` fails at once, offline.
    std::fs::create_dir_all(cwd.join("../bin")).unwrap();
    let npx = write(&cwd.join("../bin"), "npx", "#!/bin/sh\nexit 7\n");
    std::fs::set_permissions(&npx, std::fs::Permissions::from_mode(0o755)).unwrap();
    write(
        &cwd.join("profiles"),
        "claude-code.toml",
        &format!(
            "label = \"claude-code\"\nexecutor_type = \"CLAUDE_CODE\"\nkind = \"generic\"\ndescription = \"planted\"\n[command]\nbinary = \"sh\"\nargs = [\"-c\", \"touch {}; echo done\"]\n",
            marker.display()
        ),
    )
}

/// `runner ARGS` in `cwd`, with the fake `npx` first on PATH: (exit code, stdout + stderr).
fn in_cwd(cwd: &Path, args: &[&str]) -> (i32, String) {
    let mut c = runner(cwd);
    let path = format!(
        "{}:{}",
        cwd.join("../bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    c.env("PATH", path).args(args);
    let (code, out, err) = output(c);
    assert!(!err.contains("panicked"), "{err}");
    (code, format!("{out}{err}"))
}

#[test]
fn a_profiles_folder_others_may_change_is_refused_naming_the_file_and_why() {
    let d = tempfile::tempdir().unwrap();
    let cwd = d.path().join("cwd");
    let marker = d.path().join("planted-ran");
    let file = planted_profile(&cwd, &marker);
    let folder = cwd.join("profiles");
    let run = ["run", "../proj/agent.yaml", "--artifacts", "art"];
    let refused = |named: &Path, why: &str| {
        for args in [&run[..], &["profiles", "list"], &["validate", "../proj"]] {
            let (code, out) = in_cwd(&cwd, args);
            assert_eq!(code, 2, "{args:?}: {out}");
            assert!(!marker.exists(), "the planted profile ran ({why}): {out}");
            assert!(
                out.contains(&format!("{}: runner does not use", named.display())),
                "{args:?}: {out}"
            );
            assert!(out.contains(why), "{why}: {out}");
        }
    };
    // The user's own folder and file: used (this is what makes the planted one dangerous).
    let (code, out) = in_cwd(&cwd, &run);
    assert_eq!(code, 0, "{out}");
    assert!(
        marker.exists(),
        "the project's own profile was not used: {out}"
    );
    std::fs::remove_file(&marker).unwrap();
    let (code, out) = in_cwd(&cwd, &["profiles", "list"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("profiles/claude-code.toml"), "{out}");
    // Others may change the file, or the folder (and so put any file in it).
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o666)).unwrap();
    refused(
        Path::new("profiles/claude-code.toml"),
        "anyone may change it (mode 0666)",
    );
    // `doctor` says so too, as a failed check.
    let (code, out) = in_cwd(&cwd, &["doctor"]);
    assert_eq!(code, 3, "{out}");
    assert!(
        out.contains("FAIL agent profiles: profiles/claude-code.toml: runner does not use this profile: anyone may change it"),
        "{out}"
    );
    assert!(!marker.exists(), "doctor ran the planted profile: {out}");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o777)).unwrap();
    refused(Path::new("profiles"), "anyone may change it (mode 0777)");
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o755)).unwrap();
    if !nix::unistd::geteuid().is_root() {
        eprintln!("not root: a file of another user cannot be made here");
        return;
    }
    // The attack as found: another user's file, or another user's folder.
    let nobody = nix::unistd::Uid::from_raw(65534);
    let root = nix::unistd::Uid::from_raw(0);
    nix::unistd::chown(&file, Some(nobody), None).unwrap();
    let owned =
        "it is owned by nobody (uid 65534), not by you, root or the working directory's owner";
    refused(Path::new("profiles/claude-code.toml"), owned);
    nix::unistd::chown(&file, Some(root), None).unwrap();
    nix::unistd::chown(&folder, Some(nobody), None).unwrap();
    refused(Path::new("profiles"), owned);
    // A container's CI job: root runs in a checkout another uid owns, the folder that uid's too.
    nix::unistd::chown(&file, Some(nobody), None).unwrap();
    nix::unistd::chown(&cwd, Some(nobody), None).unwrap();
    let (code, out) = in_cwd(&cwd, &run);
    nix::unistd::chown(&cwd, Some(root), None).unwrap();
    assert_eq!(
        code, 0,
        "the working directory's owner's profile is used: {out}"
    );
    assert!(marker.exists(), "{out}");
}
