use std::time::Duration;

use serde_json::json;

use super::RequestLog;

fn sent(url: &str, id: &str) -> serde_json::Value {
    json!({ "requestId": id, "request": { "url": url, "method": "POST" } })
}

#[test]
fn a_record_whose_recording_never_started_is_not_read_as_empty() {
    let log = RequestLog::default();
    let e = log.since(0).unwrap_err();
    assert!(e.contains("has not started"), "{e}");
    log.started(Err("no session".into()));
    log.heard("T", &sent("http://a/x", "1"));
    let e = log.since(0).unwrap_err();
    assert!(e.contains("no session"), "{e}");
}

#[test]
fn every_request_heard_is_read_back_in_order() {
    let log = RequestLog::default();
    log.started(Ok(()));
    for i in 0..5000 {
        log.heard("T", &sent(&format!("http://a/{i}"), &i.to_string()));
    }
    let all = log.since(0).unwrap();
    assert_eq!(all.len(), 5000);
    assert_eq!(all[0]["url"], "http://a/0");
    assert_eq!(all[0]["method"], "POST");
    assert_eq!(all[4999]["requestId"], "4999");
}

#[test]
fn a_record_past_its_bound_says_it_is_cut() {
    let log = RequestLog::default();
    log.started(Ok(()));
    let big = format!("data:text/plain,{}", "x".repeat(1024 * 1024));
    for i in 0..70 {
        log.heard("T", &sent(&big, &i.to_string()));
    }
    let e = log.since(0).unwrap_err();
    assert!(e.contains("more requests than runner records"), "{e}");
}

#[tokio::test]
async fn a_recording_that_does_not_start_in_time_is_known_not_to() {
    let log = RequestLog::default();
    log.recording(Duration::from_millis(20)).await;
    let e = log.since(0).unwrap_err();
    assert!(e.contains("did not start recording"), "{e}");
}

/// A tab's main-frame documents: one per navigation (an HTTP redirect's hops are the same
/// request), its final status, an iframe's left out.
#[test]
fn a_navigation_is_one_document_with_its_final_status() {
    let log = RequestLog::default();
    let doc = |id: &str, frame: &str, url: &str| json!({ "requestId": id, "type": "Document", "frameId": frame, "request": { "url": url } });
    log.heard("T", &doc("1", "T", "http://a/old"));
    let mut hop = doc("1", "T", "http://a/new");
    hop["redirectResponse"] = json!({ "status": 302 });
    log.heard("T", &hop);
    log.heard("T", &doc("2", "F", "http://a/frame"));
    let answer = |id: &str, frame: &str, status: i64| json!({ "requestId": id, "type": "Document", "frameId": frame, "response": { "status": status } });
    log.answered("T", &answer("2", "F", 200));
    log.answered("T", &answer("1", "T", 500));
    let (after, before) = log.documents("T", 0);
    assert!(before.is_none());
    assert_eq!(after.len(), 1, "{after:?}");
    assert_eq!(
        (after[0].url.as_str(), after[0].status),
        ("http://a/old", Some(500))
    );
    assert!(log.documents("U", 0).0.is_empty());
}

/// A worker runner holds: its script runs once runner has begun to let it go, its requests
/// are announced before their answers, and its own script's answer (the page's request, with
/// the worker's target id) is no sign of a missing one: nothing says it ran unheld.
#[test]
fn a_held_worker_is_not_taken_for_one_that_ran_before_runner_held_it() {
    let log = RequestLog::default();
    log.started(Ok(()));
    log.worker_held("W", "http://a/w.js");
    log.worker_going("W");
    log.worker_event(
        "W",
        "Network.responseReceived",
        &json!({ "requestId": "W" }),
    );
    log.worker_event("W", "Inspector.workerScriptLoaded", &json!({}));
    log.worker_event(
        "W",
        "Network.requestWillBeSent",
        &sent("http://a/api", "7.1"),
    );
    for end in ["Network.responseReceived", "Network.loadingFinished"] {
        log.worker_event("W", end, &json!({ "requestId": "7.1" }));
    }
    log.worker_event("W", "Network.loadingFinished", &json!({ "requestId": "W" }));
    // A worker runner does not hold (its session is not one the record is kept over).
    log.worker_event("X", "Inspector.workerScriptLoaded", &json!({}));
    log.worker_event("X", "Network.loadingFailed", &json!({ "requestId": "8.1" }));
    assert_eq!(log.unheld_since(0), None);
}

/// A worker whose script ran before runner let it go, or one a request's end is heard of
/// whose start never was (it ran before runner's `Network.enable` reached it), is known to
/// have run before runner held it: from then on, not before.
#[test]
fn a_worker_that_ran_before_runner_held_it_is_known() {
    let log = RequestLog::default();
    log.started(Ok(()));
    log.worker_held("W", "http://a/w.js");
    log.worker_event("W", "Inspector.workerScriptLoaded", &json!({}));
    assert_eq!(log.unheld_since(0).as_deref(), Some("http://a/w.js"));
    let later = super::now_ms() + 60_000;
    assert_eq!(log.unheld_since(later), None);
    let log = RequestLog::default();
    log.worker_held("V", "http://a/v.js");
    log.worker_going("V");
    log.worker_event("V", "Inspector.workerScriptLoaded", &json!({}));
    assert_eq!(log.unheld_since(0), None);
    log.worker_event("V", "Network.loadingFailed", &json!({ "requestId": "9.3" }));
    assert_eq!(log.unheld_since(0).as_deref(), Some("http://a/v.js"));
}
