//! The atlas end to end: link_state recording, show/path/graph/export/replay/verify, concurrent
//! runs, hostile names, and explore — real browser on `tests/fixtures/atlas-site`.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde_json::Value;

use crate::common::{Ran, fixture, flow_run, output, runner, write};

/// A static server (Python's http.server) on a free port, stopped when dropped.
pub(crate) struct Server {
    child: Child,
    pub(crate) url: String,
}

impl Server {
    pub(crate) fn serve(dir: &Path) -> Server {
        let mut child = Command::new("python3")
            .args([
                "-u",
                "-m",
                "http.server",
                "0",
                "--bind",
                "127.0.0.1",
                "--directory",
            ])
            .arg(dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("python3 starts");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.as_mut().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line
            .split("port ")
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
            .expect("a port")
            .to_string();
        Server {
            child,
            url: format!("http://127.0.0.1:{port}"),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(crate) fn site_copy(d: &Path) -> PathBuf {
    let site = d.join("site");
    std::fs::create_dir_all(&site).unwrap();
    for e in std::fs::read_dir(fixture("atlas-site")).unwrap().flatten() {
        std::fs::copy(e.path(), site.join(e.file_name())).unwrap();
    }
    site
}

/// The secret typed into the join form: a space, `&`, `/`, non-ASCII and characters that
/// `encodeURIComponent` leaves as they are (`-`, `.`, `~`, `(`), so that its URL form differs from
/// its value and from a strict percent-encoding.
const SECRET: &str = "s3cret name&value/é-x.y~(z)";

const TOUR: &str = r##"name: atlas tour
secrets: [ATLAS_TEST_SECRET]
web_server: { static: site }
atlas: atlas
steps:
  - open: "{{ web_server.url }}/index.html"
  - id: home
    link_state: home
  - click: { role: link, text: Statistics }
  - id: stats1
    link_state: statistics
  - click: { role: link, text: Home }
  - link_state: home from statistics
  - click: { role: link, text: Statistics }
  - id: stats2
    link_state: statistics
  - click: { role: link, text: Home }
  - link_state: home from statistics
  - click: { role: link, text: About us }
  - link_state: about
  - click: { role: link, text: Our team }
  - link_state: team
  - click: { role: link, text: Contact }
  - id: contact
    link_state: contact
  - click: { role: link, text: Back to team }
  - click: { role: link, text: Back to about }
  - click: { role: link, text: Home }
  - fill: { target: "#name", value: "{{ secrets.ATLAS_TEST_SECRET | upper }}" }
  - fill: { target: "#name", value: "{{ secrets.ATLAS_TEST_SECRET }}" }
  - click: { role: button, text: Join }
  - wait: { url: welcome }
  - id: joined
    link_state: join with a name
  - expect: { that: "{{ steps.stats1.node_id == steps.stats2.node_id and steps.stats1.is_new and not steps.stats2.is_new }}" }
"##;

pub(crate) fn atlas_cmd(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let mut c = runner(dir);
    c.arg("atlas").args(args).args(["--atlas", "atlas"]);
    output(c)
}

/// `runner explore URL --atlas atlas <more>`: (exit code, stdout, stderr).
fn explore_cmd(dir: &Path, url: &str, more: &[&str]) -> (i32, String, String) {
    let mut c = runner(dir);
    c.args(["explore", url, "--atlas", "atlas"]).args(more);
    output(c)
}

/// A successful crawl's summary.
pub(crate) fn crawl(dir: &Path, url: &str, more: &[&str]) -> Value {
    let (code, stdout, stderr) = explore_cmd(dir, url, more);
    assert_eq!(code, 0, "{stdout}{stderr}");
    serde_json::from_str(&stdout).unwrap()
}

pub(crate) fn node_by_title(dir: &Path, title: &str) -> String {
    for e in std::fs::read_dir(dir.join("atlas/nodes"))
        .unwrap()
        .flatten()
    {
        let m: Value =
            serde_json::from_str(&std::fs::read_to_string(e.path().join("meta.json")).unwrap())
                .unwrap();
        if m["title"] == title {
            return e.file_name().to_string_lossy().into_owned();
        }
    }
    panic!("no node titled {title}");
}

#[test]
fn record_show_path_graph_export_replay_and_verify() {
    let d = tempfile::tempdir().unwrap();
    let site = site_copy(d.path());
    write(d.path(), "tour.yaml", TOUR);
    let Ran { code, stderr, .. } = flow_run(d.path())
        .env("ATLAS_TEST_SECRET", SECRET)
        .arg("tour.yaml")
        .run();
    assert_eq!(code, 0, "{stderr}");

    let (code, show, _) = atlas_cmd(d.path(), &["show"]);
    assert_eq!(code, 0);
    // home, statistics (one node although its numbers change), about, team, contact, welcome.
    assert!(show.contains("6 node(s)"), "{show}");
    // The atlas's edge flows are fragments, not tests: `runner validate .` and `runner run .`
    // skip the atlas directory; an edge flow given by name declares the secrets it uses.
    let mut c = runner(d.path());
    c.args(["validate", "."]);
    let (code, _, stderr) = output(c);
    assert_eq!(code, 0, "validate . with an atlas inside: {stderr}");
    let mut c = runner(d.path());
    c.args(["run", ".", "--dry-run"]);
    let (code, stdout, stderr) = output(c);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("1 flow(s) would run"), "{stdout}");
    let join_edge = walkdir::WalkDir::new(d.path().join("atlas/edges"))
        .into_iter()
        .filter_map(Result::ok)
        .map(walkdir::DirEntry::into_path)
        .find(|p| {
            p.file_name().is_some_and(|n| n == "flow.yaml")
                && std::fs::read_to_string(p).is_ok_and(|t| t.contains("secrets.ATLAS_TEST_SECRET"))
        })
        .expect("the edge that fills the name");
    let mut c = runner(d.path());
    c.arg("validate").arg(&join_edge);
    let (code, _, stderr) = output(c);
    assert_eq!(code, 0, "an edge flow validates on its own: {stderr}");
    assert!(
        show.contains("--[join with a name]-->") && show.contains("unreachable: -"),
        "{show}"
    );

    let contact = node_by_title(d.path(), "Contact");
    let (code, path, _) = atlas_cmd(d.path(), &["path", &contact]);
    assert_eq!(code, 0);
    let actions: Vec<&str> = path
        .lines()
        .filter_map(|l| l.trim().strip_prefix("--["))
        .collect();
    assert_eq!(actions, ["about]-->", "team]-->", "contact]-->"], "{path}");

    let (_, dot, _) = atlas_cmd(d.path(), &["graph", "--format", "dot"]);
    assert!(
        dot.starts_with("digraph atlas {") && dot.contains("[label=\"about\"]"),
        "{dot}"
    );
    let (_, mermaid, _) = atlas_cmd(d.path(), &["graph", "--format", "mermaid"]);
    assert!(
        mermaid.starts_with("flowchart LR") && mermaid.contains("-->|\"team\"|"),
        "{mermaid}"
    );

    // The secret went into the atlas as a reference, never as its value.
    for e in walkdir::WalkDir::new(d.path().join("atlas"))
        .into_iter()
        .filter_map(Result::ok)
    {
        if e.file_type().is_file()
            && e.path()
                .extension()
                .is_some_and(|x| x == "yaml" || x == "json")
        {
            let text = std::fs::read_to_string(e.path()).unwrap();
            // The welcome page's URL carries the name percent-encoded (`encodeURIComponent`).
            for form in [
                SECRET,
                "S3CRET NAME&VALUE/É-X.Y~(Z)",
                "s3cret%20name%26value%2F%C3%A9-x.y~(z)",
                "s3cret+name%26value%2F%C3%A9-x.y%7E%28z%29",
                "S3CRET%20NAME%26VALUE%2F%C3%89-X.Y~(Z)",
            ] {
                assert!(
                    !text.contains(form),
                    "{} holds the secret as {form}:\n{text}",
                    e.path().display()
                );
            }
            assert!(!text.contains("s3cret"), "{}: {text}", e.path().display());
            // A value made of the secret is kept as the template that made it.
            assert!(!text.contains("SECRETS."), "{}", e.path().display());
        }
    }
    let welcome = node_by_title(d.path(), "Welcome");
    let server = Server::serve(&site);
    // The project names the secret the atlas's steps may read (see atlas_reach).
    write(
        d.path(),
        "runner.toml",
        "[atlas]\nsecrets = [\"ATLAS_TEST_SECRET\"]\n",
    );
    let (code, exported, err) =
        atlas_cmd(d.path(), &["export", &welcome, "--base-url", &server.url]);
    assert_eq!(code, 0, "{exported}{err}");
    assert!(
        exported.contains("{{ secrets.ATLAS_TEST_SECRET }}")
            && exported.contains("{{ secrets.ATLAS_TEST_SECRET | upper }}"),
        "{exported}"
    );
    assert!(exported.contains(&server.url), "{exported}");
    write(d.path(), "exported.yaml", &exported);
    let mut c = runner(d.path());
    c.args(["validate", "exported.yaml"]);
    assert_eq!(output(c).0, 0);
    let Ran { code, stderr, .. } = flow_run(d.path())
        .env("ATLAS_TEST_SECRET", "someone")
        .arg("exported.yaml")
        .run();
    assert_eq!(code, 0, "the exported flow runs: {stderr}");

    let (_, py, _) = atlas_cmd(
        d.path(),
        &["export", &contact, "--format", "playwright-python"],
    );
    assert!(
        py.starts_with("\"\"\"Replays the path to atlas node"),
        "{py}"
    );
    assert!(
        py.contains("page.get_by_role(\"link\", name=\"Our team\").click()"),
        "{py}"
    );

    let (code, out, stderr) = atlas_cmd(d.path(), &["replay", &contact, "--base-url", &server.url]);
    assert_eq!(code, 0, "{out}{stderr}");
    assert!(out.starts_with(&format!("ok {contact}")), "{out}");

    let verify = || {
        let mut c = runner(d.path());
        c.env("ATLAS_TEST_SECRET", "someone").args([
            "atlas",
            "verify",
            "--atlas",
            "atlas",
            "--base-url",
            &server.url,
            "--report",
            "junit=verify.xml",
        ]);
        output(c)
    };
    let (code, out, stderr) = verify();
    assert_eq!(code, 0, "{out}{stderr}");
    assert!(out.contains("6 verified, 0 no longer arrive"), "{out}");

    // Change a page: its node no longer arrives, the others still do.
    let team = std::fs::read_to_string(site.join("team.html")).unwrap();
    std::fs::write(
        site.join("team.html"),
        team.replace("<h1>Team</h1>", "<h1>Our new team</h1>"),
    )
    .unwrap();
    let (code, out, _) = verify();
    assert_eq!(code, 1, "{out}");
    let team_node = node_by_title(d.path(), "Team");
    assert!(
        out.lines()
            .any(|l| l.starts_with(&format!("FAIL {team_node}"))),
        "{out}"
    );
    let xml = std::fs::read_to_string(d.path().join("verify.xml")).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let failed: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase") && n.children().any(|c| c.has_tag_name("failure")))
        .map(|n| n.attribute("name").unwrap().to_string())
        .collect();
    assert_eq!(failed.len(), 1, "{xml}");
    assert!(failed[0].starts_with(&team_node));
}

#[test]
fn two_concurrent_runs_share_one_atlas() {
    let d = tempfile::tempdir().unwrap();
    site_copy(d.path());
    // Which run sees a state first is a race: no `is_new` expectations here.
    let tour: String = TOUR
        .lines()
        .filter(|l| !l.contains("is_new"))
        .map(|l| format!("{l}\n"))
        .collect();
    write(d.path(), "tour.yaml", &tour);
    let spawn = || {
        let mut c = runner(d.path());
        c.env("ATLAS_TEST_SECRET", "concurrent-name")
            .args(["run", "tour.yaml"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        c.spawn().unwrap()
    };
    let (a, b) = (spawn(), spawn());
    for child in [a, b] {
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let (code, show, _) = atlas_cmd(d.path(), &["show"]);
    assert_eq!(code, 0);
    assert!(show.contains("6 node(s)"), "{show}");
    let home = node_by_title(d.path(), "Atlas home");
    let meta: Value = serde_json::from_str(
        &std::fs::read_to_string(d.path().join("atlas/nodes").join(&home).join("meta.json"))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(meta["run_ids"].as_array().unwrap().len(), 2, "{meta}");
}

#[test]
fn hostile_action_names_stay_inside_the_atlas() {
    let d = tempfile::tempdir().unwrap();
    site_copy(d.path());
    let long = "x".repeat(300);
    write(
        d.path(),
        "f.yaml",
        &format!(
            r#"name: hostile
web_server: {{ static: site }}
atlas: atlas
steps:
  - open: "{{{{ web_server.url }}}}/index.html"
  - link_state: start
  - click: {{ role: link, text: About us }}
  - link_state: "../../../escape/evil"
  - click: {{ role: link, text: Our team }}
  - link_state: "{long}"
"#
        ),
    );
    let Ran { code, stderr, .. } = flow_run(d.path()).arg("f.yaml").run();
    assert_eq!(code, 0, "{stderr}");
    assert!(!d.path().join("escape").exists());
    for e in walkdir::WalkDir::new(d.path().join("atlas"))
        .into_iter()
        .filter_map(Result::ok)
    {
        assert!(e.path().starts_with(d.path().join("atlas")));
        assert!(e.file_name().len() <= 90, "{}", e.path().display());
    }
    let (_, show, _) = atlas_cmd(d.path(), &["show"]);
    assert!(show.contains("--[../../../escape/evil]-->"), "{show}");
    assert!(show.contains(&format!("--[{long}]-->")), "{show}");
}

#[test]
fn explore_finds_the_states_and_never_clicks_destructive_buttons() {
    let d = tempfile::tempdir().unwrap();
    let site = site_copy(d.path());
    let server = Server::serve(&site);
    let summary = crawl(
        d.path(),
        &format!("{}/index.html", server.url),
        &["--max-depth", "5"],
    );
    let titles: Vec<String> = std::fs::read_dir(d.path().join("atlas/nodes"))
        .unwrap()
        .flatten()
        .map(|e| {
            let m: Value =
                serde_json::from_str(&std::fs::read_to_string(e.path().join("meta.json")).unwrap())
                    .unwrap();
            m["title"].as_str().unwrap().to_string()
        })
        .collect();
    // Each state once: the home page showing Chromium's "Please fill out this field" bubble
    // (after a Join with the field empty) is the home page, not a state of its own.
    for t in ["Atlas home", "About", "Team", "Contact", "Statistics"] {
        assert_eq!(
            titles.iter().filter(|x| *x == t).count(),
            1,
            "{t} missing or split: {titles:?}"
        );
    }
    assert_eq!(titles.len(), 6, "{titles:?}");
    assert_eq!(
        titles.iter().filter(|x| *x == "Statistics").count(),
        1,
        "changing numbers split a node: {titles:?}"
    );
    assert!(
        !titles.iter().any(|t| t == "Deleted"),
        "a destructive button was clicked"
    );
    // The join form's field has an id and no name: filled with explore's own value all the same.
    assert!(
        titles.iter().any(|t| t == "Welcome"),
        "the join form was not filled: {titles:?}"
    );
    assert_eq!(
        summary["skipped_destructive"],
        serde_json::json!(["click button Delete account"])
    );
    assert_eq!(
        summary["total_nodes"].as_u64().unwrap() as usize,
        titles.len()
    );
    assert!(summary["max_depth_reached"].as_u64().unwrap() >= 3);
}

#[test]
fn explore_stops_at_max_nodes_and_resumes_from_its_todos() {
    let d = tempfile::tempdir().unwrap();
    let site = site_copy(d.path());
    let server = Server::serve(&site);
    let url = format!("{}/index.html", server.url);
    let crawl = |max: &str| crawl(d.path(), &url, &["--max-nodes", max]);
    assert_eq!(crawl("2")["total_nodes"], 2);
    let all = crawl("50");
    // The second crawl went on from the first one's todos and reached the deepest page.
    assert!(all["total_nodes"].as_u64().unwrap() >= 5, "{all}");
    node_by_title(d.path(), "Contact");
}

/// `explore --atlas DIR` writes an atlas only into a folder that is one (it holds
/// `atlas.json`), is empty, or is not there: a user's folder with a `status.json` and a
/// `nodes/readme.txt` is refused before the browser starts (exit 2), naming it, and left as it
/// was; explore replaced the status.json with its progress and added its nodes, edges and
/// atlas.json around the user's files (attack 27, D5). An explore into a new folder, and again
/// into it, works.
#[test]
fn explore_never_writes_an_atlas_into_a_folder_that_is_not_one() {
    let d = tempfile::tempdir().unwrap();
    let site = site_copy(d.path());
    let server = Server::serve(&site);
    let url = format!("{}/index.html", server.url);
    let user = d.path().join("atlas");
    std::fs::create_dir_all(user.join("nodes")).unwrap();
    std::fs::write(
        user.join("status.json"),
        "{\"my\":\"config\",\"keep\":true}\n",
    )
    .unwrap();
    std::fs::write(user.join("nodes/readme.txt"), "mine\n").unwrap();
    let (code, stdout, stderr) = explore_cmd(d.path(), &url, &["--max-nodes", "2"]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(
        stderr.contains("is not an atlas") && stderr.contains("atlas"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(user.join("status.json")).unwrap(),
        "{\"my\":\"config\",\"keep\":true}\n"
    );
    let mut left: Vec<String> = std::fs::read_dir(&user)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["nodes", "status.json"]);
    assert_eq!(std::fs::read_dir(user.join("nodes")).unwrap().count(), 1);
    std::fs::remove_dir_all(&user).unwrap();
    for _ in 0..2 {
        assert_eq!(
            crawl(d.path(), &url, &["--max-nodes", "1"])["total_nodes"],
            1
        );
    }
    assert!(user.join("atlas.json").is_file());
}

/// The todos left on the atlas's nodes, counted on disk.
fn todos_left(dir: &Path) -> usize {
    std::fs::read_dir(dir.join("atlas/nodes"))
        .unwrap()
        .flatten()
        .map(|e| {
            std::fs::read_to_string(e.path().join("todos.json"))
                .ok()
                .and_then(|t| serde_json::from_str::<Vec<Value>>(&t).ok())
                .map_or(0, |v| v.len())
        })
        .sum()
}

#[test]
fn an_explore_stopped_by_max_nodes_says_so_and_counts_what_is_left_as_its_status_does() {
    let d = tempfile::tempdir().unwrap();
    let site = site_copy(d.path());
    let server = Server::serve(&site);
    let url = format!("{}/index.html", server.url);
    let (code, stdout, stderr) = explore_cmd(d.path(), &url, &["--max-nodes", "2"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let status = atlas_status(d.path());
    assert_eq!(status["state"], "limited", "{status}");
    let left = todos_left(d.path());
    assert!(left > 0, "{status}");
    assert_eq!(status["tasks_pending"], left, "{status}");
    // Every progress line counts the todos pending as the status file does then; the end
    // says where the crawl stopped and what is left, as the status does.
    let line = regex::Regex::new(
        r"^explore: \d+ nodes, \d+ todos pending \(\d+ states queued\), at [0-9a-f]+ \(depth \d+\), ",
    )
    .unwrap();
    let progress: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("explore: "))
        .collect();
    assert!(!progress.is_empty(), "{stderr}");
    for l in &progress {
        assert!(line.is_match(l), "{l}");
    }
    let end = format!(
        "warning: explore stopped at --max-nodes 2: 2 nodes, {left} todos pending (the next `runner explore` does them)"
    );
    assert_eq!(stderr.lines().last(), Some(end.as_str()), "{stderr}");
    // The next crawl does them: done, nothing pending.
    crawl(d.path(), &url, &["--max-nodes", "50"]);
    let status = atlas_status(d.path());
    assert_eq!(
        (&status["state"], &status["tasks_pending"]),
        (&Value::from("done"), &Value::from(0)),
        "{status}"
    );
}

#[test]
fn an_interrupted_explore_keeps_the_todo_in_flight_for_the_next_crawl() {
    use std::io::BufRead;
    let d = tempfile::tempdir().unwrap();
    let site = site_copy(d.path());
    let server = Server::serve(&site);
    let url = format!("{}/index.html", server.url);
    let mut c = runner(d.path());
    c.args(["explore", &url, "--atlas", "atlas"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = c.spawn().unwrap();
    let mut lines = std::io::BufReader::new(child.stderr.take().unwrap()).lines();
    // `explore: 1 nodes, ... 0.4s: click link About us`: the todo is being done.
    let action = lines
        .by_ref()
        .map_while(Result::ok)
        .find_map(|l| Some(l.split_once("s: click ")?.1.to_string()))
        .expect("a progress line");
    let out = crate::common::interrupt(child);
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    assert!(
        rest.iter().any(|l| l.contains("explore interrupted")),
        "{rest:?} {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let home = node_by_title(d.path(), "Atlas home");
    let todos: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(d.path().join(format!("atlas/nodes/{home}/todos.json"))).unwrap(),
    )
    .unwrap();
    assert!(
        todos.iter().any(|t| action
            == format!(
                "{} {}",
                t["role"].as_str().unwrap(),
                t["name"].as_str().unwrap()
            )),
        "the todo in flight ({action}) was lost: {todos:?}"
    );
    // The next crawl does it and the rest.
    let all = crawl(d.path(), &url, &[]);
    assert!(all["total_nodes"].as_u64().unwrap() >= 5, "{all}");
    node_by_title(d.path(), "Contact");
}

#[test]
fn an_atlas_that_cannot_be_read_is_an_environment_error_and_a_missing_node_is_input() {
    let d = tempfile::tempdir().unwrap();
    // A node whose meta.json cannot be read (a directory where the file should be).
    std::fs::create_dir_all(d.path().join("atlas/nodes/0000000000000abc/meta.json")).unwrap();
    std::fs::create_dir_all(d.path().join("atlas/edges")).unwrap();
    let (code, _, stderr) = atlas_cmd(d.path(), &["path", "0000000000000abc"]);
    assert_eq!(code, 3, "I/O errors are the environment's: {stderr}");
    assert!(stderr.contains("Is a directory"), "{stderr}");
    let (code, _, stderr) = atlas_cmd(d.path(), &["path", "zzz"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("no node `zzz`"), "{stderr}");
}

#[test]
fn a_damaged_atlas_is_reported_not_shown_as_whole() {
    let d = tempfile::tempdir().unwrap();
    let node = d.path().join("atlas/nodes/0000000000000aaa");
    std::fs::create_dir_all(node.join("links")).unwrap();
    std::fs::create_dir_all(d.path().join("atlas/edges")).unwrap();
    std::fs::write(node.join("meta.json"), "{ broken").unwrap();
    std::os::unix::fs::symlink("../../00000000000000ff", node.join("links/to nowhere")).unwrap();
    let (code, out, stderr) = atlas_cmd(d.path(), &["show"]);
    assert_ne!(code, 0, "{out}");
    assert!(stderr.contains("invalid JSON"), "{stderr}");
    assert!(
        stderr.contains("link `to nowhere` of node 0000000000000aaa leads to 00000000000000ff, which is not in the atlas"),
        "{stderr}"
    );
}

#[test]
fn explore_teleports_through_recorded_edges_that_keep_only_page_steps() {
    // `link_state` records what acts on the page or checks it into edges (an `expect`'s page
    // checks, not its template condition; no `exec`: an atlas's steps may not reach beyond the
    // page); explore replays those edges through the engine, so it can go on from a state that
    // lies behind them.
    let d = tempfile::tempdir().unwrap();
    let site = site_copy(d.path());
    let server = Server::serve(&site);
    write(
        d.path(),
        "f.yaml",
        r#"name: an edge with exec and expect
atlas: "{{ env.ATLAS_NAME }}"
steps:
  - open: "{{ env.SITE_URL }}/index.html"
  - link_state: home
  - exec: ["true"]
  - expect: { that: "{{ 1 == 1 }}" }
  - expect: { title: { equals: Atlas home }, that: "{{ 2 == 2 }}" }
  - click: { role: link, text: About us }
  - link_state: about
"#,
    );
    let Ran { code, stderr, .. } = flow_run(d.path())
        .env("SITE_URL", &server.url)
        .env("ATLAS_NAME", "atlas")
        .arg("f.yaml")
        .run();
    assert_eq!(code, 0, "{stderr}");
    // The flow's `atlas:` template was rendered, not taken as a directory name.
    assert!(!d.path().join("{{ env.ATLAS_NAME }}").exists());
    let home = node_by_title(d.path(), "Atlas home");
    let about = node_by_title(d.path(), "About");
    let edge =
        std::fs::read_to_string(d.path().join(format!("atlas/edges/{home}/about/flow.yaml")))
            .unwrap();
    let steps: Value = serde_json::from_str::<Value>(&edge).unwrap()["steps"].clone();
    assert_eq!(
        steps,
        serde_json::json!([
            {"expect": {"title": {"equals": "Atlas home"}}},
            {"click": {"role": "link", "text": "About us"}},
        ]),
        "{edge}"
    );
    // Give the state behind that edge something left to explore.
    std::fs::write(
        d.path().join(format!("atlas/nodes/{about}/todos.json")),
        r#"[{"role": "link", "name": "Our team"}]"#,
    )
    .unwrap();
    crawl(
        d.path(),
        &format!("{}/index.html", server.url),
        &["--max-nodes", "10"],
    );
    let team = node_by_title(d.path(), "Team");
    let (_, show, _) = atlas_cmd(d.path(), &["show"]);
    assert!(
        show.contains(&format!("{about} --[click link Our team]--> {team}")),
        "{show}"
    );
}

#[test]
fn explore_refuses_a_url_with_credentials() {
    let d = tempfile::tempdir().unwrap();
    let (code, _, stderr) = explore_cmd(d.path(), "http://admin:hunter2@127.0.0.1:9/", &[]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("has credentials"), "{stderr}");
    assert!(!d.path().join("atlas").exists(), "nothing was recorded");
}

#[test]
fn what_explore_records_a_fresh_replay_reaches() {
    // "Add to cart" changes the app's state (localStorage) but not the page's fingerprint, so it
    // is no edge. The cart explore records must be the one its recorded path reaches from a
    // fresh browser: `atlas verify` right after `explore`, on the unchanged app, passes.
    let d = tempfile::tempdir().unwrap();
    let server = Server::serve(&fixture("shop"));
    let summary = crawl(d.path(), &format!("{}/index.html", server.url), &[]);
    // Both pages behind the two "Details" links (each link clicked, not the first one twice),
    // and the shop with its Reviews tab open (a tab is a candidate, as a link is).
    assert!(summary["total_nodes"].as_u64().unwrap() >= 5, "{summary}");
    node_by_title(d.path(), "Apples");
    node_by_title(d.path(), "Bananas");
    let reviews = std::fs::read_dir(d.path().join("atlas/nodes"))
        .unwrap()
        .flatten()
        .filter(|e| {
            std::fs::read_to_string(e.path().join("snapshot.txt"))
                .unwrap_or_default()
                .contains("Great apples")
        })
        .count();
    assert!(reviews >= 1, "the Reviews tab was not explored");
    // An element with a click handler and a <details> summary are clicked too.
    for shown in ["Open 9 to 17", "Delivery within two days"] {
        let found = std::fs::read_dir(d.path().join("atlas/nodes"))
            .unwrap()
            .flatten()
            .any(|e| {
                std::fs::read_to_string(e.path().join("snapshot.txt"))
                    .unwrap_or_default()
                    .contains(shown)
            });
        assert!(found, "no state shows {shown:?}");
    }
    // The newsletter form, filled with an email of explore's own (its field is required, so a
    // bare click on Subscribe goes nowhere).
    let thanks = node_by_title(d.path(), "Subscribed");
    let snap = std::fs::read_to_string(d.path().join(format!("atlas/nodes/{thanks}/snapshot.txt")))
        .unwrap();
    assert!(snap.contains("test@example.com"), "{snap}");
    // The deals page shows "Loading…" for 0.7 s: what is recorded is the page after it.
    let deals = node_by_title(d.path(), "Deals");
    let deals = std::fs::read_to_string(
        d.path()
            .join("atlas/nodes")
            .join(deals)
            .join("snapshot.txt"),
    )
    .unwrap();
    assert!(deals.contains("Two for one"), "{deals}");
    assert!(!deals.contains("Loading"), "{deals}");
    let (code, stdout, stderr) = atlas_cmd(d.path(), &["verify"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    // The cart the shop's own Cart link reaches from scratch is the empty one; a cart with an
    // item is a state only a path that adds one reaches.
    let carts: Vec<String> = std::fs::read_dir(d.path().join("atlas/nodes"))
        .unwrap()
        .flatten()
        .map(|e| std::fs::read_to_string(e.path().join("snapshot.txt")).unwrap_or_default())
        .filter(|s| s.contains("heading \"Cart\""))
        .collect();
    assert!(
        carts.iter().any(|s| s.contains("Your cart is empty")),
        "{carts:#?}"
    );
}

/// `runner atlas status --atlas atlas` as JSON.
fn atlas_status(dir: &Path) -> Value {
    let (code, stdout, stderr) = atlas_cmd(dir, &["status"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    serde_json::from_str(&stdout).unwrap()
}

/// Starts `runner explore` on the shop and waits until another process sees it exploring.
// The child is handed to the caller, which waits for it (or kills it) itself.
#[allow(clippy::zombie_processes)]
fn exploring(dir: &Path, url: &str) -> (std::process::Child, Value) {
    let mut c = runner(dir);
    c.args(["explore", url, "--atlas", "atlas"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        if dir.join("atlas/nodes").is_dir() && dir.join("atlas/status.json").is_file() {
            let s = atlas_status(dir);
            if s["state"] == "exploring" && s["current_node"].is_string() {
                return (child, s);
            }
        }
        if std::time::Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("explore never said it was exploring");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[test]
fn atlas_status_follows_an_explore_and_tells_a_killed_one() {
    let server = Server::serve(&fixture("shop"));
    let url = format!("{}/index.html", server.url);
    let d = tempfile::tempdir().unwrap();
    let (child, seen) = exploring(d.path(), &url);
    assert_eq!(seen["pid"], child.id(), "{seen}");
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    let done = atlas_status(d.path());
    assert_eq!(done["state"], "done", "{done}");
    assert_eq!(done["nodes_explored"], summary["total_nodes"], "{done}");
    assert_eq!(done["tasks_pending"], 0, "{done}");
    assert!(done["current_node"].is_null(), "{done}");
    assert!(done["uptime"].as_f64().unwrap() > 0.0, "{done}");

    // An explore killed with -9 cannot say so itself: `atlas status` tells from its pid.
    let d = tempfile::tempdir().unwrap();
    let (child, _) = exploring(d.path(), &url);
    crate::common::kill_9(child);
    let s = atlas_status(d.path());
    assert_eq!(s["state"], "stopped", "{s}");
    assert!(s["tasks_pending"].as_u64().unwrap() > 0, "{s}");
}

/// `runner explore URL --agent fake-claude` on the shop, in `dir`, with the fake agents on PATH
/// (unless `agents` is false: then no agent binary can be found at all).
fn explore_with_agent(dir: &Path, url: &str, agents: bool, more: &[&str]) -> (i32, String, String) {
    let mut c = runner(dir);
    if agents {
        crate::agents::agent_env(&mut c, dir);
    } else {
        c.env("PATH", "/usr/bin:/bin");
    }
    c.args(["explore", url, "--atlas", "atlas", "--agent", "fake-claude"])
        .args(crate::agents::with_profiles(more));
    output(c)
}

#[test]
fn explore_with_an_agent_analyses_pages_labels_edges_and_replays_from_the_cache() {
    let server = Server::serve(&fixture("shop"));
    let url = format!("{}/index.html", server.url);
    let d = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = explore_with_agent(d.path(), &url, true, &[]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let summary: Value = serde_json::from_str(&stdout).unwrap();
    // The agent called "Clear history" destructive (no word of the local list does): skipped.
    assert!(
        summary["skipped_destructive"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s == "click button Clear history"),
        "{summary}"
    );
    // Opening the Reviews tab was judged meaningless: no edge, and its state is not kept.
    assert!(
        summary["dropped_meaningless"]
            .to_string()
            .contains("click tab Reviews"),
        "{summary}"
    );
    let nodes = std::fs::read_dir(d.path().join("atlas/nodes"))
        .unwrap()
        .count();
    assert_eq!(summary["total_nodes"], nodes, "{summary}");
    for e in std::fs::read_dir(d.path().join("atlas/nodes"))
        .unwrap()
        .flatten()
    {
        let snap = std::fs::read_to_string(e.path().join("snapshot.txt")).unwrap();
        assert!(!snap.contains("Great apples"), "the reviews state was kept");
    }
    // The form was filled with the value the agent proposed (alone, Subscribe goes nowhere).
    let thanks = node_by_title(d.path(), "Subscribed");
    let snap = std::fs::read_to_string(d.path().join(format!("atlas/nodes/{thanks}/snapshot.txt")))
        .unwrap();
    assert!(snap.contains("ada@example.com"), "{snap}");
    // Edges carry the agent's names; the file name for their scripts is kept with them.
    let shop = node_by_title(d.path(), "Shop");
    let cart = node_by_title(d.path(), "Cart");
    let (_, show, _) = atlas_cmd(d.path(), &["show"]);
    assert!(
        show.contains(&format!("{shop} --[open cart]--> {cart}")),
        "{show}"
    );
    let meta: Value = serde_json::from_str(
        &std::fs::read_to_string(
            d.path()
                .join(format!("atlas/edges/{shop}/open cart/meta.json")),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(meta["label"]["script_name"], "open_cart", "{meta}");
    assert_eq!(meta["label"]["performed"], "click link Cart", "{meta}");
    // ... and is the name of the file the path to the cart is exported to.
    let (code, out, err) = atlas_cmd(d.path(), &["export", &cart, "--out", "exported"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.trim_end().ends_with("exported/open_cart.yaml"), "{out}");
    let exported = std::fs::read_to_string(d.path().join("exported/open_cart.yaml")).unwrap();
    assert!(exported.contains("\"Cart\""), "{exported}");
    // The analysis and test ideas are kept beside each node.
    let ideas: Value = serde_json::from_str(
        &std::fs::read_to_string(d.path().join(format!("atlas/nodes/{cart}/test_ideas.json")))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(ideas[0]["name"], "shows Cart", "{ideas}");
    assert_eq!(ideas.as_array().unwrap().len(), 2, "{ideas}");
    let analysis =
        std::fs::read_to_string(d.path().join(format!("atlas/nodes/{shop}/analysis.json")))
            .unwrap();
    assert!(analysis.contains("The Shop page"), "{analysis}");
    // What explore recorded, a fresh replay reaches.
    let (code, out, err) = atlas_cmd(d.path(), &["verify"]);
    assert_eq!(code, 0, "{out}{err}");
    let asked = std::fs::read_dir(d.path().join("rec")).unwrap().count();
    assert!(asked >= nodes, "{asked} agent calls for {nodes} nodes");

    // CI replays the exploration from the cache, with no agent installed at all.
    std::fs::remove_dir_all(d.path().join("atlas")).unwrap();
    let (code, stdout, stderr) =
        explore_with_agent(d.path(), &url, false, &["--agent-cache", "read-only"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let again: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(again["total_nodes"], summary["total_nodes"], "{again}");
    assert_eq!(again["total_edges"], summary["total_edges"], "{again}");
    assert_eq!(
        std::fs::read_dir(d.path().join("rec")).unwrap().count(),
        asked
    );

    // A read-only cache that lacks an answer stops the crawl, saying so; the state it could not
    // analyse is not kept half done (the next crawl meets it anew).
    let fresh = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) =
        explore_with_agent(fresh.path(), &url, false, &["--agent-cache", "read-only"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(stderr.contains("page_analysis of "), "{stderr}");
    assert!(stderr.contains("read-only"), "{stderr}");
    assert_eq!(
        std::fs::read_dir(fresh.path().join("atlas/nodes"))
            .unwrap()
            .count(),
        0
    );

    // An agent that fails mid-crawl stops it; the todo in flight stays for the next crawl,
    // which ends where an unbroken one does.
    let broken = tempfile::tempdir().unwrap();
    let mut c = runner(broken.path());
    crate::agents::agent_env(&mut c, broken.path());
    c.env("FAKE_AGENT_MODE", "labeling-crash")
        .args([
            "explore",
            &url,
            "--atlas",
            "atlas",
            "--agent",
            "fake-claude",
        ])
        .args(crate::agents::with_profiles(&["--agent-cache", "off"]));
    let (code, stdout, stderr) = output(c);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(
        stderr.contains("trajectory_labeling of ") && stderr.contains("click link Cart"),
        "{stderr}"
    );
    let root_todos: Value = serde_json::from_str(
        &std::fs::read_to_string(broken.path().join(format!("atlas/nodes/{shop}/todos.json")))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(root_todos[0]["selector"]["text"], "Cart", "{root_todos}");
    assert_eq!(
        std::fs::read_dir(broken.path().join("atlas/nodes"))
            .unwrap()
            .count(),
        1,
        "only the analysed root is kept"
    );
    let (code, stdout, stderr) = explore_with_agent(broken.path(), &url, true, &[]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let resumed: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(resumed["total_nodes"], summary["total_nodes"], "{resumed}");
    assert_eq!(resumed["total_edges"], summary["total_edges"], "{resumed}");
}

/// The JUnit report's test cases: (name, failed).
pub(crate) fn junit_cases(path: &Path) -> Vec<(String, bool)> {
    let xml = std::fs::read_to_string(path).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    doc.descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .map(|n| {
            (
                n.attribute("name").unwrap().to_string(),
                n.children().any(|c| c.has_tag_name("failure")),
            )
        })
        .collect()
}

#[test]
fn atlas_test_writes_checks_saves_and_runs_a_test_per_idea() {
    let server = Server::serve(&fixture("shop"));
    let url = format!("{}/index.html", server.url);
    let d = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = explore_with_agent(d.path(), &url, true, &["--max-depth", "2"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let atlas_test = |agents: bool, more: &[&str]| {
        let mut c = runner(d.path());
        if agents {
            crate::agents::agent_env(&mut c, d.path());
        } else {
            c.env("PATH", "/usr/bin:/bin");
        }
        c.args(["atlas", "test", "--atlas", "atlas"])
            .args(crate::agents::with_profiles(more));
        output(c)
    };
    // The tests are written by another CLI (codex's `exec --json` events) than the one that
    // explored (claude's stream-json): skills work through any profile.
    let (code, stdout, stderr) = atlas_test(true, &["--agent", "fake-codex"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    let by_codex = std::fs::read_dir(d.path().join("rec"))
        .unwrap()
        .flatten()
        .filter(|e| {
            let r = std::fs::read_to_string(e.path()).unwrap_or_default();
            r.contains("\"codex\"") && r.contains("test_generation")
        })
        .count();
    assert!(
        by_codex >= 2,
        "{by_codex} test_generation calls to the codex profile"
    );
    let summary: Value = serde_json::from_str(&stdout).unwrap();
    let nodes = std::fs::read_dir(d.path().join("atlas/nodes"))
        .unwrap()
        .count();
    // One test per node ("shows <title>"), the cart's discount (which the shop lacks), and the
    // one whose steps the agent misspelt: refused as runner reads the answer, never run.
    assert_eq!(summary["total_tests"], nodes + 2, "{summary}");
    assert_eq!(summary["failed"], 2, "{summary}");
    assert_eq!(summary["nodes_failed"], 0, "{summary}");
    assert!(
        stderr.contains("FAIL cart offers a discount")
            && stderr.contains("expected text \"10% off\" to be visible"),
        "{stderr}"
    );
    assert!(
        stderr.contains("FAIL typo in a step")
            && stderr.contains("not a step runner reads: `clik` is no key a step has"),
        "{stderr}"
    );
    let report = d.path().join("atlas/tests/junit.xml");
    assert_eq!(
        summary["report_path"],
        report.strip_prefix(d.path()).unwrap().display().to_string()
    );
    let cases = junit_cases(&report);
    let failed: Vec<&str> = cases.iter().filter(|c| c.1).map(|c| c.0.as_str()).collect();
    assert_eq!(failed.len(), 2, "{cases:?}");
    assert!(
        failed
            .iter()
            .any(|n| n.starts_with("cart offers a discount"))
    );
    assert!(failed.iter().any(|n| n.starts_with("typo in a step")));
    // Node verifications are in the report too, all passing.
    assert_eq!(cases.len(), nodes * 2 + 2, "{cases:?}");
    // The saved tests are flows `runner run` takes as they are; the invalid one was not saved.
    let cart = node_by_title(d.path(), "Cart");
    let saved = d.path().join(format!("atlas/tests/{cart}/shows_cart.yaml"));
    let Ran { code, stderr, .. } = flow_run(d.path()).arg(&saved).run();
    assert_eq!(code, 0, "{stderr}");
    let subscribed = node_by_title(d.path(), "Subscribed");
    assert!(
        !d.path()
            .join(format!("atlas/tests/{subscribed}/typo_in_a_step.yaml"))
            .exists()
    );
    let status = atlas_status(d.path());
    assert_eq!(status["state"], "done", "{status}");

    // Without an agent (none installed), the saved tests run again; the unsaved one says why.
    let (code, stdout, stderr) = atlas_test(false, &[]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    let again: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(again["total_tests"], summary["total_tests"], "{again}");
    assert_eq!(again["failed"], 2, "{again}");
    assert!(
        stderr.contains("no test written for this idea yet"),
        "{stderr}"
    );
}
