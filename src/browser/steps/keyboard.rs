//! The keyboard: `press` a key for the focused element or for a target it focuses first, and
//! `keyboard` — keys and text for whatever has the focus, for the editors that take keys only
//! there (CodeMirror, Monaco, ProseMirror). (`fill`, `type` and `select` act on one element:
//! see `page::element_action`; a `fill` refused on a hidden field gets the way to `keyboard`
//! here.)

use serde_json::{Value, json};
use tokio::time::Instant;

use crate::browser::driver::command::{Command, KeyboardInput};
use crate::browser::driver::script::{bind, call};
use crate::browser::driver::session::Session;
use crate::browser::page::element_action::element;
use crate::browser::page::scripts::HAS_FOCUS;
use crate::browser::page::selector::{
    Poll, Resolved, element_eval, left, resolve_now_one, resolve_one,
};
use crate::config::model::{FillAction, KeyboardAction, PressAction, Selector, check_key};
use crate::step::{ErrorKind, StepError};

/// `(hasFocus) => (el) => true | why not`: focuses an element for a key press.
const FOCUS_FOR_KEYS_JS: &str = include_str!("scripts/focus_for_keys.js");

/// `() => true | what has the focus`: whether what has the focus takes text.
const FOCUS_TAKES_TEXT_JS: &str = include_str!("scripts/focus_takes_text.js");

/// `(el) => bool`: no box, or `visibility: hidden`.
const HIDDEN_JS: &str = include_str!("scripts/hidden.js");

/// `press`: the key for the focused element, or for the target, focused first; the key is not
/// sent when the target cannot take the focus (it would go to whatever has it).
pub(crate) async fn press(
    session: &mut Session,
    p: &PressAction,
    deadline: Instant,
) -> Result<Value, StepError> {
    let key = p.key().to_string();
    pressable(&key)?;
    let what = format!("press {key}");
    // A key that starts a navigation (Enter in a form's field) resolves once it commits, as
    // Playwright's `press` (see `Session::await_navigation`).
    let Some(sel) = p.target() else {
        let mark = session.navigation_mark();
        session.send(Command::Press { key }, left(deadline)).await?;
        session.await_navigation(mark, &what, deadline).await?;
        return Ok(json!({}));
    };
    let r = resolve_one(session, sel, deadline).await?;
    focus_for_keys(session, &r, &key, deadline).await?;
    let mark = session.navigation_mark();
    session.send(Command::Press { key }, left(deadline)).await?;
    session.await_navigation(mark, &what, deadline).await?;
    Ok(json!({ "matched": r.matched, "matched_index": r.index }))
}

/// A key as rendered (a template's key is judged only now; `validate` judged the others): one
/// agent-browser would send as no key at all is refused rather than pressed to no effect.
fn pressable(key: &str) -> Result<(), StepError> {
    check_key(key)
        .map_err(|(what, help)| StepError::new(ErrorKind::CommandFailed, format!("{what}: {help}")))
}

/// Focuses a `press` target, waiting (up to `deadline`) while it is hidden, inert or disabled;
/// an element that is shown and still takes no focus is refused at once (it is not one that
/// ever takes keys).
async fn focus_for_keys(
    session: &mut Session,
    r: &Resolved,
    key: &str,
    deadline: Instant,
) -> Result<(), StepError> {
    let js = bind(FOCUS_FOR_KEYS_JS, &[HAS_FOCUS]);
    let mut poll = Poll::new();
    let mut why = String::from("gone");
    loop {
        match poll.settle(element_eval(session, r, &js, &[]).await)? {
            Some(Some(Value::Bool(true))) => return Ok(()),
            Some(Some(Value::String(w))) if w == "unfocusable" => {
                return Err(cannot_focus(key, r, &w));
            }
            Some(Some(Value::String(w))) => why = w,
            Some(_) => why = "gone".into(),
            None => {}
        }
        if !poll.wait(deadline).await {
            return Err(cannot_focus(key, r, &why));
        }
    }
}

/// A `press` target that cannot take the focus, `why` (see `focus_for_keys.js`), and what to
/// write instead.
fn cannot_focus(key: &str, r: &Resolved, why: &str) -> StepError {
    let m = &r.matched;
    let message = match why {
        "hidden" => format!(
            "press {key}: {m} is hidden (no box, or `visibility: hidden`) at the step's timeout, so it cannot take the focus and the key was not sent. An editor drawn over a hidden field (CodeMirror, Monaco) takes keys where it puts the focus: click into the editor, then `keyboard: {{ press: {key} }}`"
        ),
        "inert" => format!(
            "press {key}: {m} is inert (inside an `inert` element, or outside an open modal dialog) at the step's timeout, so it cannot take the focus and the key was not sent"
        ),
        "disabled" => format!(
            "press {key}: {m} is disabled at the step's timeout, so it cannot take the focus and the key was not sent"
        ),
        "unfocusable" => format!(
            "press {key}: {m} cannot take the focus, so the key was not sent: it is not a field, a button, a link or an element with `tabindex`. Press it on the element that takes the keys, or click into the widget and write `keyboard: {{ press: {key} }}`; for the page's own key handlers, `press: {key}` without `target`"
        ),
        _ => format!("press {key}: {m} is gone from the page, so the key was not sent"),
    };
    StepError::new(ErrorKind::CommandFailed, message)
}

/// `keyboard`: text or keys for whatever has the focus. Text waits (up to `deadline`) for the
/// focus to be on something that takes text — typed into the page's body, it would go nowhere
/// and the step would still pass; keys go as they are (pages handle keys on the body too).
pub(crate) async fn keyboard(
    session: &mut Session,
    k: &KeyboardAction,
    deadline: Instant,
) -> Result<Value, StepError> {
    let (subaction, text) = match k {
        KeyboardAction::Type(text) => (KeyboardInput::Type, text.clone()),
        KeyboardAction::InsertText(text) => (KeyboardInput::InsertText, text.clone()),
        KeyboardAction::Press(_) => {
            k.keys().into_iter().try_for_each(pressable)?;
            let keys = k.keys().into_iter().map(|key| Command::Press {
                key: key.to_string(),
            });
            let mark = session.navigation_mark();
            session.send_all(keys.collect(), left(deadline)).await?;
            let what = format!("`keyboard: {{ press }}` of {}", k.keys().join(", "));
            session.await_navigation(mark, &what, deadline).await?;
            return Ok(json!({}));
        }
    };
    focus_takes_text(session, k, deadline).await?;
    session
        .send(Command::Keyboard { subaction, text }, left(deadline))
        .await?;
    Ok(json!({}))
}

/// Waits (up to `deadline`) until what has the focus takes text.
async fn focus_takes_text(
    session: &mut Session,
    k: &KeyboardAction,
    deadline: Instant,
) -> Result<(), StepError> {
    let js = call(FOCUS_TAKES_TEXT_JS, &[]);
    let mut poll = Poll::new();
    let mut why = String::new();
    loop {
        match poll.settle(session.eval(&js, left(deadline)).await)? {
            Some(Value::Bool(true)) => return Ok(()),
            Some(Value::String(w)) => why = w,
            _ => {}
        }
        if !poll.wait(deadline).await {
            let key = match k {
                KeyboardAction::InsertText(_) => "insert_text",
                KeyboardAction::Type(_) | KeyboardAction::Press(_) => "type",
            };
            return Err(StepError::new(
                ErrorKind::CommandFailed,
                format!(
                    "`keyboard: {{ {key} }}` sends text to what has the focus, but nothing that takes text has the focus ({why}) by the step's timeout, so nothing was typed: click into the editor or the field first; keys for the page's own handlers go with `keyboard: {{ press: KEY }}`"
                ),
            ));
        }
    }
}

/// `fill` or `type` (`command`) of a field; refused on a field the page hides, the error says
/// how to type into the editor drawn over it.
pub(crate) async fn into_field(
    session: &mut Session,
    command: &str,
    f: &FillAction,
    deadline: Instant,
) -> Result<Value, StepError> {
    match element(
        session,
        command,
        &f.target,
        &[f.value.to_string()],
        false,
        deadline,
    )
    .await
    {
        Err(e) => Err(hidden_field_hint(session, &f.target, e).await),
        done => done,
    }
}

/// A refusal on a field the page hides: the error, with the way to type into the editor such
/// a field usually sits under (CodeMirror 5 and Monaco keep the form's `<textarea>` hidden and
/// take keys only through the focus). Asked only of a refusal (a timed-out page is not asked
/// again); the error is kept as it is when the field is shown.
async fn hidden_field_hint(
    session: &mut Session,
    target: &Selector,
    mut e: StepError,
) -> StepError {
    if e.kind != ErrorKind::CommandFailed {
        return e;
    }
    let Ok(Some(r)) = resolve_now_one(session, target).await else {
        return e;
    };
    if let Ok(Some(Value::Bool(true))) = element_eval(session, &r, HIDDEN_JS, &[]).await {
        e.message.push_str(
            ". A code editor drawn over a hidden field (CodeMirror, Monaco) takes text only where it puts the focus: click into the editor, then `keyboard: { type: \"…\" }` (`keyboard: { press: Control+a }` first to replace what it holds)",
        );
    }
    e
}
