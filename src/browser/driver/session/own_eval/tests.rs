//! What runner's own evaluation answers, in agent-browser's words.

use serde_json::json;

use super::super::super::cdp::CdpError;
use super::{Failed, answer, value};

#[test]
fn values_exceptions_and_refusals_read_as_agent_browser_gives_them() {
    let ok = value(json!({ "result": { "type": "string", "value": "hi" } }));
    assert_eq!(ok.unwrap(), json!("hi"));
    // `undefined` (no value) is null, as agent-browser answers it.
    let none = value(json!({ "result": { "type": "undefined" } }));
    assert_eq!(none.unwrap(), json!(null));
    let thrown = value(json!({
        "result": { "type": "object" },
        "exceptionDetails": { "text": "Uncaught", "exception": { "description": "Error: runner: not actionable: it is disabled\n    at <anonymous>:1:7" } }
    }));
    let Err(m) = thrown else { panic!("{thrown:?}") };
    assert!(
        m.starts_with("Evaluation error: Error: runner: not actionable: it is disabled"),
        "{m}"
    );
    let navigated = answer(Err(CdpError::Refused {
        method: "Runtime.evaluate".into(),
        message: "Execution context was destroyed.".into(),
    }));
    let Err(Failed::Refused(m)) = navigated else {
        panic!("{navigated:?}")
    };
    assert_eq!(
        m,
        "CDP error (Runtime.evaluate): Execution context was destroyed."
    );
    assert!(crate::browser::driver::adapter::Cause::of(&m).navigated);
    // A session that is gone: agent-browser is asked instead.
    let gone = answer(Err(CdpError::Refused {
        method: "Runtime.evaluate".into(),
        message: "Session with given id not found.".into(),
    }));
    assert!(matches!(gone, Err(Failed::Gone)), "{gone:?}");
    let late = answer(Err(CdpError::NoAnswer {
        method: "Runtime.evaluate".into(),
        timeout: std::time::Duration::from_secs(1),
    }));
    assert!(matches!(late, Err(Failed::Timeout)), "{late:?}");
}
