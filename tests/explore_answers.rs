//! `explore --agent` with answers in the web-explorer seed's shapes (string selectors, free
//! action words and test idea types, any script name), and explore's errors that must say what
//! failed — real runner, agent-browser and Chromium on `tests/fixtures/shop`, the fake agent
//! speaking claude's stream-json.

use std::path::Path;

use serde_json::Value;

use crate::agents::{agent_env, with_profiles};
use crate::atlas::{Server, atlas_cmd, junit_cases, node_by_title};
use crate::common::{fixture, free_port, output, runner};

/// `runner explore URL --agent fake-claude --agent-cache CACHE` in `dir` with the fake agent in
/// `mode`.
fn explore_cached(dir: &Path, url: &str, mode: &str, cache: &str) -> (i32, String, String) {
    let mut c = runner(dir);
    agent_env(&mut c, dir);
    c.env("FAKE_AGENT_MODE", mode)
        .args(["explore", url, "--atlas", "atlas", "--agent", "fake-claude"])
        .args(with_profiles(&["--agent-cache", cache]));
    output(c)
}

/// The same, its answers never cached (each run asks).
fn explore(dir: &Path, url: &str, mode: &str) -> (i32, String, String) {
    explore_cached(dir, url, mode, "off")
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn an_answer_in_the_seeds_shapes_labels_edges_keeps_its_ideas_and_names_what_it_drops() {
    let server = Server::serve(&fixture("shop"));
    let url = format!("{}/index.html", server.url);
    let d = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = explore_cached(d.path(), &url, "seed-shapes", "read-write");
    assert_eq!(code, 0, "{stdout}{stderr}");
    let summary: Value = serde_json::from_str(&stdout).unwrap();
    let shop = node_by_title(d.path(), "Shop");

    // Every selector form the seed writes reached its page, and each edge has the agent's
    // label: `@e5` (Cart), `role=link[name="Deals"]`, CSS (the first Details), a bare ref (the
    // second), `role=button[name="Subscribe"s]` with the email to fill ("Submit").
    let (_, show, _) = atlas_cmd(d.path(), &["show"]);
    for (label, title) in [
        ("open cart", "Cart"),
        ("open deals", "Deals"),
        ("open apples", "Apples"),
        ("open bananas", "Bananas"),
        ("open subscribed", "Subscribed"),
    ] {
        let to = node_by_title(d.path(), title);
        assert!(
            show.contains(&format!("{shop} --[{label}]--> {to}")),
            "{label}: {show}"
        );
    }
    // `text=Shop` (action `tap`) leads back from the cart: the same state, one node.
    let cart = node_by_title(d.path(), "Cart");
    assert!(
        show.contains(&format!("{cart} --[open shop]--> {shop}")),
        "{show}"
    );
    let subscribed = node_by_title(d.path(), "Subscribed");
    let snap = std::fs::read_to_string(
        d.path()
            .join(format!("atlas/nodes/{subscribed}/snapshot.txt")),
    )
    .unwrap();
    assert!(snap.contains("ada@example.com"), "{snap}");
    // The seed's script name ("Open Cart") is made a file name.
    let meta = read_json(
        &d.path()
            .join(format!("atlas/edges/{shop}/open cart/meta.json")),
    );
    assert_eq!(meta["label"]["script_name"], "open_cart", "{meta}");
    // `button:has-text("Clear history")`, destructive by the agent's word: skipped.
    assert!(
        summary["skipped_destructive"]
            .to_string()
            .contains("Clear history"),
        "{summary}"
    );

    // What runner cannot use is dropped, each named with why: on stderr, in the summary and
    // beside the node; the rest of the answer was used. (The shop with its Reviews tab open
    // was analysed too, then not kept: the agent called the tab's click meaningless.)
    let dropped: Vec<String> = summary["dropped_answer_items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .filter(|d| d.starts_with(&format!("{shop}: ")))
        .collect();
    assert_eq!(dropped.len(), 3, "{dropped:#?}");
    let named = |what: &str, why: &str| {
        let item = dropped
            .iter()
            .find(|d| d.contains(what))
            .unwrap_or_else(|| panic!("{what} not dropped: {dropped:#?}"));
        assert!(
            item.starts_with(&format!("{shop}: page_analysis: ")),
            "{item}"
        );
        assert!(item.contains(why), "{item}");
        assert!(
            stderr.contains(&format!("warning: dropped from the agent's answer: {item}")),
            "{stderr}"
        );
    };
    named(
        "(drag role=button[name=\"Add to cart\"])",
        "explore does not `drag` (it does click, dblclick, hover, fill, check, uncheck, select, submit)",
    );
    named(
        "(click //button[@id='add'])",
        "`//button[@id='add']` is not CSS: XPath is not supported",
    );
    named("test_ideas[1] (", "\"name\" is a required property");
    let analysis = read_json(&d.path().join(format!("atlas/nodes/{shop}/analysis.json")));
    assert_eq!(
        analysis["dropped"].as_array().unwrap().len(),
        3,
        "{analysis}"
    );

    // A replay from the cache (read-only: no agent is asked) drops and names the same.
    let replay = tempfile::tempdir().unwrap();
    std::fs::rename(d.path().join("atlas"), replay.path().join("atlas")).unwrap();
    let (code, again, again_err) = explore_cached(d.path(), &url, "seed-shapes", "read-only");
    assert_eq!(code, 0, "{again}{again_err}");
    let again: Value = serde_json::from_str(&again).unwrap();
    assert_eq!(
        again["dropped_answer_items"], summary["dropped_answer_items"],
        "{again}"
    );
    assert_eq!(again["total_edges"], summary["total_edges"], "{again}");
    for item in &dropped {
        assert!(again_err.contains(item.as_str()), "{item}: {again_err}");
    }

    // The ideas of type `smoke` are kept (the nameless one is not), one per node ...
    let ideas = read_json(&d.path().join(format!("atlas/nodes/{shop}/test_ideas.json")));
    assert_eq!(
        ideas,
        serde_json::json!([{"name": "shows Shop", "description": "the page is the Shop page", "type": "smoke"}])
    );
    // ... and `atlas test` runs them: one test per node, all passing.
    let nodes = std::fs::read_dir(d.path().join("atlas/nodes"))
        .unwrap()
        .count();
    assert_eq!(summary["total_nodes"], nodes, "{summary}");
    let mut c = runner(d.path());
    agent_env(&mut c, d.path());
    c.env("FAKE_AGENT_MODE", "seed-shapes")
        .args(["atlas", "test", "--atlas", "atlas"])
        .args(with_profiles(&["--agent", "fake-claude"]));
    let (code, stdout, stderr) = output(c);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let tested: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(tested["total_tests"], nodes, "{tested}");
    assert_eq!(tested["passed"], nodes, "{tested}");
    assert_eq!(tested["failed"], 0, "{tested}");
    let cases = junit_cases(&d.path().join("atlas/tests/junit.xml"));
    assert!(
        cases
            .iter()
            .any(|(name, failed)| name.starts_with("shows Cart (") && !failed),
        "{cases:?}"
    );
}

/// The agent logs a skill error names, each checked to exist and hold `text`.
fn named_logs(stderr: &str, text: &str) -> usize {
    let logs: Vec<&str> = stderr
        .split_whitespace()
        .map(|w| w.trim_end_matches([',', ';', ')']))
        .filter(|w| w.ends_with(".agent.log"))
        .collect();
    for log in &logs {
        let got = std::fs::read_to_string(log).unwrap_or_else(|e| panic!("{log}: {e}"));
        assert!(got.contains(text), "{log}: {got}");
    }
    logs.len()
}

#[test]
fn explores_errors_say_what_failed_and_where_the_agents_text_is() {
    // A start URL nothing listens on: the URL and why, not "the steps failed".
    let d = tempfile::tempdir().unwrap();
    let url = format!("http://127.0.0.1:{}/", free_port());
    let mut c = runner(d.path());
    c.args(["explore", &url, "--atlas", "atlas"]);
    let (code, stdout, stderr) = output(c);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(
        stderr.contains(&format!(
            "error: explore cannot start: cannot open {url}: Navigation failed: net::ERR_CONNECTION_REFUSED"
        )),
        "{stderr}"
    );
    assert!(!stderr.contains("the steps failed"), "{stderr}");

    let server = Server::serve(&fixture("shop"));
    let url = format!("{}/index.html", server.url);
    // An answer without JSON, twice: the error names both logs, which hold the agent's text.
    let d = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = explore(d.path(), &url, "skill-no-json");
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(
        stderr.contains("gave no usable `page_analysis` answer (asked twice): the answer holds no JSON object; the agent's text is in "),
        "{stderr}"
    );
    assert_eq!(named_logs(&stderr, "I looked at the page"), 2, "{stderr}");

    // An answer whose every item runner cannot use: refused, each item named, the logs too.
    let d = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = explore(d.path(), &url, "skill-unusable");
    assert_eq!(code, 1, "{stdout}{stderr}");
    for said in [
        "nothing in the answer is usable: its 4 items were all dropped",
        "frontier_tasks[0] (click //a[0]): `//a[0]` is not CSS: XPath is not supported",
        "frontier_tasks[2] (drag text=Cart): explore does not `drag`",
        "test_ideas[0] (",
    ] {
        assert!(stderr.contains(said), "{said}: {stderr}");
    }
    assert_eq!(named_logs(&stderr, "//a[0]"), 2, "{stderr}");
}
