//! An atlas from anywhere (a teammate's commit, a CI artifact) turned into code, a graph or
//! terminal output: a stored step runner cannot read is refused, never quoted into a script; a
//! node's folder is 16 lowercase hex digits or the atlas is broken there; a stored step holds
//! its name, frame and action only (no `timeout` that outlasts the replay's bound); and text
//! from a page or an atlas reaches the terminal without escape sequences.

use std::path::Path;

use serde_json::{Value, json};

use crate::atlas::Server;
use crate::common::{output_within, runner, write};
use crate::untrusted_stores::{LIMIT, atlas_flow, record};

use crate::untrusted_steps::{atlas, read_json, write_json};

/// The lines of every file under `dir` (none when there is no `dir`).
fn lines_under(dir: &Path) -> Vec<String> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .flat_map(|e| {
            std::fs::read_to_string(e.path())
                .unwrap_or_default()
                .lines()
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}

const INJECTED: &str = "import os; os.system('touch PWNED')";

/// An edge's stored step whose key holds a line break (serde's error quoted it into a `#`
/// comment, the code on the next line ran when the script did): the export is refused (exit
/// 2), no script is written, and no line anywhere starts with the injected code.
#[test]
fn a_stored_step_runner_cannot_read_is_refused_never_quoted_into_a_script() {
    let d = tempfile::tempdir().unwrap();
    atlas_flow(d.path());
    let (home, b) = record(d.path());
    let edge = d.path().join(format!("atl/edges/{home}/to b/flow.yaml"));
    let mut flow = read_json(&edge);
    flow["steps"] = json!([{ format!("click\n{INJECTED}\n#"): {"text": "go b"} }]);
    write_json(&edge, &flow);
    let (code, out, err) = atlas(
        d.path(),
        &[
            "export",
            &b,
            "--format",
            "playwright-python",
            "--out",
            "exp",
        ],
    );
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains(&format!(
            "edges/{home}/to b/flow.yaml: step 1 (`?`): not a step runner reads: `click\\nimport os"
        )),
        "{err}"
    );
    for l in lines_under(&d.path().join("exp"))
        .iter()
        .chain(out.lines().map(String::from).collect::<Vec<_>>().iter())
    {
        assert!(!l.trim_start().starts_with("import os"), "{l}");
    }
    // The step's own key is not written raw into the message either.
    assert!(!err.lines().any(|l| l.starts_with("import os")), "{err}");
}

/// Node folders named to carry code (a line break, then Python) or to inject DOT: the atlas is
/// broken there (exit 2), in `export`, `show` and `graph` alike, and nothing is written.
#[test]
fn a_node_folder_that_is_not_a_node_id_breaks_the_atlas_there() {
    let d = tempfile::tempdir().unwrap();
    atlas_flow(d.path());
    let (home, b) = record(d.path());
    let atl = d.path().join("atl");
    let rename = |from: &str, to: &str| {
        std::fs::rename(atl.join("nodes").join(from), atl.join("nodes").join(to)).unwrap();
        let meta = atl.join("nodes").join(to).join("meta.json");
        let mut m = read_json(&meta);
        m["id"] = json!(to);
        write_json(&meta, &m);
    };
    // The home node: renamed with its edges' folder.
    let evil_home = format!("{home}\n{INJECTED}\n#");
    rename(&home, &evil_home);
    std::fs::rename(
        atl.join("edges").join(&home),
        atl.join("edges").join(&evil_home),
    )
    .unwrap();
    let (code, out, err) = atlas(
        d.path(),
        &[
            "export",
            &b,
            "--format",
            "playwright-python",
            "--out",
            "exp",
        ],
    );
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("not a node's folder"), "{err}");
    for l in lines_under(&d.path().join("exp")) {
        assert!(!l.trim_start().starts_with("import os"), "{l}");
    }
    for cmd in [&["show"][..], &["graph"]] {
        let (code, out, err) = atlas(d.path(), cmd);
        assert_eq!(code, 2, "{cmd:?}: {out}{err}");
        assert!(
            !out.lines()
                .chain(err.lines())
                .any(|l| l.starts_with("import os")),
            "{out}{err}"
        );
    }
    rename(&evil_home, &home);
    std::fs::rename(
        atl.join("edges").join(&evil_home),
        atl.join("edges").join(&home),
    )
    .unwrap();

    // B's folder named to close DOT's quote and add a node of its own; the link to it too.
    let evil_b =
        format!("{b}\" [label=\"x\"]; injected [label=\"INJECTED\" image=\"id_rsa.png\"]; \"z");
    rename(&b, &evil_b);
    let link = atl.join(format!("nodes/{home}/links/to b"));
    std::fs::remove_file(&link).unwrap();
    std::os::unix::fs::symlink(format!("../../{evil_b}"), &link).unwrap();
    for format in ["dot", "mermaid"] {
        let (code, out, err) = atlas(d.path(), &["graph", "--format", format]);
        assert_eq!(code, 2, "{format}: {out}{err}");
        assert!(!out.contains("injected"), "{format}: {out}");
        assert!(err.contains("not a node's folder"), "{format}: {err}");
    }
}

/// A stored step with its own `timeout` (which lifted the replay's 5 s bound: `wait: 100h`
/// held `atlas verify` for days), `retry` or `continue_on_error`: refused before anything
/// runs, naming the key; verify ends at once.
#[test]
fn a_stored_step_holds_its_name_frame_and_action_only() {
    let d = tempfile::tempdir().unwrap();
    atlas_flow(d.path());
    let (home, _) = record(d.path());
    let server = Server::serve(&d.path().join("site"));
    let edge = d.path().join(format!("atl/edges/{home}/to b/flow.yaml"));
    let clean = read_json(&edge);
    for (extra, key) in [
        (json!({"wait": "100h", "timeout": "100h"}), "`timeout`"),
        (
            json!({"click": "#nope", "continue_on_error": true}),
            "`continue_on_error`",
        ),
        (json!({"click": "#nope", "retry": 3}), "`retry`"),
        (json!({"click": "#nope", "id": "x"}), "`id`"),
    ] {
        let mut flow = clean.clone();
        flow["steps"].as_array_mut().unwrap().insert(0, extra);
        write_json(&edge, &flow);
        let started = std::time::Instant::now();
        let (code, out, err) = atlas(d.path(), &["verify", "--base-url", &server.url]);
        assert_eq!(code, 1, "{key}: {out}{err}");
        assert!(
            out.contains(&format!("edges/{home}/to b/flow.yaml: step 1 (")) && out.contains(key),
            "{key}: {out}{err}"
        );
        assert!(out.contains("name, frame and one action"), "{key}: {out}");
        assert!(
            started.elapsed() < std::time::Duration::from_secs(30),
            "{key}"
        );
    }
}

/// An edge of many stored steps, each within the replay's bound (`wait: 1900ms` under
/// `--timeout 2s`): the path as a whole gets `--timeout` for each state on it, so `verify`
/// and `replay` fail the node in seconds, saying why, where twelve waits held them 23 s.
#[test]
fn a_replayed_path_is_bounded_as_a_whole() {
    let d = tempfile::tempdir().unwrap();
    atlas_flow(d.path());
    let (home, b) = record(d.path());
    let server = Server::serve(&d.path().join("site"));
    let edge = d.path().join(format!("atl/edges/{home}/to b/flow.yaml"));
    let mut flow = read_json(&edge);
    let steps = flow["steps"].as_array_mut().unwrap();
    for _ in 0..12 {
        steps.insert(0, json!({"wait": "1900ms"}));
    }
    write_json(&edge, &flow);
    for cmd in [vec!["verify"], vec!["replay", &b]] {
        let started = std::time::Instant::now();
        let mut args = cmd.clone();
        args.extend(["--base-url", &server.url, "--timeout", "2s"]);
        let (code, out, err) = atlas(d.path(), &args);
        let took = started.elapsed();
        assert_eq!(code, 1, "{cmd:?}: {out}{err}");
        assert!(
            out.contains("took longer than the replay allows"),
            "{cmd:?}: {out}{err}"
        );
        assert!(
            took < std::time::Duration::from_secs(15),
            "{cmd:?}: {took:?}"
        );
    }
}

/// ESC in a page's link text (an OSC title, a clear screen) and in an atlas's hand-edited
/// title, action and server: no output of explore, show, path, graph, export or verify holds it.
#[test]
fn no_escape_from_a_page_or_an_atlas_reaches_the_terminal() {
    let d = tempfile::tempdir().unwrap();
    let site = d.path().join("site");
    std::fs::create_dir(&site).unwrap();
    write(
        &site,
        "index.html",
        "<!doctype html><title>home</title><h1>Home</h1><a href=\"about.html\">Ab\u{1b}]0;PWNED\u{7}\u{1b}[2Jout us</a>\n",
    );
    write(
        &site,
        "about.html",
        "<!doctype html><title>about</title><h1>About</h1>\n",
    );
    let server = Server::serve(&site);
    let mut c = runner(d.path());
    c.args([
        "explore",
        &format!("{}/index.html", server.url),
        "--atlas",
        "atl",
    ]);
    let (code, out, err) = output_within(c, LIMIT);
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("Ab"), "the progress names the link: {err}");
    assert!(
        !out.contains('\u{1b}') && !err.contains('\u{1b}'),
        "explore: {out:?}{err:?}"
    );
    let (code, out, err) = atlas(d.path(), &["show"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("out us"), "{out}");
    assert!(
        !out.contains('\u{1b}') && !err.contains('\u{1b}'),
        "show: {out:?}{err:?}"
    );

    // Hand-edited: a node's title and URL, the atlas's server.
    let nodes = d.path().join("atl/nodes");
    let mut last = String::new();
    for e in std::fs::read_dir(&nodes).unwrap().flatten() {
        let meta = e.path().join("meta.json");
        let mut m = read_json(&meta);
        m["title"] = json!("Evil\u{1b}]0;PWNED-TITLE\u{7}\u{1b}[2J\u{1b}[31mRED\nfake line");
        write_json(&meta, &m);
        last = e.file_name().to_string_lossy().into_owned();
    }
    let settings = d.path().join("atl/atlas.json");
    let mut s = std::fs::read_to_string(&settings)
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .unwrap_or_else(|| json!({}));
    s["server"] = json!("srv\u{1b}]0;T\u{7}x");
    write_json(&settings, &s);
    for cmd in [
        vec!["show"],
        vec!["graph"],
        vec!["graph", "--format", "mermaid"],
        vec!["path", &last],
        vec!["export", &last],
        vec!["verify", "--base-url", &server.url],
    ] {
        let (_, out, err) = atlas(d.path(), &cmd);
        assert!(
            !out.contains('\u{1b}') && !err.contains('\u{1b}'),
            "{cmd:?}: {out:?}{err:?}"
        );
        assert!(
            !out.lines()
                .chain(err.lines())
                .any(|l| l.starts_with("fake line")),
            "{cmd:?}: {out}{err}"
        );
    }
}
