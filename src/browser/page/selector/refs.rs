//! Alternatives answered from the accessibility snapshot: a ref (`@e5`) from the user's last
//! snapshot, refused when it is from an earlier page, followed when a later snapshot renumbered
//! it; and a role with an accessible name, looked up in a snapshot taken now (the page's or an
//! iframe's), inside the element a `within` found when it has one.

use std::time::Duration;

use serde_json::{Value, json};

use super::alternative::{Alt, Find};
use super::found::Found;
use super::lookup::{foreign_frame, frame_is_foreign};
use super::text::normalize;
use crate::browser::driver::adapter::{RefInfo, ref_number};
use crate::browser::driver::command::Command;
use crate::browser::driver::script::{bind, call};
use crate::browser::driver::session::Session;
use crate::browser::page::element_kind::ElementKind;
use crate::browser::page::scripts;
use crate::step::{ErrorKind, StepError};

/// A ref alternative (`@e5`): the element of the user's last snapshot, still on the page;
/// `None` when it is not there now. agent-browser finds a ref's element again by its role and
/// name, so one a re-render replaced with its like is found; one that is gone (removed, or
/// renamed) matches nothing, as a CSS selector that matches nothing: `hidden` holds, an action
/// waits for it.
pub(super) async fn by_ref(
    session: &mut Session,
    r: &str,
    t: Duration,
) -> Result<Option<Found>, StepError> {
    let target = resolve_ref(session, r, t).await?;
    let selector = target.clone();
    match session.send(Command::GetBox { selector }, t).await {
        Err(e) if e.message.contains(GONE) => return Ok(None),
        Err(e) => return Err(e),
        Ok(_) => {}
    }
    let role = session
        .user_refs
        .as_ref()
        .and_then(|tbl| tbl.refs.get(r))
        .map(|i| (i.role.clone(), format!("{} \"{}\"", i.role, i.name)))
        .unwrap_or_default();
    Ok(Some(Found {
        target,
        count: 1,
        matches: vec![role.1],
        kind: ElementKind {
            role: role.0,
            ..ElementKind::default()
        },
        read: None,
    }))
}

/// What agent-browser says of a ref whose element (by its role and name) is not on the page.
const GONE: &str = "Could not locate element with role=";

/// A role level: the elements of a snapshot taken now (of its iframe, when it names one) with
/// that role and name, inside the element runner's handle `scope` names when given; `None`
/// when none is, or none is the one its `nth` picks.
pub(super) async fn by_role(
    session: &mut Session,
    level: &Alt,
    scope: Option<&str>,
    t: Duration,
) -> Result<Option<Found>, StepError> {
    let Find::Role { role, name, exact } = &level.find else {
        return Ok(None);
    };
    let frame = level.frame();
    let refs = match frame {
        None => session.fresh_refs(t).await?,
        // Asked before the frame's tree is read: a browser that renders a frame of
        // another origin in the page's own process (the headless shell) lets
        // agent-browser read its tree, but not act on it (a click misses it).
        Some(f) if frame_is_foreign(session, f, t).await? => return Err(foreign_frame(f)),
        Some(f) => session.frame_refs(f, t).await?,
    };
    let mut hits: Vec<(&String, &RefInfo)> = refs
        .iter()
        .filter(|(_, info)| role_matches(info, role, name.as_deref(), *exact))
        .collect();
    // Refs are numbered in document order (e2 before e10): `nth` counts in that order.
    hits.sort_by_key(|(k, _)| ref_number(k));
    if let Some(scope) = scope {
        let keys: Vec<String> = hits.iter().map(|(k, _)| (*k).clone()).collect();
        let Some(inside) = inside(session, &keys, frame, scope, t).await? else {
            return Ok(None);
        };
        let mut flags = inside.into_iter();
        hits.retain(|_| flags.next().unwrap_or(false));
    }
    let Some(i) = pick(level.nth, hits.len()) else {
        return Ok(None);
    };
    Ok(Some(Found {
        target: format!("@{}", hits[i].0),
        count: hits.len(),
        matches: hits
            .iter()
            .take(5)
            .map(|(k, info)| format!("{} \"{}\" (@{k})", info.role, info.name))
            .collect(),
        kind: ElementKind {
            role: hits[i].1.role.clone(),
            ..ElementKind::default()
        },
        read: None,
    }))
}

/// Which of the refs `keys` stand for elements inside the element runner's handle `scope`
/// names: their boxes (one batch to agent-browser), then one page call that finds the element
/// of each box and asks whether the scope holds it. A scoped snapshot would not do: its refs
/// are found again by role and name in the whole page (the first "Toggle" of the list, not the
/// one inside the scope). `None` when the page changed meanwhile (an element gone).
async fn inside(
    session: &mut Session,
    keys: &[String],
    frame: Option<&str>,
    scope: &str,
    t: Duration,
) -> Result<Option<Vec<bool>>, StepError> {
    if keys.is_empty() {
        return Ok(Some(Vec::new()));
    }
    let boxes = keys
        .iter()
        .map(|k| Command::GetBox {
            selector: format!("@{k}"),
        })
        .collect();
    let boxes = match session.send_all(boxes, t).await {
        Ok(b) => b,
        Err(e) if e.message.contains(GONE) => return Ok(None),
        Err(e) => return Err(e),
    };
    let boxes: Vec<Value> = boxes
        .iter()
        .map(|b| b.get("box").unwrap_or(b).clone())
        .collect();
    let js = call(
        &bind(scripts::IN_SCOPE, &[scripts::FRAME_DOCUMENT]),
        &[json!(frame), json!(scope), Value::Array(boxes)],
    );
    let v = session.eval(&js, t).await?;
    Ok(v.as_array()
        .map(|a| a.iter().map(|b| b.as_bool() == Some(true)).collect()))
}

/// The index `nth` names among `count` matches (negative counts from the end).
fn pick(nth: Option<i64>, count: usize) -> Option<usize> {
    let n = nth.unwrap_or(0);
    let count = i64::try_from(count).ok()?;
    let i = if n < 0 { count + n } else { n };
    (0..count)
        .contains(&i)
        .then(|| usize::try_from(i).ok())
        .flatten()
}

/// Role and accessible name as the snapshot shows them: role equal, name a case-insensitive
/// substring (or equal with `exact`), both whitespace-normalised (`normalize`).
pub(crate) fn role_matches(info: &RefInfo, role: &str, name: Option<&str>, exact: bool) -> bool {
    if !info.role.eq_ignore_ascii_case(role) {
        return false;
    }
    let (have, want) = (normalize(&info.name), name.map(normalize));
    match want {
        None => true,
        Some(n) if exact => have == n,
        Some(n) => have.to_lowercase().contains(&n.to_lowercase()),
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
        // The refs nearest in number are the elements around where it would be.
        let want = ref_number(r);
        let mut near: Vec<(&String, &RefInfo)> = table.refs.iter().collect();
        near.sort_by_key(|(k, _)| ref_number(k).abs_diff(want));
        let listed: Vec<String> = near
            .iter()
            .take(5)
            .map(|(k, i)| format!("@{k} ({} \"{}\")", i.role, i.name))
            .collect();
        let mut msg = format!("ref {r} is not in the last snapshot");
        if !listed.is_empty() {
            msg.push_str(&format!("; the closest refs it has: {}", listed.join(", ")));
        }
        return Err(StepError::new(ErrorKind::NotFound, msg));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nth_counts_from_zero_and_from_the_end() {
        assert_eq!(pick(None, 3), Some(0));
        assert_eq!(pick(Some(2), 3), Some(2));
        assert_eq!(pick(Some(-1), 3), Some(2));
        assert_eq!(pick(Some(3), 3), None);
        assert_eq!(pick(Some(-4), 3), None);
        assert_eq!(pick(None, 0), None);
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
        let nbsp = RefInfo {
            role: "link".into(),
            name: "price\u{a0}\u{25bc}".into(),
        };
        assert!(role_matches(&nbsp, "link", Some("price \u{25bc}"), true));
        assert!(role_matches(&nbsp, "link", Some("Price\n \u{25bc}"), false));
    }
}
