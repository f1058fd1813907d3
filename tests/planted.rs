//! Symlinks planted beforehand in a directory a run reuses (issue 27, third round: A2–A4): in
//! the artifacts (`--artifacts`) and in an HTML report's folder (`--report html=DIR`), nothing
//! runner writes goes through one, and nothing a report copies comes from one. And a binary
//! planted in the working directory's `node_modules` (F11): not run unless it is the user's own.

use std::path::{Path, PathBuf};

use crate::agents::{agent_env, with_profiles};
use crate::common::{Ran, fixture, flow_run, output, real_agent_browser, runner, write};

/// A flow that makes every kind of file a run leaves in its artifacts: its web server's log, an
/// exec step's `.stdout` and `.stderr` (its own and a sub-flow's), screenshots (default name and
/// `path`), a download, an agent's log, an `act`'s screenshots before and after the agent's
/// decision, and the failure screenshot and snapshot of its last step (so the HTML report copies
/// the log and a screenshot into `assets/`). Each step but the last goes on when it fails.
fn every_kind(dir: &Path, port: u16) -> String {
    write(
        dir,
        "sub.yaml",
        "name: sub\nsteps:\n  - exec: [\"sh\", \"-c\", \"echo OVERWRITTEN; echo OVERWRITTEN >&2\"]\n",
    );
    let page = |p: &str| format!("http://127.0.0.1:{port}/{p}");
    format!(
        r##"name: every-kind
web_server:
  command: ["python3", "{echo}", "{port}", "{site}"]
  url: "{downloads}"
  ready_timeout: 20s
steps:
  - open: "{downloads}"
  - exec: ["sh", "-c", "echo OVERWRITTEN; echo OVERWRITTEN >&2"]
    continue_on_error: true
  - screenshot: true
    continue_on_error: true
  - screenshot: {{ path: shots/x.png }}
    continue_on_error: true
  - download: {{ target: "#again" }}
    continue_on_error: true
  - run_flow: sub.yaml
    continue_on_error: true
  - agent: {{ profile: fake-claude, prompt: "say hi" }}
    continue_on_error: true
  - open: "{index}"
  - act: {{ intent: "sign me in, please: the Sign in or Log in button", profile: fake-claude }}
    continue_on_error: true
  - click: "#no-such-thing"
    timeout: 1s
"##,
        echo = fixture("echo_server.py").display(),
        site = fixture("site").display(),
        downloads = page("downloads.html"),
        index = page("index.html"),
    )
}

/// The files under `dir` (not directories), sorted.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(walkdir::DirEntry::into_path)
        .collect();
    v.sort();
    v
}

/// Replaces each of `files` by a symlink to a victim file of its own in `victims`; the victims
/// and their texts.
fn plant(files: &[PathBuf], victims: &Path, from: usize) -> Vec<(PathBuf, String)> {
    files
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let victim = victims.join(format!("victim-{}", from + i));
            let text = format!("VICTIM {} ({})\n", from + i, f.display());
            std::fs::write(&victim, &text).unwrap();
            std::fs::remove_file(f).unwrap();
            std::os::unix::fs::symlink(&victim, f).unwrap();
            (victim, text)
        })
        .collect()
}

/// What the victims hold now that differs from what they held.
fn written(victims: &[(PathBuf, String)]) -> Vec<String> {
    victims
        .iter()
        .filter(|(v, text)| std::fs::read_to_string(v).unwrap_or_default() != *text)
        .map(|(v, _)| v.display().to_string())
        .collect()
}

fn run(dir: &Path, html: &str) -> Ran {
    flow_run(dir)
        .with(|c| agent_env(c, dir))
        .args(with_profiles(&["f.yaml", "--agent-cache", "off"]))
        .args(["--report", &format!("html={html}")])
        .run()
}

/// The run is made once on clean directories; then every file it left in its artifacts is
/// replaced by a symlink to a victim file outside, and the run made again; then the artifacts
/// are clean and every file of the HTML report's folder is such a symlink. No victim is written
/// (nor does one reach the report), and the steps whose files were links say so. A new kind of
/// artifact is covered as soon as this flow makes it.
#[test]
fn nothing_a_run_writes_goes_through_a_symlink_planted_in_its_place() {
    let d = tempfile::tempdir().unwrap();
    let victims = d.path().join("victims");
    std::fs::create_dir(&victims).unwrap();
    let port = crate::common::free_port();
    write(d.path(), "f.yaml", &every_kind(d.path(), port));
    let art = d.path().join("art");

    // 1. Clean: every kind of file is there.
    let r = run(d.path(), "h");
    assert_eq!(r.code, 1, "{}", r.stderr);
    let made = files_under(&art);
    let names: Vec<String> = made.iter().map(|p| p.display().to_string()).collect();
    for kind in [
        "-exec.stdout",
        "-exec.stderr",
        "-sub/001-exec.stdout",
        "web_server/server.log",
        "-screenshot.png",
        "shots/x.png",
        "downloads/report.csv",
        ".agent.log",
        "-act.before.png",
        "-act.after.png",
        "-failure.png",
        "-failure.snapshot.txt",
        "trace/trace.json",
        "-open.jpg",
        "art/report.json",
    ] {
        assert!(
            names.iter().any(|n| n.ends_with(kind)),
            "no {kind} in {names:#?}"
        );
    }
    // The page, the server's log and the failure screenshot (the failed step's trace picture
    // too: copied once), and the other trace pictures of the failed flow.
    // Runner's mark on its `assets/` is left as it is: with the mark a link, the folder is not
    // runner's, and the report is refused before the run (nothing written at all).
    let mut report_files = files_under(&d.path().join("h"));
    report_files.retain(|p| !p.ends_with("assets/.runner-assets"));
    let (pictures, others): (Vec<_>, Vec<_>) = report_files
        .iter()
        .partition(|p| p.extension().is_some_and(|e| e == "jpg"));
    assert_eq!(others.len(), 3, "{report_files:?}");
    assert!(
        others.iter().any(|p| p.ends_with("index.html")),
        "{report_files:?}"
    );
    assert!(!pictures.is_empty(), "{report_files:?}");

    // 2. Each of them a symlink to a victim: none is written, none reaches a (new) report.
    let planted = plant(&made, &victims, 0);
    let r = run(d.path(), "h2");
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(written(&planted), Vec::<String>::new(), "{}", r.stderr);
    let exec = &r.report["flows"][0]["steps"][1];
    let why = exec["error"]["message"].as_str().unwrap_or_default();
    assert!(
        why.contains("-exec.stdout is a symbolic link: runner writes no artifact through one"),
        "{exec}"
    );
    let flow = &r.report["flows"][0];
    assert!(flow["web_server_log"].is_null(), "{flow}");
    let not_kept = flow["web_server_log_not_kept"].as_str().unwrap_or_default();
    assert!(
        not_kept.contains("web_server/server.log is a symbolic link"),
        "{flow}"
    );
    assert!(
        r.stderr
            .contains("web server `server`: its log is not kept: ")
            && r.stderr.contains("web server log not kept: "),
        "{}",
        r.stderr
    );
    let page = std::fs::read_to_string(d.path().join("h2/index.html")).unwrap();
    assert!(page.contains("web server log not kept: "), "{page}");
    for f in files_under(&d.path().join("h2")) {
        let text = String::from_utf8_lossy(&std::fs::read(&f).unwrap()).into_owned();
        assert!(
            !text.contains("VICTIM"),
            "{} holds a victim's text",
            f.display()
        );
    }

    // 3. Clean artifacts, and the report's folder planted: its files are not written through.
    std::fs::remove_dir_all(&art).unwrap();
    let planted = plant(&report_files, &victims, planted.len());
    let r = run(d.path(), "h");
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(written(&planted), Vec::<String>::new(), "{}", r.stderr);
    assert!(
        r.stderr
            .contains("assets/1.log is a symbolic link: runner writes no artifact through one"),
        "{}",
        r.stderr
    );
    // merge-reports writes its HTML report the same way (exit 3: the report was not written).
    let mut c = crate::common::runner(d.path());
    c.args(["merge-reports", "report.json", "--report", "html=h"]);
    let (code, _, stderr) = crate::common::output(c);
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains("assets/1.log is a symbolic link"),
        "{stderr}"
    );
    assert_eq!(written(&planted), Vec::<String>::new(), "{stderr}");

    // 4. Each folder the run made inside its flow's folder, in turn, a symlink to an empty
    // folder outside (the browser's downloads folder too): nothing is written there.
    let flow_dir = art.join("001-every-kind");
    let folders: Vec<String> = made
        .iter()
        .filter_map(|f| f.parent()?.strip_prefix(&flow_dir).ok())
        .filter(|p| !p.as_os_str().is_empty())
        .map(|p| p.display().to_string())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    assert_eq!(
        folders,
        ["006-sub", "downloads", "shots", "trace", "web_server"]
    );
    for (i, folder) in folders.iter().enumerate() {
        let _ = std::fs::remove_dir_all(&art);
        std::fs::create_dir_all(&flow_dir).unwrap();
        // A run's artifacts, reused (runner takes no folder of the user's holding files).
        std::fs::write(art.join(".runner-artifacts"), "").unwrap();
        let outside = victims.join(format!("folder-{i}"));
        std::fs::create_dir(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, flow_dir.join(folder)).unwrap();
        let r = run(d.path(), "h3");
        assert_ne!(r.code, 0, "{}", r.stderr);
        assert!(
            r.stderr.contains(&format!("{folder} is a symbolic link")),
            "{folder}: {}",
            r.stderr
        );
        let inside: Vec<_> = std::fs::read_dir(&outside).unwrap().collect();
        assert!(inside.is_empty(), "{folder}: written through: {inside:?}");
        // A trace finished after its flow ended, not written: no report names it.
        if folder == "trace" {
            let flow = &r.report["flows"][0];
            assert!(flow["trace"].is_null(), "{flow}");
        }
    }
}

/// runner's own folder in the working directory, `.runner` (its runs, logs and atlas by
/// default), or a folder in it, planted as a link to a folder outside, as a cloned repository
/// may hold one: nothing is written through it, and the command says which link it refused.
/// A run's artifacts (`.runner`, `.runner/runs`) are refused with exit 3; explore's server log
/// (`.runner/logs`) is not kept; its atlas (`.runner/atlas`) is refused as broken.
#[test]
fn nothing_is_written_through_a_link_planted_in_runners_own_folder() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        "name: f\nsteps:\n  - exec: [\"true\"]\n",
    );
    write(
        d.path(),
        "runner.toml",
        &format!(
            "[[web_server]]\nname = \"app\"\ncommand = [\"python3\", \"{}\", \"--port\", \"{{{{ web_server.port }}}}\"]\nport = \"auto\"\n",
            fixture("servers/app.py").display()
        ),
    );
    let runs: [(&str, &[&str]); 4] = [
        (".runner", &["run", "f.yaml"]),
        (".runner/runs", &["run", "f.yaml"]),
        (
            ".runner/logs",
            &["explore", "/", "--atlas", "atlas", "--max-nodes", "1"],
        ),
        (".runner/atlas", &["explore", "/", "--max-nodes", "1"]),
    ];
    for (i, (link, args)) in runs.iter().enumerate() {
        let _ = std::fs::remove_dir_all(d.path().join(".runner"));
        let _ = std::fs::remove_file(d.path().join(".runner"));
        let outside = d.path().join(format!("outside-{i}"));
        std::fs::create_dir(&outside).unwrap();
        let at = d.path().join(link);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&outside, &at).unwrap();
        let mut c = crate::common::runner(d.path());
        c.args(*args);
        let (code, out, err) = crate::common::output(c);
        let said = "a symbolic link: runner writes nothing in its own folder through one";
        assert!(
            err.contains(&at.display().to_string()) && err.contains(said),
            "{link}: {out}{err}"
        );
        let inside: Vec<_> = walkdir::WalkDir::new(&outside)
            .min_depth(1)
            .into_iter()
            .collect();
        assert!(inside.is_empty(), "{link}: written through: {inside:?}");
        match *link {
            ".runner/logs" => {
                assert_eq!(code, 0, "{out}{err}");
                assert!(
                    err.contains("web server `app`: its log is not kept: "),
                    "{err}"
                );
            }
            // What explore says of a broken atlas.
            ".runner/atlas" => assert_ne!(code, 0, "{out}{err}"),
            _ => assert_eq!(code, 3, "{link}: {out}{err}"),
        }
    }
}

/// `node_modules/agent-browser` in the working directory is looked for there and started from
/// there, wherever the flow is (issue 27, F11); and only when it is the user's own: a binary
/// there that anyone may change, another user owns, or whose folder anyone may change, is not
/// run (the one installed globally is), and `runner doctor` says why.
#[test]
fn a_node_modules_agent_browser_is_run_from_any_flows_folder_and_only_when_it_is_yours() {
    use std::os::unix::fs::PermissionsExt;
    let d = tempfile::tempdir().unwrap();
    let cwd = d.path().join("cwd");
    let bin = cwd.join("node_modules/agent-browser/bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::create_dir_all(d.path().join("proj")).unwrap();
    write(
        &d.path().join("proj"),
        "br.yaml",
        "name: br\nsteps:\n  - open: about:blank\n",
    );
    let marker = d.path().join("local-ran");
    let local = write(
        &bin,
        "agent-browser-linux-x64",
        &format!(
            "#!/bin/sh\ntouch '{}'\nexec '{}' \"$@\"\n",
            marker.display(),
            real_agent_browser().display()
        ),
    );
    let mode = |p: &Path, m: u32| {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap();
    };
    mode(&local, 0o755);
    let run = || {
        flow_run(&cwd)
            .with(|c| {
                c.env_remove("AGENT_BROWSER");
            })
            .arg("../proj/br.yaml")
            .run()
    };
    // The user's own: used, though the flow's folder is another.
    let Ran { code, stderr, .. } = run();
    assert_eq!(code, 0, "{stderr}");
    assert!(
        marker.exists(),
        "the local agent-browser was not used: {stderr}"
    );
    std::fs::remove_file(&marker).unwrap();
    let not_run = |what: &str, why: &str| {
        let Ran { code, stderr, .. } = run();
        assert_eq!(code, 0, "{what}: {stderr}");
        assert!(
            !marker.exists(),
            "{what}: the planted agent-browser ran: {stderr}"
        );
        let mut c = runner(&cwd);
        c.arg("doctor").env_remove("AGENT_BROWSER");
        let (_, out, err) = output(c);
        assert!(
            !marker.exists(),
            "{what}: doctor ran the planted agent-browser: {out}"
        );
        let said = format!("{} is not used: {why}", Path::new(what).display());
        assert!(out.contains(&said), "{said}: {out}{err}");
        assert!(out.contains("ok   agent-browser:"), "{out}{err}");
    };
    mode(&local, 0o777);
    not_run(
        "node_modules/agent-browser/bin/agent-browser-linux-x64",
        "anyone may change it (mode 0777)",
    );
    mode(&local, 0o755);
    mode(&bin, 0o777);
    not_run(
        "node_modules/agent-browser/bin",
        "anyone may change it (mode 0777)",
    );
    mode(&bin, 0o755);
    if !nix::unistd::geteuid().is_root() {
        eprintln!("not root: a file of another user cannot be made here");
        return;
    }
    nix::unistd::chown(&local, Some(nix::unistd::Uid::from_raw(65534)), None).unwrap();
    not_run(
        "node_modules/agent-browser/bin/agent-browser-linux-x64",
        "it is owned by nobody (uid 65534), not by you, root or the working directory's owner",
    );
}
