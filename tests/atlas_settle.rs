//! When explore takes a state as settled: a page is read once it is loaded and nothing on it
//! has changed for a while, its shadow roots included. Real browser on
//! `tests/fixtures/atlas-late`.

use crate::atlas::{Server, atlas_cmd, crawl, node_by_title};
use crate::common::fixture;

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
