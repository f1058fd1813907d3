//! `inspect` (SPEC §4): elements' outerHTML pruned to a depth, with scripts, event handlers and
//! `javascript:` URLs removed, metadata, a few computed styles, under a size budget. All CSS
//! targets are read in one round trip to the page.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;

use super::selector::{Alt, alternatives, js_str};
use crate::browser::driver::command::{Command, SnapshotOptions};
use crate::browser::driver::session::Session;
use crate::config::duration::parse_size;
use crate::config::model::{InspectAction, InspectFormat, Selector, SelectorItem, Size};
use crate::step::{ErrorKind, StepError};

/// Default budget: 50 KB.
pub(crate) const DEFAULT_MAX_SIZE: u64 = 50 * 1024;

const JS: &str = r#"((targets, depth, budget, withStyles, format) => {
  const STYLES = ['display', 'visibility', 'position', 'color', 'background-color', 'font-size',
    'font-weight', 'width', 'height', 'margin', 'padding', 'border', 'opacity', 'z-index', 'overflow', 'cursor'];
  const SKIP = new Set(['SCRIPT', 'NOSCRIPT', 'TEMPLATE']);
  const URL_ATTRS = new Set(['href', 'src', 'action', 'formaction', 'xlink:href']);
  const cleanAttrs = (el, copy) => {
    for (const a of [...el.attributes]) {
      const n = a.name.toLowerCase();
      if (n.startsWith('on') || n === 'data-runner-sel') continue;
      if (URL_ATTRS.has(n) && /^\s*javascript:/i.test(a.value)) continue;
      copy.setAttribute(a.name, a.value);
    }
  };
  const prune = (el, d) => {
    const copy = document.createElement(el.tagName.toLowerCase());
    cleanAttrs(el, copy);
    let hidden = 0;
    for (const child of el.childNodes) {
      if (child.nodeType === Node.TEXT_NODE) { copy.appendChild(document.createTextNode(child.textContent)); continue; }
      if (child.nodeType !== Node.ELEMENT_NODE || SKIP.has(child.tagName)) continue;
      if (d > 0) copy.appendChild(prune(child, d - 1)); else hidden++;
    }
    if (hidden) copy.appendChild(document.createComment(` ${hidden} child element(s) not shown `));
    return copy;
  };
  const meta = el => {
    const attributes = {};
    for (const a of el.attributes) {
      const n = a.name.toLowerCase();
      if (!n.startsWith('on') && n !== 'data-runner-sel') attributes[a.name] = a.value;
    }
    return { tag: el.tagName.toLowerCase(), attributes, text: (el.innerText || '').replace(/\s+/g, ' ').trim().slice(0, 500), size: el.outerHTML.length };
  };
  let total = 0, truncated = false;
  const elements = [];
  for (const t of targets) {
    let el = null;
    const doc = t.frame ? (document.querySelector(t.frame) || {}).contentDocument : document;
    if (!doc) { elements.push({ target: t.name, error: 'frame ' + t.frame + ' is missing or shows a page of another origin' }); continue; }
    try { el = doc.querySelector(t.css); } catch (e) { elements.push({ target: t.name, error: 'invalid CSS selector' }); continue; }
    if (!el) { elements.push({ target: t.name, found: false }); continue; }
    let html = format === 'text' ? (el.innerText || '') : prune(el, depth).outerHTML;
    const left = Math.max(0, budget - total);
    if (html.length > left) { html = html.slice(0, left); truncated = true; }
    total += html.length;
    const entry = { target: t.name, found: true, html, metadata: meta(el), children: el.children.length };
    if (withStyles) {
      const cs = getComputedStyle(el); entry.styles = {};
      for (const k of STYLES) entry.styles[k] = cs.getPropertyValue(k);
    }
    elements.push(entry);
  }
  return { elements, total, truncated };
})"#;

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
    // Each entry of a target list is its own target (not a fallback list).
    let sels: Vec<Selector> = match &i.target {
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
        let alt = alternatives(sel).into_iter().next();
        let name = alt.as_ref().map_or_else(String::new, Alt::describe);
        let frame = alt.as_ref().and_then(Alt::frame).map(str::to_string);
        let css = match alt {
            Some(Alt::Css {
                css,
                nth: None,
                frame: _,
            }) => Some(css),
            // Refs, roles and picked matches have no CSS form: resolve them now and mark the
            // element.
            Some(_) => match super::selector::resolve_now(session, sel).await {
                Ok(Some(r)) if r.target.starts_with('@') => {
                    super::selector::mark(session, &r.target, r.frame.as_deref(), t).await?
                }
                Ok(Some(r)) => Some(r.target),
                Ok(None) => None,
                Err(e) => {
                    suggestions.push(e.message);
                    None
                }
            },
            None => None,
        };
        match css {
            Some(css) => targets.push(json!({ "name": name, "css": css, "frame": frame })),
            None => suggestions.push(format!("{name}: no element matches")),
        }
    }
    let call = format!(
        "{JS}({}, {depth}, {budget}, {}, {})",
        Value::Array(targets),
        i.include_styles.unwrap_or(false),
        js_str(match format {
            InspectFormat::Html | InspectFormat::Aria => "html",
            InspectFormat::Text => "text",
        })
    );
    let mut result = session.eval(&call, t).await?;
    let mut elements = result
        .get_mut("elements")
        .map_or(Value::Array(Vec::new()), Value::take);
    if matches!(format, InspectFormat::Aria)
        && let Value::Array(list) = &mut elements
    {
        // The accessibility subtree of each element, as the snapshot shows it.
        for e in list.iter_mut() {
            let Some(tag_sel) = e.get("target").and_then(Value::as_str).map(str::to_string) else {
                continue;
            };
            let css = tag_sel
                .strip_prefix("css `")
                .and_then(|s| s.strip_suffix('`'))
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
    }
    let empty = Vec::new();
    let list = elements.as_array().unwrap_or(&empty);
    for e in list {
        if e.get("found") == Some(&Value::Bool(false)) || e.get("error").is_some() {
            let name = e.get("target").and_then(Value::as_str).unwrap_or("?");
            let what = e
                .get("error")
                .and_then(Value::as_str)
                .unwrap_or("no element matches");
            suggestions.push(format!("{name}: {what}"));
        }
    }
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
        "total_size": result.get("total").cloned().unwrap_or(json!(0)),
        "truncated": result.get("truncated").cloned().unwrap_or(json!(false)),
        "suggestions": suggestions,
    }))
}
