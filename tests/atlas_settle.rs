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
