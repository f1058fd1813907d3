use serde_json::json;

use super::{MAX_ENTRIES, Recorded, console_call, network_event};

#[test]
fn console_arguments_read_as_text() {
    let p = json!({"type": "warning", "args": [{"type": "string", "value": "a"}, {"type": "number", "value": 2},
        {"type": "object", "description": "Array(3)"}, {"type": "undefined"}],
        "stackTrace": {"callFrames": [{"url": "http://x/p.html", "lineNumber": 4}]}});
    let e = console_call(&p);
    assert_eq!(e["text"], "a 2 Array(3) undefined");
    assert_eq!(e["level"], "warning");
    assert_eq!(e["url"], "http://x/p.html:5");
}

/// A failed request is named by its method and URL, once, at the browser's time of it; a
/// flow keeps the latest `MAX_ENTRIES`.
#[test]
fn failed_requests_are_named_once_and_the_latest_kept() {
    let mut s = Recorded::default();
    let sent = json!({"requestId": "1", "request": {"url": "http://x/a", "method": "POST"},
        "wallTime": 1000.0, "timestamp": 10.0});
    network_event(&mut s, "Network.requestWillBeSent", &sent);
    let failed = json!({"requestId": "1", "errorText": "net::ERR_CONNECTION_REFUSED", "type": "Fetch", "timestamp": 10.5});
    network_event(&mut s, "Network.loadingFailed", &failed);
    let ok = json!({"requestId": "2", "response": {"url": "http://x/b", "status": 200}});
    network_event(&mut s, "Network.responseReceived", &ok);
    let (at, first) = &s.network.list[0];
    assert!((*at - 1_000_500.0).abs() < 1e-6, "{at}");
    assert_eq!(
        (&first["method"], &first["url"]),
        (&json!("POST"), &json!("http://x/a"))
    );
    let sent = json!({"requestId": "3", "request": {"url": "http://x/c", "method": "GET"}, "wallTime": 1.0, "timestamp": 1.0});
    network_event(&mut s, "Network.requestWillBeSent", &sent);
    let missing = json!({"requestId": "3", "response": {"url": "http://x/c", "status": 404, "statusText": "Not Found"}});
    network_event(&mut s, "Network.responseReceived", &missing);
    // Cut short after its 404: not named again.
    network_event(
        &mut s,
        "Network.loadingFailed",
        &json!({"requestId": "3", "errorText": "net::ERR_ABORTED"}),
    );
    assert_eq!(s.network.list.len(), 2);
    assert_eq!(s.network.list[1].1["status"], 404);
    for _ in 0..MAX_ENTRIES {
        network_event(&mut s, "Network.responseReceived", &missing);
    }
    assert!(s.requests.is_empty());
    assert_eq!((s.network.list.len(), s.network.left_out), (MAX_ENTRIES, 2));
    assert_eq!(s.network.list[0].1["status"], 404);
}
