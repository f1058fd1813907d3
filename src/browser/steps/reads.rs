//! Reads of the page as a whole: `snapshot` (the accessibility tree with element refs) and
//! `eval`. (`inspect` reads elements: see `page::inspect`.)

use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;

use crate::browser::driver::session::{RefTable, Session};
use crate::browser::page::selector::resolve;
use crate::config::model::{SnapshotOptions, Toggle};
use crate::step::{ErrorKind, StepError};

/// `snapshot`: the accessibility tree; its refs become the ones later steps may use.
pub(crate) async fn snapshot(
    session: &mut Session,
    t: Toggle<SnapshotOptions>,
    deadline: Instant,
    timeout: Duration,
) -> Result<Value, StepError> {
    let mut read = crate::browser::SnapshotOptions::default();
    if let Toggle::Options(o) = t {
        read.interactive = o.interactive == Some(true);
        read.compact = o.compact == Some(true);
        read.max_depth = o.depth.map(u64::from);
        if let Some(scope) = &o.scope {
            let r = resolve(session, scope, deadline).await?;
            if r.target.starts_with('@') {
                return Err(StepError::new(
                    ErrorKind::NotFound,
                    "snapshot `scope` takes a CSS or text selector, not a ref or role",
                ));
            }
            read.selector = Some(r.target);
        }
    }
    let data = session.snapshot(read, timeout).await?;
    session.user_refs.clone_from(&session.latest_refs);
    let table: RefTable = session.user_refs.clone().unwrap_or_default();
    let url = session
        .document(timeout)
        .await?
        .split_once(' ')
        .map(|(_, u)| u.to_string())
        .unwrap_or_default();
    Ok(json!({
        "text": data.get("snapshot").cloned().unwrap_or(Value::String(String::new())),
        "refs": table.refs,
        "url": url,
    }))
}

/// `eval`: a JavaScript expression's value, as JSON.
pub(crate) async fn eval(
    session: &mut Session,
    js: &str,
    timeout: Duration,
) -> Result<Value, StepError> {
    let v = session.eval(js, timeout).await?;
    Ok(json!({ "value": v }))
}
