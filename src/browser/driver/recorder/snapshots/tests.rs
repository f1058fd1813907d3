use std::collections::HashMap;
use std::sync::Arc;

use serde_json::json;

use super::draw::{prepared, with_sheets};
use super::{Held, MAX_HELD, MAX_SNAPSHOT};
use crate::step::Masker;

/// Each stylesheet a snapshot names is put in its place, by its address as the browser
/// serialized it (`&amp;`), once: a later reference to it stays empty; one runner does not
/// hold stays empty; a text that holds `</style` cannot end its element.
#[test]
fn a_snapshots_stylesheets_are_put_in_once_by_address() {
    let html = concat!(
        r#"<head><style data-runner-sheet="http://x/a.css?v=1&amp;w=2"></style>"#,
        r#"<style data-runner-sheet="http://x/b.css" media="print"></style></head>"#,
        r#"<body><style data-runner-sheet="http://x/gone.css"></style>"#,
        r#"<style data-runner-sheet="http://x/a.css?v=1&amp;w=2"></style></body>"#
    );
    let sheets: HashMap<String, Arc<str>> = HashMap::from([
        (
            "http://x/a.css?v=1&w=2".to_string(),
            "p { color: red }".into(),
        ),
        (
            "http://x/b.css".to_string(),
            "p::after { content: '</style>' }".into(),
        ),
    ]);
    assert_eq!(
        with_sheets(html, &sheets),
        concat!(
            r#"<head><style data-runner-sheet="http://x/a.css?v=1&amp;w=2">p { color: red }</style>"#,
            r#"<style data-runner-sheet="http://x/b.css" media="print">p::after { content: '<\/style>' }</style></head>"#,
            r#"<body><style data-runner-sheet="http://x/gone.css"></style>"#,
            r#"<style data-runner-sheet="http://x/a.css?v=1&amp;w=2"></style></body>"#
        )
    );
}

fn answer(html: &str) -> serde_json::Value {
    json!({ "html": html, "sheets": {}, "width": 800, "height": 600 })
}

/// A flow holds at most `MAX_HELD` bytes of snapshots: past it the oldest go (counted), and
/// the latest is always held.
#[test]
fn the_snapshots_held_are_bounded_by_bytes() {
    let mut h = Held::default();
    let big = "x".repeat(MAX_SNAPSHOT);
    for n in 0..20 {
        h.took(n, Some(answer(&big)));
    }
    assert!(h.bytes <= MAX_HELD, "{}", h.bytes);
    let held = h.shots.values().flatten().count();
    assert_eq!(held, MAX_HELD / MAX_SNAPSHOT);
    assert_eq!(h.let_go, 20 - held);
    assert!(h.shots.contains_key(&19));
    assert_eq!(h.bytes, held * MAX_SNAPSHOT);
}

/// A stylesheet is held once however many snapshots send it; one sent past half the flow's
/// bytes is held empty.
#[test]
fn a_flows_stylesheets_are_held_once_and_bounded() {
    let mut h = Held::default();
    let sheet = "p{}".repeat(1024 * 1024);
    for n in 0..3 {
        let mut a = answer("<p>");
        a["sheets"] = json!({ "http://x/a.css": sheet });
        h.took(n, Some(a));
    }
    assert_eq!(h.bytes, "http://x/a.css".len() + sheet.len() + 3 * 3);
    for n in 3..20 {
        let mut a = answer("<p>");
        a["sheets"] = json!({ format!("http://x/{n}.css"): sheet });
        h.took(n, Some(a));
    }
    assert!(h.bytes <= MAX_HELD / 2 + sheet.len(), "{}", h.bytes);
    assert_eq!(&*h.sheets["http://x/19.css"], "");
}

/// A page too large to snapshot (it says so) stops the snapshots of the flow, and says why;
/// a viewport the answer names is held to `MAX_SIDE`.
#[test]
fn a_document_too_large_stops_the_snapshots() {
    let mut h = Held::default();
    let mut a = answer("<p>");
    a["width"] = json!(10_000_000);
    h.took(0, Some(a));
    assert_eq!(
        h.shots[&0].as_ref().unwrap().size,
        (super::draw::MAX_SIDE, 600)
    );
    h.took(1, Some(json!({ "tooLarge": 70 * 1024 * 1024 })));
    assert!(h.shots[&1].is_none());
    let why = h.stopped.as_deref().unwrap();
    assert!(why.contains("70 MiB"), "{why}");
}

/// What is drawn is masked with the flow's masker: a secret typed into a field (a `value`
/// attribute, HTML-escaped) or in a stylesheet put in is `***`.
#[test]
fn a_snapshot_is_masked_before_it_is_drawn() {
    let masker = Masker::new(["Kestrel&Vault-9931".to_string()]);
    let html = r#"<input value="Kestrel&amp;Vault-9931"><style data-runner-sheet="http://x/a.css"></style>"#;
    let sheets: HashMap<String, Arc<str>> = HashMap::from([(
        "http://x/a.css".to_string(),
        "[value^='Kestrel&Vault-9931'] { color: red }".into(),
    )]);
    let drawn = prepared(html, &sheets, &masker);
    assert!(!drawn.contains("Kestrel"), "{drawn}");
    assert_eq!(drawn.matches("***").count(), 2, "{drawn}");
}
