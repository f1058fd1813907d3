//! `runner atlas diff A B` (issue 28): a site map's regression view. Two explores of a copy of
//! `tests/fixtures/atlas-site` — the second after a button is renamed, a page removed (and the
//! link to it) and a page added (and a link to it) — and the diff lists exactly those states
//! and edges, in text, JSON and an HTML page; the same site explored twice has no differences,
//! nor has the data app (`tests/fixtures/data-app`) explored before and after a data edit (its
//! drift is said); bad input exits 2 naming what is wrong; the page escapes what the atlases
//! hold.

use std::path::Path;

use serde_json::Value;

use crate::atlas::{Server, site_copy};
use crate::common::{Ran, flow_run, output, runner, write};

/// `runner explore URL --atlas <atlas>` in `dir`, which must succeed.
fn explore(dir: &Path, url: &str, atlas: &str) {
    let mut c = runner(dir);
    c.args(["explore", url, "--atlas", atlas]);
    let (code, stdout, stderr) = output(c);
    assert_eq!(code, 0, "{stdout}{stderr}");
}

/// `runner atlas diff <args>` in `dir`: (exit code, stdout, stderr).
fn diff(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let mut c = runner(dir);
    c.args(["atlas", "diff"]).args(args);
    let r = output(c);
    assert!(!r.2.contains("panicked"), "{}", r.2);
    r
}

/// `atlas diff A B --format json`: (exit code, the document).
fn diff_json(dir: &Path, a: &str, b: &str) -> (i32, Value) {
    let (code, stdout, stderr) = diff(dir, &[a, b, "--format", "json"]);
    let doc = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}{stderr}"));
    (code, doc)
}

/// Edits a page of the served copy.
fn edit(site: &Path, page: &str, from: &str, to: &str) {
    let p = site.join(page);
    let text = std::fs::read_to_string(&p).unwrap();
    assert!(text.contains(from), "{page} holds {from}");
    std::fs::write(&p, text.replace(from, to)).unwrap();
}

/// The labels of a list of states (`{id, label, ...}`).
fn labels(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap_or_else(|| panic!("not a list: {list}"))
        .iter()
        .map(|s| s["label"].as_str().unwrap().to_string())
        .collect()
}

/// A list of edges as `source --[action]--> target` lines.
fn edges(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap_or_else(|| panic!("not a list: {list}"))
        .iter()
        .map(|e| {
            format!(
                "{} --[{}]--> {}",
                e["source"]["label"].as_str().unwrap(),
                e["action"].as_str().unwrap(),
                e["target"]["label"].as_str().unwrap()
            )
        })
        .collect()
}

/// The lines of the text output that start with `mark` and a space, each without the node ids
/// in parentheses at its end.
fn marked(stdout: &str, mark: &str) -> Vec<String> {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix(&format!("{mark} ")))
        .map(|l| match l.rsplit_once(" (") {
            Some((head, tail))
                if tail.ends_with(')')
                    && tail.chars().next().is_some_and(|c| c.is_ascii_hexdigit()) =>
            {
                head.to_string()
            }
            _ => l.to_string(),
        })
        .collect()
}

/// The indented lines under the text output's line for the state `label` (`~ label (...)`).
fn under(stdout: &str, label: &str) -> Vec<String> {
    stdout
        .lines()
        .skip_while(|l| !l.starts_with(&format!("~ {label} (")))
        .skip(1)
        .take_while(|l| l.starts_with("    "))
        .map(|l| l.trim().to_string())
        .collect()
}

#[test]
fn a_changed_site_shows_states_added_removed_changed_and_edges_broken_and_new() {
    let d = tempfile::tempdir().unwrap();
    let site = site_copy(d.path());
    let server = Server::serve(&site);
    let url = format!("{}/index.html", server.url);
    explore(d.path(), &url, "old");
    // The same site explored again: no differences (the statistics page's numbers and dates
    // change between the two: they are not its identity).
    explore(d.path(), &url, "same");
    let (code, stdout, stderr) = diff(d.path(), &["old", "same"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.starts_with("no differences: 6 states, 10 edges"),
        "{stdout}"
    );
    let (code, doc) = diff_json(d.path(), "old", "same");
    assert_eq!(code, 0, "{doc}");
    assert_eq!(doc["differ"], false, "{doc}");
    assert_eq!(doc["summary"]["states_unchanged"], 6, "{doc}");
    assert_eq!(doc["summary"]["edges_unchanged"], 10, "{doc}");

    // A renamed button, a page removed with the link to it, a page added with a link to it.
    edit(&site, "index.html", ">Join<", ">Sign up<");
    std::fs::remove_file(site.join("contact.html")).unwrap();
    edit(
        &site,
        "team.html",
        " <a href=\"contact.html\">Contact</a>",
        "",
    );
    edit(
        &site,
        "about.html",
        "<a href=\"index.html\">Home</a></main>",
        "<a href=\"index.html\">Home</a> <a href=\"faq.html\">FAQ</a></main>",
    );
    write(
        &site,
        "faq.html",
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>FAQ</title></head>\n<body><main><h1>Questions</h1><a href=\"index.html\">Home</a></main></body></html>\n",
    );
    explore(d.path(), &url, "new");

    let (code, stdout, stderr) = diff(d.path(), &["old", "new", "--html", "report/diff.html"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert_eq!(
        marked(&stdout, "~"),
        [
            "About /about.html",
            "Atlas home /index.html",
            "Team /team.html"
        ],
        "{stdout}"
    );
    assert_eq!(
        under(&stdout, "About /about.html"),
        ["added: link \"FAQ\" (in main)"],
        "{stdout}"
    );
    assert_eq!(
        under(&stdout, "Atlas home /index.html"),
        ["renamed: button \"Join\" -> button \"Sign up\" (in main > form)"],
        "{stdout}"
    );
    assert_eq!(
        under(&stdout, "Team /team.html"),
        ["removed: link \"Contact\" (in main)"],
        "{stdout}"
    );
    assert_eq!(
        marked(&stdout, "+"),
        [
            "FAQ /faq.html",
            "About /about.html --[click link FAQ]--> FAQ /faq.html",
            "Atlas home /index.html --[submit button Sign up]--> Welcome /welcome.html?name=*",
            "FAQ /faq.html --[click link Home]--> Atlas home /index.html",
        ],
        "{stdout}"
    );
    assert_eq!(
        marked(&stdout, "-"),
        [
            "Contact /contact.html",
            "Contact /contact.html --[click link Back to team]--> Team /team.html: its source is removed",
            "Team /team.html --[click link Contact]--> Contact /contact.html: its target is removed",
        ],
        "{stdout}"
    );
    assert_eq!(
        marked(&stdout, "!"),
        [
            "Atlas home /index.html --[submit button Join]--> Welcome /welcome.html?name=*: gone, both states are still there",
        ],
        "{stdout}"
    );
    assert!(
        stdout.ends_with("3 states changed, 1 added, 1 removed; 1 edge broken, 3 new, 2 removed\n"),
        "{stdout}"
    );

    let (code, doc) = diff_json(d.path(), "old", "new");
    assert_eq!(code, 1, "{doc}");
    assert_eq!(doc["differ"], true, "{doc}");
    assert_eq!(doc["fingerprint"], "structure", "{doc}");
    assert_eq!(
        doc["summary"],
        serde_json::json!({
            "states_added": 1, "states_removed": 1, "states_changed": 3, "states_unchanged": 2,
            "edges_broken": 1, "edges_new": 3, "edges_removed": 2, "edges_unchanged": 7
        })
    );
    let states = &doc["states"];
    assert_eq!(labels(&states["added"]), ["FAQ /faq.html"], "{doc}");
    assert_eq!(
        labels(&states["removed"]),
        ["Contact /contact.html"],
        "{doc}"
    );
    let changed: Vec<String> = states["changed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["a"]["label"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        changed,
        [
            "About /about.html",
            "Atlas home /index.html",
            "Team /team.html"
        ]
    );
    let home = &states["changed"][1];
    assert_eq!(home["matched_by"], "route", "{home}");
    assert_ne!(home["a"]["id"], home["b"]["id"], "{home}");
    assert_eq!(home["diff"]["renamed"][0]["from"]["name"], "Join", "{home}");
    assert_eq!(
        home["diff"]["renamed"][0]["to"]["name"], "Sign up",
        "{home}"
    );
    assert_eq!(home["diff"]["expected"]["route"], "/index.html", "{home}");
    assert!(
        home["diff"].get("added").is_none() && home["diff"].get("removed").is_none(),
        "{home}"
    );
    assert_eq!(
        states["changed"][0]["diff"]["added"][0]["name"], "FAQ",
        "{doc}"
    );
    assert_eq!(
        states["changed"][2]["diff"]["removed"][0]["name"], "Contact",
        "{doc}"
    );
    let e = &doc["edges"];
    assert_eq!(
        edges(&e["broken"]),
        ["Atlas home /index.html --[submit button Join]--> Welcome /welcome.html?name=*"]
    );
    assert_eq!(e["broken"][0]["reason"], "missing", "{doc}");
    assert_eq!(
        edges(&e["new"]),
        [
            "About /about.html --[click link FAQ]--> FAQ /faq.html",
            "Atlas home /index.html --[submit button Sign up]--> Welcome /welcome.html?name=*",
            "FAQ /faq.html --[click link Home]--> Atlas home /index.html",
        ]
    );
    assert_eq!(
        edges(&e["removed"]),
        [
            "Contact /contact.html --[click link Back to team]--> Team /team.html",
            "Team /team.html --[click link Contact]--> Contact /contact.html",
        ]
    );
    let reasons: Vec<&Value> = e["removed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| &x["reason"])
        .collect();
    assert_eq!(reasons, ["source_removed", "target_removed"]);

    // The other way round, what was added is removed.
    let (code, back) = diff_json(d.path(), "new", "old");
    assert_eq!(code, 1);
    assert_eq!(
        labels(&back["states"]["added"]),
        ["Contact /contact.html"],
        "{back}"
    );
    assert_eq!(
        labels(&back["states"]["removed"]),
        ["FAQ /faq.html"],
        "{back}"
    );
    assert_eq!(back["summary"]["edges_broken"], 1, "{back}");

    // The HTML page: one file, no network, the same findings.
    let html = std::fs::read_to_string(d.path().join("report/diff.html")).unwrap();
    assert!(html.starts_with("<!doctype html>"), "{html}");
    for want in [
        "FAQ /faq.html",
        "Contact /contact.html",
        "Sign up",
        "submit button Join",
        "3 changed",
    ] {
        assert!(html.contains(want), "{want} not on the page:\n{html}");
    }
    for never in ["<script", "src=", "href=\"http", "url(", "@import"] {
        assert!(!html.contains(never), "{never} on the page:\n{html}");
    }
}

#[test]
fn a_data_edit_between_two_explores_is_no_difference_and_its_drift_is_said() {
    let d = tempfile::tempdir().unwrap();
    let app = crate::atlas_identity::app(d.path());
    // The data app's runner.toml starts its server for explore.
    let explore_app = |atlas: &str| {
        let mut c = runner(&app);
        c.args(["explore", "/", "--max-depth", "4", "--atlas", atlas]);
        let (code, stdout, stderr) = output(c);
        assert_eq!(code, 0, "{stdout}{stderr}");
    };
    explore_app("old");
    edit(&app, "data.json", "\"Dune\"", "\"Dune Messiah\"");
    explore_app("new");
    let (code, stdout, stderr) = diff(&app, &["old", "new", "--html", "diff.html"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.starts_with("no differences: "), "{stdout}");
    assert!(
        stdout.contains("\nthe same states, other data (not a difference):\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "= Dune · Library /books/:id: title \"Dune · Library\" -> \"Dune Messiah · Library\"; data drift: \"Dune\" -> \"Dune Messiah\"\n"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("= Books · Library /books: data drift: \"Dune\" -> \"Dune Messiah\"\n"),
        "{stdout}"
    );
    let (_, doc) = diff_json(&app, "old", "new");
    assert_eq!(doc["differ"], false, "{doc}");
    assert!(
        doc["summary"]["states_unchanged"].as_u64().unwrap() >= 5,
        "{doc}"
    );
    assert_eq!(labels(&doc["states"]["added"]).len(), 0, "{doc}");
    let drifted = doc["states"]["drifted"].as_array().unwrap();
    assert!(
        drifted
            .iter()
            .any(|x| x["diff"]["drift"][0]["found"] == "Dune Messiah"),
        "{doc}"
    );
    let html = std::fs::read_to_string(app.join("diff.html")).unwrap();
    assert!(
        html.contains("No differences")
            && html.contains("The same states, other data")
            && html.contains("Dune Messiah"),
        "{html}"
    );
}

/// A page whose title, heading and link text are markup, and the other page it links to.
const HOSTILE: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>&lt;script&gt;alert("title")&lt;/script&gt;</title></head>
<body><main><h1>&lt;img src=x onerror=alert(1)&gt;</h1><a href="other.html">LINK</a></main></body></html>
"#;

const RECORD: &str = r#"name: record
web_server: { static: site }
steps:
  - open: "{{ web_server.url }}/index.html"
  - link_state: home
  - click: { css: a }
  - link_state: "{{ vars.edge }}"
"#;

/// Records the hostile site (its link named `link`) into `atlas`, the edge named `edge`.
fn record_hostile(dir: &Path, link: &str, edge: &str, atlas: &str) {
    let site = dir.join("site");
    std::fs::create_dir_all(&site).unwrap();
    write(&site, "index.html", &HOSTILE.replace("LINK", link));
    write(
        &site,
        "other.html",
        "<!doctype html><html><head><title>\"&gt;&lt;svg onload=alert(5)&gt;</title></head><body><main><h1>Other</h1></main></body></html>",
    );
    let Ran { code, stderr, .. } = flow_run(dir)
        .args(["record.yaml", "--atlas", atlas, "--var"])
        .arg(format!("edge={edge}"))
        .run();
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn the_html_page_escapes_what_the_atlases_hold() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "record.yaml", RECORD);
    record_hostile(
        d.path(),
        "&lt;/td&gt;&lt;script&gt;alert(2)&lt;/script&gt;",
        "<script>alert('edge')</script>",
        "a",
    );
    record_hostile(
        d.path(),
        "&lt;b onmouseover=alert(3)&gt;x&lt;/b&gt;",
        "<img src=y onerror=alert('edge2')>",
        "b",
    );
    let page = d.path().join("diff.html");
    let (code, stdout, stderr) = diff(d.path(), &["a", "b", "--html", page.to_str().unwrap()]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    // The text output shows the names as they are (an element's numbers normalized).
    assert!(stdout.contains("renamed: link \"</td><script>alert(#)</script>\" -> link \"<b onmouseover=alert(#)>x</b>\""), "{stdout}");
    let html = std::fs::read_to_string(&page).unwrap();
    for never in ["<script", "<img", "<svg", "<b ", "</td><script"] {
        assert!(!html.contains(never), "{never} on the page:\n{html}");
    }
    for want in [
        "&lt;script&gt;alert(&quot;title&quot;)&lt;/script&gt; /index.html",
        "&lt;/td&gt;&lt;script&gt;alert(#)&lt;/script&gt;",
        "&lt;b onmouseover=alert(#)&gt;x&lt;/b&gt;",
        "&lt;script&gt;alert('edge')&lt;/script&gt;",
        "&lt;img src=y onerror=alert('edge2')&gt;",
        "&quot;&gt;&lt;svg onload=alert(5)&gt;",
    ] {
        assert!(html.contains(want), "{want} not on the page:\n{html}");
    }
    // Opened from file:// in the browser, the page shows those names as text.
    write(
        d.path(),
        "open.yaml",
        &format!(
            "name: the diff page\nsteps:\n  - open: \"file://{}\"\n  - expect: {{ visible: {{ text: \"<b onmouseover=alert(#)>x</b>\" }} }}\n  - expect: {{ visible: {{ text: \"alert('edge2')\" }} }}\n",
            page.display()
        ),
    );
    let Ran { code, stderr, .. } = flow_run(d.path()).arg("open.yaml").run();
    assert_eq!(code, 0, "{stderr}");
}

/// An action name with a line break, escape sequences and a right-to-left override (U+202E),
/// written into an atlas by hand: `atlas diff` and `atlas show` print it on one line, without
/// the override, so its second part starts no line (where GitHub Actions would read
/// `::error` as a command) and reads as it is (thirteenth attack, B15).
#[test]
fn an_action_name_is_shown_on_one_line_without_bidi_controls() {
    let d = tempfile::tempdir().unwrap();
    recorded(d.path(), "a");
    copy_atlas(d.path(), "a", "b");
    let meta = walkdir::WalkDir::new(d.path().join("b/edges"))
        .into_iter()
        .filter_map(Result::ok)
        .find(|e| e.file_name() == "meta.json")
        .unwrap()
        .into_path();
    let mut m: Value = serde_json::from_str(&std::fs::read_to_string(&meta).unwrap()).unwrap();
    m["action"] = Value::from("evil\u{1b}[2J\r\n::error file=x::forged\u{202e}abc\u{2066}d");
    std::fs::write(&meta, m.to_string()).unwrap();
    let (code, stdout, stderr) = diff(d.path(), &["a", "b"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    let mut show = runner(d.path());
    show.args(["atlas", "show", "--atlas", "b"]);
    let (show_code, shown, show_err) = output(show);
    assert_eq!(show_code, 0, "{shown}{show_err}");
    for (what, out) in [("diff", &stdout), ("show", &shown)] {
        assert!(
            out.contains("evil ::error file=x::forgedabcd"),
            "{what}: {out}"
        );
        assert!(
            !out.lines().any(|l| l.trim_start().starts_with("::")),
            "{what}: {out}"
        );
        assert!(
            !out.contains(['\u{1b}', '\r', '\u{202e}', '\u{2066}']),
            "{what}: {out:?}"
        );
    }
}

/// A small real atlas (`runner run` with link_state on the atlas site) in `dir/<name>`.
fn recorded(dir: &Path, name: &str) {
    if !dir.join("site").exists() {
        site_copy(dir);
    }
    write(
        dir,
        "tour.yaml",
        "name: tour\nweb_server: { static: site }\nsteps:\n  - open: \"{{ web_server.url }}/index.html\"\n  - link_state: home\n  - click: { role: link, text: About us }\n  - link_state: about\n",
    );
    let Ran { code, stderr, .. } = flow_run(dir).args(["tour.yaml", "--atlas", name]).run();
    assert_eq!(code, 0, "{stderr}");
}

/// Copies the atlas `from` to `to` (links as links).
fn copy_atlas(dir: &Path, from: &str, to: &str) {
    let status = std::process::Command::new("cp")
        .arg("-a")
        .arg(dir.join(from))
        .arg(dir.join(to))
        .status()
        .unwrap();
    assert!(status.success());
}

/// The first node directory of an atlas.
fn first_node(atlas: &Path) -> std::path::PathBuf {
    let mut nodes: Vec<_> = std::fs::read_dir(atlas.join("nodes"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    nodes.sort();
    nodes.remove(0)
}

#[test]
fn bad_input_exits_2_naming_what_is_wrong() {
    let d = tempfile::tempdir().unwrap();
    recorded(d.path(), "good");
    let dir = d.path();
    // The atlas against itself: no differences.
    let (code, stdout, _) = diff(dir, &["good", "good"]);
    assert_eq!(
        (code, stdout.as_str()),
        (0, "no differences: 2 states, 1 edge\n")
    );
    let refused = |a: &str, b: &str, says: &str| {
        let (code, stdout, stderr) = diff(dir, &[a, b]);
        assert_eq!(code, 2, "{a} {b}: {stdout}{stderr}");
        assert!(stdout.is_empty(), "{stdout}");
        assert!(
            stderr.starts_with("error: ") && stderr.contains(says),
            "{a} {b}: {says} not in {stderr}"
        );
    };
    refused("good", "missing", "no atlas at missing: no such directory");
    std::fs::create_dir(dir.join("plain")).unwrap();
    refused(
        "plain",
        "good",
        "plain is not an atlas: it has no nodes/ directory",
    );
    write(dir, "file", "x");
    refused(
        "good",
        "file",
        "file is not an atlas: it has no nodes/ directory",
    );

    copy_atlas(dir, "good", "bad-settings");
    write(
        &dir.join("bad-settings"),
        "atlas.json",
        "{\"fingerprint\": ",
    );
    refused(
        "good",
        "bad-settings",
        "bad-settings/atlas.json: invalid JSON",
    );

    copy_atlas(dir, "good", "bad-meta");
    let node = first_node(&dir.join("bad-meta"));
    write(&node, "meta.json", "not json");
    refused(
        "bad-meta",
        "good",
        &format!(
            "{}: invalid JSON",
            node.join("meta.json")
                .display()
                .to_string()
                .trim_start_matches(&format!("{}/", dir.display()))
        ),
    );

    copy_atlas(dir, "good", "bad-edge");
    let edge_meta = walkdir::WalkDir::new(dir.join("bad-edge/edges"))
        .into_iter()
        .filter_map(Result::ok)
        .find(|e| e.file_name() == "meta.json")
        .unwrap()
        .into_path();
    write(edge_meta.parent().unwrap(), "meta.json", "[");
    refused("good", "bad-edge", "meta.json: invalid JSON");

    copy_atlas(dir, "good", "dangling");
    let links = walkdir::WalkDir::new(dir.join("dangling/nodes"))
        .into_iter()
        .filter_map(Result::ok)
        .find(walkdir::DirEntry::path_is_symlink)
        .unwrap()
        .into_path();
    std::fs::remove_file(&links).unwrap();
    std::os::unix::fs::symlink("../../0000000000000000", &links).unwrap();
    refused(
        "good",
        "dangling",
        "leads to 0000000000000000, which is not in the atlas",
    );

    copy_atlas(dir, "good", "by-text");
    write(
        &dir.join("by-text"),
        "atlas.json",
        "{\"fingerprint\": \"text\"}",
    );
    refused(
        "good",
        "by-text",
        "good tells states apart by `structure` and by-text by `text`",
    );

    std::fs::create_dir_all(dir.join("empty1/nodes")).unwrap();
    std::fs::create_dir_all(dir.join("empty2/nodes")).unwrap();
    refused(
        "empty1",
        "empty2",
        "neither atlas has a state: nothing to compare",
    );
    // One empty atlas against a recorded one: every state removed (a crawl that found nothing).
    let (code, doc) = diff_json(dir, "good", "empty1");
    assert_eq!(code, 1, "{doc}");
    assert_eq!(doc["summary"]["states_removed"], 2, "{doc}");
    // Usage: a format runner does not know.
    let (code, _, stderr) = diff(dir, &["good", "good", "--format", "yaml"]);
    assert_eq!(code, 2, "{stderr}");
}

#[test]
fn options_atlas_diff_would_not_use_are_refused() {
    let d = tempfile::tempdir().unwrap();
    recorded(d.path(), "good");
    let dir = d.path();
    // `--atlas` names no atlas `diff` reads, and `diff` starts no server: both are refused
    // rather than passed over.
    for (args, says) in [
        (
            &["good", "good", "--atlas", "good"][..],
            "compares the two atlases it is given: drop `--atlas`",
        ),
        (
            &["good", "good", "--web-server", "python3 -m http.server"][..],
            "`atlas diff` starts no server",
        ),
    ] {
        let (code, stdout, stderr) = diff(dir, args);
        assert_eq!(code, 2, "{args:?}: {stdout}{stderr}");
        assert!(
            stdout.is_empty() && stderr.contains(says),
            "{args:?}: {stderr}"
        );
    }
    let mut show = runner(dir);
    show.args(["atlas", "show", "--atlas", "good", "--web-server", "true"]);
    let (code, _, stderr) = output(show);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("`atlas show` starts no server"), "{stderr}");
}
