//! Runner's handle on an element (`[data-runner-sel="…"]`), so that a page script or an
//! agent-browser command reaches exactly the element a selector resolved to: the look-up puts
//! it on an element found by CSS or text; an element found through the snapshot (`@e5`) is
//! marked by its box. Scripts about one element run on it through its handle.

use std::time::Duration;

use serde_json::{Value, json};

use super::found::Read;
use super::mark::mark;
use super::resolve::Resolved;
use crate::browser::driver::command::Command;
use crate::browser::driver::script::{bind, call};
use crate::browser::driver::session::Session;
use crate::browser::page::scripts;
use crate::step::{ErrorKind, StepError};

/// Runs `script` (a function expression, `(el, ...args) => …`) on a resolved element with `args`;
/// `None` when the element is gone. Elements found by CSS or text carry runner's handle; one found by role or
/// ref is marked first (see `mark`).
pub(crate) async fn element_eval(
    session: &mut Session,
    r: &Resolved,
    script: &str,
    args: &[Value],
) -> Result<Option<Value>, StepError> {
    let t = Duration::from_secs(5);
    let handle = if r.target.starts_with('@') {
        mark(session, &r.target, r.frame.as_deref(), t)
            .await?
            .ok_or_else(|| {
            StepError::new(
                ErrorKind::NotFound,
                format!(
                    "cannot find {} in the page's DOM by its box (an element with no size, or covered by one of the same size): select it by css or text",
                    r.matched
                ),
            )
        })?
    } else {
        r.target.clone()
    };
    let js = call(
        &on_element(session, &handle, script),
        &element_args(session, &handle, args),
    );
    let v = session.eval(&js, t).await?;
    Ok((!v.is_null()).then_some(v))
}

/// Whether a resolved element is visible now. agent-browser's `is visible` answers false for a
/// selector that matches nothing, so for an element runner's handle marks, a `false` holds only
/// once the element is known to be still there: one replaced or removed since it was resolved
/// (a re-render) is an error `Poll::settle` takes for "gone" (the check is made again on the
/// page as it is then), never "hidden".
pub(crate) async fn is_visible(session: &mut Session, r: &Resolved) -> Result<bool, StepError> {
    // Read in the look-up's own page call (`Read::Visible`, an element found by CSS or text).
    if let Some(Value::Bool(b)) = r.read {
        return Ok(b);
    }
    if session.is("visible", &r.target).await? {
        return Ok(true);
    }
    if r.target.starts_with('@') {
        return Ok(false);
    }
    match element_eval(session, r, scripts::ATTACHED, &[]).await? {
        Some(Value::Bool(true)) => Ok(false),
        _ => Err(StepError::new(
            ErrorKind::NotFound,
            format!("Element not found: {} (replaced or detached)", r.target),
        )),
    }
}

/// `script` (`(el, ...args) => …`) as a function of the element runner's handle `handle`
/// names, `(frame, handle, args) => …` (its arguments: `element_args`): null when the element
/// is gone. Composed for that element's iframe, as `element_args` names it.
pub(crate) fn on_element(session: &Session, handle: &str, script: &str) -> String {
    let frame = session.frame_of.get(handle).map(String::as_str);
    bind(
        scripts::ON_ELEMENT,
        &[&scripts::frame_document(frame), script],
    )
}

/// The arguments of an `on_element` function for the element runner's handle `handle` names:
/// its iframe (when it is in one), the handle, and `args` for the script.
pub(crate) fn element_args(session: &Session, handle: &str, args: &[Value]) -> [Value; 3] {
    [
        json!(session.frame_of.get(handle)),
        json!(handle),
        Value::Array(args.to_vec()),
    ]
}

/// The text or value (`read`) of a resolved element: what its look-up read with it
/// (`resolve_now_one_reading`), else (a ref) agent-browser's `get text` or `get value`.
pub(crate) async fn read_now(
    session: &mut Session,
    r: Resolved,
    read: Read,
    t: Duration,
) -> Result<String, StepError> {
    if let Some(Value::String(got)) = r.read {
        return Ok(got);
    }
    let selector = r.target;
    let (get, field) = match read {
        Read::Text => (Command::GetText { selector }, "text"),
        Read::Value => (Command::GetValue { selector }, "value"),
        Read::Visible
        | Read::Attribute(_)
        | Read::Texts
        | Read::Classes
        | Read::Count
        | Read::Present => {
            return Err(StepError::new(
                ErrorKind::CommandFailed,
                "internal error: `read_now` reads a text or a value".to_string(),
            ));
        }
    };
    let data = session.send(get, t).await?;
    let got = data.get(field).and_then(Value::as_str);
    Ok(got.unwrap_or_default().to_string())
}
