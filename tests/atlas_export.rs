//! `atlas export` as a regression test: every state on the exported path is checked on
//! arrival (its URL route, its title, its main heading and landmarks), so the exported flow
//! fails where the app changed, not only where a click no longer finds its element — real
//! browser on a copy of `tests/fixtures/atlas-site`.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::atlas::{Server, atlas_cmd, crawl, node_by_title, site_copy};
use crate::common::{Ran, flow_run, write};

/// An explored copy of the atlas site, served: (temp dir, site copy, server).
fn explored() -> (tempfile::TempDir, PathBuf, Server) {
    let d = tempfile::tempdir().unwrap();
    let site = site_copy(d.path());
    let server = Server::serve(&site);
    crawl(d.path(), &format!("{}/index.html", server.url), &[]);
    (d, site, server)
}

/// `atlas export NODE [more]`: what it printed.
fn export(dir: &Path, node: &str, more: &[&str]) -> String {
    let mut args = vec!["export", node];
    args.extend_from_slice(more);
    let (code, out, err) = atlas_cmd(dir, &args);
    assert_eq!(code, 0, "{out}{err}");
    out
}

/// The steps of an exported flow that check a state's URL (and title, heading, ...).
fn identity_checks(flow: &Value) -> Vec<Value> {
    flow["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["expect"].get("url").is_some())
        .cloned()
        .collect()
}

/// Runs `exported.yaml`; (exit code, the failed step's name and error message).
fn run_exported(dir: &Path) -> (i32, Option<(String, String)>, String) {
    let Ran {
        code,
        stdout,
        stderr,
        report,
    } = flow_run(dir).arg("exported.yaml").run();
    let failed = report["flows"][0]["steps"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["conclusion"] == "failed"))
        .map(|s| {
            (
                s["name"].as_str().unwrap_or_default().to_string(),
                s["error"]["message"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
            )
        });
    (code, failed, format!("{stdout}{stderr}"))
}

/// Edits a page of the served copy.
fn edit(site: &Path, page: &str, from: &str, to: &str) {
    let p = site.join(page);
    let text = std::fs::read_to_string(&p).unwrap();
    assert!(text.contains(from), "{page} holds {from}");
    std::fs::write(&p, text.replace(from, to)).unwrap();
}

#[test]
fn an_exported_flow_checks_each_state_it_reaches_and_fails_where_the_app_changed() {
    let (d, site, _server) = explored();
    let contact = node_by_title(d.path(), "Contact");
    let team = node_by_title(d.path(), "Team");
    let exported = export(d.path(), &contact, &[]);
    let flow: Value = serde_json::from_str(&exported).unwrap();
    // home, about, team, contact: each reached state is checked, in the order reached.
    let checks = identity_checks(&flow);
    let titles: Vec<&str> = checks
        .iter()
        .map(|c| c["expect"]["title"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        titles,
        ["Atlas home", "About", "Team", "Contact"],
        "{exported}"
    );
    let at_team = &checks[2];
    assert_eq!(
        at_team["name"],
        format!("arrived at Team /team.html ({team})"),
        "{exported}"
    );
    assert_eq!(
        at_team["expect"]["visible"],
        serde_json::json!({"role": "heading", "text": "Team", "exact": true}),
        "{exported}"
    );
    assert_eq!(
        at_team["expect"]["count"],
        serde_json::json!({"target": {"css": "main, [role=main]"}, "min": 1}),
        "{exported}"
    );
    let url = at_team["expect"]["url"]["matches"].as_str().unwrap();
    assert!(url.ends_with(r"/team\.html(?:#.*)?$"), "{url}");
    // A check comes right after the steps that reach its state: the click on "Our team"
    // leads to the team page's check, before the click on "Contact".
    let steps = flow["steps"].as_array().unwrap();
    let at = |pred: &dyn Fn(&Value) -> bool| steps.iter().position(pred).unwrap();
    let team_click = at(&|s| s["click"]["text"] == "Our team");
    let team_check = at(&|s| s["expect"]["title"] == "Team");
    let contact_click = at(&|s| s["click"]["text"] == "Contact");
    assert!(
        team_click < team_check && team_check < contact_click,
        "{exported}"
    );

    // Browser steps give up after 3 s: a broken run fails in seconds, not 15.
    write(d.path(), "runner.toml", "[browser]\ntimeout = \"3s\"\n");
    write(d.path(), "exported.yaml", &exported);
    let (code, failed, out) = run_exported(d.path());
    assert_eq!((code, failed), (0, None), "{out}");
    for state in ["Atlas home", "About", "Team", "Contact"] {
        assert!(out.contains(&format!("ok arrived at {state} /")), "{out}");
    }
    // The home page's second landmark has a check of its own.
    let home = node_by_title(d.path(), "Atlas home");
    assert!(
        out.contains(&format!(
            "ok arrived at Atlas home /index.html ({home}): its navigation"
        )),
        "{out}"
    );

    // A renamed heading: every click still works, the team state's check fails.
    edit(&site, "team.html", "<h1>Team</h1>", "<h1>Our new team</h1>");
    let (code, failed, out) = run_exported(d.path());
    assert_eq!(code, 1, "{out}");
    let (step, message) = failed.expect("a failed step");
    assert_eq!(
        step,
        format!("arrived at Team /team.html ({team})"),
        "{out}"
    );
    assert!(
        message.contains("heading") && message.contains("\"Team\""),
        "{message}"
    );
    edit(&site, "team.html", "<h1>Our new team</h1>", "<h1>Team</h1>");

    // A changed title.
    edit(
        &site,
        "about.html",
        "<title>About</title>",
        "<title>About the company</title>",
    );
    let (code, failed, out) = run_exported(d.path());
    assert_eq!(code, 1, "{out}");
    let (step, message) = failed.expect("a failed step");
    assert!(step.starts_with("arrived at About /about.html"), "{step}");
    assert!(
        message.contains("title") && message.contains("About the company"),
        "{message}"
    );
    edit(
        &site,
        "about.html",
        "<title>About the company</title>",
        "<title>About</title>",
    );

    // The same page at another route: the link leads elsewhere, the page looks the same.
    std::fs::copy(site.join("team.html"), site.join("people.html")).unwrap();
    edit(
        &site,
        "about.html",
        "href=\"team.html\"",
        "href=\"people.html\"",
    );
    let (code, failed, out) = run_exported(d.path());
    assert_eq!(code, 1, "{out}");
    let (step, message) = failed.expect("a failed step");
    assert!(step.starts_with("arrived at Team /team.html"), "{step}");
    assert!(
        message.contains("url") && message.contains("people.html"),
        "{message}"
    );
    edit(
        &site,
        "about.html",
        "href=\"people.html\"",
        "href=\"team.html\"",
    );

    // A lost landmark: the contact page's content outside any <main>.
    edit(&site, "contact.html", "<main>", "<div>");
    edit(&site, "contact.html", "</main>", "</div>");
    let (code, failed, out) = run_exported(d.path());
    assert_eq!(code, 1, "{out}");
    let (step, message) = failed.expect("a failed step");
    assert!(
        step.starts_with("arrived at Contact /contact.html"),
        "{step}"
    );
    assert!(message.contains("main"), "{message}");
}

#[test]
fn an_exported_check_generalises_query_values_and_follows_the_base_url() {
    let (d, site, server) = explored();
    let welcome = node_by_title(d.path(), "Welcome");
    // Exported against another server of the same site: the check names that origin.
    let other = Server::serve(&site);
    let exported = export(d.path(), &welcome, &["--base-url", &other.url]);
    let mut flow: Value = serde_json::from_str(&exported).unwrap();
    let checks = identity_checks(&flow);
    let url = checks.last().unwrap()["expect"]["url"]["matches"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        url.starts_with(&format!("^{}", other.url.replace('.', r"\."))),
        "{url}"
    );
    assert!(!url.contains(&server.url.replace('.', r"\.")), "{url}");
    assert!(url.contains(r"\?(?:[^#]*&)?name=[^&#]*"), "{url}");
    // Another name typed in: the welcome page's URL has another query value, same state.
    for s in flow["steps"].as_array_mut().unwrap() {
        if s.get("fill").is_some() {
            s["fill"]["value"] = Value::from("someone else entirely");
        }
    }
    write(d.path(), "exported.yaml", &flow.to_string());
    let (code, failed, out) = run_exported(d.path());
    assert_eq!((code, failed), (0, None), "{out}");
    assert!(out.contains("ok arrived at Welcome"), "{out}");
}

#[test]
fn the_playwright_export_asserts_each_state_and_is_valid_python() {
    let (d, _site, server) = explored();
    let contact = node_by_title(d.path(), "Contact");
    let py = export(d.path(), &contact, &["--format", "playwright-python"]);
    let pos = |needle: &str| {
        py.find(needle)
            .unwrap_or_else(|| panic!("no {needle} in:\n{py}"))
    };
    assert!(pos("import re\n") < pos("def main():"), "{py}");
    pos("from playwright.sync_api import expect, sync_playwright\n");
    let team_click = pos("page.get_by_role(\"link\", name=\"Our team\", exact=True).click()");
    let team_title = pos("expect(page).to_have_title(\"Team\")");
    let contact_click = pos("page.get_by_role(\"link\", name=\"Contact\", exact=True).click()");
    assert!(
        team_click < team_title && team_title < contact_click,
        "{py}"
    );
    for line in [
        "expect(page.get_by_role(\"heading\", name=\"Team\", exact=True)).to_be_visible()",
        "expect(page.get_by_role(\"main\").first).to_be_visible()",
        "expect(page.get_by_role(\"navigation\").first).to_be_visible()",
        "expect(page).to_have_title(\"Contact\")",
    ] {
        pos(line);
    }
    assert_eq!(
        py.matches("expect(page).to_have_url(re.compile(").count(),
        4
    );

    // Valid Python, and each URL pattern, compiled by Python's `re`, matches its own page
    // and no other page of the path.
    let file = write(d.path(), "reach_contact.py", &py);
    let check = r#"
import ast, json, re, sys
tree = ast.parse(open(sys.argv[1]).read())
patterns = [n.args[0].value for n in ast.walk(tree)
            if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "compile"]
print(json.dumps([[bool(re.search(p, u)) for u in sys.argv[2:]] for p in patterns]))
"#;
    let pages = ["index.html", "about.html", "team.html", "contact.html"];
    let out = std::process::Command::new("python3")
        .arg("-c")
        .arg(check)
        .arg(&file)
        .args(pages.iter().map(|p| format!("{}/{p}", server.url)))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let matched: Vec<Vec<bool>> = serde_json::from_slice(&out.stdout).unwrap();
    let diagonal: Vec<Vec<bool>> = (0..4).map(|i| (0..4).map(|j| i == j).collect()).collect();
    assert_eq!(matched, diagonal, "{py}");
}

/// The Playwright locator the export must write for a recorded `{ role, text, exact, nth }`.
fn playwright_locator(target: &Value) -> String {
    let mut l = format!(
        "page.get_by_role({}, name={}",
        target["role"], target["text"]
    );
    if target["exact"] == true {
        l.push_str(", exact=True");
    }
    l.push(')');
    if let Some(n) = target["nth"].as_i64() {
        l.push_str(&format!(".nth({n})"));
    }
    l
}

#[test]
fn the_playwright_export_clicks_what_the_flow_export_clicks() {
    // The shop has two links named "Details": the second is clicked by its `nth`.
    let d = tempfile::tempdir().unwrap();
    let server = Server::serve(&crate::common::fixture("shop"));
    crawl(d.path(), &format!("{}/index.html", server.url), &[]);
    let bananas = node_by_title(d.path(), "Bananas");
    let flow: Value = serde_json::from_str(&export(d.path(), &bananas, &[])).unwrap();
    let py = export(d.path(), &bananas, &["--format", "playwright-python"]);
    let clicks: Vec<&Value> = flow["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s.get("click"))
        .collect();
    assert!(
        clicks
            .iter()
            .any(|c| c["nth"].is_i64() && c["exact"] == true),
        "{flow}"
    );
    for c in clicks {
        let want = format!("{}.click()", playwright_locator(c));
        assert!(py.contains(&want), "no {want} in:\n{py}");
    }
}

/// runner.toml serving a copy of the atlas site under `/app/` (the server's `url` has the
/// path): explore starts at that URL.
fn app_under_a_path(d: &Path) {
    let root = d.join("root");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::rename(site_copy(d), root.join("app")).unwrap();
    write(
        d,
        "runner.toml",
        "[[web_server]]\nname = \"app\"\ncommand = [\"python3\", \"-m\", \"http.server\", \"{{ web_server.port }}\", \"--bind\", \"127.0.0.1\", \"--directory\", \"root\"]\nport = \"auto\"\nurl = \"http://127.0.0.1:{{ web_server.port }}/app/\"\n",
    );
}

/// An app served under a path (`http://host:port/app/`): the exported flow opens the server's
/// URL of the run that runs it with the path once (it was `/app/app/...`), its checks expect
/// the path once, and it passes; `--base-url` with the path (a server's URL) is taken the same
/// way by verify and by the export.
#[test]
fn an_app_under_a_path_is_exported_and_verified_with_the_path_once() {
    let d = tempfile::tempdir().unwrap();
    app_under_a_path(d.path());
    let summary = crawl(d.path(), "{{ web_server.app.url }}index.html", &[]);
    assert_eq!(summary["total_nodes"], 6, "{summary}");
    let contact = node_by_title(d.path(), "Contact");
    let exported = export(d.path(), &contact, &[]);
    // The server's URL holds the path: it is not written again after it.
    assert!(!exported.contains("}}/app/"), "{exported}");
    write(d.path(), "exported.yaml", &exported);
    let (code, failed, out) = run_exported(d.path());
    assert_eq!((code, failed), (0, None), "{exported}\n{out}");
    assert!(out.contains("ok arrived at Contact"), "{out}");
    // The same with the server's URL (which has the path) given as the base.
    let (code, out, err) = atlas_cmd(
        d.path(),
        &["verify", "--base-url", "{{ web_server.app.url }}"],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("6 verified"), "{out}");
}

/// Writes `text` to `dir/rel`, its folders made.
fn put(dir: &Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// The text of the files `atlas export --out DIR` wrote.
fn exported(dir: &Path) -> String {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return String::new();
    };
    entries
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect()
}

/// A two-state atlas (`atlas/`) as explore writes it, by hand (no browser): the root `aaaa…`
/// and `bbbb…` one click away, the edge's flow holding `steps`. Returns the target node.
fn two_states(dir: &Path, steps: &Value) -> &'static str {
    let (a, b) = ("aaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbb");
    put(dir, "atlas/atlas.json", r#"{"fingerprint": "structure"}"#);
    for (id, page, entry) in [
        (
            a,
            "index",
            "[{\"open\": \"http://127.0.0.1:9/index.html\"}]",
        ),
        (b, "other", "null"),
    ] {
        put(
            dir,
            &format!("atlas/nodes/{id}/meta.json"),
            &format!(
                r#"{{"id": "{id}", "url": "http://127.0.0.1:9/{page}.html", "title": "{page}",
                "fingerprint": "http://localhost/{page}.html\n", "first_seen": "2026-11-28T15:04:18Z",
                "last_seen": "2026-11-28T15:04:18Z", "run_ids": ["r"], "entry": {entry}}}"#
            ),
        );
    }
    let edge = format!("atlas/edges/{a}/go");
    put(
        dir,
        &format!("{edge}/meta.json"),
        &format!(
            r#"{{"source": "{a}", "action": "go", "target": "{b}", "created": "2026-11-28T15:04:18Z"}}"#
        ),
    );
    put(
        dir,
        &format!("{edge}/flow.yaml"),
        &serde_json::json!({"name": "go", "steps": steps}).to_string(),
    );
    std::fs::create_dir_all(dir.join(format!("atlas/nodes/{a}/links"))).unwrap();
    std::os::unix::fs::symlink(
        format!("../../{b}"),
        dir.join(format!("atlas/nodes/{a}/links/go")),
    )
    .unwrap();
    b
}

/// A stored `screenshot.path` that leaves the artifacts directory (`..`, absolute) is refused by
/// `atlas export` as `validate` and `replay` refuse it, naming the edge's file; it used to be
/// written into the exported flow as it was. One inside the artifacts directory is exported.
#[test]
fn an_exported_flow_takes_no_screenshot_path_that_leaves_the_artifacts() {
    let click = serde_json::json!({"click": {"role": "link", "text": "Other"}});
    let d = tempfile::tempdir().unwrap();
    let node = two_states(
        d.path(),
        &serde_json::json!([{"screenshot": {"path": "shots/x.png"}}, click]),
    );
    export(d.path(), node, &["--out", "ok"]);
    let flow = exported(&d.path().join("ok"));
    assert!(flow.contains("shots/x.png"), "{flow}");
    for path in ["../../x.png", "/tmp/x.png", "shots/../../x.png"] {
        let d = tempfile::tempdir().unwrap();
        let node = two_states(
            d.path(),
            &serde_json::json!([{"screenshot": {"path": path}}, click]),
        );
        let (code, out, err) = atlas_cmd(d.path(), &["export", node, "--out", "out"]);
        assert_ne!(code, 0, "{path}: {out}{err}");
        assert!(
            err.contains(&format!(
                "screenshot path `{path}` leaves the artifacts directory"
            )) && err.contains("edges/aaaaaaaaaaaaaaaa/go/flow.yaml"),
            "{path}: {out}{err}"
        );
        let written = exported(&d.path().join("out"));
        assert!(!written.contains(path), "{path}: {written}");
    }
}

/// `atlas export --out DIR` writes over a file of the same name only when it is runner's export,
/// unchanged since: an exported flow (or Playwright script) edited by hand, or a user's file of
/// that name, is refused (exit 2) and kept; a re-export lost the edits (attack 26, C12). An
/// unedited export is written again; the exported flow still runs as a flow (its header is a
/// comment).
#[test]
fn a_re_export_never_writes_over_an_edited_export() {
    let click = serde_json::json!([{"click": {"role": "link", "text": "Other"}}]);
    let d = tempfile::tempdir().unwrap();
    let node = two_states(d.path(), &click);
    for (format, ext) in [("flow", "yaml"), ("playwright-python", "py")] {
        let args = ["export", node, "--format", format, "--out", "exp"];
        let (code, out, err) = atlas_cmd(d.path(), &args);
        assert_eq!(code, 0, "{out}{err}");
        let file = d.path().join(out.trim());
        assert!(file.extension().is_some_and(|e| e == ext), "{out}");
        // Unedited: written again.
        let (code, out, err) = atlas_cmd(d.path(), &args);
        assert_eq!(code, 0, "{out}{err}");
        let edited = std::fs::read_to_string(&file).unwrap() + "# my edit\n";
        std::fs::write(&file, &edited).unwrap();
        let (code, out, err) = atlas_cmd(d.path(), &args);
        assert_eq!(code, 2, "{format}: {out}{err}");
        assert!(
            err.contains("was edited since runner wrote it")
                && err.contains("runner does not write over it"),
            "{format}: {err}"
        );
        assert_eq!(std::fs::read_to_string(&file).unwrap(), edited);
        // A user's own file of that name.
        std::fs::write(&file, "print(1)\n").unwrap();
        let (code, out, err) = atlas_cmd(d.path(), &args);
        assert_eq!(code, 2, "{format}: {out}{err}");
        assert!(err.contains("runner does not write over it"), "{err}");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "print(1)\n");
        std::fs::remove_file(&file).unwrap();
    }
    // The exported flow is still a flow runner reads.
    let (code, out, err) = atlas_cmd(d.path(), &["export", node, "--out", "exp"]);
    assert_eq!(code, 0, "{out}{err}");
    let mut c = crate::common::runner(d.path());
    c.args(["validate", out.trim()]);
    let (code, out, err) = crate::common::output(c);
    assert_eq!(code, 0, "{out}{err}");
}

/// `atlas diff A B --html FILE` writes over FILE only when it is runner's page: a user's
/// `app.py` is refused (exit 2) and kept; it was replaced by the diff page (attack 26, C12).
/// The page is written again, run after run.
#[test]
fn an_atlas_diff_page_never_writes_over_a_users_file() {
    let click = serde_json::json!([{"click": {"role": "link", "text": "Other"}}]);
    let d = tempfile::tempdir().unwrap();
    two_states(d.path(), &click);
    write(d.path(), "app.py", "print(1)\n");
    let diff = |html: &str| {
        let mut c = crate::common::runner(d.path());
        c.args(["atlas", "diff", "atlas", "atlas", "--html", html]);
        crate::common::output(c)
    };
    let (code, out, err) = diff("app.py");
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("app.py exists and is not") && err.contains("runner does not write over it"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(d.path().join("app.py")).unwrap(),
        "print(1)\n"
    );
    for _ in 0..2 {
        let (code, out, err) = diff("d.html");
        assert_eq!(code, 0, "{out}{err}");
    }
    let page = std::fs::read_to_string(d.path().join("d.html")).unwrap();
    assert!(page.contains("<title>atlas diff"), "{page}");
}

/// D19 (attack 27): the Playwright export wrote a recorded secret as the literal text
/// `"{{ secrets.PW }}-2fa"`, which the script then typed into the password field. The script
/// reads it from the environment as the flow does (`os.environ["PW"] + "-2fa"`), and a
/// template the export cannot write in Python is refused (exit 2, naming the edge's file and
/// step), never written as text.
#[test]
fn the_playwright_export_reads_a_secret_from_the_environment() {
    let click = serde_json::json!({"click": {"role": "link", "text": "Other"}});
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "runner.toml", "[atlas]\nsecrets = [\"PW\"]\n");
    let fill = serde_json::json!({"fill": {"target": "#pw", "value": "{{ secrets.PW }}-2fa"}});
    let node = two_states(d.path(), &serde_json::json!([fill, click]));
    let py = export(d.path(), node, &["--format", "playwright-python"]);
    assert!(
        py.contains("page.locator(\"#pw\").fill(os.environ[\"PW\"] + \"-2fa\")"),
        "{py}"
    );
    assert!(py.contains("\nimport os\n"), "{py}");
    assert!(!py.contains("{{"), "{py}");
    let file = write(d.path(), "reach.py", &py);
    let out = std::process::Command::new("python3")
        .args(["-m", "py_compile"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "runner.toml", "[atlas]\nsecrets = [\"PW\"]\n");
    let fill = serde_json::json!({"fill": {"target": "#pw", "value": "{{ secrets.PW | replace('a', 'b') }}"}});
    let node = two_states(d.path(), &serde_json::json!([fill, click]));
    let (code, out, err) = atlas_cmd(d.path(), &["export", node, "--format", "playwright-python"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("edges/aaaaaaaaaaaaaaaa/go/flow.yaml: step 1 (`fill`)")
            && err.contains("the Playwright export cannot write"),
        "{err}"
    );
    assert!(!out.contains("replace"), "{out}");
}
