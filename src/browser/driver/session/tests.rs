//! The session against a fake agent-browser daemon.
use std::time::Duration;

use serde_json::json;

use super::on_fake_daemon;

const UNKNOWN: &str = "No tab with target id `T1`; run `agent-browser tab list --json` to list open tabs with their target ids";
/// What agent-browser 0.41 also says of a target id it has not heard of (it then reads the
/// id as a tab label): seen in CI as the first step of a flow failing at once.
const UNKNOWN_LABEL: &str = "No tab with label `T1`; run `agent-browser tab` to list open tabs";

/// A tab runner just made may not be known to agent-browser yet (its DevTools events come
/// on another connection): the switch waits for it instead of failing the flow.
#[tokio::test]
async fn a_tab_agent_browser_hears_of_late_is_switched_to() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = on_fake_daemon(dir.path(), |n, v| {
        assert_eq!(v["action"], "tab_switch");
        assert_eq!(v["tabId"], "T1");
        if n < 2 {
            Err(UNKNOWN.into())
        } else if n < 4 {
            Err(UNKNOWN_LABEL.into())
        } else {
            Ok(json!({"tabId":"t2"}))
        }
    });
    s.switch_tab("T1", Duration::from_secs(5)).await.unwrap();
}

/// A frame's tree that cannot be read (its snapshot failed after agent-browser switched
/// into the frame) leaves agent-browser there: the next command, meant for the page, goes
/// back to the main frame first instead of running inside the iframe.
#[tokio::test]
async fn a_failed_read_inside_a_frame_does_not_leave_the_next_command_there() {
    use std::sync::{Arc, Mutex};
    let dir = tempfile::tempdir().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let mut s = on_fake_daemon(dir.path(), move |_, v| {
        let action = v["action"].as_str().unwrap().to_string();
        log.lock().unwrap().push(action.clone());
        match action.as_str() {
            "snapshot" => Err("CDP error (Accessibility.getFullAXTree): boom".into()),
            "evaluate" => Ok(json!({"result": "page"})),
            _ => Ok(json!({})),
        }
    });
    assert!(s.frame_refs("#pay", Duration::from_secs(2)).await.is_err());
    seen.lock().unwrap().clear();
    s.eval("document.title", Duration::from_secs(2))
        .await
        .unwrap();
    assert_eq!(*seen.lock().unwrap(), vec!["mainframe", "evaluate"]);
    // Once back, the page's commands go as they are.
    seen.lock().unwrap().clear();
    s.eval("document.title", Duration::from_secs(2))
        .await
        .unwrap();
    assert_eq!(*seen.lock().unwrap(), vec!["evaluate"]);
}

/// A tab that never appears (closed meanwhile) fails the switch with agent-browser's word,
/// within the time given.
#[tokio::test]
async fn a_tab_that_never_appears_fails_the_switch() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = on_fake_daemon(dir.path(), |_, _| Err(UNKNOWN.into()));
    let started = std::time::Instant::now();
    let e = s
        .switch_tab("T1", Duration::from_millis(300))
        .await
        .unwrap_err();
    assert!(
        e.message.contains("No tab with target id `T1`"),
        "{}",
        e.message
    );
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
}

/// A command never runs past the end of its step (and `STEP_SLACK`), whatever it asked for;
/// outside a step, and within a long one, it gets what it asked (at least 500 ms).
#[tokio::test]
async fn a_commands_limit_is_its_steps_end() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = on_fake_daemon(dir.path(), |_, _| Ok(json!({})));
    assert_eq!(
        s.limit(Duration::from_secs(5), false),
        (Duration::from_secs(5), false)
    );
    s.step_end = Some(tokio::time::Instant::now() + Duration::from_secs(1));
    let (t, capped) = s.limit(Duration::from_secs(5), false);
    assert!(
        capped && t <= Duration::from_secs(1) + super::STEP_SLACK,
        "{t:?}"
    );
    // A session's first command starts the daemon: not cut.
    assert_eq!(
        s.limit(Duration::from_secs(5), true),
        (Duration::from_secs(5), false)
    );
    s.step_end = Some(tokio::time::Instant::now() + Duration::from_secs(60));
    assert_eq!(
        s.limit(Duration::from_millis(100), false),
        (Duration::from_millis(500), false)
    );
    // Past the end, a command gets no time at all, not the slack again.
    s.step_end = Some(tokio::time::Instant::now() - Duration::from_secs(1));
    let (t, capped) = s.limit(Duration::from_secs(5), false);
    assert!(capped && t <= Duration::from_millis(1), "{t:?}");
}
