//! A pointer action (`click`, `dblclick`, `hover`, `check`, `uncheck`) that is right on a page
//! that re-renders, as Playwright's: the element must be attached, visible, enabled, stable
//! (the same box over two animation frames) and get the event at its click point (a hit test
//! right before the input); otherwise the user's selector is resolved again and the action
//! retried until the step's timeout, then the step fails naming the element that would have
//! received it. After the input, a guard armed before it says whether the element got it: an
//! event that reached another element was stopped there, and is retried; `ok` means the
//! element got the event.
//!
//! The check, the input and the verification go to agent-browser as one batch (one round
//! trip): the input stays agent-browser's own click, which computes the same point (the centre
//! of the box, after `scrollIntoViewIfNeeded`). Dispatching the input over runner's own
//! DevTools connection would need the point first (a second round trip) and a tab session
//! runner does not hold. Stability is checked before the input, as Playwright's: the element
//! keeps its box from the check to the next animation frame (the batch awaits it).
//! The hit target is judged at the input's first event, and the rest of the input follows that
//! verdict: what the press itself does to the element (a `:active` look, a label that changes
//! on pointerdown) never stops it halfway or sends it twice.
//!
//! An element found through the snapshot (a ref, `@e5`, as role selectors give) has no handle
//! of runner's: the batch names it to the arm with an event agent-browser dispatches on it
//! (`dispatch`), and the arm checks and guards it as that event arrives. One that cannot take
//! the action then gets a guard that stops all of the action's events, and the verification
//! says why (Playwright's hit-target check works the same way: the input is sent, and stopped
//! if it would reach another element). So a ref's action is one round trip too, where it was
//! three (its box read, the element with that box marked, then the batch).

use serde_json::{Value, json};
use tokio::time::Instant;

use super::described;
use super::fits::fits;
use super::label::control_of;
use super::scripts;
use super::selector::{Poll, Resolved, describe_selector, element_args, left, resolve_one};
use crate::browser::driver::adapter::Cause;
use crate::browser::driver::command::Command;
use crate::browser::driver::script::{bind, call};
use crate::browser::driver::session::Session;
use crate::config::model::Selector;
use crate::step::{ErrorKind, StepError};

/// What an error says when the check before the input found the element unable to take it.
const NOT_READY: &str = "runner: not ready: ";

/// What an error says when the input reached another element (or none).
const MISSED: &str = "runner: missed: ";

/// The event agent-browser dispatches on an element found through the snapshot (a ref), so
/// the arm knows it.
const ARM_EVENT: &str = "runner-arm";

/// agent-browser's own hit test, which refuses a covered element at once.
const COVERED: &str = "is covered by";

/// The pointer actions.
pub(crate) const POINTER: [&str; 5] = ["click", "dblclick", "hover", "check", "uncheck"];

/// Runs pointer action `command` on the element `sel` names (see the module's doc); `force`
/// skips the checks. Returns the element and what was read back after the action (`check`'s
/// state).
pub(crate) async fn pointer(
    session: &mut Session,
    command: &str,
    sel: &Selector,
    force: bool,
    deadline: Instant,
) -> Result<(Resolved, Vec<Value>), StepError> {
    // A click that starts a navigation of the tab resolves once it commits, as Playwright's
    // (which does not wait after a dblclick, a hover or a check: neither does runner).
    let mark = (command == "click")
        .then(|| session.navigation_mark())
        .flatten();
    let (r, read) = match give(session, command, sel, force, deadline).await {
        Ok(given) => given,
        Err(e) => {
            let what = format!("`{command}` on {}", describe_selector(sel));
            return Err(session.navigation_timeout(mark.as_ref(), &what, e));
        }
    };
    let what = format!("`{command}` on {}", r.matched);
    session.await_navigation(mark, &what, deadline).await?;
    Ok((r, read))
}

/// `pointer` up to the input: resolves `sel` and gives it the input, retried until `deadline`.
async fn give(
    session: &mut Session,
    command: &str,
    sel: &Selector,
    force: bool,
    deadline: Instant,
) -> Result<(Resolved, Vec<Value>), StepError> {
    let mut poll = Poll::new();
    loop {
        let r = resolve_one(session, sel, deadline).await?;
        let r = control_of(session, command, r).await?;
        fits(command, &r)?;
        if force {
            let read = send(session, command, &r, (Vec::new(), None), deadline).await?;
            return Ok((r, read));
        }
        let why = match attempt(session, command, &r, deadline).await? {
            Ok(read) => return Ok((r, read)),
            Err(why) => why,
        };
        if !poll.wait(deadline).await {
            return Err(missed(command, &r, &why));
        }
    }
}

/// A click on an element already resolved (a download's link, read before the click), with
/// the checks and the verification of `pointer`, retried until `deadline`.
pub(crate) async fn click_resolved(
    session: &mut Session,
    r: &Resolved,
    deadline: Instant,
) -> Result<(), StepError> {
    let mut poll = Poll::new();
    loop {
        let Err(why) = attempt(session, "click", r, deadline).await? else {
            return Ok(());
        };
        if !poll.wait(deadline).await {
            return Err(missed("click", r, &why));
        }
    }
}

/// One try: the check, the input and the verification in one batch. `Ok(Err(why))` when the
/// element could not take the action now or did not get it (nothing happened to it: retry).
async fn attempt(
    session: &mut Session,
    command: &str,
    r: &Resolved,
    deadline: Instant,
) -> Result<Result<Vec<Value>, String>, StepError> {
    let guard = Guard::of(session, r);
    let arm_fn = bind(
        scripts::HIT_ARM,
        &[
            &scripts::frame_document(guard.frame.as_str()),
            &scripts::actionable(),
        ],
    );
    let arm = call(
        &arm_fn,
        &[
            json!(NOT_READY),
            guard.frame.clone(),
            json!(guard.handle),
            json!(command),
            json!(guard.via),
        ],
    );
    let mut before = vec![Command::eval(arm)];
    // An element found through the snapshot (`@e5`) is named to the arm by an event
    // agent-browser dispatches on it, in the same batch.
    if let Some(via) = guard.via {
        before.push(Command::Dispatch {
            selector: r.target.clone(),
            event: via.to_string(),
            event_init: json!({ "bubbles": true, "composed": true }),
        });
    }
    // Stable before the input, as Playwright's: the armed element keeps its box over an
    // animation frame (else the guard stops the whole action: it is moving).
    before.push(Command::eval(settle(&guard)));
    let want = match command {
        "dblclick" => "dblclick",
        "hover" => "hover",
        _ => "click",
    };
    let verify = call(
        &verify_fn(&guard),
        &[
            json!(MISSED),
            guard.frame.clone(),
            json!(guard.handle),
            json!(want),
        ],
    );
    // The input goes to the element as it was resolved: agent-browser finds a ref again by
    // its role and name, as its `check` does after a click that re-renders the list.
    let sent = send(session, command, r, (before, Some(verify)), deadline).await;
    match sent {
        Ok(read) => Ok(Ok(read)),
        Err(e) => {
            let m = &e.message;
            let why = [NOT_READY, MISSED]
                .iter()
                .find_map(|p| m.split(p).nth(1))
                .map(|w| w.lines().next().unwrap_or_default().to_string());
            if let Some(why) = why {
                return Ok(Err(described::in_message(&session.masker, &why)));
            }
            // An element armed as agent-browser named it that could not take the action:
            // agent-browser's input may then fail on its own (no box to click): the arm's why.
            if let Some(why) = disarm(session, &guard).await {
                return Ok(Err(described::in_message(&session.masker, &why)));
            }
            if let Some(at) = m.find(COVERED) {
                let by = m[at..].split(" at ").next().unwrap_or(COVERED);
                return Ok(Err(format!("it {by}")));
            }
            Err(e)
        }
    }
}

/// What the arm and the verification of one try name the element by.
struct Guard {
    /// The iframe (CSS in the page) the element is in, or null.
    frame: Value,
    /// runner's handle on the element; for a ref, a name of this try's guard.
    handle: String,
    /// For a ref: the type of the event agent-browser dispatches on the element to name it.
    via: Option<&'static str>,
}

impl Guard {
    fn of(session: &Session, r: &Resolved) -> Guard {
        if r.target.starts_with('@') {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos());
            return Guard {
                frame: json!(r.frame),
                handle: format!("{}#{nanos}", r.target),
                via: Some(ARM_EVENT),
            };
        }
        let [frame, _, _] = element_args(session, &r.target, &[]);
        Guard {
            frame,
            handle: r.target.clone(),
            via: None,
        }
    }
}

/// Sends the commands of the check (`around.0`), the action on `r`'s element, the
/// verification (`around.1`) and the reads of `command` (`check`'s state) as one batch;
/// returns the reads.
async fn send(
    session: &mut Session,
    command: &str,
    r: &Resolved,
    around: (Vec<Command>, Option<String>),
    deadline: Instant,
) -> Result<Vec<Value>, StepError> {
    let (before, after) = around;
    let target = &r.target;
    let action = Command::on_element(command, target.clone(), &[]).ok_or_else(|| {
        let why = format!("internal error: `{command}` is not known to runner's daemon link");
        StepError::new(ErrorKind::CommandFailed, why)
    })?;
    // The state is read through the selector as it was resolved (a ref is found again by its
    // role and name): a list that re-renders on the click replaces the element runner marked.
    let reads: Vec<Command> = match command {
        "check" | "uncheck" => vec![Command::IsChecked {
            selector: r.target.clone(),
        }],
        _ => Vec::new(),
    };
    let n = reads.len();
    let action_at = before.len();
    let batch: Vec<Command> = before
        .into_iter()
        .chain([action])
        .chain(after.map(Command::eval))
        .chain(reads)
        .collect();
    // agent-browser names the element by runner's handle: say it as the user did.
    let mut done = match session.send_all(batch, left(deadline)).await {
        Ok(done) => done,
        // The input was given and the page navigated (a link, a form's submit): the
        // verification after it meets the navigation. An input that reached another element
        // was stopped there by the guard, so the element got it, as Playwright's click that
        // navigates; a `check` has no state to read back then and fails as unchanged.
        Err(e) if session.answered() > action_at && Cause::of(&e.message).navigated => {
            return Ok(Vec::new());
        }
        // A dialog opened once the input was under way and holds what comes after it (the
        // input itself, as a confirm its handler opens; the verification, as one a timer opens
        // a moment later): the element got the input — one that reached another element
        // would have been stopped there — or gets it once the dialog is answered, which is the
        // next step's to do. One that opened before the input (the check before it held, or
        // agent-browser refused the input itself) fails the step: the input was never given.
        Err(e)
            if dialog_blocks(&e.message)
                && (session.answered() > action_at
                    || session.answered() == action_at && session.cut_by_dialog()) =>
        {
            return Ok(Vec::new());
        }
        Err(mut e) => {
            e.message = e.message.replace(&format!("'{target}'"), &r.matched);
            return Err(e);
        }
    };
    Ok(done.split_off(done.len().saturating_sub(n)))
}

/// Takes the guard off after an input that failed in agent-browser (best effort: the next
/// pointer action replaces it anyway); the arm's why when the element could not take the
/// action (armed as agent-browser named it).
async fn disarm(session: &mut Session, guard: &Guard) -> Option<String> {
    let js = call(
        &verify_fn(guard),
        &[
            json!(""),
            guard.frame.clone(),
            json!(guard.handle),
            json!(""),
        ],
    );
    let v = session.eval(&js, std::time::Duration::from_secs(2)).await;
    let why = v.ok()?;
    let why = why.as_str()?;
    Some(why.split(NOT_READY).nth(1).unwrap_or(why).to_string())
}

/// Whether agent-browser (or runner, for it) refused a command because a dialog blocks the page.
fn dialog_blocks(message: &str) -> bool {
    message.contains("dialog") && message.contains("is blocking the page")
}

/// The guard's wait until its element keeps its box over an animation frame (`HIT_SETTLE`).
fn settle(guard: &Guard) -> String {
    call(
        &bind(
            scripts::HIT_SETTLE,
            &[&scripts::frame_document(guard.frame.as_str())],
        ),
        &[guard.frame.clone(), json!(guard.handle)],
    )
}

/// `hit_verify`, with its helper, for `guard`'s element.
fn verify_fn(guard: &Guard) -> String {
    bind(
        scripts::HIT_VERIFY,
        &[&scripts::frame_document(guard.frame.as_str())],
    )
}

/// A pointer action whose element still could not take it, or did not get it, at the step's
/// timeout.
fn missed(command: &str, r: &Resolved, why: &str) -> StepError {
    StepError::new(
        ErrorKind::CommandFailed,
        format!(
            "`{command}` on {} did not happen by the step's timeout: {why}",
            r.matched
        ),
    )
}
