//! The `request` step: send, read the response into outputs, run its checks. Without a
//! `status` check, a 4xx or 5xx answer fails the step (as `open` does), so an API error never
//! passes unnoticed; with one, that check decides.

use std::time::Duration;

use serde_json::{Value, json};

use super::check::{self, Failure};
use super::send::{self, Response};
use crate::config::model::RequestAction;
use crate::step::{ErrorKind, Masker, StepError};

/// What the step needs from the flow.
pub(crate) struct HttpCtx {
    /// The limit of one attempt: the request and its whole response.
    pub(crate) timeout: Duration,
    /// The flow's masker: what the step shows of the response (its body in a message, a value
    /// a check shows) is masked before it is cut, and the body kept in the outputs is cut
    /// where no secret is split, so no secret shows its head.
    pub(crate) masker: Masker,
}

/// Sends the request and checks its response; a failed check keeps the outputs.
pub(crate) async fn run_step(action: RequestAction, cx: HttpCtx) -> Result<Value, StepError> {
    let o = action.options();
    let r = send::send(&o, cx.timeout).await?;
    // An HTML page may show a secret split by markup: that markup is learned, to be `***`
    // wherever the body is shown.
    let html = r.headers.get("content-type").is_some_and(|t| {
        let t = t.to_ascii_lowercase();
        t.contains("html") || t.contains("xml")
    });
    if html {
        cx.masker.learn_markup(&r.body);
    }
    let outputs = outputs(&r, &cx.masker);
    let checks = o.expect.clone().unwrap_or_default();
    let mut failures = check::run(&checks, &r, &cx.masker);
    if checks.status.is_none() && r.status >= 400 {
        failures.insert(
            0,
            Failure {
                part: "url".into(),
                message: format!(
                    "HTTP {} from {} {} (to expect it, write `expect: {{ status: {} }}`); body: {}",
                    r.status,
                    o.method,
                    r.url,
                    r.status,
                    excerpt(&r.body, &cx.masker)
                ),
            },
        );
    }
    let Some(first) = failures.first() else {
        return Ok(outputs);
    };
    let message = if failures.len() == 1 {
        first.message.clone()
    } else {
        let all: Vec<&str> = failures.iter().map(|f| f.message.as_str()).collect();
        format!("{} checks failed: {}", failures.len(), all.join("; "))
    };
    Err(StepError::new(ErrorKind::Assertion, message)
        .in_part(first.part.clone())
        .with_outputs(outputs))
}

/// Most bytes of a body kept in the outputs (and so in reports), as `exec` keeps of its
/// output; the checks see the whole body read (`send::MAX_BODY`).
pub(super) const MAX_KEPT: usize = 1024 * 1024;

/// The step's outputs: `status`, `headers`, `body` (as the server sent it, its first
/// [`MAX_KEPT`] bytes: data, masked where it is shown, not here), `json` (null when the body
/// is not JSON or is longer than that), `url` (after redirects), `duration_ms`, `truncated`
/// (the body was cut). A cut leaves out any secret it would split ([`Masker::kept_start`]), so
/// the kept start, masked where it is shown, shows none's head.
fn outputs(r: &Response, masker: &Masker) -> Value {
    let cut = r.body.len() > MAX_KEPT;
    let body = masker.kept_start(&r.body, MAX_KEPT, false);
    json!({
        "status": r.status,
        "headers": r.headers,
        "body": body,
        "json": if cut { None } else { r.json.as_ref() },
        "url": r.url,
        "duration_ms": r.duration_ms,
        "truncated": r.truncated || cut,
    })
}

/// The start of a body, on one line, masked before it is cut.
fn excerpt(body: &str, masker: &Masker) -> String {
    let one_line = masker.mask_cut_line(body, 200);
    if one_line.is_empty() {
        return "(empty)".into();
    }
    one_line
}
