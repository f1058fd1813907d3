//! Input from outside, tried again after issue 27's first round (F7–F9): a reused artifacts
//! directory with symlinks in it, templates in `--var` and var files, and what `validate` must
//! refuse in a flow and in runner.toml (a retry that would wait for weeks, a line break in a
//! header) and in var files (a name twice, an empty or multi-line name, UTF-16, a deep JSON
//! file whose error must stay short).

use std::path::{Path, PathBuf};

use crate::common::{fixture, flow_run, output, runner, write};

/// A folder standing for `/etc` in `dir`: `outside/passwd`.
fn outside(dir: &Path) -> PathBuf {
    let outside = dir.join("outside");
    std::fs::create_dir(&outside).unwrap();
    write(&outside, "passwd", "root:x:0:0\n");
    outside
}

/// A run of `f.yaml` in `dir` that exits with `code`, saying `said` on the console.
fn fails_saying(dir: &Path, code: i32, said: &str) {
    let r = flow_run(dir).arg("f.yaml").run();
    assert_eq!(r.code, code, "{}", r.stderr);
    assert!(r.stderr.contains(said), "wanted {said:?} in:\n{}", r.stderr);
}

/// Makes `art` a run's artifacts directory, reused (marked as runner's): runner takes no folder
/// of the user's that holds files.
fn reused(art: &Path) {
    std::fs::create_dir_all(art).unwrap();
    std::fs::write(art.join(".runner-artifacts"), "").unwrap();
}

/// Fails unless [`outside`] holds its `passwd` alone, as it was.
fn nothing_written(outside: &Path) {
    let names: Vec<_> = std::fs::read_dir(outside)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["passwd"], "written outside: {names:?}");
    assert_eq!(
        std::fs::read_to_string(outside.join("passwd")).unwrap(),
        "root:x:0:0\n"
    );
}

/// A reused `--artifacts` directory holding symlinks out (to a folder standing for `/etc`):
/// where a step would write through one (`screenshot.path` under a linked folder, the flow's
/// own folder linked, a screenshot's file name linked to a file outside), the step fails with
/// a clear error and nothing is written outside.
#[test]
fn artifact_writes_never_follow_a_symlink_out_of_the_artifacts() {
    let d = tempfile::tempdir().unwrap();
    let outside = outside(d.path());
    let flow = |shot: &str| {
        format!(
            "name: shots\nweb_server: {{ static: \"{}\" }}\nsteps:\n  - open: \"{{{{ web_server.url }}}}/index.html\"\n  - screenshot: {shot}\n",
            fixture("site").display()
        )
    };
    write(d.path(), "f.yaml", &flow("{ path: shots/x.png }"));
    let art = d.path().join("art");
    reused(&art);
    let link = |from: &Path, to: &Path| {
        std::fs::create_dir_all(from.parent().unwrap()).unwrap();
        let _ = std::fs::remove_file(from);
        std::os::unix::fs::symlink(to, from).unwrap();
    };
    // 1. A folder inside the flow's artifacts is a symlink out.
    link(&art.join("001-shots/shots"), &outside);
    let r = flow_run(d.path()).arg("f.yaml").run();
    assert_eq!(r.code, 1, "{}", r.stderr);
    let e = r.report["flows"][0]["steps"][1]["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        e.contains("001-shots/shots is a symbolic link: runner writes no artifact through one"),
        "{e}\n{}",
        r.stderr
    );
    // 2. The screenshot's own name is a symlink to a file outside.
    std::fs::remove_file(art.join("001-shots/shots")).unwrap();
    std::fs::create_dir(art.join("001-shots/shots")).unwrap();
    link(&art.join("001-shots/shots/x.png"), &outside.join("passwd"));
    fails_saying(d.path(), 1, "x.png is a symbolic link");
    // 3. The flow's own artifacts folder is a symlink out (a default screenshot).
    std::fs::remove_dir_all(&art).unwrap();
    reused(&art);
    write(d.path(), "f.yaml", &flow("true"));
    link(&art.join("001-shots"), &outside);
    fails_saying(d.path(), 3, "001-shots is a symbolic link");
    nothing_written(&outside);
}

/// Downloads in a reused artifacts directory: a page-suggested name longer than a file name may
/// be is cut (its extension kept), with the `download` step and without; a name already taken
/// by a symlink out (to a file, or dangling) gets the next free name, the link neither followed
/// nor replaced; a download still under way when the last step ends (2 s more) is waited for
/// and named too; and a flow whose `downloads` folder is itself a symlink out fails saying so,
/// before its browser saves anything there.
#[test]
fn downloads_never_follow_a_symlink_and_long_names_are_cut() {
    let d = tempfile::tempdir().unwrap();
    let port = crate::common::free_port();
    let outside = outside(d.path());
    write(
        d.path(),
        "f.yaml",
        &format!(
            "name: odd downloads\nweb_server:\n  command: [python3, \"{}\", \"{port}\", \"{}\"]\n  url: \"http://127.0.0.1:{port}\"\nsteps:\n  - open: \"{{{{ web_server.url }}}}/odd-downloads.html\"\n  - id: long\n    download: {{ target: \"#long\" }}\n  - click: \"#long\"\n  - click: \"#dangling\"\n  - id: report\n    download: {{ target: \"#report\" }}\n  - id: slow\n    download: {{ target: \"#slow\" }}\n    timeout: 1s\n    continue_on_error: true\n",
            fixture("echo_server.py").display(),
            fixture("site").display()
        ),
    );
    let downloads = d.path().join("art/001-odd-downloads/downloads");
    reused(&d.path().join("art"));
    std::fs::create_dir_all(&downloads).unwrap();
    std::os::unix::fs::symlink(outside.join("passwd"), downloads.join("report.csv")).unwrap();
    std::os::unix::fs::symlink(outside.join("new.csv"), downloads.join("dangling.csv")).unwrap();
    let report = flow_run(d.path()).arg("f.yaml").passes();
    let want = std::fs::read(fixture("site/report.csv")).unwrap();
    // The slow download had begun when its step gave up on it (so no step took it).
    let slow = crate::common::step(&report, "slow")["error"]["message"].to_string();
    assert!(slow.contains("/slow/report.csv did not finish"), "{slow}");
    let long = format!("{}.csv", "L".repeat(251));
    let path = |id: &str| {
        crate::common::step(&report, id)["outputs"]["path"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(path("long"), downloads.join(&long).display().to_string());
    assert_eq!(
        path("report"),
        downloads.join("report (2).csv").display().to_string()
    );
    let mut names: Vec<String> = std::fs::read_dir(&downloads)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let second = format!("{} (2).csv", "L".repeat(247));
    let names_sorted: Vec<&str> = vec![
        &second,
        &long,
        "dangling (2).csv",
        "dangling.csv",
        "report (2).csv",
        "report.csv",
        "slow.csv",
    ];
    assert_eq!(
        names, names_sorted,
        "every download named, none left as its id"
    );
    for n in [&long, &second, "dangling (2).csv", "report (2).csv"] {
        assert_eq!(std::fs::read(downloads.join(n)).unwrap(), want, "{n}");
    }
    let slow = std::fs::read(downloads.join("slow.csv")).unwrap();
    assert_eq!(slow, want.repeat(4096)[..4096], "the whole of the slow one");
    // The planted links are as they were.
    assert_eq!(
        std::fs::read_link(downloads.join("report.csv")).unwrap(),
        outside.join("passwd")
    );
    assert_eq!(
        std::fs::read_link(downloads.join("dangling.csv")).unwrap(),
        outside.join("new.csv")
    );
    // The flow's `downloads` folder is a symlink out.
    std::fs::remove_dir_all(&downloads).unwrap();
    std::os::unix::fs::symlink(&outside, &downloads).unwrap();
    fails_saying(
        d.path(),
        3,
        "001-odd-downloads/downloads is a symbolic link: runner writes no artifact through one",
    );
    nothing_written(&outside);
}

/// A page that starts 110 downloads (a wall of frames, each loading an attachment) leaves 100
/// in the flow's artifacts: the ones past the flow's bound (100 downloads, 1 GiB) are cancelled
/// as they begin, whatever a finished one left is removed, and the flow notes it on the console
/// and in its report. The flow waits for the server to have sent all 110 before it ends.
#[test]
fn a_flows_downloads_are_bounded_and_the_rest_noted() {
    let d = tempfile::tempdir().unwrap();
    let port = crate::common::free_port();
    write(
        d.path(),
        "f.yaml",
        &format!(
            r#"name: many downloads
web_server:
  command: [python3, "{echo}", "{port}", "{site}"]
  url: "http://127.0.0.1:{port}"
steps:
  - open: "{{{{ web_server.url }}}}/many-downloads.html?n=110"
  - exec:
      command: [python3, -c, "import json, time, urllib.request as u; [time.sleep(0.05) for _ in iter(lambda: json.load(u.urlopen('{{{{ web_server.url }}}}/served'))['downloads'] < 110, False)]"]
    timeout: 60s
"#,
            echo = fixture("echo_server.py").display(),
            site = fixture("site").display()
        ),
    );
    let r = flow_run(d.path())
        .args(["f.yaml", "--report", "junit=j.xml", "--report", "html=h"])
        .run();
    assert_eq!(r.code, 0, "{}", r.stderr);
    let downloads = d.path().join("art/001-many-downloads/downloads");
    let names: Vec<String> = std::fs::read_dir(&downloads)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 100, "{names:?}");
    assert!(
        names.iter().all(|n| n.starts_with("report")),
        "each kept one named, none left as its id: {names:?}"
    );
    let note = r.report["flows"][0]["downloads_not_kept"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        note.starts_with(
            "10 download(s) past the flow's bound (100 downloads, 1024 MiB in all) cancelled and not kept"
        ),
        "{}",
        r.report
    );
    assert!(r.stderr.contains(&format!("note: {note}")), "{}", r.stderr);
    // Said in every report: the JUnit case's output and the HTML page's flow.
    let junit = std::fs::read_to_string(d.path().join("j.xml")).unwrap();
    assert!(
        junit.contains("<system-out>note: 10 download(s) past the flow")
            && junit.contains("cancelled and not kept"),
        "{junit}"
    );
    let html = std::fs::read_to_string(d.path().join("h/index.html")).unwrap();
    assert!(
        html.contains("<p class=\"left-out\">note: 10 download(s) past the flow's bound"),
        "{html}"
    );
}

/// A web server that prints one enormous line with no newline (17 MB, more than the log keeps,
/// holding a secret where a cut falls) and exits: runner's memory grows by little while it
/// reads it, the log keeps at most 16 MiB and says it was truncated, the failure's excerpt
/// shows the line cut with its length, and no part of the secret is left on either side of a
/// cut.
#[test]
fn a_server_flooding_one_line_costs_bounded_memory_and_output() {
    const SECRET: &str = "Kx9-ZeQrUt-Qm4";
    const CAP: usize = 16 * 1024 * 1024;
    let d = tempfile::tempdir().unwrap();
    let marker = d.path().join("written");
    write(
        d.path(),
        "f.yaml",
        &format!(
            "name: flood\nsecrets: [SECRET]\nweb_server:\n  command: [python3, \"{}\", \"{}\", \"17000000\", \"{CAP}\"]\n  env: {{ FLOOD_SECRET: \"{{{{ secrets.SECRET }}}}\" }}\n  port: auto\n  ready_timeout: 60s\nsteps:\n  - log: never\n",
            fixture("servers/flood.py").display(),
            marker.display()
        ),
    );
    let child = runner(d.path())
        .args([
            "run",
            "f.yaml",
            "--artifacts",
            "art",
            "--report",
            "json=report.json",
        ])
        .env("SECRET", SECRET)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let peak_kb = || {
        let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .unwrap()
    };
    crate::common::wait_for_file(&d.path().join("written.started"));
    let before = peak_kb();
    write(d.path(), "written.flood", "1");
    // (Masking 17 MB in a debug build on a busy machine takes a while.)
    crate::common::wait_for_file_within(&marker, 60);
    let after = peak_kb();
    write(d.path(), "written.go", "1");
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        after < before + 8 * 1024,
        "runner's memory peaked at {after} kB, {before} kB before the long line"
    );
    // The excerpt: the first line whole, the long one cut with its length said.
    let cut = format!(
        "  | starting\n  | {}***xx… (truncated: a line of 16.2 MiB)\n",
        "x".repeat(995)
    );
    assert!(
        stderr.contains(&cut),
        "{}",
        &stderr[..stderr.len().min(3000)]
    );
    assert!(stderr.len() < 8000, "{} bytes of stderr", stderr.len());
    let log = std::fs::read(d.path().join("art/001-flood/web_server/server.log")).unwrap();
    let note = "\n… (truncated: the server printed more than 16 MiB; the rest is not kept)\n";
    let note = note.as_bytes();
    assert!(
        log.ends_with(note),
        "{:?}",
        String::from_utf8_lossy(&log[log.len().saturating_sub(200)..])
    );
    assert!(log.len() <= CAP + note.len(), "{} bytes", log.len());
    assert!(log.starts_with(b"starting\nxxx"));
    let report = std::fs::read_to_string(d.path().join("report.json")).unwrap();
    // No part of the secret on either side of a cut: its first five characters nowhere.
    let log = String::from_utf8_lossy(&log);
    for (what, text) in [
        ("stderr", stderr.as_str()),
        ("report", &report),
        ("log", &log),
    ] {
        assert!(
            !text.contains(&SECRET[..5]),
            "{what} holds a piece of the secret"
        );
        assert!(text.contains("***"), "{what} shows no mask");
    }
}

/// A template in a `--var` value or a var file's value is refused (exit 2, naming the var, and
/// the file:line of a var file), as runner.toml's `[vars]` refuse one: it would be used as
/// written, `{{ secrets.X }}` and all.
#[test]
fn templates_in_var_flags_and_var_files_are_refused() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "x.yaml",
        "name: x\nvars:\n  x: unset\nsteps:\n  - log: \"x is {{ vars.x }}\"\n",
    );
    write(d.path(), "v.env", "# vars\ny=1\nx={{ secrets.TOKEN }}\n");
    write(
        d.path(),
        "v.yaml",
        "y: 1\nx:\n  deep: [\"{% if 1 %}a{% endif %}\"]\n",
    );
    let cases: [(&[&str], &str); 3] = [
        (
            &["--var", "x={{ secrets.TOKEN }}"],
            "--var `x`: `{{ secrets.TOKEN }}` is used as written: a var given to runner takes no templates",
        ),
        (
            &["--var-file", "v.env"],
            "v.env:3:3: error: the value of `x` is used as written: a var file takes no templates",
        ),
        (
            &["--var-file", "v.yaml"],
            "v.yaml:3:10: error: the value of `x` is used as written: a var file takes no templates",
        ),
    ];
    for (args, want) in cases {
        let mut c = runner(d.path());
        c.args(["run", "x.yaml"]).args(args);
        let (code, stdout, stderr) = output(c);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(
            stderr.contains(want),
            "{args:?}: wanted {want:?} in:\n{stderr}"
        );
        assert!(
            !stdout.contains("x is") && !stderr.contains("x is"),
            "{stderr}"
        );
    }
}

/// `validate` refuses, with file:line:col: a retry whose waits add up past the 7 days any
/// duration may be (a backoff without `max_delay`), in a step and in `defaults`; a CR or LF in
/// a header value (a flow's `browser.headers`, a `request`'s and a `route`'s headers, and
/// runner.toml's `[browser] headers`).
#[test]
fn validate_refuses_an_unbounded_backoff_and_line_breaks_in_headers() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        "name: f\ndefaults:\n  retry: { attempts: 40, delay: 1s, backoff: 2 }\nbrowser:\n  headers:\n    X-A: \"a\\r\\nSet-Cookie: x=1\"\nsteps:\n  - log: hi\n    retry: { attempts: 30, delay: 10s, backoff: 3 }\n  - log: capped\n    retry: { attempts: 30, delay: 10s, backoff: 3, max_delay: 1m }\n  - request: { url: \"http://127.0.0.1:9/\", headers: { X-B: \"b\\nc\" } }\n  - route: { url: \"**/api\", body: x, headers: { X-C: \"c\\rd\" } }\n",
    );
    let validate = || {
        let mut c = runner(d.path());
        c.args(["validate", "f.yaml"]);
        output(c)
    };
    let (code, _, stderr) = validate();
    assert_eq!(code, 2, "{stderr}");
    for want in [
        "f.yaml:3:10: error: the waits of this retry add up to",
        "f.yaml:9:12: error: the waits of this retry add up to",
        "f.yaml:6:10: error: the header `X-A` holds a line break",
        "f.yaml:12:60: error: the header `X-B` holds a line break",
        "f.yaml:13:54: error: the header `X-C` holds a line break",
    ] {
        assert!(stderr.contains(want), "wanted {want:?} in:\n{stderr}");
    }
    assert!(
        !stderr.contains("f.yaml:11:"),
        "max_delay bounds it: {stderr}"
    );
    // runner.toml is checked first (a problem there stops the flows' checks).
    write(
        d.path(),
        "runner.toml",
        "[browser]\nheaders = { X-T = \"t\\nu\" }\n",
    );
    let (code, _, stderr) = validate();
    assert_eq!(code, 2, "{stderr}");
    let want = "runner.toml:2:19: error: the header `X-T` holds a line break";
    assert!(stderr.contains(want), "wanted {want:?} in:\n{stderr}");
}

/// Var files: a name given twice in a `.env` (both lines named), an empty name or one with a
/// line break (in a YAML file and in `--var`), a UTF-16 file (said so, with its place), and a
/// deeply nested one-line JSON file whose error does not echo the whole line.
#[test]
fn var_file_names_encodings_and_deep_json_are_refused_briefly() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "x.yaml",
        "name: x\nvars:\n  x: unset\nsteps:\n  - log: \"x is {{ vars.x }}\"\n",
    );
    write(d.path(), "dup.env", "x=1\ny=2\nexport x=3\n");
    write(d.path(), "names.yaml", "\"\": 1\n\"a\\nb\": 2\n");
    let mut utf16 = vec![0xFF, 0xFE];
    utf16.extend("x=1\n".encode_utf16().flat_map(u16::to_le_bytes));
    std::fs::write(d.path().join("wide.env"), &utf16).unwrap();
    let deep = format!("{{\"x\": {}1{}}}", "[".repeat(5000), "]".repeat(5000));
    write(d.path(), "deep.json", &deep);
    let cases: [(&[&str], &str); 6] = [
        (
            &["--var-file", "dup.env"],
            "dup.env:3:1: error: `x` is given twice: on line 1 and on line 3",
        ),
        (
            &["--var-file", "names.yaml"],
            "names.yaml:1:1: error: the var name `` is not a name",
        ),
        (
            &["--var-file", "names.yaml"],
            "names.yaml:2:1: error: the var name `a\\nb` is not a name",
        ),
        (
            &["--var", "a\nb=1"],
            "--var: the var name `a\\nb` is not a name",
        ),
        (
            &["--var-file", "wide.env"],
            "wide.env:1:1: error: the file is UTF-16 text",
        ),
        (&["--var-file", "deep.json"], "deep.json:1:"),
    ];
    for (args, want) in cases {
        let mut c = runner(d.path());
        c.args(["run", "x.yaml"]).args(args);
        let (code, _, stderr) = output(c);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(
            stderr.contains(want),
            "{args:?}: wanted {want:?} in:\n{stderr}"
        );
        assert!(
            stderr.len() < 2000,
            "{args:?}: {} bytes:\n{stderr}",
            stderr.len()
        );
        assert!(!stderr.contains("x is"), "{stderr}");
    }
}

/// A page's text holding a lone UTF-16 surrogate (half an emoji: a page's own slice, or
/// runner's cut of a long text) does not make the browser's answers unreadable: the check on
/// that text passes at once, and a strict-mode error about a button whose text is cut inside an
/// emoji is said at once (not a timeout of 10 s either way).
#[test]
fn half_an_emoji_in_a_page_is_read_not_a_timeout() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        &format!(
            r##"name: half
web_server: {{ static: "{}" }}
steps:
  - open: "{{{{ web_server.url }}}}/surrogate.html"
  - expect: {{ text: {{ target: "#half", contains: abc }} }}
    timeout: 3s
  - click: {{ css: button }}
    timeout: 3s
"##,
            fixture("site").display()
        ),
    );
    let r = flow_run(d.path()).arg("f.yaml").run();
    assert_eq!(r.code, 1, "{}", r.stderr);
    let steps = r.report["flows"][0]["steps"].as_array().unwrap();
    assert_eq!(steps[1]["outcome"], "passed", "{}", r.report);
    let e = steps[2]["error"]["message"].as_str().unwrap_or_default();
    assert!(e.contains("strict mode"), "{}", r.report);
}
