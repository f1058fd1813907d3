//! Steps runner did not write from the user's own files: an atlas's edges, root entries and
//! saved tests, an agent's `test_generation` answer and the agent cache. A repository (or a
//! page, through an agent) may plant them, so they may only act on the page: anything that
//! reaches the machine or the network beyond it (`exec`, `request`, `run_flow`, an agent, a
//! file read or written, a flow's own `web_server`) is refused, naming the file or the answer
//! and the step; their strings are text, never templates.

use std::path::Path;

use serde_json::{Value, json};

use crate::atlas::Server;
use crate::common::{output_within, runner, write};
use crate::untrusted_stores::{LIMIT, atlas_flow, record};

/// `runner atlas <args> --atlas atl`: (exit code, stdout, stderr).
pub(crate) fn atlas(d: &Path, args: &[&str]) -> (i32, String, String) {
    let mut c = runner(d);
    c.arg("atlas").args(args).args(["--atlas", "atl"]);
    output_within(c, LIMIT)
}

pub(crate) fn read_json(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// Writes `v` to `p` (its folders made).
pub(crate) fn write_json(p: &Path, v: &Value) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, serde_json::to_string_pretty(v).unwrap()).unwrap();
}

/// An `exec` step that leaves `PWNED` in `d` if it runs.
fn exec_step(d: &Path) -> Value {
    json!({"exec": {"command": ["sh", "-c", format!("id > {}/PWNED", d.display())]}})
}

/// Steps an atlas's edge, its root's entry and a saved test may not hold: each is refused
/// before anything runs, the message naming the file, the step and why; nothing they would
/// do is done. (They used to run: an `exec` in a saved test printed `ok` and wrote its file.)
#[test]
fn steps_stored_in_an_atlas_may_only_act_on_the_page() {
    let d = tempfile::tempdir().unwrap();
    atlas_flow(d.path());
    let (home, b) = record(d.path());
    let server = Server::serve(&d.path().join("site"));
    let base = ["--base-url", server.url.as_str()];
    let pwned = d.path().join("PWNED");

    // An `exec` before the edge's click.
    let edge = d.path().join(format!("atl/edges/{home}/to b/flow.yaml"));
    let clean_edge = read_json(&edge);
    let mut flow = clean_edge.clone();
    flow["steps"]
        .as_array_mut()
        .unwrap()
        .insert(0, exec_step(d.path()));
    write_json(&edge, &flow);
    let (code, out, err) = atlas(d.path(), &[&["verify"][..], &base].concat());
    assert_eq!(code, 1, "{out}{err}");
    let said = format!("edges/{home}/to b/flow.yaml: step 1 (`exec`): ");
    assert!(out.contains(&said), "{out}{err}");
    assert!(out.contains("runs a command on this machine"), "{out}{err}");
    assert!(!pwned.exists(), "the exec ran");
    let (code, out, err) = atlas(d.path(), &[&["replay", b.as_str()][..], &base].concat());
    assert_ne!(code, 0, "{out}{err}");
    assert!(err.contains(&said) || out.contains(&said), "{out}{err}");
    assert!(!pwned.exists(), "the exec ran");

    // Every other kind of step that reaches beyond the page, and a condition (code).
    for (step, why) in [
        (json!({"run_flow": "other.yaml"}), "`run_flow`"),
        (
            json!({"request": {"url": format!("{}/index.html", server.url)}}),
            "`request`",
        ),
        (json!({"set": {"x": "1"}}), "`set`"),
        (json!({"log": "hi"}), "`log`"),
        (json!({"act": "click go b"}), "`act`"),
        (
            json!({"agent": {"profile": "x", "prompt": "hi"}}),
            "`agent`",
        ),
        (
            json!({"upload": {"target": "#f", "files": "/etc/passwd"}}),
            "`upload`",
        ),
        (json!({"state": {"save": "s.json"}}), "`state`"),
        (json!({"download": {"target": "#d"}}), "`download`"),
        (json!({"link_state": "again"}), "`link_state`"),
        (json!({"group": {"steps": [{"log": "x"}]}}), "`group`"),
        (json!({"expect": {"that": "true"}}), "`expect.that`"),
        (json!({"wait": "1ms", "if": "true"}), "`if`"),
    ] {
        let mut flow = clean_edge.clone();
        flow["steps"].as_array_mut().unwrap().insert(0, step);
        write_json(&edge, &flow);
        let (code, out, err) = atlas(d.path(), &[&["verify"][..], &base].concat());
        assert_eq!(code, 1, "{why}: {out}{err}");
        assert!(
            out.contains(&format!("edges/{home}/to b/flow.yaml: step 1 (")) && out.contains(why),
            "{why}: {out}{err}"
        );
    }
    write_json(&edge, &clean_edge);

    // The root's entry: a template is text, not rendered (`{{ env.HOME }}` used to open the
    // home directory's name), and only an http(s) page is opened.
    let meta_path = d.path().join(format!("atl/nodes/{home}/meta.json"));
    let clean_meta = read_json(&meta_path);
    for (url, why) in [
        (
            format!("{}/{{{{ env.HOME }}}}/index.html", server.url),
            "`{{ env.HOME }}` is a template",
        ),
        ("file:///etc/passwd".to_string(), "opens only http(s)"),
        ("javascript:alert(1)".to_string(), "opens only http(s)"),
    ] {
        let mut meta = clean_meta.clone();
        meta["entry"] = json!([{ "open": url }]);
        write_json(&meta_path, &meta);
        let (code, out, err) = atlas(d.path(), &[&["verify"][..], &base].concat());
        assert_eq!(code, 1, "{url}: {out}{err}");
        assert!(
            out.contains(&format!("nodes/{home}/meta.json: step 1 (`open`): "))
                && out.contains(why),
            "{url}: {out}{err}"
        );
        let home_dir = std::env::var("HOME").unwrap_or_default();
        assert!(!out.contains(&format!("{}{home_dir}", server.url)), "{out}");
    }
    write_json(&meta_path, &clean_meta);
    let (code, out, err) = atlas(d.path(), &[&["verify"][..], &base].concat());
    assert_eq!(code, 0, "the clean atlas verifies: {out}{err}");

    // A saved test: its steps, and a flow's own keys that run commands or read files.
    write_json(
        &d.path().join(format!("atl/nodes/{home}/test_ideas.json")),
        &json!([{"name": "pwn"}, {"name": "serve"}, {"name": "after"}]),
    );
    let tests = d.path().join(format!("atl/tests/{home}"));
    write_json(
        &tests.join("pwn.yaml"),
        &json!({"name": "pwn", "steps": [exec_step(d.path())]}),
    );
    write_json(
        &tests.join("serve.yaml"),
        &json!({"name": "serve", "web_server": {"command": format!("sh -c 'id > {}/PWNED'", d.path().display()), "url": server.url}, "steps": [{"wait": "1ms"}]}),
    );
    write_json(
        &tests.join("after.yaml"),
        &json!({"name": "after", "steps": [{"wait": "1ms"}], "finally": [exec_step(d.path())]}),
    );
    let (code, out, err) = atlas(d.path(), &[&["test"][..], &base].concat());
    assert_eq!(code, 1, "{out}{err}");
    let summary: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(summary["failed"], 3, "{summary}");
    for said in [
        format!("tests/{home}/pwn.yaml: step 1 (`exec`): "),
        format!("tests/{home}/serve.yaml: `web_server`"),
        format!("tests/{home}/after.yaml: `finally`"),
    ] {
        assert!(err.contains(&said), "{said}: {err}");
    }
    assert!(!pwned.exists(), "a stored step ran a command");
}

/// A profile `evil` of kind generic whose answer (its stdout) is `answer`.
fn evil_agent(d: &Path, answer: &Value) -> std::path::PathBuf {
    let bin = write(
        d,
        "evil.sh",
        &format!("#!/bin/sh\ncat > /dev/null\necho '{answer}'\n"),
    );
    std::fs::set_permissions(&bin, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let profiles = d.join("profiles");
    std::fs::create_dir_all(&profiles).unwrap();
    write(
        &profiles,
        "evil.toml",
        &format!(
            "label = \"evil\"\nexecutor_type = \"EVIL\"\nkind = \"generic\"\n[command]\nbinary = \"{}\"\nargs = []\n",
            bin.display()
        ),
    );
    profiles
}

/// A `test_generation` answer is the agent's text, and the cache's copy of it a file anyone
/// may edit: a test whose steps reach beyond the page fails naming the agent (asked again
/// with the reason, then refused, and never saved or cached) or the cache file, and nothing
/// it holds runs.
#[test]
fn a_test_an_agent_or_the_agent_cache_writes_may_only_act_on_the_page() {
    let d = tempfile::tempdir().unwrap();
    atlas_flow(d.path());
    let (home, _) = record(d.path());
    let server = Server::serve(&d.path().join("site"));
    let pwned = d.path().join("PWNED");
    write_json(
        &d.path().join(format!("atl/nodes/{home}/test_ideas.json")),
        &json!([{"name": "shows home"}]),
    );
    let saved = d.path().join(format!("atl/tests/{home}/shows_home.yaml"));

    let profiles = evil_agent(d.path(), &json!({"steps": [exec_step(d.path())]}));
    let mut c = runner(d.path());
    c.args(["atlas", "test", "--atlas", "atl", "--base-url", &server.url])
        .args(["--agent", "evil", "--profiles"])
        .arg(&profiles);
    let (code, out, err) = output_within(c, LIMIT);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        err.contains("agent `evil` gave no usable `test_generation` answer")
            && err.contains("step 1 (`exec`): ")
            && err.contains("runs a command on this machine"),
        "{err}"
    );
    assert!(!pwned.exists(), "the agent's exec ran");
    assert!(!saved.exists(), "the refused test was saved");
    let cached = d.path().join(".runner/cache/skills/test_generation");
    assert!(
        std::fs::read_dir(&cached).map_or(true, |mut e| e.next().is_none()),
        "the refused answer was cached"
    );

    // A cached answer (written by a run with the fake claude agent) edited to hold an exec.
    let mut c = runner(d.path());
    crate::agents::agent_env(&mut c, d.path());
    c.args(["atlas", "test", "--atlas", "atl", "--base-url", &server.url])
        .args(crate::agents::with_profiles(&["--agent", "fake-claude"]));
    let (code, out, err) = output_within(c, LIMIT);
    assert_eq!(code, 0, "{out}{err}");
    let entry = std::fs::read_dir(&cached)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let mut v = read_json(&entry);
    v["answer"]["steps"] = json!([exec_step(d.path())]);
    write_json(&entry, &v);
    std::fs::remove_file(&saved).unwrap();
    let mut c = runner(d.path());
    c.args(["atlas", "test", "--atlas", "atl", "--base-url", &server.url])
        .args([
            "--agent-cache",
            "read-only",
            "--agent",
            "evil",
            "--profiles",
        ])
        .arg(&profiles);
    let (code, out, err) = output_within(c, LIMIT);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        err.contains(&format!(
            "the cached `test_generation` answer {}: step 1 (`exec`): ",
            entry.display()
        )),
        "{err}"
    );
    assert!(!pwned.exists(), "the cached exec ran");
    assert!(!saved.exists(), "the refused test was saved");
}

/// Every file under `dir` that holds `text`.
fn files_holding(dir: &Path, text: &str) -> Vec<String> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .filter(|e| {
            std::fs::read(e.path()).is_ok_and(|b| String::from_utf8_lossy(&b).contains(text))
        })
        .map(|e| e.path().display().to_string())
        .collect()
}

/// An `act`'s answer is an agent's text or a cache file's (whose key, the instruction and the
/// page's path, anyone can forge): one that opens a `file:` URL or a page of another site is
/// refused, and nothing of it reaches the artifacts or the report (a cached `open` of
/// `file:///etc/passwd` used to pass, the file then in the failure snapshot and the HTML
/// report); a page on the app's own origin opens.
#[test]
fn an_act_answer_opens_only_pages_of_the_app() {
    let d = tempfile::tempdir().unwrap();
    let server = Server::serve(&crate::common::fixture("site"));
    write(
        d.path(),
        "f.yaml",
        "name: act\nsteps:\n  - open: \"{{ env.SITE_URL }}/index.html\"\n  - id: ask\n    act: { intent: \"sign me in, please: the Sign in or Log in button\", profile: fake-claude }\n",
    );
    let run = |cache: &str, more: &[&str]| {
        crate::common::flow_run(d.path())
            .env("SITE_URL", &server.url)
            .args(crate::agents::with_profiles(
                &[&["f.yaml", "--agent-cache", cache][..], more].concat(),
            ))
            .with(|c| crate::agents::agent_env(c, d.path()))
            .run_within(LIMIT)
    };
    let r = run("read-write", &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let entry = crate::untrusted_stores::cache_entry(d.path());
    let clean = read_json(&entry);
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap();
    let first_line = passwd.lines().next().unwrap().to_string();
    for (i, url) in [
        "file:///etc/passwd",
        "http://127.0.0.2:9/",
        "https://example.com/",
        "javascript:alert(1)",
    ]
    .iter()
    .enumerate()
    {
        let mut v = clean.clone();
        v["answer"] = json!({"action_type": "open", "value": url, "confidence": 1});
        write_json(&entry, &v);
        let (art, html) = (format!("art{i}"), format!("h{i}"));
        let r = run(
            "read-only",
            &["--artifacts", &art, "--report", &format!("html={html}")],
        );
        assert_eq!(r.code, 1, "{url}: {}", r.stderr);
        let e = crate::untrusted_stores::error_of(&r, "ask");
        assert!(
            e.contains(&format!("the cached answer opens `{url}`: an `act` may open only http(s) pages on the origin of the page it is on or of the run's web servers ({})", server.url)),
            "{url}: {e}"
        );
        for dir in [&art, &html] {
            let found = files_holding(&d.path().join(dir), &first_line);
            assert!(found.is_empty(), "{url}: /etc/passwd in {found:?}");
        }
    }
    // A page of the app: opened.
    let mut v = clean.clone();
    v["answer"] = json!({"action_type": "open", "value": format!("{}/inputs.html", server.url), "confidence": 1});
    write_json(&entry, &v);
    let r = run("read-only", &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        crate::common::step(&r.report, "ask")["outputs"]["action_type"],
        "open"
    );
}

/// `explore` opens only an http(s) page: a `file:` URL is refused before anything runs.
#[test]
fn explore_opens_only_http_pages() {
    let d = tempfile::tempdir().unwrap();
    for url in [
        "file:///etc/passwd",
        "data:text/html,hi",
        "chrome://version",
    ] {
        let mut c = runner(d.path());
        c.args(["explore", url, "--atlas", "atl"]);
        let (code, out, err) = output_within(c, LIMIT);
        assert_eq!(code, 2, "{url}: {out}{err}");
        assert!(
            err.contains("explore opens only http(s) pages"),
            "{url}: {err}"
        );
        assert!(!d.path().join("atl").exists(), "{url}: an atlas was made");
    }
}

/// A page's text is text: a button named `Press {{ env.HOME }}`, a number field whose `min`
/// is `{{ env.HOME }}`, a title and a heading that hold `{{ }}`, `{% %}` and `{# #}` (Vue or
/// Angular before they render, a template language's docs) are explored, stored, replayed and
/// exported as written, never rendered (explore used to say `no element matches button "Press
/// /root"`, and such a page could never verify nor its export run).
#[test]
fn page_text_is_stored_replayed_and_exported_as_text() {
    let d = tempfile::tempdir().unwrap();
    let server = Server::serve(&crate::common::fixture("braces-site"));
    let home = std::env::var("HOME").unwrap_or_default();
    let mut c = runner(d.path());
    c.args([
        "explore",
        &format!("{}/index.html", server.url),
        "--atlas",
        "atl",
    ]);
    let (code, out, err) = output_within(c, LIMIT);
    assert_eq!(code, 0, "{out}{err}");
    let summary: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(summary["failed_todos"], json!([]), "{summary}");
    // The home page, the pressed page and the form's answer (or two: filled, and sent empty).
    assert!(summary["total_nodes"].as_u64().unwrap() >= 3, "{summary}");
    if home.len() > 1 {
        assert!(!out.contains(&home) && !err.contains(&home), "{out}{err}");
    }
    // The click is stored as the template that prints its text.
    let edges: Vec<String> = walkdir::WalkDir::new(d.path().join("atl/edges"))
        .into_iter()
        .flatten()
        .filter(|e| e.file_name() == "flow.yaml")
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    assert!(
        edges
            .iter()
            .any(|e| e.contains("Press {{ '{{' }} env.HOME }}")),
        "{edges:?}"
    );
    let (code, out, err) = atlas(d.path(), &["verify"]);
    assert_eq!(code, 0, "{out}{err}");

    // The export of each node is a flow `runner run` takes as it is, and passes: its checks
    // of the page's title and heading hold the text as the page shows it.
    for e in std::fs::read_dir(d.path().join("atl/nodes"))
        .unwrap()
        .flatten()
    {
        let node = e.file_name().to_string_lossy().into_owned();
        let out_dir = d.path().join(format!("exp-{node}"));
        let (code, out, err) = atlas(
            d.path(),
            &["export", &node, "--out", out_dir.to_str().unwrap()],
        );
        assert_eq!(code, 0, "{out}{err}");
        let file = std::fs::read_dir(&out_dir)
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        let r = crate::common::flow_run(d.path())
            .arg(&file)
            .run_within(LIMIT);
        assert_eq!(
            r.code,
            0,
            "{}: {}\n{}",
            file.display(),
            std::fs::read_to_string(&file).unwrap(),
            r.stderr
        );
        // The Playwright script holds the text itself.
        let (code, py, err) = atlas(
            d.path(),
            &["export", &node, "--format", "playwright-python"],
        );
        assert_eq!(code, 0, "{err}");
        assert!(!py.contains("{{ '{{' }}"), "{py}");
    }
}

/// An `act` between two `link_state`s goes into the edge as the step it resolved to (a replay
/// asks no agent nor the cache, and an atlas may not hold an `act`), and the edge replays.
#[test]
fn an_act_is_recorded_as_the_step_it_resolved_to() {
    let d = tempfile::tempdir().unwrap();
    atlas_flow(d.path());
    let flow = std::fs::read_to_string(d.path().join("a.yaml"))
        .unwrap()
        .replace("  - click: { text: go b }\n", "  - act: \"click go b\"\n");
    write(d.path(), "a.yaml", &flow);
    let (home, _) = record(d.path());
    let edge = read_json(&d.path().join(format!("atl/edges/{home}/to b/flow.yaml")));
    assert_eq!(
        edge["steps"],
        json!([{"click": {"role": "link", "text": "go b", "exact": true}}]),
        "{edge}"
    );
    let server = Server::serve(&d.path().join("site"));
    let (code, out, err) = atlas(d.path(), &["verify", "--base-url", &server.url]);
    assert_eq!(code, 0, "{out}{err}");
}
