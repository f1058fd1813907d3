//! Runner's handle (`[data-runner-sel]`) put on the element of a ref (`@e5`), found by its box:
//! what lets a page script reach an element found through the accessibility snapshot (a script
//! about it, a `within` around other levels).

use std::time::Duration;

use serde_json::{Value, json};

use crate::browser::driver::command::Command;
use crate::browser::driver::script::call;
use crate::browser::driver::session::Session;
use crate::browser::page::scripts;
use crate::step::StepError;

/// The element a ref (`@e5`) stands for, marked with runner's handle (`[data-runner-sel]`):
/// of the elements whose box is the box agent-browser gives for the ref (viewport coordinates,
/// within a pixel), the one whose role and name are the snapshot's for it, else the innermost. `None` when the ref has no size or no element has that box:
/// never another element in its place.
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
    // What the snapshot says the ref is: of elements sharing its box, the one it names.
    let key = target.trim_start_matches('@');
    let info = [&session.latest_refs, &session.user_refs]
        .into_iter()
        .flatten()
        .find_map(|t| t.refs.get(key).cloned());
    let (role, name) = info.map_or((None, None), |i| (Some(i.role), Some(i.name)));
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
        ],
    );
    let v = session.eval(&js, t).await?;
    let handle = v.as_str().map(|id| format!("[data-runner-sel=\"{id}\"]"));
    if let (Some(h), Some(f)) = (&handle, frame) {
        session.frame_of.insert(h.clone(), f.to_string());
    }
    Ok(handle)
}
