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

/// A browser stand-in for the drawing: it answers its first `answered` calls (each after
/// `delay`) and then none, keeping the connection open, and notes each call's method.
async fn stalling_browser(
    answered: usize,
    delay: std::time::Duration,
) -> (String, Arc<std::sync::Mutex<Vec<String>>>) {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("ws://{}/devtools/browser/x", listener.local_addr().unwrap());
    let calls = Arc::new(std::sync::Mutex::new(Vec::new()));
    let noted = calls.clone();
    tokio::spawn(async move {
        let (tcp, _) = listener.accept().await.unwrap();
        let mut ws = tokio_tungstenite::accept_async(tcp).await.unwrap();
        while let Some(Ok(Message::Text(t))) = ws.next().await {
            let req: serde_json::Value = serde_json::from_str(&t).unwrap();
            let method = req["method"].as_str().unwrap_or_default().to_string();
            let n = {
                let mut c = noted.lock().unwrap();
                c.push(method.clone());
                c.len()
            };
            if n > answered {
                continue;
            }
            tokio::time::sleep(delay).await;
            let result = match method.as_str() {
                "Target.createBrowserContext" => json!({ "browserContextId": "C" }),
                "Target.createTarget" => json!({ "targetId": "T" }),
                "Target.attachToTarget" => json!({ "sessionId": "S" }),
                // A JPEG's first bytes.
                "Page.captureScreenshot" => json!({ "data": "/9j/" }),
                _ => json!({}),
            };
            let answer = json!({ "id": req["id"], "result": result });
            let _ = ws.send(Message::text(answer.to_string())).await;
        }
    });
    (url, calls)
}

/// Three snapshots to draw, of pictures 1, 2 and 3.
fn three_shots() -> super::Shots {
    let shot = |n: u64| {
        let html = format!("<p>{n}</p>");
        (
            vec![n],
            super::Shot {
                html: html.as_str().into(),
                size: (800, 600),
            },
        )
    };
    super::Shots {
        each: vec![shot(1), shot(2), shot(3)],
        ..super::Shots::default()
    }
}

/// Draws `three_shots` on the browser at `url` within `bounds`: what was drawn, and how long
/// it took.
async fn draw_within(
    url: &str,
    bounds: super::draw::Bounds,
) -> (super::Drawn, std::time::Duration) {
    let on_event: crate::browser::driver::cdp::OnEvent = Box::new(|_, _| {});
    let cdp = crate::browser::driver::cdp::Cdp::connect(url, bounds.call, on_event)
        .await
        .unwrap();
    let started = std::time::Instant::now();
    let masker = Masker::new(Vec::new());
    let drawn = super::render(cdp.link(), three_shots(), (50, 480.0), &masker, bounds).await;
    (drawn, started.elapsed())
}

fn ms(n: u64) -> std::time::Duration {
    std::time::Duration::from_millis(n)
}

/// A browser that answers nothing: the drawing gives up at its bound (not a call's), and says
/// every picture was left out.
#[tokio::test]
async fn a_browser_that_answers_nothing_leaves_the_pictures_out_within_the_bound() {
    let (url, calls) = stalling_browser(0, ms(0)).await;
    let bounds = super::draw::Bounds {
        all: ms(600),
        call: ms(10_000),
    };
    let (drawn, took) = draw_within(&url, bounds).await;
    assert!(took < ms(1_600), "{took:?}");
    assert!(drawn.pictures.is_empty());
    assert_eq!(drawn.left_out.len(), 1, "{:?}", drawn.left_out);
    assert!(
        drawn.left_out[0].starts_with("the pictures of 3 steps"),
        "{:?}",
        drawn.left_out
    );
    assert_eq!(*calls.lock().unwrap(), ["Target.createBrowserContext"]);
}

/// A browser that answers the first picture's calls and then stalls: the drawing stops at the
/// first call not answered in time (no other picture is tried, though the bound of the whole
/// has time left), says the two pictures left out, and sends the context's disposal without
/// waiting for its answer.
#[tokio::test]
async fn the_drawing_stops_at_the_first_call_not_answered() {
    // The context, the tab, its session, scripts off, requests refused; the first picture's
    // size, document and screenshot.
    let (url, calls) = stalling_browser(8, ms(0)).await;
    let bounds = super::draw::Bounds {
        all: ms(8_000),
        call: ms(400),
    };
    let (drawn, took) = draw_within(&url, bounds).await;
    assert!(took < ms(2_000), "{took:?}");
    assert_eq!(drawn.pictures.keys().collect::<Vec<_>>(), [&1u64]);
    assert_eq!(*drawn.pictures[&1], [0xFF, 0xD8, 0xFF]);
    assert!(
        drawn.left_out.len() == 1 && drawn.left_out[0].starts_with("the pictures of 2 steps"),
        "{:?}",
        drawn.left_out
    );
    // Wait for the disposal to reach the stand-in.
    tokio::time::sleep(ms(200)).await;
    let calls = calls.lock().unwrap();
    assert_eq!(
        calls[8..],
        [
            "Emulation.setDeviceMetricsOverride",
            "Target.disposeBrowserContext"
        ]
    );
}

/// A browser that answers every call, slowly: the drawing ends at its bound, the call under way
/// then cut short, and says what it left out.
#[tokio::test]
async fn a_slow_browser_gets_the_drawings_bound_and_no_more() {
    // Each picture takes three calls after five to set up: 2.4 s at 150 ms a call.
    let (url, _calls) = stalling_browser(usize::MAX, ms(150)).await;
    let bounds = super::draw::Bounds {
        all: ms(1_200),
        call: ms(10_000),
    };
    let (drawn, took) = draw_within(&url, bounds).await;
    assert!(took < ms(1_700), "{took:?}");
    assert!(drawn.pictures.len() < 3, "{:?}", drawn.pictures.keys());
    let missed = 3 - drawn.pictures.len();
    assert!(
        drawn.left_out.len() == 1
            && drawn.left_out[0].starts_with(&format!("the pictures of {missed} steps")),
        "{:?}",
        drawn.left_out
    );
}
