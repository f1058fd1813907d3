//! `atlas verify` and `atlas test` in CI: they fail fast (`--timeout`; a broken path stops at
//! its first broken link; an unreachable or silent root fails every node in seconds), check in
//! parallel (`--jobs`), never pass on nothing, and `atlas status` writes its times in RFC 3339.
//! Real browser, on `tests/fixtures/atlas-site` explored by `runner explore`.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::atlas::{Server, atlas_cmd, crawl, node_by_title, site_copy};
use crate::common::{fixture, free_port, logging_agent_browser, output, runner, sessions};

/// A copy of the atlas site, served, and explored into `<dir>/atlas` (six nodes: home,
/// statistics, about, team, contact, welcome).
fn explored(dir: &Path) -> (Server, PathBuf) {
    let site = site_copy(dir);
    let server = Server::serve(&site);
    let summary = crawl(dir, &format!("{}/index.html", server.url), &[]);
    assert_eq!(summary["total_nodes"], 6, "{summary}");
    (server, site)
}

/// `runner atlas verify --atlas atlas <more>`: (exit code, stdout, stderr, how long it took).
fn verify(dir: &Path, more: &[&str]) -> (i32, String, String, Duration) {
    let started = Instant::now();
    let mut c = runner(dir);
    c.args(["atlas", "verify", "--atlas", "atlas"]).args(more);
    let (code, out, err) = output(c);
    (code, out, err, started.elapsed())
}

/// The line `verify` printed for `node`.
fn line_of<'a>(out: &'a str, node: &str) -> &'a str {
    out.lines()
        .find(|l| l.split_whitespace().nth(1) == Some(node))
        .unwrap_or_else(|| panic!("no line for {node}:\n{out}"))
}

/// A server that accepts connections and never answers (`tests/fixtures/servers/silent.py`),
/// killed when dropped.
struct Silent {
    child: Child,
    url: String,
}

impl Silent {
    fn start() -> Silent {
        let mut child = Command::new("python3")
            .arg(fixture("servers/silent.py"))
            .arg("0")
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 starts");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.as_mut().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line.trim().strip_prefix("listening on ").expect("a port");
        Silent {
            url: format!("http://127.0.0.1:{port}"),
            child,
        }
    }
}

impl Drop for Silent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_broken_link_fails_its_node_and_the_nodes_behind_it_are_not_reached() {
    let d = tempfile::tempdir().unwrap();
    let (_server, site) = explored(d.path());
    let (home, stats, welcome) = (
        node_by_title(d.path(), "Atlas home"),
        node_by_title(d.path(), "Statistics"),
        node_by_title(d.path(), "Welcome"),
    );
    let (team, contact) = (
        node_by_title(d.path(), "Team"),
        node_by_title(d.path(), "Contact"),
    );
    // The link to the team page is gone: the path home -> about -> team -> contact breaks at
    // the team link; contact lies behind it.
    let about = std::fs::read_to_string(site.join("about.html")).unwrap();
    std::fs::write(
        site.join("about.html"),
        about.replace(">Our team</a>", ">The people</a>"),
    )
    .unwrap();
    let (code, out, err, took) = verify(
        d.path(),
        &[
            "--timeout",
            "1s",
            "--report",
            "junit=v.xml",
            "--report",
            "json=v.json",
            "--report",
            "html=vh",
        ],
    );
    assert_eq!(code, 1, "{out}{err}");
    // The failure's screenshot and snapshot the reports name are kept (in a deleted scratch
    // directory before: the HTML report left them out, the JSON named files that were gone).
    assert!(!err.contains("left out of the report"), "{err}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("v.json")).unwrap()).unwrap();
    let kept: Vec<&str> = json["flows"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["steps"].as_array().unwrap())
        .filter_map(|s| s["failure_artifacts"]["screenshot"].as_str())
        .collect();
    assert!(!kept.is_empty(), "{json}");
    for path in kept {
        assert!(Path::new(path).is_file(), "{path} is gone");
    }
    for ok in [&home, &stats, &welcome] {
        assert!(line_of(&out, ok).starts_with("ok"), "{out}");
    }
    let team_line = line_of(&out, &team);
    assert!(
        team_line.starts_with("FAIL") && team_line.contains("Our team"),
        "{out}"
    );
    // Contact is not replayed (which would wait out the same missing link again): it is
    // reported as not reached, naming where its path broke.
    let contact_line = line_of(&out, &contact);
    assert!(
        contact_line.starts_with("FAIL")
            && contact_line.contains("not reached")
            && contact_line.contains(&team),
        "{out}"
    );
    // One wait of 1 s for the missing link, not one per node behind it (nor 15 s each).
    assert!(took < Duration::from_secs(12), "{took:?}\n{out}");
    // The reports list every node, the one not reached as a failure that says so.
    let xml = std::fs::read_to_string(d.path().join("v.xml")).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let case = doc
        .descendants()
        .find(|n| {
            n.has_tag_name("testcase")
                && n.attribute("name").is_some_and(|a| a.starts_with(&contact))
        })
        .expect("contact's case");
    let failure = case
        .children()
        .find(|c| c.has_tag_name("failure"))
        .expect("a failure");
    assert!(
        failure
            .attribute("message")
            .is_some_and(|m| m.contains("not reached")),
        "{xml}"
    );
    assert_eq!(
        doc.descendants()
            .filter(|n| n.has_tag_name("testcase"))
            .count(),
        6,
        "{xml}"
    );

    // `atlas status` tells times in RFC 3339 (UTC), not as seconds since the epoch.
    let (code, status, _) = atlas_cmd(d.path(), &["status"]);
    assert_eq!(code, 0);
    let status: serde_json::Value = serde_json::from_str(&status).unwrap();
    let rfc3339 = regex::Regex::new(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$").unwrap();
    for key in ["started_at", "updated_at"] {
        assert!(
            status[key].as_str().is_some_and(|t| rfc3339.is_match(t)),
            "{key}: {status}"
        );
    }
    assert!(status["uptime"].as_f64().unwrap() > 0.0, "{status}");

    // --timeout takes a duration as flows write them.
    for bad in ["5 parsecs", "0s", "5"] {
        let (code, _, err, _) = verify(d.path(), &["--timeout", bad]);
        assert_eq!(code, 2, "--timeout {bad}: {err}");
        assert!(err.contains("--timeout"), "{err}");
    }
}

#[test]
fn an_unreachable_or_a_silent_root_fails_every_node_in_seconds() {
    let d = tempfile::tempdir().unwrap();
    let (server, _) = explored(d.path());
    let home = node_by_title(d.path(), "Atlas home");
    let others: Vec<String> = std::fs::read_dir(d.path().join("atlas/nodes"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|id| *id != home)
        .collect();
    drop(server);
    let check = |out: &str, why: &str| {
        let root = line_of(out, &home);
        assert!(root.starts_with("FAIL") && root.contains(why), "{out}");
        for id in &others {
            let l = line_of(out, id);
            assert!(l.starts_with("FAIL") && l.contains("not reached"), "{out}");
        }
        assert!(out.contains("0 verified, 6 no longer arrive"), "{out}");
    };

    // Nothing listens: the root's `open` is refused at once, and nothing behind it is tried.
    let gone = format!("http://127.0.0.1:{}", free_port());
    let (code, out, err, took) = verify(d.path(), &["--base-url", &gone]);
    assert_eq!(code, 1, "{out}{err}");
    check(&out, "ERR_CONNECTION_REFUSED");
    assert!(took < Duration::from_secs(10), "{took:?}");

    // A server that takes the connection and never answers: the default timeout (5 s) runs out
    // once, for the root.
    let silent = Silent::start();
    let (code, out, err, took) = verify(d.path(), &["--base-url", &silent.url]);
    assert_eq!(code, 1, "{out}{err}");
    check(&out, "timed out after 5s");
    assert!(took < Duration::from_secs(15), "{took:?}\n{out}");
}

#[test]
fn verify_jobs_checks_in_parallel_in_no_more_browsers_than_jobs() {
    let d = tempfile::tempdir().unwrap();
    let (_server, _) = explored(d.path());
    let (wrapper, log) = logging_agent_browser(d.path());
    let started = Instant::now();
    let mut c = runner(d.path());
    c.env("AGENT_BROWSER", &wrapper)
        .args(["atlas", "verify", "--atlas", "atlas", "--jobs", "3"])
        .args(["--report", "json=v.json"]);
    let (code, out, err) = output(c);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("6 verified, 0 no longer arrive"), "{out}");
    // Each check in a context of its own; the three nodes one link from home at once, so more
    // than one browser, but never more than three.
    let browsers = sessions(&log).len();
    assert!((2..=3).contains(&browsers), "{browsers} browsers");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("v.json")).unwrap()).unwrap();
    assert_eq!(report["summary"]["passed"], 6, "{report}");
    eprintln!("verify --jobs 3: {:?}", started.elapsed());

    for bad in ["0", "65", "two"] {
        let (code, _, err, _) = verify(d.path(), &["--jobs", bad]);
        assert_eq!(code, 2, "--jobs {bad}: {err}");
    }

    // Nodes but no test ideas (explored without an agent): nothing to test is no pass.
    let (code, out, err) = atlas_cmd(d.path(), &["test"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("no tests collected"), "{err}");
}

/// A node's path is its parent's and one link more: a replay that has checked a node goes on
/// from there to a child, so each path from the root to a leaf is replayed once (three for the
/// site's six nodes: home -> about -> team -> contact, and statistics and welcome, home's other
/// children), every state on it checked as it arrives. What each node's flow in the report ran
/// says so: one `open` per path, and team and contact reached with their own link's click.
#[test]
fn verify_replays_each_path_to_a_leaf_once_checking_every_state_on_it() {
    let d = tempfile::tempdir().unwrap();
    let (_server, _) = explored(d.path());
    let (code, out, err, _) = verify(d.path(), &["--report", "json=v.json"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("6 verified, 0 no longer arrive"), "{out}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("v.json")).unwrap()).unwrap();
    let flows = report["flows"].as_array().unwrap();
    assert_eq!(flows.len(), 6, "{report}");
    let steps_of = |title: &str| -> Vec<String> {
        let node = node_by_title(d.path(), title);
        let flow = flows
            .iter()
            .find(|f| f["name"].as_str().unwrap().starts_with(&node))
            .unwrap_or_else(|| panic!("no flow for {title}: {report}"));
        assert_eq!(flow["status"], "passed", "{flow}");
        flow["steps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["name"].as_str().unwrap().to_string())
            .collect()
    };
    let opens: usize = flows
        .iter()
        .flat_map(|f| f["steps"].as_array().unwrap())
        .filter(|s| s["action"] == "open")
        .count();
    assert_eq!(opens, 3, "one fresh replay per leaf: {report}");
    assert_eq!(steps_of("Team").len(), 1, "{:?}", steps_of("Team"));
    assert!(steps_of("Team")[0].contains("Our team"), "{report}");
    assert_eq!(steps_of("Contact").len(), 1, "{report}");
    assert!(steps_of("Contact")[0].contains("Contact"), "{report}");
}

/// Ctrl-C while verify replays ends it as interrupted (exit 130), not as a run whose replays
/// failed: the step that saw the interrupt ends its flow, and every replay after it would be
/// interrupted at once, but none of that is a verdict on the atlas.
#[test]
fn verify_interrupted_while_it_replays_exits_130() {
    let d = tempfile::tempdir().unwrap();
    let (_server, _) = explored(d.path());
    let (wrapper, log) = logging_agent_browser(d.path());
    let mut c = runner(d.path());
    c.env("AGENT_BROWSER", &wrapper)
        .args(["atlas", "verify", "--atlas", "atlas"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = c.spawn().unwrap();
    // The first replay's browser is starting.
    crate::common::wait_for_file(&log);
    let out = crate::common::interrupt(child);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("verify interrupted"), "{stderr}");
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("no longer arrive"),
        "{stderr}"
    );
}

#[test]
fn an_empty_atlas_is_nothing_to_verify_or_test_and_no_pass() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("atlas/nodes")).unwrap();
    let (code, out, err, _) = verify(d.path(), &[]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("nothing to verify"), "{err}");
    let (code, out, err) = atlas_cmd(d.path(), &["test"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("no tests collected"), "{err}");
}

/// explore, verify, replay and test launch their browser as they start, while they read the
/// atlas and load their first flow (as a run launches its first flows' browsers): one that ends
/// before its first replay — here explore, on an atlas path that is a file — leaves no browser
/// or daemon behind.
#[test]
fn a_command_that_ends_before_its_first_replay_leaves_no_browser_behind() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("atlas"), "not a folder").unwrap();
    for _ in 0..3 {
        let child = runner(d.path())
            .args(["explore", "http://127.0.0.1:9/", "--atlas", "atlas"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let pid = child.id();
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_ne!(out.status.code(), Some(0), "{err}");
        assert!(err.contains("atlas"), "{err}");
        let left = crate::browser::leftover_browser_processes(pid);
        assert!(left.is_empty(), "explore left {left:?}");
    }
}
