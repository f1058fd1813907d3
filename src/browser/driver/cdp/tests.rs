use super::*;
use tokio::net::TcpListener;

/// A browser stand-in: accepts one connection and hands each request to `serve`, which
/// sends back what the test wants (answers, events, or nothing) and may close.
pub(in crate::browser::driver) async fn browser<F>(
    serve: F,
) -> (String, tokio::task::JoinHandle<()>)
where
    F: Fn(Value) -> (Vec<Value>, bool) + Send + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("ws://{}/devtools/browser/x", listener.local_addr().unwrap());
    let h = tokio::spawn(async move {
        let (tcp, _) = listener.accept().await.unwrap();
        let mut ws = tokio_tungstenite::accept_async(tcp).await.unwrap();
        while let Some(Ok(Message::Text(t))) = ws.next().await {
            let (replies, close) = serve(serde_json::from_str(&t).unwrap());
            for r in replies {
                ws.send(Message::text(r.to_string())).await.unwrap();
            }
            if close {
                let _ = ws.close(None).await;
                return;
            }
        }
    });
    (url, h)
}

pub(super) async fn connected(url: &str) -> Cdp {
    Cdp::connect(url, Duration::from_secs(5), events().0)
        .await
        .unwrap()
}

/// The error of calling `method` (with no parameters), which must fail.
async fn call_err(cdp: &Cdp, method: &str, timeout: Duration) -> String {
    cdp.call(method, json!({}), timeout)
        .await
        .unwrap_err()
        .to_string()
}

fn events() -> (OnEvent, Arc<std::sync::Mutex<Vec<Value>>>) {
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let s = seen.clone();
    let on: OnEvent = Box::new(move |_link: &Arc<Link>, m: &Value| {
        s.lock().unwrap().push(m.clone());
    });
    (on, seen)
}

#[tokio::test]
async fn a_call_gets_its_own_answer_past_events_and_stale_answers() {
    let (url, _h) = browser(|req| {
        let id = req["id"].as_u64().unwrap();
        let replies = vec![
            json!({ "method": "Target.targetCreated", "params": { "n": id } }),
            json!({ "method": "Browser.downloadWillBegin", "params": { "guid": "g" } }),
            json!({ "id": id + 100, "result": { "stale": true } }),
            json!({ "id": id, "result": { "answer": req["method"] } }),
        ];
        (replies, false)
    })
    .await;
    let (on, seen) = events();
    let cdp = Cdp::connect(&url, Duration::from_secs(5), on)
        .await
        .unwrap();
    let t = Duration::from_secs(5);
    let a = cdp.call("Browser.getVersion", json!({}), t).await.unwrap();
    assert_eq!(a, json!({ "answer": "Browser.getVersion" }));
    let b = cdp.call("Target.getTargets", json!({}), t).await.unwrap();
    assert_eq!(b, json!({ "answer": "Target.getTargets" }));
    // Events went to the handler, downloads to their list.
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert!(seen.iter().all(|m| m["method"] == "Target.targetCreated"));
    assert_eq!(cdp.download_events(t).await.unwrap().len(), 3);
}

#[tokio::test]
async fn an_error_answer_is_the_calls_error() {
    let (url, _h) = browser(|req| {
        (
            vec![json!({ "id": req["id"], "error": { "message": "No target with given id" } })],
            false,
        )
    })
    .await;
    let cdp = connected(&url).await;
    let e = call_err(&cdp, "Target.closeTarget", Duration::from_secs(5)).await;
    assert_eq!(e, "Target.closeTarget: No target with given id");
}

#[tokio::test]
async fn a_closed_connection_fails_waiting_and_later_calls_at_once() {
    // The browser closes instead of answering.
    let (url, _h) = browser(|_| (Vec::new(), true)).await;
    let cdp = connected(&url).await;
    let long = Duration::from_secs(30);
    let started = std::time::Instant::now();
    let e = call_err(&cdp, "Target.createBrowserContext", long).await;
    assert_eq!(
        e,
        "Target.createBrowserContext: the browser exited: it closed its DevTools connection"
    );
    let e = call_err(&cdp, "Browser.getVersion", long).await;
    assert_eq!(
        e,
        "Browser.getVersion: the browser exited: it closed its DevTools connection"
    );
    // Not after the calls' 30 s timeouts.
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[tokio::test]
async fn a_call_with_no_answer_times_out_and_its_late_answer_is_dropped() {
    let (url, _h) = browser(|req| {
        if req["method"] == "Slow.call" {
            (Vec::new(), false)
        } else {
            (
                vec![
                    json!({ "id": 1, "result": { "late": true } }),
                    json!({ "id": req["id"], "result": { "ok": true } }),
                ],
                false,
            )
        }
    })
    .await;
    let cdp = connected(&url).await;
    let e = call_err(&cdp, "Slow.call", Duration::from_millis(200)).await;
    assert!(e.starts_with("Slow.call: no answer in"), "{e}");
    let ok = cdp
        .call("Browser.getVersion", json!({}), Duration::from_secs(5))
        .await
        .unwrap();
    assert_eq!(ok, json!({ "ok": true }));
}

/// A browser stand-in that vanishes as a killed browser does: it takes one request, then its
/// end of the connection is gone, with no WebSocket close.
async fn vanishing_browser() -> (String, tokio::task::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("ws://{}/devtools/browser/x", listener.local_addr().unwrap());
    let h = tokio::spawn(async move {
        let (tcp, _) = listener.accept().await.unwrap();
        let mut ws = tokio_tungstenite::accept_async(tcp).await.unwrap();
        let _ = ws.next().await;
        drop(ws);
    });
    (url, h)
}

#[tokio::test]
async fn a_browser_that_vanishes_fails_the_waiting_call_and_later_ones_at_once() {
    let (url, _h) = vanishing_browser().await;
    let cdp = connected(&url).await;
    let long = Duration::from_secs(20);
    let started = std::time::Instant::now();
    let e = call_err(&cdp, "Target.createBrowserContext", long).await;
    assert_eq!(
        e,
        "Target.createBrowserContext: the browser exited: it closed its DevTools connection"
    );
    let e = call_err(&cdp, "Browser.getVersion", long).await;
    assert!(
        e.ends_with("the browser exited: it closed its DevTools connection"),
        "{e}"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
}

/// runner lets go of a connection (its browser is closed: the pool's worker and its `Cdp`
/// go) while a call on it still waits, made by what outlives the worker with the connection's
/// `Link` (a failed flow's trace being drawn beside the next flows): nothing reads the
/// connection any more, so the call fails at once, as does every later one, instead of waiting
/// out its timeout for an answer that cannot come. What is only sent still goes (a drawing
/// context's disposal, to a remote browser that runs on).
#[tokio::test]
async fn a_call_waiting_when_runner_lets_go_of_the_connection_fails_at_once() {
    // Answers nothing: every call waits. What it was sent is kept.
    let got = Arc::new(std::sync::Mutex::new(Vec::new()));
    let (url, _h) = browser({
        let got = got.clone();
        move |req| {
            got.lock().unwrap().push(req["method"].clone());
            (Vec::new(), false)
        }
    })
    .await;
    let cdp = connected(&url).await;
    let link = cdp.link().clone();
    let long = Duration::from_secs(20);
    let waiting = tokio::spawn({
        let link = link.clone();
        async move {
            link.call_in(None, "Target.createBrowserContext", json!({}), long)
                .await
        }
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    let started = std::time::Instant::now();
    drop(cdp);
    let e = waiting.await.unwrap().unwrap_err().to_string();
    assert_eq!(
        e,
        "Target.createBrowserContext: runner closed its DevTools connection to the browser"
    );
    let e = link
        .call_in(None, "Browser.getVersion", json!({}), long)
        .await
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "Browser.getVersion: runner closed its DevTools connection to the browser"
    );
    let sent = link
        .sent_in(None, "Target.disposeBrowserContext", json!({}), long)
        .await;
    assert!(sent.is_err());
    assert!(started.elapsed() < Duration::from_secs(5));
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while got.lock().unwrap().len() < 2 && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(
        *got.lock().unwrap(),
        [
            json!("Target.createBrowserContext"),
            json!("Target.disposeBrowserContext")
        ]
    );
}

/// A saved state's localStorage goes to each document by one script per origin it names, each
/// holding only that origin's items and reading them only in a document of that origin: a
/// page of an origin the state does not name gets nothing and parses nothing (attack 26, C24:
/// the whole saved storage was evaluated in every frame of every page).
#[tokio::test]
async fn a_saved_state_gives_each_origin_only_its_own_items() {
    let sources = Arc::new(std::sync::Mutex::new(Vec::new()));
    let s = sources.clone();
    let (url, _h) = browser(move |req| {
        let method = req["method"].as_str().unwrap_or("");
        if method == "Page.addScriptToEvaluateOnNewDocument" {
            let source = req["params"]["source"].as_str().unwrap_or("").to_string();
            s.lock().unwrap().push(source);
        }
        let result = if method == "Target.attachToTarget" {
            json!({ "sessionId": "S" })
        } else {
            json!({})
        };
        (vec![json!({ "id": req["id"], "result": result })], false)
    })
    .await;
    let cdp = connected(&url).await;
    let state = json!({ "cookies": [], "origins": [
        { "origin": "http://a.test", "localStorage": [{ "name": "k", "value": "for-a" }] },
        { "origin": "http://b.test", "localStorage": [
            { "name": "k", "value": "for-b" }, { "name": "j", "value": "b-2" }] },
    ] });
    cdp.load_state("C", "T", &state, Duration::from_secs(5))
        .await
        .unwrap();
    let sources = sources.lock().unwrap().clone();
    assert_eq!(sources.len(), 2, "{sources:?}");
    assert!(sources[0].contains("for-a") && !sources[0].contains("for-b"));
    assert!(sources[1].contains("for-b") && !sources[1].contains("for-a"));
    // Each document runs every script: only its own origin's items land, and a document of
    // another origin parses none.
    for (origin, want, parsed) in [
        ("http://a.test", json!({ "k": "for-a" }), 1),
        ("http://b.test", json!({ "k": "for-b", "j": "b-2" }), 1),
        ("http://c.test", json!({}), 0),
        ("null", json!({}), 0),
    ] {
        let prelude = format!(
            "const location = {{ origin: {origin:?} }};
             const store = (m) => ({{ getItem: (k) => (k in m ? m[k] : null), setItem: (k, v) => {{ m[k] = String(v); }} }});
             const local = {{}}; const localStorage = store(local); const sessionStorage = store({{}});
             let parsed = 0; const parse = JSON.parse; JSON.parse = (t) => {{ parsed++; return parse(t); }};"
        );
        let run = format!("({}, {}, [local, parsed])", sources[0], sources[1]);
        let out = crate::browser::driver::script::node_run(&prelude, &run).unwrap();
        let out: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(out[0], want, "{origin}");
        assert_eq!(out[1], parsed, "{origin}");
    }
}
