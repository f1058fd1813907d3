//! Reads of the page as a whole: `snapshot` (the accessibility tree with element refs) and
//! `eval`. (`inspect` reads elements: see `page::inspect`.)

use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;

use crate::browser::driver::ref_table::{RefScope, RefTable};
use crate::browser::driver::session::Session;
use crate::browser::page::selector::resolve_one;
use crate::config::model::{SnapshotOptions, Toggle};
use crate::step::{ErrorKind, StepError};

/// `snapshot`: the accessibility tree; its refs become the ones later steps may use. A
/// snapshot of one element's subtree (`scope`, strict: one element) gives the refs it shows,
/// each found again inside that element when it is used (see `page::selector::refs`).
pub(crate) async fn snapshot(
    session: &mut Session,
    t: Toggle<SnapshotOptions>,
    deadline: Instant,
    timeout: Duration,
) -> Result<Value, StepError> {
    let mut read = crate::browser::SnapshotOptions::default();
    let mut scope: Option<RefScope> = None;
    if let Toggle::Options(o) = t {
        read.interactive = o.interactive == Some(true);
        read.compact = o.compact == Some(true);
        read.max_depth = o.depth.map(u64::from);
        if let Some(sel) = &o.scope {
            let r = resolve_one(session, sel, deadline).await?;
            if r.target.starts_with('@') {
                return Err(StepError::new(
                    ErrorKind::NotFound,
                    "snapshot `scope` takes a CSS or text selector, not a ref or role",
                ));
            }
            if let Some(f) = &r.frame {
                return Err(StepError::new(
                    ErrorKind::CommandFailed,
                    format!(
                        "snapshot `scope` {} is inside iframe `{f}`: agent-browser scopes a snapshot in the page's main document only; scope it to an element of the page, or find the frame's elements with selectors that name the frame (`frame`, roles too)",
                        r.matched
                    ),
                ));
            }
            read.selector = Some(r.target.clone());
            scope = Some(RefScope {
                handle: r.target,
                frame: r.frame,
                described: r.matched,
            });
        }
    }
    let data = session.snapshot(read, timeout).await?;
    let mut table: RefTable = session.latest_refs.clone().unwrap_or_default();
    if scope.is_some() {
        table.keep_shown();
        table.scope = scope;
    }
    // The row of each ref's element, for telling a re-render from a replacement later
    // (`refs::follow`); none kept when they cannot be read (a ref then follows as before).
    let keys: Vec<String> = table.refs.keys().cloned().collect();
    let frame = table.scope.as_ref().and_then(|s| s.frame.clone());
    if let Ok(Some(rows)) =
        crate::browser::page::selector::ref_contexts(session, &keys, frame.as_deref(), timeout)
            .await
    {
        table.contexts = keys
            .into_iter()
            .zip(rows)
            .filter_map(|(k, c)| c.filter(|c| !c.is_empty()).map(|c| (k, c)))
            .collect();
    }
    session.user_refs = Some(table.clone());
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

/// The most of an `eval`'s value runner keeps: as of an `exec`'s output.
const MAX_VALUE: usize = 1024 * 1024;

/// What the page does with an `eval`'s value before sending it: cuts a big one (a function
/// expression, called with the value).
const MEASURE: &str = include_str!("scripts/eval_value.js");

/// `eval`: a JavaScript expression's value, as JSON, kept up to [`MAX_VALUE`] bytes (past it,
/// `value` is its start, a string's or its JSON text's, and `truncated` is true: a check that
/// reads it fails, see `engine::cut`). A script that is one expression is measured and cut in
/// the page, so a value of any size costs runner no more than the part kept, and never goes
/// past the DevTools connection's message cap (which would break the connection: the browser's
/// failure); a script of statements (`let x = ...; x`) is sent as written and cut here.
pub(crate) async fn eval(
    session: &mut Session,
    js: &str,
    timeout: Duration,
) -> Result<Value, StepError> {
    let expression = js.trim_end().trim_end_matches(';');
    let measured = format!("({MEASURE}\n)((\n{expression}\n))");
    let (v, cut_in_page) = if session.compiles(&measured, timeout).await {
        let mut sent = session.eval(&measured, timeout).await?;
        match sent.get_mut("c").map(Value::take) {
            Some(start) => (start, true),
            None => (sent.get_mut("v").map_or(Value::Null, Value::take), false),
        }
    } else {
        (session.eval(js, timeout).await?, false)
    };
    let (v, cut) = cut_value(v, &session.masker);
    // A page's HTML (`outerHTML`) may show a secret split by markup: that markup is learned,
    // to be `***` wherever the value is shown, as `inspect`'s html is.
    session.masker.learn_markup_in(&v);
    Ok(json!({ "value": v, "truncated": cut || cut_in_page }))
}

/// `v` kept up to [`MAX_VALUE`] bytes of its JSON text: past it, the start of the string, or
/// of any other value's JSON text, leaving out a secret the cut would split (as an `exec`'s
/// output is cut), and true.
fn cut_value(v: Value, masker: &crate::step::Masker) -> (Value, bool) {
    let text = match v {
        Value::String(s) if s.len() > MAX_VALUE => s,
        Value::String(_) => return (v, false),
        other => {
            let text = serde_json::to_string(&other).unwrap_or_default();
            if text.len() <= MAX_VALUE {
                return (other, false);
            }
            text
        }
    };
    (
        Value::String(masker.kept_start(&text, MAX_VALUE, true).to_string()),
        true,
    )
}
