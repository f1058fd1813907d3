//! ElementSelector resolution (SPEC §3.2): a selector becomes something agent-browser accepts
//! (`@e5` or CSS). Role and name mean what the accessibility snapshot shows; refs from before a
//! navigation are refused; a miss lists up to 5 similar things that do exist.

use std::time::Duration;

use serde_json::Value;
use tokio::time::Instant;

use super::adapter::RefInfo;
use super::session::Session;
use crate::config::model::{Selector, SelectorItem, SelectorObject};
use crate::step::{ErrorKind, StepError};

/// How often a selector is re-tried while waiting for the element.
const POLL: Duration = Duration::from_millis(100);

/// A resolved element.
#[derive(Debug, Clone)]
pub(crate) struct Resolved {
    /// What agent-browser gets: `@e5` or a CSS selector.
    pub(crate) target: String,
    /// Which alternative matched, as the user wrote it.
    pub(crate) matched: String,
    /// Its position in a fallback list.
    pub(crate) index: usize,
}

/// One alternative of a selector.
#[derive(Debug, Clone)]
pub(crate) enum Alt {
    Ref(String),
    Css(String),
    Role {
        role: String,
        name: Option<String>,
        exact: bool,
    },
    Text {
        text: String,
        tag: Option<String>,
        exact: bool,
    },
}

impl Alt {
    /// How the user wrote it (for reports).
    pub(crate) fn describe(&self) -> String {
        match self {
            Alt::Ref(r) => format!("@{r}"),
            Alt::Css(c) => format!("css `{c}`"),
            Alt::Role {
                role,
                name: Some(n),
                ..
            } => format!("{role} \"{n}\""),
            Alt::Role {
                role, name: None, ..
            } => role.clone(),
            Alt::Text {
                text, tag: Some(t), ..
            } => format!("<{t}> with text \"{text}\""),
            Alt::Text {
                text, tag: None, ..
            } => format!("text \"{text}\""),
        }
    }
}

fn from_object(o: &SelectorObject) -> Alt {
    let exact = o.exact.unwrap_or(false);
    if let Some(r) = &o.reference {
        Alt::Ref(r.trim_start_matches('@').to_string())
    } else if let Some(c) = &o.css {
        Alt::Css(c.clone())
    } else if let Some(role) = &o.role {
        Alt::Role {
            role: role.clone(),
            name: o.text.clone(),
            exact,
        }
    } else {
        Alt::Text {
            text: o.text.clone().unwrap_or_default(),
            tag: o.tag.clone(),
            exact,
        }
    }
}

fn from_string(s: &str) -> Alt {
    match s.strip_prefix('@') {
        Some(r) if !r.is_empty() && r.chars().all(|c| c.is_ascii_alphanumeric()) => {
            Alt::Ref(r.to_string())
        }
        _ => Alt::Css(s.to_string()),
    }
}

/// The alternatives of a selector, in order.
pub(crate) fn alternatives(sel: &Selector) -> Vec<Alt> {
    match sel {
        Selector::String(s) => vec![from_string(s)],
        Selector::Object(o) => vec![from_object(o)],
        Selector::List(items) => items
            .iter()
            .map(|i| match i {
                SelectorItem::String(s) => from_string(s),
                SelectorItem::Object(o) => from_object(o),
            })
            .collect(),
    }
}

/// A selector as the user reads it: its alternatives joined with ` | `.
pub(crate) fn describe_selector(sel: &Selector) -> String {
    alternatives(sel)
        .iter()
        .map(Alt::describe)
        .collect::<Vec<_>>()
        .join(" | ")
}

/// Resolves a selector, waiting up to `deadline` for an element to match.
pub(crate) async fn resolve(
    session: &mut Session,
    sel: &Selector,
    deadline: Instant,
) -> Result<Resolved, StepError> {
    let alts = alternatives(sel);
    loop {
        for (index, alt) in alts.iter().enumerate() {
            if let Some(target) = try_once(session, alt, deadline).await? {
                return Ok(Resolved {
                    target,
                    matched: alt.describe(),
                    index,
                });
            }
        }
        if Instant::now() + POLL >= deadline {
            break;
        }
        tokio::time::sleep(POLL).await;
    }
    Err(miss(session, &alts).await)
}

/// Resolves once, without waiting; `None` when nothing matches now.
pub(crate) async fn resolve_now(
    session: &mut Session,
    sel: &Selector,
) -> Result<Option<Resolved>, StepError> {
    let deadline = Instant::now() + Duration::from_secs(10);
    for (index, alt) in alternatives(sel).iter().enumerate() {
        if let Some(target) = try_once(session, alt, deadline).await? {
            return Ok(Some(Resolved {
                target,
                matched: alt.describe(),
                index,
            }));
        }
    }
    Ok(None)
}

fn left(deadline: Instant) -> Duration {
    deadline
        .saturating_duration_since(Instant::now())
        .max(Duration::from_secs(2))
}

/// How many elements match `css`; invalid CSS is an error (agent-browser's reads would quietly
/// return nothing).
pub(crate) async fn css_count(
    session: &mut Session,
    css: &str,
    t: Duration,
) -> Result<i64, StepError> {
    let js = format!(
        "(() => {{ try {{ return document.querySelectorAll({}).length }} catch (e) {{ return -1 }} }})()",
        js_str(css)
    );
    let n = session.eval(&js, t).await?.as_i64().unwrap_or(0);
    if n < 0 {
        return Err(StepError::new(
            ErrorKind::NotFound,
            format!("invalid CSS selector `{css}`"),
        ));
    }
    Ok(n)
}

/// A JSON string literal for embedding in JavaScript.
pub(crate) fn js_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

async fn try_once(
    session: &mut Session,
    alt: &Alt,
    deadline: Instant,
) -> Result<Option<String>, StepError> {
    let t = left(deadline);
    match alt {
        Alt::Ref(r) => resolve_ref(session, r, t).await.map(Some),
        Alt::Css(css) => Ok((css_count(session, css, t).await? > 0).then(|| css.clone())),
        Alt::Role { role, name, exact } => {
            let refs = session.fresh_refs(t).await?;
            Ok(refs
                .iter()
                .find(|(_, info)| role_matches(info, role, name.as_deref(), *exact))
                .map(|(k, _)| format!("@{k}")))
        }
        Alt::Text { text, tag, exact } => {
            let js = format!(
                r#"(() => {{
  const want = {want}, tag = {tag}, exact = {exact};
  const norm = s => (s || '').replace(/\s+/g, ' ').trim();
  const hit = el => {{
    const t = norm(el.innerText);
    return exact ? t === want : t.toLowerCase().includes(want.toLowerCase());
  }};
  const all = [...document.querySelectorAll(tag || 'body *')].filter(el => el.offsetParent !== null || el.getClientRects().length);
  const found = all.filter(hit);
  const deepest = found.filter(el => !found.some(o => o !== el && el.contains(o)));
  const el = deepest[0];
  if (!el) return null;
  if (!el.dataset.runnerSel) el.dataset.runnerSel = Math.random().toString(36).slice(2);
  return el.dataset.runnerSel;
}})()"#,
                want = js_str(text),
                tag = tag.as_deref().map_or("null".to_string(), js_str),
                exact = exact
            );
            let v = session.eval(&js, t).await?;
            Ok(v.as_str().map(|id| format!("[data-runner-sel=\"{id}\"]")))
        }
    }
}

/// Role and accessible name as the snapshot shows them: role equal, name a case-insensitive
/// substring (or equal with `exact`).
pub(crate) fn role_matches(info: &RefInfo, role: &str, name: Option<&str>, exact: bool) -> bool {
    if !info.role.eq_ignore_ascii_case(role) {
        return false;
    }
    match name {
        None => true,
        Some(n) if exact => info.name == n,
        Some(n) => info.name.to_lowercase().contains(&n.to_lowercase()),
    }
}

async fn resolve_ref(session: &mut Session, r: &str, t: Duration) -> Result<String, StepError> {
    let Some(table) = session.user_refs.clone() else {
        return Err(StepError::new(
            ErrorKind::NotFound,
            format!("ref {r} used before any snapshot; take a snapshot first"),
        ));
    };
    let Some(info) = table.refs.get(r).cloned() else {
        return Err(StepError::new(
            ErrorKind::NotFound,
            format!("ref {r} is not in the last snapshot"),
        ));
    };
    let now = session.document(t).await?;
    if now != table.document {
        return Err(StepError::new(
            ErrorKind::NotFound,
            format!("ref {r} is from an earlier page; take a new snapshot"),
        ));
    }
    // A snapshot taken since (by a role selector) may have renumbered the refs: follow the
    // element by its role and name.
    if let Some(latest) = &session.latest_refs
        && latest.document == table.document
        && latest.refs.get(r) != Some(&info)
    {
        return latest
            .refs
            .iter()
            .find(|(_, i)| **i == info)
            .map(|(k, _)| format!("@{k}"))
            .ok_or_else(|| {
                StepError::new(
                    ErrorKind::NotFound,
                    format!(
                        "ref {r} ({} \"{}\") is gone from the page; take a new snapshot",
                        info.role, info.name
                    ),
                )
            });
    }
    Ok(format!("@{r}"))
}

/// The `not_found` error for a selector, with up to 5 similar things that exist.
async fn miss(session: &mut Session, alts: &[Alt]) -> StepError {
    let t = Duration::from_secs(5);
    let wanted: Vec<String> = alts.iter().map(Alt::describe).collect();
    let mut suggestions: Vec<(f64, String)> = Vec::new();
    let refs = match session.snapshot(&[], t).await {
        Ok(_) => session
            .latest_refs
            .as_ref()
            .map(|r| r.refs.clone())
            .unwrap_or_default(),
        Err(_) => std::collections::BTreeMap::default(),
    };
    for alt in alts {
        match alt {
            Alt::Role { role, name, .. } => {
                for info in refs.values() {
                    let role_sim = strsim::normalized_levenshtein(&info.role, role);
                    let name_sim = name.as_deref().map_or(0.5, |n| {
                        strsim::normalized_levenshtein(&info.name.to_lowercase(), &n.to_lowercase())
                    });
                    suggestions.push((
                        role_sim * 0.4 + name_sim * 0.6,
                        format!("{{ role: {}, text: {} }}", info.role, info.name),
                    ));
                }
            }
            Alt::Text { text, .. } => {
                for info in refs.values() {
                    let sim = strsim::normalized_levenshtein(
                        &info.name.to_lowercase(),
                        &text.to_lowercase(),
                    );
                    suggestions.push((
                        sim,
                        format!("{{ role: {}, text: {} }}", info.role, info.name),
                    ));
                }
            }
            Alt::Ref(_) => {
                for (k, info) in &refs {
                    suggestions.push((0.1, format!("@{k} ({} \"{}\")", info.role, info.name)));
                }
            }
            Alt::Css(css) => {
                let js = r#"(() => { const out = new Set();
  for (const el of document.querySelectorAll('body *')) {
    if (el.id) out.add('#' + el.id);
    for (const c of el.classList) out.add('.' + c);
    out.add(el.tagName.toLowerCase());
    if (el.name) out.add(el.tagName.toLowerCase() + '[name="' + el.name + '"]');
  }
  return [...out].slice(0, 500); })()"#;
                if let Ok(Value::Array(cands)) = session.eval(js, t).await {
                    for c in cands.iter().filter_map(Value::as_str) {
                        let sim = strsim::normalized_levenshtein(c, css);
                        suggestions.push((sim, format!("css: \"{c}\"")));
                    }
                }
            }
        }
    }
    suggestions.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap_or(std::cmp::Ordering::Equal));
    let mut seen = std::collections::HashSet::new();
    let top: Vec<String> = suggestions
        .into_iter()
        .filter(|(s, _)| *s > 0.05)
        .map(|(_, t)| t)
        .filter(|t| seen.insert(t.clone()))
        .take(5)
        .collect();
    let mut msg = format!("no element matches {}", wanted.join(", or "));
    if !top.is_empty() {
        msg.push_str(&format!(
            "; similar elements on the page: {}",
            top.join("; ")
        ));
    }
    StepError::new(ErrorKind::NotFound, msg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_refs_or_css() {
        assert!(matches!(from_string("@e5"), Alt::Ref(r) if r == "e5"));
        assert!(matches!(from_string("#login > button"), Alt::Css(_)));
        assert!(matches!(from_string("@media"), Alt::Ref(_)));
    }

    #[test]
    fn roles_match_like_the_snapshot() {
        let info = RefInfo {
            role: "button".into(),
            name: "Sign in".into(),
        };
        assert!(role_matches(&info, "button", Some("sign"), false));
        assert!(!role_matches(&info, "button", Some("sign"), true));
        assert!(role_matches(&info, "button", Some("Sign in"), true));
        assert!(!role_matches(&info, "link", None, false));
    }
}
