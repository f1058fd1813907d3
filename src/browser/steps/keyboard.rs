//! The keyboard: `press` a key for the focused element or for a target it focuses first. (`fill`,
//! `type` and `select` act on one element: see `page::element_action`.)

use serde_json::{Value, json};
use tokio::time::Instant;

use crate::browser::driver::command::Command;
use crate::browser::driver::session::Session;
use crate::browser::page::scripts::HAS_FOCUS;
use crate::browser::page::selector::{element_eval, left, resolve_one};
use crate::step::{ErrorKind, StepError};

/// `press`: the key for the focused element, or for the target, focused first; the key is not
/// sent when the target cannot take the focus (it would go to whatever has it).
pub(crate) async fn press(
    session: &mut Session,
    p: &crate::config::model::PressAction,
    deadline: Instant,
) -> Result<Value, StepError> {
    let key = p.key().to_string();
    let t = left(deadline);
    let Some(sel) = p.target() else {
        session.send(Command::Press { key }, t).await?;
        return Ok(json!({}));
    };
    let r = resolve_one(session, sel, deadline).await?;
    session
        .send(
            Command::Focus {
                selector: r.target.clone(),
            },
            t,
        )
        .await?;
    if element_eval(session, &r, HAS_FOCUS, &[]).await? != Some(Value::Bool(true)) {
        return Err(StepError::new(
            ErrorKind::CommandFailed,
            format!(
                "press {key}: {} cannot take the focus, so the key was not sent (press it on a field, a button or a link, or on the page without `target`)",
                r.matched
            ),
        ));
    }
    session.send(Command::Press { key }, t).await?;
    Ok(json!({ "matched": r.matched, "matched_index": r.index }))
}
