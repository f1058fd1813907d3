//! `inspect` (SPEC §4): elements' outerHTML pruned to a depth, with scripts, event handlers and
//! `javascript:` URLs removed, metadata, a few computed styles, under a size budget. All CSS
//! targets are read in one round trip to the page.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;

use super::scripts;
use super::selector::alternatives;
use crate::browser::driver::command::{Command, SnapshotOptions};
use crate::browser::driver::script::{bind, call};
use crate::browser::driver::session::Session;
use crate::config::duration::parse_size;
use crate::config::model::{InspectAction, InspectFormat, Selector, SelectorItem, Size};
use crate::step::{ErrorKind, Masker, StepError};

/// Default budget: 50 KB.
pub(crate) const DEFAULT_MAX_SIZE: u64 = 50 * 1024;

/// Reads the targets' pruned HTML and metadata.
pub(crate) async fn inspect(
    session: &mut Session,
    i: &InspectAction,
    deadline: Instant,
) -> Result<Value, StepError> {
    let t = deadline
        .saturating_duration_since(Instant::now())
        .max(Duration::from_secs(2));
    let depth = i.depth.unwrap_or(2);
    let budget = match &i.max_size {
        None => DEFAULT_MAX_SIZE,
        Some(Size::Bytes(b)) => *b,
        Some(Size::Text(s)) => {
            parse_size(s).map_err(|e| StepError::new(ErrorKind::CommandFailed, e))?
        }
    };
    let format = i.format.unwrap_or(InspectFormat::Html);
    let (targets, mut suggestions) = css_targets(session, &i.target, t).await?;
    // The frames rule goes with the script only when a target is in an iframe.
    let frame = targets.iter().find_map(|t| t["frame"].as_str());
    let read = call(
        &bind(
            scripts::INSPECT,
            &[&scripts::frame_document(frame), &scripts::elements()],
        ),
        &[
            Value::Array(targets),
            json!(depth),
            json!(budget),
            json!(i.include_styles.unwrap_or(false)),
            json!(match format {
                InspectFormat::Html | InspectFormat::Aria => "html",
                InspectFormat::Text => "text",
            }),
        ],
    );
    let mut result = session.eval(&read, t).await?;
    let mut elements = result
        .get_mut("elements")
        .map_or(Value::Array(Vec::new()), Value::take);
    if let Value::Array(list) = &mut elements {
        cut_masked(&session.masker, list);
        if matches!(format, InspectFormat::Aria) {
            aria(session, list, t).await?;
        }
    }
    let empty = Vec::new();
    let list = elements.as_array().unwrap_or(&empty);
    suggestions.extend(list.iter().filter_map(not_read));
    let join = |key: &str| {
        list.iter()
            .filter_map(|e| e.get(key).and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let text = list
        .iter()
        .filter_map(|e| e.pointer("/metadata/text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("\n");
    if list
        .iter()
        .all(|e| e.get("found") != Some(&Value::Bool(true)))
    {
        return Err(StepError::new(
            ErrorKind::NotFound,
            format!("inspect found no element: {}", suggestions.join("; ")),
        ));
    }
    Ok(json!({
        "html": join("html"),
        "text": text,
        "elements": elements,
        "count": result.get("count").cloned().unwrap_or(json!(0)),
        "total_size": result.get("total").cloned().unwrap_or(json!(0)),
        "truncated": result.get("truncated").cloned().unwrap_or(json!(false)),
        "suggestions": suggestions,
    }))
}

/// The most characters of an element's text its metadata holds.
const MAX_TEXT: usize = 500;

/// Each element's texts as the page sent them whole, or up to a bound (`inspect.js`), kept as
/// data (masked where they are shown, not here): its metadata's text on one line and cut at
/// `MAX_TEXT` characters ([`one_line`]); HTML the budget cut ends before any secret the cut
/// could split, so what is shown masked shows no secret's head. A secret its HTML shows split
/// by markup is learned as that markup ([`Masker::learn_markup`]): it is `***` where shown.
fn cut_masked(masker: &Masker, list: &mut [Value]) {
    for e in list {
        let Some(o) = e.as_object_mut() else {
            continue;
        };
        let cut = o.remove("cut") == Some(Value::Bool(true));
        if let Some(Value::String(html)) = o.get_mut("html") {
            if cut {
                html.truncate(masker.kept_start(html, html.len(), true).len());
            }
            masker.learn_markup(html);
        }
        if let Some(Value::Object(meta)) = o.get_mut("metadata") {
            let more = meta.remove("text_more") == Some(Value::Bool(true));
            if let Some(Value::String(text)) = meta.get_mut("text") {
                *text = one_line(masker, text, more);
            }
        }
    }
}

/// An element's text (only the start of a longer one when `more`) on one line, cut at
/// `MAX_TEXT` characters (an `…` ends a text cut). Each cut ends before any secret it could
/// split ([`Masker::settled`]). A secret that the join to one line changes (a run of white
/// space inside it) would no longer be found where the text is shown: such a text is kept as
/// [`Masker::mask_cut_held`] makes it, masked before it is joined.
fn one_line(masker: &Masker, text: &str, more: bool) -> String {
    let held = masker.kept_start(text, text.len(), more);
    let join = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    let line = join(held);
    if masker.mask(&line) != join(&masker.mask(held)) {
        return masker.mask_cut_held(text, more, true, MAX_TEXT);
    }
    match line.char_indices().nth(MAX_TEXT) {
        Some((i, _)) => format!("{}…", masker.kept_start(&line, i, true)),
        None if more => format!("{line}…"),
        None => line,
    }
}

/// What is said of an element the page script did not read: `target: why`.
fn not_read(e: &Value) -> Option<String> {
    if e.get("found") == Some(&Value::Bool(false)) || e.get("error").is_some() {
        let name = e.get("target").and_then(Value::as_str).unwrap_or("?");
        let what = e
            .get("error")
            .and_then(Value::as_str)
            .unwrap_or("no element matches");
        return Some(format!("{name}: {what}"));
    }
    None
}

/// The targets as the page script reads them (`{ name, frame, scope, level }`), and what is
/// said of those that match nothing. Each entry of a target list is its own target (not a
/// fallback list). Levels found in the DOM (CSS, text, label, ...) are read as written, every
/// match (reads are not strict) inside the element their `within` finds (`scope`, a handle);
/// refs and roles have no DOM form: they are resolved now and marked.
async fn css_targets(
    session: &mut Session,
    target: &Selector,
    t: Duration,
) -> Result<(Vec<Value>, Vec<String>), StepError> {
    let sels: Vec<Selector> = match target {
        Selector::List(items) => items
            .iter()
            .map(|it| match it {
                SelectorItem::String(s) => Selector::String(s.clone()),
                SelectorItem::Object(o) => Selector::Object(o.clone()),
            })
            .collect(),
        other => vec![other.clone()],
    };
    let mut targets = Vec::new();
    let mut suggestions = Vec::new();
    for sel in &sels {
        let Some(alt) = alternatives(sel).into_iter().next() else {
            continue;
        };
        let name = alt.describe();
        let frame = alt.frame().map(str::to_string);
        let target = |scope: Option<String>, level: Value| json!({ "name": name, "frame": frame, "scope": scope, "level": level });
        let testid = session.testid().to_string();
        if let Some(level) = alt.level_json(&testid) {
            // Every match inside the one element its `within` finds (strict, as everywhere).
            match super::selector::within_handle(session, &alt, t).await {
                Ok(Some(scope)) => targets.push(target(scope, level)),
                Ok(None) => suggestions.push(format!("{name}: no element matches")),
                Err(e) => suggestions.push(e.message),
            }
            continue;
        }
        match super::selector::resolve_now(session, sel).await {
            Ok(Some(r)) => {
                let handle = if r.target.starts_with('@') {
                    super::selector::mark(session, &r.target, r.frame.as_deref(), t).await?
                } else {
                    Some(r.target)
                };
                match handle {
                    Some(css) => {
                        let level = json!({ "kind": "css", "css": css, "text": null, "exact": false, "nth": null });
                        targets.push(target(None, level));
                    }
                    None => suggestions.push(format!("{name}: no element matches")),
                }
            }
            Ok(None) => suggestions.push(format!("{name}: no element matches")),
            Err(e) => suggestions.push(e.message),
        }
    }
    Ok((targets, suggestions))
}

/// `format: aria`: each CSS target's accessibility subtree, as the snapshot shows it, in place
/// of its HTML.
async fn aria(session: &mut Session, list: &mut [Value], t: Duration) -> Result<(), StepError> {
    for e in list.iter_mut() {
        let Some(tag_sel) = e.get("target").and_then(Value::as_str).map(str::to_string) else {
            continue;
        };
        // A target that is one CSS selector (not one with a text, a `within`, a frame).
        let css = tag_sel
            .strip_prefix("css `")
            .and_then(|s| s.strip_suffix('`'))
            .filter(|c| !c.contains('`'))
            .map(str::to_string);
        if let Some(css) = css {
            let scoped = SnapshotOptions {
                selector: Some(css),
                ..SnapshotOptions::default()
            };
            let data = session.send(Command::Snapshot(scoped), t).await?;
            if let Some(o) = e.as_object_mut() {
                o.insert(
                    "html".into(),
                    data.get("snapshot").cloned().unwrap_or(Value::Null),
                );
            }
        }
    }
    Ok(())
}
