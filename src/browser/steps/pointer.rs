//! The wheel and the viewport: `scroll`. (`click`, `dblclick`, `hover`, `check` and `uncheck`
//! act on one element: see `page::element_action`.)

use serde_json::{Value, json};
use tokio::time::Instant;

use crate::browser::driver::command::Command;
use crate::browser::driver::script::call;
use crate::browser::driver::session::Session;
use crate::browser::page::selector::{element_eval, left, resolve_one};
use crate::step::{ErrorKind, StepError};

/// `scroll`: an element into view (then checked to be in the viewport), the page to its top or
/// bottom, or the wheel by some pixels; outputs the window's scroll position after.
pub(crate) async fn scroll(
    session: &mut Session,
    s: &crate::config::model::ScrollAction,
    deadline: Instant,
) -> Result<Value, StepError> {
    use crate::config::model::ScrollTo;
    let t = left(deadline);
    let mut out = json!({});
    match s.to() {
        Some(ScrollTo::Element(sel)) => {
            let r = resolve_one(session, sel, deadline).await?;
            session
                .send(
                    Command::ScrollIntoView {
                        selector: r.target.clone(),
                    },
                    t,
                )
                .await?;
            if element_eval(session, &r, IN_VIEW_JS, &[]).await? != Some(Value::Bool(true)) {
                return Err(StepError::new(
                    ErrorKind::CommandFailed,
                    format!("scroll: {} is still outside the viewport", r.matched),
                ));
            }
            out = json!({ "matched": r.matched, "matched_index": r.index });
        }
        Some(end @ (ScrollTo::Top | ScrollTo::Bottom)) => {
            let bottom = matches!(end, ScrollTo::Bottom);
            session
                .eval(&call(SCROLL_TO_END_JS, &[json!(bottom)]), t)
                .await?;
        }
        None => {
            let by = s.by.unwrap_or(0);
            let dir = if by < 0 { "up" } else { "down" };
            session
                .send(
                    Command::Scroll {
                        direction: dir.to_string(),
                        amount: by.unsigned_abs(),
                    },
                    t,
                )
                .await?;
        }
    }
    let pos = session.eval(&call(SCROLL_POSITION_JS, &[]), t).await?;
    out["x"] = pos.get("x").cloned().unwrap_or(Value::Null);
    out["y"] = pos.get("y").cloned().unwrap_or(Value::Null);
    Ok(out)
}

/// `(el) => bool`: whether an element's box meets the viewport.
const IN_VIEW_JS: &str = include_str!("scripts/in_view.js");

/// `(bottom) => …`: scrolls the page to its top or bottom.
const SCROLL_TO_END_JS: &str = include_str!("scripts/scroll_to_end.js");

/// `() => { x, y }`: the window's scroll position.
const SCROLL_POSITION_JS: &str = include_str!("scripts/scroll_position.js");
