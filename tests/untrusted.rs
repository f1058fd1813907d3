//! Input from outside, tried again after issue 27's first round (F7–F9): a reused artifacts
//! directory with symlinks in it, templates in `--var` and var files, and what `validate` must
//! refuse in a flow and in runner.toml (a retry that would wait for weeks, a line break in a
//! header) and in var files (a name twice, an empty or multi-line name, UTF-16, a deep JSON
//! file whose error must stay short).

use std::path::Path;

use crate::common::{fixture, flow_run, output, runner, write};

/// A reused `--artifacts` directory holding symlinks out (to a folder standing for `/etc`):
/// where a step would write through one (`screenshot.path` under a linked folder, the flow's
/// own folder linked, a screenshot's file name linked to a file outside), the step fails with
/// a clear error and nothing is written outside.
#[test]
fn artifact_writes_never_follow_a_symlink_out_of_the_artifacts() {
    let d = tempfile::tempdir().unwrap();
    let outside = d.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    write(&outside, "passwd", "root:x:0:0\n");
    let flow = |shot: &str| {
        format!(
            "name: shots\nweb_server: {{ static: \"{}\" }}\nsteps:\n  - open: \"{{{{ web_server.url }}}}/index.html\"\n  - screenshot: {shot}\n",
            fixture("site").display()
        )
    };
    write(d.path(), "f.yaml", &flow("{ path: shots/x.png }"));
    let art = d.path().join("art");
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
    let r = flow_run(d.path()).arg("f.yaml").run();
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("x.png is a symbolic link"),
        "{}",
        r.stderr
    );
    // 3. The flow's own artifacts folder is a symlink out (a default screenshot).
    std::fs::remove_dir_all(&art).unwrap();
    write(d.path(), "f.yaml", &flow("true"));
    link(&art.join("001-shots"), &outside);
    let r = flow_run(d.path()).arg("f.yaml").run();
    assert_ne!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains("001-shots is a symbolic link"),
        "{}",
        r.stderr
    );
    let names: Vec<_> = std::fs::read_dir(&outside)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["passwd"], "written outside: {names:?}");
    assert_eq!(
        std::fs::read_to_string(outside.join("passwd")).unwrap(),
        "root:x:0:0\n"
    );
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
