//! A `<label>` as the target of `check`, `uncheck` or `fill`: the action is meant for its
//! control (its `for=`, or the control it wraps), as Playwright's actions on a label are.

use serde_json::Value;

use super::element_kind::ElementKind;
use super::scripts;
use super::selector::{Resolved, element_eval};
use crate::browser::driver::script::bind;
use crate::browser::driver::session::Session;

/// The actions that act on a label's control rather than on the label.
const ON_CONTROL: [&str; 3] = ["check", "uncheck", "fill"];

/// `r`, or, when `command` acts on a label's control and `r` is a `<label>` that labels one,
/// that control (marked with runner's handle, named as the user named the label). A label that
/// labels nothing stays itself, for `fits` to refuse.
pub(crate) async fn control_of(
    session: &mut Session,
    command: &str,
    r: Resolved,
) -> Result<Resolved, crate::step::StepError> {
    if !ON_CONTROL.contains(&command) || r.kind.tag != "label" || !r.kind.role.is_empty() {
        return Ok(r);
    }
    let script = bind(scripts::LABEL_CONTROL, &[&scripts::mark_picked()]);
    let Some(v) = element_eval(session, &r, &script, &[]).await? else {
        return Ok(r);
    };
    let Some(id) = v.get("id").and_then(Value::as_str) else {
        return Ok(r);
    };
    let kind = ElementKind::from_page(v.get("kind").unwrap_or(&Value::Null));
    let target = format!("[data-runner-sel=\"{id}\"]");
    if let Some(f) = &r.frame {
        session.frame_of.insert(target.clone(), f.clone());
    }
    Ok(Resolved {
        target,
        matched: format!("the control of {}", r.matched),
        kind,
        ..r
    })
}
