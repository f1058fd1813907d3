//! A browser that dies or goes silent after the first state of `atlas replay`, `verify`, `test`
//! or `runner explore`: the browser is the failure (exit 3, saying which browser and what happened
//! to it), not the app. Before, every node after it "no longer arrived" (exit 1: a dead browser
//! tunnel reported as the app's regression, review D1), and a crawl recorded each todo left as
//! failed and ended green.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::common::{fixture, output, runner};
use crate::contexts::RemoteBrowser;

/// `tests/fixtures/tripwire_site.py`: `site` served, the browser `pid` sent `signal` (`KILL`,
/// `STOP`) when a page past `index.html` is asked for. Ended when dropped.
struct Tripwire {
    child: std::process::Child,
    url: String,
    log: PathBuf,
    _dir: tempfile::TempDir,
}

impl Tripwire {
    fn serve(site: &Path, pid: u32, signal: &str) -> Tripwire {
        let dir = tempfile::tempdir().unwrap();
        let port_file = dir.path().join("port");
        let child = std::process::Command::new("python3")
            .arg(fixture("tripwire_site.py"))
            .arg(site)
            .arg(&port_file)
            .arg(pid.to_string())
            .arg(signal)
            .spawn()
            .unwrap();
        crate::common::wait_for_file(&port_file);
        let port = std::fs::read_to_string(&port_file).unwrap();
        Tripwire {
            child,
            url: format!("http://127.0.0.1:{}", port.trim()),
            log: dir.path().join("port.log"),
            _dir: dir,
        }
    }

    /// The page whose request stopped the browser, if one did.
    fn tripped(&self) -> Option<String> {
        std::fs::read_to_string(&self.log)
            .ok()
            .map(|s| s.trim().to_string())
    }
}

impl Drop for Tripwire {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An atlas at `dir/atlas` of the atlas site's home and two states one link from it, crawled
/// in a browser of runner's own; the site's copy.
fn explored(dir: &Path) -> PathBuf {
    let site = crate::atlas::site_copy(dir);
    let server = crate::atlas::Server::serve(&site);
    crate::atlas::crawl(
        dir,
        &format!("{}/index.html", server.url),
        &["--max-nodes", "3"],
    );
    site
}

#[test]
fn atlas_replay_verify_and_test_stop_when_the_browser_dies_after_the_first_node() {
    let d = tempfile::tempdir().unwrap();
    let site = explored(d.path());
    // A test idea, so that `atlas test` has something to collect (it verifies every node first).
    let home = crate::atlas::node_by_title(d.path(), "Atlas home");
    std::fs::write(
        d.path().join(format!("atlas/nodes/{home}/test_ideas.json")),
        r#"[{"name": "joins"}]"#,
    )
    .unwrap();
    let about = crate::atlas::node_by_title(d.path(), "About");
    for (args, signal, said) in [
        // The path to About: home, then the link to it.
        (&["replay", &about][..], "KILL", "exited"),
        (&["verify", "--jobs", "1"][..], "KILL", "exited"),
        // Home's two children on two drivers: the second's browser is connected to lazily.
        (&["verify", "--jobs", "2"][..], "STOP", "did not answer"),
        (&["test"][..], "KILL", "exited"),
    ] {
        let remote = RemoteBrowser::start();
        let trip = Tripwire::serve(&site, remote.child.id(), signal);
        let mut c = runner(d.path());
        c.env("RUNNER_BROWSER_CDP", &remote.url)
            .arg("atlas")
            .args(args)
            .args([
                "--atlas",
                "atlas",
                "--timeout",
                "3s",
                "--base-url",
                &trip.url,
            ]);
        let started = Instant::now();
        let (code, out, err) = output(c);
        let took = started.elapsed();
        let text = format!("{out}{err}");
        // The browser was stopped after the first node (home) arrived, on the way to the next.
        assert!(
            trip.tripped().is_some(),
            "{args:?}: nothing tripped: {text}"
        );
        assert_eq!(code, 3, "{args:?}: {text}");
        let browser = format!("the browser at {} {said}", remote.url);
        assert!(
            text.contains(&browser),
            "{args:?}: no `{browser}` in: {text}"
        );
        // No node is the app's regression.
        for verdict in ["no longer arrive", "FAIL", "not reached"] {
            assert!(!text.contains(verdict), "{args:?}: `{verdict}` in: {text}");
        }
        assert!(took < Duration::from_secs(40), "{args:?} took {took:?}");
    }
}

/// `atlas verify --report json=… --report junit=…` whose browser dies after the first node
/// writes its reports all the same, as `run` writes them with an errored flow: the node it
/// verified, and an errored result saying the browser failed (exit 3). It wrote none (attack
/// 26, C21): a CI step that uploads the reports found nothing.
#[test]
fn atlas_verify_writes_its_reports_when_the_browser_dies() {
    let d = tempfile::tempdir().unwrap();
    let site = explored(d.path());
    let remote = RemoteBrowser::start();
    let trip = Tripwire::serve(&site, remote.child.id(), "KILL");
    let mut c = runner(d.path());
    c.env("RUNNER_BROWSER_CDP", &remote.url).args([
        "atlas",
        "verify",
        "--atlas",
        "atlas",
        "--jobs",
        "1",
        "--timeout",
        "3s",
        "--base-url",
        &trip.url,
        "--report",
        "json=vj.json",
        "--report",
        "junit=vj.xml",
    ]);
    let (code, out, err) = output(c);
    let text = format!("{out}{err}");
    assert!(trip.tripped().is_some(), "nothing tripped: {text}");
    assert_eq!(code, 3, "{text}");
    let browser = format!("the browser at {} exited", remote.url);
    assert!(text.contains(&browser), "no `{browser}` in: {text}");
    let json = std::fs::read_to_string(d.path().join("vj.json"))
        .unwrap_or_else(|e| panic!("no vj.json ({e}): {text}"));
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    let flows = report["flows"].as_array().unwrap();
    let statuses: Vec<&str> = flows
        .iter()
        .map(|f| f["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["passed", "error"], "{json}");
    assert!(
        flows[0]["name"].as_str().unwrap().contains("Atlas home"),
        "{json}"
    );
    let why = flows[1]["error"]["message"].as_str().unwrap();
    assert!(why.contains(&browser), "{json}");
    assert_eq!(report["summary"]["errors"], 1, "{json}");
    let xml = std::fs::read_to_string(d.path().join("vj.xml"))
        .unwrap_or_else(|e| panic!("no vj.xml ({e}): {text}"));
    assert!(
        xml.contains("<testsuite") && xml.contains(&browser),
        "{xml}"
    );
    // No node is the app's regression.
    for verdict in ["no longer arrive", "FAIL"] {
        assert!(!text.contains(verdict), "`{verdict}` in: {text}");
    }
}

#[test]
fn explore_stops_when_the_browser_dies_mid_crawl() {
    let d = tempfile::tempdir().unwrap();
    let site = crate::atlas::site_copy(d.path());
    let remote = RemoteBrowser::start();
    let trip = Tripwire::serve(&site, remote.child.id(), "KILL");
    let mut c = runner(d.path());
    c.env("RUNNER_BROWSER_CDP", &remote.url).args([
        "explore",
        &format!("{}/index.html", trip.url),
        "--atlas",
        "atlas",
        "--max-nodes",
        "4",
    ]);
    let (code, out, err) = output(c);
    let text = format!("{out}{err}");
    assert!(trip.tripped().is_some(), "nothing tripped: {text}");
    assert_eq!(code, 3, "{text}");
    let browser = format!("the browser at {} exited", remote.url);
    assert!(text.contains(&browser), "no `{browser}` in: {text}");
    // Not a summary with the todos left recorded as failed.
    assert!(!text.contains("failed_todos"), "{text}");
}

/// The browser dies in one of `atlas test`'s tests (every node verified): that test is not the
/// app's failure either.
#[test]
fn atlas_test_stops_when_the_browser_dies_in_a_test() {
    let d = tempfile::tempdir().unwrap();
    let site = crate::atlas::site_copy(d.path());
    let server = crate::atlas::Server::serve(&site);
    crate::atlas::crawl(
        d.path(),
        &format!("{}/index.html", server.url),
        &["--max-nodes", "1"],
    );
    drop(server);
    let home = crate::atlas::node_by_title(d.path(), "Atlas home");
    let node = d.path().join(format!("atlas/nodes/{home}"));
    std::fs::write(
        node.join("test_ideas.json"),
        r#"[{"name": "visits about"}]"#,
    )
    .unwrap();
    // The test an agent would have saved: the path to home, a link to a page past it, and a
    // check that the page past it is shown. The About page is the marker: the tripwire kills the
    // browser before it serves that page, so the test cannot end before the kill. With the click
    // as its last step, a click that returned before its navigation asked for the page ended
    // the test green first, under load (the kill then landed after the test: exit 0).
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(node.join("meta.json")).unwrap()).unwrap();
    let test = serde_json::json!({"name": "visits about", "steps": [
        {"open": meta["url"]},
        {"click": {"role": "link", "text": "About us"}},
        {"expect": {"title": "About"}},
    ]});
    let saved = d.path().join(format!("atlas/tests/{home}"));
    std::fs::create_dir_all(&saved).unwrap();
    std::fs::write(saved.join("visits_about.yaml"), test.to_string()).unwrap();
    let remote = RemoteBrowser::start();
    let trip = Tripwire::serve(&site, remote.child.id(), "KILL");
    let mut c = runner(d.path());
    c.env("RUNNER_BROWSER_CDP", &remote.url).args([
        "atlas",
        "test",
        "--atlas",
        "atlas",
        "--timeout",
        "3s",
        "--base-url",
        &trip.url,
    ]);
    let (code, out, err) = output(c);
    let text = format!("{out}{err}");
    assert_eq!(trip.tripped().as_deref(), Some("/about.html"), "{text}");
    assert_eq!(code, 3, "{text}");
    // The kill lands in the click (its navigation under way) or in the check after it (the
    // click returned first): either way inside the test, and said as the browser's failure.
    let said = |step: &str| {
        format!(
            "the browser failed while running the test `visits about ({home})`: step `{step}` failed: the browser at {} exited",
            remote.url
        )
    };
    let steps = ["click link \"About us\"", "expect title"];
    assert!(
        steps.iter().any(|s| text.contains(&said(s))),
        "no `{}` (or the check's) in: {text}",
        said(steps[0])
    );
    assert!(!text.contains("FAIL"), "{text}");
}
