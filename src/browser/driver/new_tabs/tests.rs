use std::sync::Mutex;

use super::*;
use crate::browser::driver::cdp::Cdp;
use crate::browser::driver::cdp::tests::browser;

/// A browser stand-in that refuses `refused` (a method), says whether the tab is still open
/// (`Target.getTargetInfo`), answers every other call, and records the methods called.
async fn stand_in(refused: &'static str, open: bool) -> (Cdp, Arc<Mutex<Vec<String>>>) {
    refusing(refused, "Invalid timezone", open).await
}

/// [`stand_in`], refusing `refused` with `message`.
async fn refusing(
    refused: &'static str,
    message: &'static str,
    open: bool,
) -> (Cdp, Arc<Mutex<Vec<String>>>) {
    let called = Arc::new(Mutex::new(Vec::new()));
    let c = called.clone();
    let (url, _h) = browser(move |req| {
        let method = req["method"].as_str().unwrap_or("").to_string();
        c.lock().unwrap().push(method.clone());
        let answer = if method == refused || (method == "Target.getTargetInfo" && !open) {
            json!({ "id": req["id"], "error": { "message": message } })
        } else {
            json!({ "id": req["id"], "result": {} })
        };
        (vec![answer], false)
    })
    .await;
    let on: super::super::cdp::OnEvent = Box::new(|_, _| {});
    let cdp = Cdp::connect(&url, Duration::from_secs(5), on)
        .await
        .unwrap();
    (cdp, called)
}

fn tab() -> Tab {
    Tab {
        what: "tab",
        session: "S".into(),
        target: "T".into(),
        url: String::new(),
    }
}

fn calls() -> Calls {
    Arc::new(vec![
        (
            "Emulation.setTimezoneOverride".into(),
            json!({ "timezoneId": "X" }),
        ),
        (
            "Emulation.setLocaleOverride".into(),
            json!({ "locale": "de-DE" }),
        ),
    ])
}

/// A setting the new tab refuses fails its flow, saying which; the tab still runs, after all
/// the calls.
#[tokio::test]
async fn a_refused_setting_is_the_flows_failure_and_the_tab_runs() {
    let (cdp, called) = stand_in("Emulation.setTimezoneOverride", true).await;
    let why = prepare(cdp.link(), &tab(), Some(calls()))
        .await
        .expect("a failure");
    assert!(
        why.contains("did not get the flow's browser settings"),
        "{why}"
    );
    assert!(why.contains("Emulation.setTimezoneOverride"), "{why}");
    let called = called.lock().unwrap().clone();
    assert_eq!(
        called,
        [
            "Emulation.setTimezoneOverride",
            "Emulation.setLocaleOverride",
            "Runtime.runIfWaitingForDebugger",
            "Target.getTargetInfo",
        ]
    );
}

/// A popup in its opener's renderer, where the flow's locale is in effect already, is refused a
/// second locale override: that is no failure. Another refusal of the locale still is.
#[tokio::test]
async fn a_locale_in_effect_already_is_no_failure() {
    let (cdp, _) = refusing(
        "Emulation.setLocaleOverride",
        "Another locale override is already in effect",
        true,
    )
    .await;
    assert_eq!(prepare(cdp.link(), &tab(), Some(calls())).await, None);
    let (cdp, _) = refusing("Emulation.setLocaleOverride", "Invalid locale", true).await;
    let why = prepare(cdp.link(), &tab(), Some(calls())).await;
    assert!(why.is_some_and(|w| w.contains("Emulation.setLocaleOverride")));
}

/// A tab closed as it opened fails nothing; a tab of no flow runs and is left.
#[tokio::test]
async fn a_closed_tab_fails_nothing_and_a_tab_of_no_flow_is_left() {
    let (cdp, _) = stand_in("Emulation.setTimezoneOverride", false).await;
    assert_eq!(prepare(cdp.link(), &tab(), Some(calls())).await, None);
    let (cdp, called) = stand_in("none", true).await;
    assert_eq!(prepare(cdp.link(), &tab(), None).await, None);
    let called = called.lock().unwrap().clone();
    assert_eq!(
        called,
        ["Runtime.runIfWaitingForDebugger", "Target.detachFromTarget"]
    );
}
