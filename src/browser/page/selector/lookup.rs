//! CSS and text alternatives, looked up in the page's DOM (or an iframe's) by a page script
//! that puts runner's handle (`[data-runner-sel]`) on the element picked, so agent-browser can
//! be given exactly that element; and the errors of a look-up that cannot be made (a frame of
//! another origin, CSS the page cannot parse).

use std::time::Duration;

use serde_json::{Value, json};

use super::alternative::Alt;
use super::resolve::Found;
use crate::browser::driver::script::{bind, call};
use crate::browser::driver::session::Session;
use crate::browser::page::element_kind::ElementKind;
use crate::browser::page::scripts;
use crate::step::{ErrorKind, StepError};

/// Looks `alt` up in its document with `elements` (`scripts::CSS_ELEMENTS` or
/// `TEXT_ELEMENTS`, given `query`), marking the match `nth` picks; `None` when none is there.
pub(super) async fn in_document(
    session: &mut Session,
    alt: &Alt,
    elements: &str,
    nth: Option<i64>,
    query: Value,
    t: Duration,
) -> Result<Option<Found>, StepError> {
    let find = bind(
        scripts::FIND,
        &[scripts::FRAME_DOCUMENT, elements, scripts::MARK_PICKED],
    );
    let js = call(&find, &[json!(alt.frame()), json!(nth), query]);
    let v = session.eval(&js, t).await?;
    if v.get("foreign").and_then(Value::as_bool) == Some(true) {
        return Err(foreign_frame(alt.frame().unwrap_or_default()));
    }
    if v.get("invalid").and_then(Value::as_bool) == Some(true) {
        let Alt::Css { css, .. } = alt else {
            unreachable!("only CSS can be invalid")
        };
        return Err(invalid_css(css));
    }
    Ok(marked(session, alt, &v))
}

/// The element the look-up's answer `v` names by runner's handle, and what it says of the
/// matches; `None` when nothing matched.
fn marked(session: &mut Session, alt: &Alt, v: &Value) -> Option<Found> {
    let id = v.get("id").and_then(Value::as_str)?;
    let kind = v.get("kind").cloned().unwrap_or(Value::Null);
    let field = |k: &str| {
        kind.get(k)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let target = format!("[data-runner-sel=\"{id}\"]");
    if let Some(f) = alt.frame() {
        session.frame_of.insert(target.clone(), f.to_string());
    }
    Some(Found {
        target,
        count: v
            .get("count")
            .and_then(Value::as_u64)
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or(0),
        matches: v
            .get("matches")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default(),
        kind: ElementKind {
            tag: field("tag"),
            input_type: field("input_type"),
            editable: kind
                .get("editable")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            // An explicit widget role (`<div role=checkbox>`) says what the element is.
            role: field("role"),
        },
    })
}

/// Whether iframe `frame` shows a page of another origin (its document cannot be read).
pub(super) async fn frame_is_foreign(
    session: &mut Session,
    frame: &str,
    t: Duration,
) -> Result<bool, StepError> {
    let js = call(
        &bind(scripts::FRAME_IS_FOREIGN, &[scripts::FRAME_DOCUMENT]),
        &[json!(frame)],
    );
    Ok(session.eval(&js, t).await? == Value::Bool(true))
}

/// The error for a selector inside a frame of another origin.
pub(super) fn foreign_frame(frame: &str) -> StepError {
    StepError::new(
        ErrorKind::NotFound,
        format!(
            "frame `{frame}` shows a page of another origin: neither its document nor its accessibility tree can be read through agent-browser (0.41), so no selector reaches inside it; test that page on its own (open its URL)"
        ),
    )
}

/// The error for CSS the page cannot parse, with the runner form of Playwright-only syntax.
fn invalid_css(css: &str) -> StepError {
    let mut msg = format!("invalid CSS selector `{css}`");
    if let Some(hint) = crate::config::selector_hint(css) {
        msg.push_str(&format!("; {hint}"));
    }
    StepError::new(ErrorKind::NotFound, msg)
}
