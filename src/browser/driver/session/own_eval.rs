//! runner's page scripts evaluated over runner's own DevTools session on the flow's tab
//! (`Runtime.evaluate`, `returnByValue`, `awaitPromise`: the call agent-browser's `eval` makes)
//! instead of as an agent-browser `eval`: ~0.4 ms instead of ~1.3 ms a script, for the same
//! answer in the same words.
//!
//! The session is the one the dialog watch keeps on each of the flow's tabs (`dialog_watch`),
//! on the tab the flow acts on (`FlowDialogs::own_page`, following `Session::switch_tab`).
//! Scripts run in the page's main frame, as agent-browser's `eval` does (a script about an
//! element inside an iframe reaches it from there). A script goes through agent-browser when
//! runner's session on the tab does not hear the tab's events yet, when its session is gone,
//! and when `RUNNER_OWN_EVAL=off`.
//!
//! A session's commands are awaited one at a time, so a script never overtakes an agent-browser
//! command of the same step: that command has been answered before the script is sent.
//!
//! A dialog that opens while a script runs blocks it (its promise, or the script itself): a
//! confirm or prompt only the flow answers (open before the script, or opening meanwhile) fails
//! the script at once with agent-browser's message (as agent-browser fails its next command),
//! once agent-browser sees the dialog too (so the failure's artifacts and the next step find it
//! there; a dialog agent-browser never sees closed unheard of, and the script runs); an alert or
//! a dialog runner answers (an armed answer, another tab's) just delays it. The script left
//! behind goes on once the dialog is answered; its answer is dropped. A navigation that replaces the document
//! mid-script gives the browser's own words (`Execution context was destroyed`, `Inspected
//! target navigated or closed`), which `Poll::settle` takes for "check again".

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use super::super::adapter::AdapterError;
use super::super::cdp::{CdpError, Link};
use super::super::command::{Command, DialogResponse, KeyboardInput};
use super::super::dialog_watch::FlowDialogs;
use super::super::reply::DialogStatus;
use super::Session;
use crate::step::{ErrorKind, StepError};

/// Why runner's own evaluation gave no value.
#[derive(Debug)]
pub(super) enum Failed {
    /// The page (or the browser) refused it: the message agent-browser gives for the same.
    Refused(String),
    /// A dialog only the flow answers is open in the tab (it opened before or meanwhile): the
    /// message agent-browser gives for a command it blocks.
    Blocked(String),
    /// No answer in time.
    Timeout,
    /// runner's session on the tab is gone (the tab closed, the connection broke) before the
    /// script ran: agent-browser is asked instead, and says what it is.
    Gone,
}

impl Session {
    /// Whether the page's scripts go over runner's own session on the flow's tab now (see the
    /// module's notes).
    pub(crate) fn own_page(&self) -> bool {
        self.watched
            .as_ref()
            .is_some_and(|w| w.own_page().is_some())
    }

    /// `script` evaluated over runner's own session on the flow's tab; `None` when it is to go
    /// through agent-browser instead (see the module's notes).
    pub(super) async fn eval_own(
        &mut self,
        script: &str,
        timeout: Duration,
    ) -> Option<Result<Value, StepError>> {
        let params = json!({ "expression": script, "returnByValue": true, "awaitPromise": true });
        let r = self.call_own("Runtime.evaluate", params, timeout).await?;
        Some(r.and_then(|v| value(v).map_err(refused)))
    }

    /// Whether `script` compiles in the flow's page (`Runtime.compileScript`: nothing of it
    /// runs); false when runner has no session of its own on the tab, and then it is not asked.
    pub(crate) async fn compiles(&mut self, script: &str, timeout: Duration) -> bool {
        let params = json!({ "expression": script, "sourceURL": "", "persistScript": false });
        matches!(
            self.call_own("Runtime.compileScript", params, timeout).await,
            Some(Ok(v)) if v.get("exceptionDetails").is_none()
        )
    }

    /// Text for the element with the focus, as typing it gives it to the page (one `input`
    /// event; a selection is replaced): `Input.insertText` over runner's own session on the
    /// flow's tab, else agent-browser's `keyboard inserttext`, which makes the same call.
    pub(crate) async fn insert_text(
        &mut self,
        text: &str,
        timeout: Duration,
    ) -> Result<(), StepError> {
        let params = json!({ "text": text });
        if let Some(r) = self.call_own("Input.insertText", params, timeout).await {
            return r.map(|_| ());
        }
        let keyboard = Command::Keyboard {
            subaction: KeyboardInput::InsertText,
            text: text.to_string(),
        };
        self.send(keyboard, timeout).await.map(|_| ())
    }

    /// `method` called over runner's own session on the flow's tab, within the step's time;
    /// `None` when there is none (or it is gone): agent-browser is to be asked instead (the
    /// role look-up asks the tab's accessibility tree through it: `selector::ax_roles`).
    pub(crate) async fn call_own(
        &mut self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Option<Result<Value, StepError>> {
        self.call_own_all(method, vec![params], timeout)
            .await?
            .into_iter()
            .next()
    }

    /// `method` called once for each of `params` over runner's own session on the flow's tab,
    /// all sent at once (the browser answers them in turn, without a round trip each: resolving
    /// the 2,000 elements a role look-up found took one round trip each), within the step's
    /// time; their answers in order. `None` when there is no such session (or it is gone). A
    /// call a dialog blocked that agent-browser never sees open is sent again: runner's record
    /// of the dialog was stale (review 28, #9: the batch did not, and failed its look-up).
    pub(crate) async fn call_own_all(
        &mut self,
        method: &str,
        params: Vec<Value>,
        timeout: Duration,
    ) -> Option<Vec<Result<Value, StepError>>> {
        let flow = self.watched.clone()?;
        let (link, session, target) = flow.own_page()?;
        self.tab_use = super::TabUse::Used;
        let (timeout, capped) = self.limit(timeout, false);
        self.answered = 0;
        let on = (session.as_str(), target.as_str());
        let send = |params: Vec<Value>| {
            let calls = params
                .into_iter()
                .map(|p| call(&link, &flow, on, (method, p), timeout));
            futures_util::future::join_all(calls)
        };
        let mut answers = send(params.clone()).await;
        let blocked: Vec<usize> = (0..answers.len())
            .filter(|&i| matches!(answers[i], Err(Failed::Blocked(_))))
            .collect();
        if !blocked.is_empty() && !self.dialog_seen_by_agent_browser(&flow, &target).await {
            // Closed, unheard of: runner's record of it was stale.
            flow.closed(&target);
            let again = send(blocked.iter().map(|&i| params[i].clone()).collect()).await;
            for (i, r) in blocked.into_iter().zip(again) {
                answers[i] = r;
            }
        }
        self.tell_first_done();
        answers
            .into_iter()
            .map(|r| self.settled(method, r, (timeout, capped)))
            .collect()
    }

    /// What a call over runner's own session came to, as a step reads it (`None`: the session
    /// is gone).
    fn settled(
        &mut self,
        method: &str,
        r: Result<Value, Failed>,
        (timeout, capped): (Duration, bool),
    ) -> Option<Result<Value, StepError>> {
        Some(match r {
            Ok(v) => {
                self.answered = 1;
                Ok(v)
            }
            Err(Failed::Gone) => return None,
            Err(Failed::Timeout) => {
                // The page may be stuck in a script (an endless loop): the browser is not
                // handed to the next flow.
                self.busy = super::Busy::Unsettled;
                self.last_command = if method == "Runtime.evaluate" {
                    "eval"
                } else {
                    "page call"
                };
                Err(timed_out(method, timeout, capped))
            }
            Err(Failed::Refused(message) | Failed::Blocked(message)) => Err(refused(message)),
        })
    }

    /// Whether agent-browser sees the dialog runner's session heard of in tab `target`, so
    /// that what follows the blocked call (the failure's artifacts, a `dialog` step, the next
    /// step's look for an open dialog) finds it there too: asked until it does (each `dialog
    /// status` takes in the events it has read; it hears of the dialog at about the time runner
    /// does), for at most `AGREE`. One it never sees has closed unheard of.
    async fn dialog_seen_by_agent_browser(&mut self, flow: &FlowDialogs, target: &str) -> bool {
        let until = tokio::time::Instant::now() + AGREE;
        loop {
            let status = Command::Dialog {
                response: DialogResponse::Status,
                prompt_text: None,
            };
            let seen = self.ask::<DialogStatus>(status, AGREE).await;
            if seen.is_ok_and(|s| s.has_dialog == Some(true)) || flow.blocking(target).is_none() {
                return true;
            }
            if tokio::time::Instant::now() >= until {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
}

/// How long agent-browser is given to see a dialog runner's session heard of.
const AGREE: Duration = Duration::from_millis(500);

/// The step error of a call the page or the browser refused (`message` in agent-browser's
/// words), as agent-browser's refusal of the same becomes one.
fn refused(message: String) -> StepError {
    AdapterError::CommandFailed {
        command: "eval".into(),
        exit_code: None,
        stderr: String::new(),
        error_message: message,
    }
    .into_step_error(false)
}

/// The error of a call that did not answer in `timeout` (`capped`: the step's own time ran
/// out), in the words of the same timeout of an agent-browser command.
fn timed_out(method: &str, timeout: Duration, capped: bool) -> StepError {
    let what = if method == "Runtime.evaluate" {
        "eval"
    } else {
        method
    };
    let message = if capped {
        format!(
            "timed out: the step's time ran out while the browser was still answering its `{what}`"
        )
    } else {
        format!(
            "{what} timed out after {}",
            humantime::format_duration(timeout)
        )
    };
    StepError::new(ErrorKind::Timeout, message)
}

/// Calls `method` in runner's session `session` on tab `target` of `flow`, failing at once
/// when a dialog only the flow answers opens there meanwhile.
async fn call(
    link: &Arc<Link>,
    flow: &FlowDialogs,
    (session, target): (&str, &str),
    (method, params): (&str, Value),
    timeout: Duration,
) -> Result<Value, Failed> {
    tokio::select! {
        biased;
        open = flow.until_blocked(target) => Err(Failed::Blocked(open.refusal())),
        r = link.call_in(Some(session), method, params, timeout) => answer(r),
    }
}

/// The value of `Runtime.evaluate`'s (or `Runtime.callFunctionOn`'s) result, or the exception
/// the script threw in agent-browser's words.
pub(crate) fn value(v: Value) -> Result<Value, String> {
    if let Some(details) = v.get("exceptionDetails") {
        let why = details
            .pointer("/exception/description")
            .and_then(Value::as_str)
            .or_else(|| details.get("text").and_then(Value::as_str))
            .unwrap_or("error");
        return Err(format!("Evaluation error: {why}"));
    }
    Ok(v.pointer("/result/value").cloned().unwrap_or(Value::Null))
}

/// A call's result, or its failure in agent-browser's words.
fn answer(r: Result<Value, CdpError>) -> Result<Value, Failed> {
    match r {
        Ok(v) => Ok(v),
        Err(CdpError::Refused { method, message }) => {
            let lower = message.to_lowercase();
            if lower.contains("session with given id not found")
                || lower.contains("no session with given id")
            {
                Err(Failed::Gone)
            } else {
                Err(Failed::Refused(format!("CDP error ({method}): {message}")))
            }
        }
        Err(CdpError::NoAnswer { .. }) => Err(Failed::Timeout),
        Err(_) => Err(Failed::Gone),
    }
}

#[cfg(test)]
mod tests;
