//! The page's JavaScript dialogs: the one open now, answering it (recorded in the session),
//! and the flow's default answer before each step.

use std::time::Duration;

use serde_json::{Value, json};

use super::command::{Command, DialogResponse};
pub(crate) use super::dialog_watch::Armed;
use super::reply::DialogStatus;
use super::session::{Session, TabUse};
use crate::step::{ErrorKind, StepError};

/// The dialog open on the page now, if any: `{type, message}`.
pub(crate) async fn open(session: &mut Session) -> Result<Option<Value>, StepError> {
    open_within(session, Duration::from_secs(5)).await
}

/// `open`, waiting at most `timeout` for the answer.
pub(crate) async fn open_within(
    session: &mut Session,
    timeout: Duration,
) -> Result<Option<Value>, StepError> {
    // agent-browser is busy with the command the dialog holds: runner's session on the tab
    // heard it open.
    if session.held_by_dialog()
        && let Some(w) = &session.watched
    {
        return Ok(w
            .open_current()
            .map(|o| json!({ "type": o.kind, "message": o.message })));
    }
    let status = Command::Dialog {
        response: DialogResponse::Status,
        prompt_text: None,
    };
    let s: DialogStatus = session.ask(status, timeout).await?;
    Ok((s.has_dialog == Some(true)).then(|| json!({ "type": s.kind, "message": s.message })))
}

/// Answers the open dialog (`open`, as `open` gave it) and records it in the session;
/// returns `{type, message, accepted}`. An answer agent-browser does not report as handled
/// fails.
pub(crate) async fn answer(
    session: &mut Session,
    open: Value,
    accept: bool,
    text: Option<&str>,
) -> Result<Value, StepError> {
    let not_answered = |why: String| {
        StepError::new(
            ErrorKind::CommandFailed,
            format!("the {} dialog was not answered: {why}", open["type"]),
        )
    };
    if session.held_by_dialog()
        && let Some(w) = session.watched.clone()
    {
        // Over runner's own connection: agent-browser would answer only once the command the
        // dialog holds is done, which waits on the answer. That command then finishes.
        w.answer_current(accept, text).await.map_err(not_answered)?;
        session.dialog_answered();
    } else {
        let response = if accept {
            DialogResponse::Accept
        } else {
            DialogResponse::Dismiss
        };
        let answer = Command::Dialog {
            response,
            prompt_text: text.map(str::to_string),
        };
        let done = session.send(answer, Duration::from_secs(5)).await?;
        if done.get("handled").and_then(Value::as_bool) != Some(true) {
            return Err(not_answered(done.to_string()));
        }
        // It is closed now, whether or not the browser tells runner's session so.
        if let Some(w) = &session.watched {
            w.answered_current();
        }
    }
    let mut answered = open;
    answered["accepted"] = Value::Bool(accept);
    session.dialogs.push(answered.clone());
    Ok(answered)
}

/// Takes what runner's watch on the flow's tabs saw (see `dialog_watch`), once the answers it
/// sent have come back: the dialogs it answered join the flow's record; fails (once) when a
/// confirm or prompt in another tab had no answer.
pub(crate) async fn take_watched(session: &mut Session) -> Result<(), StepError> {
    let Some(watched) = &session.watched else {
        return Ok(());
    };
    watched.settled().await;
    let taken = watched.take();
    if !taken.answered.is_empty() {
        // Answered over runner's connection: the daemon is to hear them closed.
        session.dialog_answered();
    }
    session.dialogs.extend(taken.answered);
    match taken.unanswered {
        Some(why) => Err(StepError::new(ErrorKind::CommandFailed, why)),
        None => Ok(()),
    }
}

/// The answer a `dialog` step armed for the next dialog and that no dialog has taken yet: taken
/// now (for a dialog open now).
pub(crate) fn take_armed(session: &Session) -> Option<Armed> {
    session.watched.as_ref()?.take_armed()
}

/// The dialog open now that runner's watch is not answering, with the armed answer when this
/// call took it (then it is the caller's to answer with it).
pub(crate) async fn open_unanswered(
    session: &mut Session,
    timeout: Duration,
) -> Result<Option<(Value, Option<Armed>)>, StepError> {
    let Some(now) = open_within(session, timeout).await? else {
        return Ok(None);
    };
    if let Some(armed) = take_armed(session) {
        return Ok(Some((now, Some(armed))));
    }
    if session.watched.is_none() {
        return Ok(Some((now, None)));
    }
    // The watch may have taken the armed answer for it as it opened and be answering it now:
    // once that has come back, look again.
    take_watched(session).await?;
    Ok(open_within(session, timeout).await?.map(|o| (o, None)))
}

/// At the flow's end: an answer armed that no dialog took fails the flow (a `dialog` step that
/// expected a dialog the page never opened is a mistake to report, not to pass over).
pub(crate) fn unused_armed(session: &Session) -> Option<StepError> {
    let armed = take_armed(session)?;
    let word = if armed.accept { "accept" } else { "dismiss" };
    Some(StepError::new(
        ErrorKind::CommandFailed,
        format!(
            "a `dialog: {word}` armed an answer for the next dialog of the flow's tab, but none opened there by the flow's end (a dialog in another tab gets the flow's `browser: {{ dialogs }}` answer instead)"
        ),
    ))
}

/// The message of a step that timed out because agent-browser is still busy with `command`
/// (its CLI name), an earlier step's command that did not finish: named, with what may keep
/// such a command going.
fn still_busy(timeout: Duration, command: &str) -> String {
    let why = match command {
        "eval" => " (an `eval` whose promise never settles?)",
        "snapshot" => {
            " (a snapshot of a very large page, which runner reads for a failure's artifacts and, when the flow has secrets, before a picture)"
        }
        _ => "",
    };
    let what = if command.is_empty() {
        "the command".to_string()
    } else {
        format!("the `{command}` command")
    };
    format!(
        "timed out after {}: the browser is still busy with {what} of an earlier step that did not finish{why}",
        humantime::format_duration(timeout)
    )
}

/// Before a step: a dialog left open (by the previous step, or opened since) gets the flow's
/// default answer (`browser.dialogs`); without one, a confirm or prompt fails the step at once
/// rather than every read of the page waiting on it. Alerts and beforeunload dialogs are
/// accepted by agent-browser as they open and never block.
///
/// It asks within the step's time (`timeout`): after a command that never finished (an `eval`
/// whose promise never settles) agent-browser is still busy with it, and the step fails in its
/// time saying so, not after a timeout of its own.
pub(crate) async fn settle(session: &mut Session, timeout: Duration) -> Result<(), StepError> {
    take_watched(session).await?;
    // What the previous step opened and had answered is no longer a `dialog` step's to claim.
    if let Some(w) = &session.watched {
        w.take_as_opened();
    }
    let busy = session.unsettled();
    // The flow's blank tab, in which nothing has run yet: no dialog can be open there (see
    // `TabUse::Untouched`).
    if session.tab_use == TabUse::Untouched {
        session.tell_first_done();
        return Ok(());
    }
    // No confirm or prompt open in the flow's tab, as runner's session there has heard up to
    // now (see `FlowDialogs::none_open`): agent-browser is not asked. (An alert or
    // beforeunload is agent-browser's to accept as it opens.) After a command that did not
    // finish, agent-browser is asked anyway: it may still be busy, and the step says so.
    if !busy
        && let Some(w) = session.watched.clone()
        && w.none_open(timeout.min(Duration::from_secs(5))).await == Some(true)
    {
        return Ok(());
    }
    let open = open_unanswered(session, timeout.min(Duration::from_secs(5))).await;
    let open = match open {
        Err(e) if busy && e.kind == ErrorKind::Timeout => {
            return Err(StepError::new(
                ErrorKind::Timeout,
                still_busy(timeout, session.last_command),
            ));
        }
        r => r?,
    };
    let Some((open, armed)) = open else {
        return Ok(());
    };
    if let Some(armed) = armed {
        return answer(session, open, armed.accept, armed.text.as_deref())
            .await
            .map(|_| ());
    }
    let kind = open["type"].as_str().unwrap_or("").to_string();
    let accept = match session.dialog_default {
        Some(a) => a,
        None if matches!(kind.as_str(), "alert" | "beforeunload") => true,
        None => {
            return Err(StepError::new(
                ErrorKind::CommandFailed,
                format!(
                    "a {kind} dialog ({}) is blocking the page: answer it with a `dialog: accept` (or dismiss) step right after the step that opens it (or before it), or give the flow a default with `browser: {{ dialogs: accept }}` (or dismiss)",
                    open["message"]
                ),
            ));
        }
    };
    answer(session, open, accept, None).await.map(|_| ())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    /// The message names the command still running, and blames an `eval` only for an `eval`
    /// (attack 28, E4: a flow without one was told of "an `eval` whose promise never settles").
    #[test]
    fn a_busy_browser_is_told_by_the_command_it_is_busy_with() {
        let t = Duration::from_secs(1);
        let snapshot = super::still_busy(t, "snapshot");
        assert!(
            snapshot.contains("busy with the `snapshot` command"),
            "{snapshot}"
        );
        assert!(!snapshot.contains("eval"), "{snapshot}");
        let eval = super::still_busy(t, "eval");
        assert!(
            eval.contains("the `eval` command") && eval.contains("never settles"),
            "{eval}"
        );
        let click = super::still_busy(t, "click");
        assert!(
            click.ends_with("busy with the `click` command of an earlier step that did not finish"),
            "{click}"
        );
    }
}
