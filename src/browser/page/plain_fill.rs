//! `fill` of a plain field (an `<input>` that takes typed text, a `<textarea>`) as Playwright
//! fills one, over runner's own DevTools session on the flow's tab (`Session::own_page`): the
//! action's check, the focus and the field's whole text selected in one page call, then the
//! text inserted for the focused field (`Input.insertText`: what typing it gives the page, one
//! `input` event — React, Vue and the rest see it as typing), then what the field holds read
//! back. Three short calls where agent-browser's `fill` makes five of its own behind a batch.
//!
//! Elsewhere agent-browser's `fill` stays: a field inside an iframe, one found through the
//! snapshot and not marked, an empty text (agent-browser clears the field and tells the page),
//! or no own session (`RUNNER_OWN_EVAL=off`). A dialog that blocks the page fails the first
//! call, as agent-browser's `fill` would fail.
//!
//! The input of a code editor that keeps its text elsewhere (CodeMirror 5's hidden textarea,
//! Monaco's, Ace's: `scripts::EDITOR_OF`) is filled this way wherever it is, as a user replaces
//! an editor's text: focused, the editor's own select-all key (`Control+a`, `Meta+a` on a Mac),
//! then the text inserted (`Backspace` for `""`), then the editor's text read back. Selecting the
//! textarea's text, as Playwright's fill does, would select none of the editor's: the text went
//! in at the editor's cursor, before what it held (attack 27, D11).

use serde_json::{Value, json};
use tokio::time::Instant;

use super::scripts;
use super::selector::{Poll, Resolved, element_args, left, on_element};
use crate::browser::driver::command::Command;
use crate::browser::driver::script::{bind, call};
use crate::browser::driver::session::Session;
use crate::step::StepError;

/// What a fill of `text` into `r`'s field did, when it is one to fill this way: the fill's
/// answer and the field's text after it (as `element_action::act` gives them), or why the
/// field cannot take it now (`Ok(Err)`: nothing was typed; the caller checks again). `None`
/// when agent-browser's `fill` is to do it. `check` is the action's check with its arguments.
pub(super) async fn fill(
    session: &mut Session,
    r: &Resolved,
    text: &str,
    check: (&str, &[Value]),
    deadline: Instant,
) -> Result<Option<Result<Vec<Value>, String>>, StepError> {
    let k = &r.kind;
    let plain = matches!(k.tag.as_str(), "input" | "textarea") && !k.editable && !k.takes_value();
    if !plain || !r.target.starts_with('[') {
        return Ok(None);
    }
    // A field in a frame, or no own session: agent-browser's fill, unless it is a code editor's.
    let ours = !session.frame_of.contains_key(&r.target) && session.own_page();
    let (check, args) = check;
    let select = on_element(
        session,
        &r.target,
        &bind(scripts::SELECT_FIELD, &[check, scripts::EDITOR_OF]),
    );
    let js = call(&select, &element_args(session, &r.target, args));
    // A field replaced or removed since it was resolved, or a page that navigated meanwhile:
    // nothing was typed; resolve again.
    let editor = match Poll::new().settle(session.eval(&js, left(deadline)).await)? {
        Some(Value::Bool(true)) if text.is_empty() || !ours => return Ok(None),
        Some(Value::Bool(true)) => None,
        Some(Value::Object(o)) if o.get("editor").is_some_and(Value::is_string) => Some(o),
        Some(Value::String(why)) => return Ok(Some(Err(why))),
        _ => return Ok(Some(Err("it is gone from the page".to_string()))),
    };
    if let Some(editor) = editor {
        // The editor's own select-all key, in the input it focused: it selects the editor's
        // whole text (the textarea holds none of it), which the text inserted next replaces.
        let mac = editor.get("mac") == Some(&Value::Bool(true));
        let all = if mac { "Meta+a" } else { "Control+a" };
        let keys = std::iter::once(all).chain(text.is_empty().then_some("Backspace"));
        let presses = keys.map(|key| Command::Press {
            key: key.to_string(),
        });
        session.send_all(presses.collect(), left(deadline)).await?;
    }
    if !text.is_empty() {
        session.insert_text(text, left(deadline)).await?;
    }
    let read = call(
        &on_element(session, &r.target, &scripts::field_text()),
        &element_args(session, &r.target, &[]),
    );
    let read = session.eval(&read, left(deadline)).await?;
    Ok(Some(Ok(vec![
        json!({ "filled": r.matched }),
        json!({ "result": read }),
    ])))
}
