//! Runner's handle (`[data-runner-sel]`) put on the element of a ref (`@e5`), found by its box:
//! what lets a page script reach an element found through the accessibility snapshot (a script
//! about it, a `within` around other levels).

use std::time::Duration;

use serde_json::{Value, json};

use super::refs::place_among_likes;
use crate::browser::driver::adapter::RefInfo;
use crate::browser::driver::command::Command;
use crate::browser::driver::script::call;
use crate::browser::driver::session::Session;
use crate::browser::page::scripts;
use crate::step::{ErrorKind, StepError};

/// The element a ref (`@e5`) stands for, marked with runner's handle (`[data-runner-sel]`):
/// of the elements whose box is the box agent-browser gives for the ref (viewport coordinates,
/// within a pixel), the one whose role and name are the snapshot's for it, else the innermost;
/// of twins (elements sharing the box, the role and the name), the one at the ref's place among
/// the snapshot's elements of that role and name, as the page's counted in document order.
/// `None` when the ref has no size or no element has that box: never another element in its
/// place. An error when its twins cannot be told apart (the page's count of them is not the
/// snapshot's, or their names are not read on the page's side): never a guess.
pub(crate) async fn mark(
    session: &mut Session,
    target: &str,
    frame: Option<&str>,
    t: Duration,
) -> Result<Option<String>, StepError> {
    let b = session
        .send(
            Command::GetBox {
                selector: target.to_string(),
            },
            t,
        )
        .await?;
    let b = b.get("box").unwrap_or(&b);
    let num = |k: &str| b.get(k).and_then(Value::as_f64).unwrap_or(0.0);
    let (x, y, w, h) = (num("x"), num("y"), num("width"), num("height"));
    if w * h == 0.0 {
        return Ok(None);
    }
    // Inside an iframe, agent-browser's box is in the frame's own viewport, as the frame's
    // elements measure themselves.
    // What the snapshot says the ref is: of elements sharing its box, the one it names; of
    // twins (its role and name too), the one at its place among the snapshot's elements of
    // that role and name (inside the snapshot's scope, when it had one).
    let key = target.trim_start_matches('@');
    let info = [&session.latest_refs, &session.user_refs]
        .into_iter()
        .flatten()
        .find_map(|t| {
            let i = t.refs.get(key)?;
            let place = place_among_likes(t, key, i).map(|(at, of)| json!({ "at": at, "of": of }));
            Some((i.clone(), place, t.scope.as_ref().map(|s| s.handle.clone())))
        });
    let (role, name, place, scope) = match &info {
        Some((i, place, scope)) => (Some(&i.role), Some(&i.name), place.clone(), scope.clone()),
        None => (None, None, None, None),
    };
    let js = call(
        &scripts::mark_box(frame),
        &[
            json!(frame),
            json!(x),
            json!(y),
            json!(w),
            json!(h),
            json!(role),
            json!(name),
            json!(place),
            json!(scope),
        ],
    );
    let v = session.eval(&js, t).await?;
    if let Some(twins) = v.get("twins").and_then(Value::as_u64) {
        return Err(cannot_tell(
            target,
            info.as_ref().map(|(i, _, _)| i),
            twins,
            &v,
        ));
    }
    let handle = v.as_str().map(|id| format!("[data-runner-sel=\"{id}\"]"));
    if let (Some(h), Some(f)) = (&handle, frame) {
        session.frame_of.insert(h.clone(), f.to_string());
    }
    Ok(handle)
}

/// The error of a ref whose element is one of `twins` elements sharing its box that runner
/// cannot tell apart (`v`: what the page said, `likes`: how many elements of the ref's role and
/// name it counted, where the snapshot showed `of`).
fn cannot_tell(target: &str, info: Option<&RefInfo>, twins: u64, v: &Value) -> StepError {
    let what = info.map_or(String::new(), |i| format!(" ({} \"{}\")", i.role, i.name));
    let counts = match (
        v.get("likes").and_then(Value::as_u64),
        v.get("of").and_then(Value::as_u64),
    ) {
        (Some(likes), Some(of)) => format!(
            ": the page has {likes} elements of its role and name where the snapshot showed {of}"
        ),
        _ => ": their role and name do not tell them apart on the page".to_string(),
    };
    StepError::new(
        ErrorKind::CommandFailed,
        format!(
            "ref {target}{what}: {twins} elements share its box, and which is its own cannot be told{counts}; select it by css or text"
        ),
    )
}
