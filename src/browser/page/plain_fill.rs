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

use serde_json::{Value, json};
use tokio::time::Instant;

use super::scripts;
use super::selector::{Poll, Resolved, element_args, left, on_element};
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
    let ours = r.target.starts_with('[') && !session.frame_of.contains_key(&r.target);
    if !plain || !ours || text.is_empty() || !session.own_page() {
        return Ok(None);
    }
    let (check, args) = check;
    let select = on_element(&bind(scripts::SELECT_FIELD, &[check]));
    let js = call(&select, &element_args(session, &r.target, args));
    // A field replaced or removed since it was resolved, or a page that navigated meanwhile:
    // nothing was typed; resolve again.
    match Poll::new().settle(session.eval(&js, left(deadline)).await)? {
        Some(Value::Bool(true)) => {}
        Some(Value::String(why)) => return Ok(Some(Err(why))),
        _ => return Ok(Some(Err("it is gone from the page".to_string()))),
    }
    session.insert_text(text, left(deadline)).await?;
    let read = call(
        &on_element(scripts::FIELD_TEXT),
        &element_args(session, &r.target, &[]),
    );
    let read = session.eval(&read, left(deadline)).await?;
    Ok(Some(Ok(vec![
        json!({ "filled": r.matched }),
        json!({ "result": read }),
    ])))
}
