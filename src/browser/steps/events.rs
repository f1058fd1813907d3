//! `dispatch` (Playwright's `dispatchEvent`): a DOM event dispatched on one element — `blur`
//! to leave an edit field, `click` without a pointer — of the constructor its type calls for.
//! The element is found as an action's (strict, waited for until it is on the page) but not
//! checked for visibility or the pointer: the event goes to it whatever covers it.

use serde_json::{Value, json};
use tokio::time::Instant;

use crate::browser::driver::session::Session;
use crate::browser::page::selector::{Poll, element_eval, resolve_one};
use crate::config::model::DispatchAction;
use crate::step::{ErrorKind, StepError};

/// `(el, type, init) => true`.
const DISPATCH_EVENT_JS: &str = include_str!("scripts/dispatch_event.js");

/// `dispatch: { target, event, init }`; outputs which selector matched.
pub(crate) async fn dispatch(
    session: &mut Session,
    d: &DispatchAction,
    deadline: Instant,
) -> Result<Value, StepError> {
    let init = d.init.clone().unwrap_or_else(|| json!({}));
    let mut poll = Poll::new();
    loop {
        let r = resolve_one(session, &d.target, deadline).await?;
        let args = [json!(d.event), init.clone()];
        // `None`: the element was replaced since it was found (a re-render): found again.
        if poll
            .settle(element_eval(session, &r, DISPATCH_EVENT_JS, &args).await)?
            .flatten()
            .is_some()
        {
            return Ok(json!({ "matched": r.matched, "matched_index": r.index }));
        }
        if !poll.wait(deadline).await {
            return Err(StepError::new(
                ErrorKind::NotFound,
                format!(
                    "`dispatch {}`: {} was replaced or removed each time it was found",
                    d.event, r.matched
                ),
            ));
        }
    }
}
