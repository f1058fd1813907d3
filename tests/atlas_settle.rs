//! When explore takes a state as settled: a page is read once it is loaded and nothing on it
//! has changed for a while, its shadow roots included. Real browser on
//! `tests/fixtures/atlas-late`.

use crate::atlas::{Server, atlas_cmd, crawl, node_by_title};
use crate::common::{fixture, write};

/// The list page adds its items inside a shadow root for half a second after it has loaded,
/// while its own DOM stays still: what explore records is the whole list, and a replay of it
/// arrives at the same state.
#[test]
fn explore_records_a_page_once_its_shadow_dom_stops_changing() {
    let d = tempfile::tempdir().unwrap();
    let server = Server::serve(&fixture("atlas-late"));
    let summary = crawl(d.path(), &format!("{}/index.html", server.url), &[]);
    assert_eq!(summary["total_nodes"], 2, "{summary}");
    assert_eq!(summary["total_edges"], 2, "{summary}");
    let list = node_by_title(d.path(), "Late list");
    let snap =
        std::fs::read_to_string(d.path().join(format!("atlas/nodes/{list}/snapshot.txt"))).unwrap();
    assert!(snap.contains("Item 1\""), "{snap}");
    assert!(
        snap.contains("Item 100\""),
        "recorded before the list was whole:\n{snap}"
    );
    let (code, stdout, stderr) = atlas_cmd(d.path(), &["verify"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("0 with data drift"), "{stdout}");
}

/// A link that leaves the app is not followed: the page it opens, on another origin, is no
/// state of the atlas. explore read the URL after each todo and only then the page; the read
/// now says where the page is, and a page elsewhere — here one that never stops changing, which
/// a read would wait out until its time ran out — is answered at once and dropped.
#[test]
fn explore_does_not_record_a_page_off_its_origin() {
    let d = tempfile::tempdir().unwrap();
    let elsewhere = d.path().join("elsewhere");
    let app = d.path().join("app");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::create_dir_all(&app).unwrap();
    write(
        &elsewhere,
        "busy.html",
        r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Busy</title></head>
<body><main><h1>Another app</h1><p id="t">0</p></main>
<script>let n = 0; setInterval(() => { document.querySelector('#t').textContent = String(++n); }, 10);</script>
</body></html>"#,
    );
    let other = Server::serve(&elsewhere);
    write(
        &app,
        "index.html",
        &format!(
            r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>App home</title></head>
<body><main><h1>Home</h1><a href="about.html">About</a> <a href="{}/busy.html">Elsewhere</a></main></body></html>"#,
            other.url
        ),
    );
    write(
        &app,
        "about.html",
        r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>App about</title></head>
<body><main><h1>About</h1><a href="index.html">Home</a></main></body></html>"#,
    );
    let server = Server::serve(&app);
    let summary = crawl(d.path(), &format!("{}/index.html", server.url), &[]);
    assert_eq!(summary["total_nodes"], 2, "{summary}");
    assert_eq!(summary["total_edges"], 2, "{summary}");
    assert_eq!(summary["failed_todos"], serde_json::json!([]), "{summary}");
    node_by_title(d.path(), "App home");
    node_by_title(d.path(), "App about");
}

/// The page a state's path ends on may start its navigation late (a loaded machine: the browser
/// asks for the page after the click's step has returned; here, a timer). A todo of that state
/// acted on the page the path was leaving: B's link `Next` was clicked on A, where a link of
/// that name leads elsewhere, and the edge recorded went from B to A's page (explore under load
/// gave another graph: `atlas_diff`'s CI flake, a todo of `/books?q=*` clicking `Books` as the
/// search left `/books`). A teleport now arrives at the state before its todos act.
#[test]
fn explore_acts_on_a_state_only_once_its_path_has_arrived_there() {
    let d = tempfile::tempdir().unwrap();
    let site = d.path().join("site");
    std::fs::create_dir_all(&site).unwrap();
    let page = |title: &str, body: &str| {
        format!(
            r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title></head>
<body><main><h1>{title}</h1>{body}</main></body></html>"#
        )
    };
    // `Go to B` says it is loading (explore waits that out when it records what the todo led
    // to), then goes to B 800 ms later; a replay's click returns at once.
    let go = r##"<a href="#" onclick="this.insertAdjacentHTML('afterend', '<p>Loading…</p>'); setTimeout(() => { location.href = 'b.html'; }, 800); return false">Go to B</a> <a href="a2.html">Next</a>"##;
    write(&site, "index.html", &page("Page A", go));
    write(
        &site,
        "b.html",
        &page("Page B", r#"<a href="c.html">Next</a>"#),
    );
    write(&site, "a2.html", &page("Page A2", "<p>After A</p>"));
    write(&site, "c.html", &page("Page C", "<p>After B</p>"));
    let server = Server::serve(&site);
    let summary = crawl(d.path(), &format!("{}/index.html", server.url), &[]);
    assert_eq!(summary["failed_todos"], serde_json::json!([]), "{summary}");
    let b = node_by_title(d.path(), "Page B");
    let c = node_by_title(d.path(), "Page C");
    let edge = d
        .path()
        .join(format!("atlas/edges/{b}/click link Next/meta.json"));
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&edge).unwrap()).unwrap();
    assert_eq!(meta["target"], c.as_str(), "B's Next led to {meta}");
}

/// A state whose page shows something else when its path is replayed (server-side state: a
/// first-visit banner gone on the second request) still has its todos done from the page at its
/// URL: explore waits a moment for the recorded state, then acts on the page its path reached
/// at the same address, as before. Waiting for the exact state dropped every further todo of
/// such a state, and the states only they lead to (review of session 26, F8: page D never
/// recorded).
#[test]
fn a_state_that_replays_with_other_content_keeps_its_todos() {
    let d = tempfile::tempdir().unwrap();
    let server = fixture("servers/first_visit.py");
    let command = format!("python3 {} {{{{ web_server.port }}}}", server.display());
    let summary = crawl(
        d.path(),
        "/",
        &[
            "--max-depth",
            "3",
            "--web-server",
            &command,
            "--web-server-port",
            "auto",
        ],
    );
    let failed = summary["failed_todos"].to_string();
    assert!(!failed.contains("Go D"), "{summary}");
    node_by_title(d.path(), "/d");
    node_by_title(d.path(), "/c");
}
