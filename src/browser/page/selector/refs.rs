//! Alternatives answered from the accessibility snapshot: a ref (`@e5`) from the user's last
//! snapshot, refused when it is from an earlier page, found inside its snapshot's scope when
//! the snapshot had one, followed to its like in its place when its element was replaced; and
//! a role with an accessible name, looked up in a snapshot taken now (the page's or an
//! iframe's), in document order, inside the element a `within` found when it has one: what a
//! ref follows, and a role level when runner has no session of its own on the tab (see
//! `ax_roles`, which answers role levels from the browser's accessibility tree).

use std::time::Duration;

use serde_json::{Value, json};

use super::alternative::{Alt, Find};
use super::found::Found;
use super::lookup::frame_ready;
use super::normalize;
use crate::browser::driver::adapter::{RefInfo, ref_number};
use crate::browser::driver::command::Command;
use crate::browser::driver::ref_table::{RefScope, RefTable};
use crate::browser::driver::script::call;
use crate::browser::driver::session::Session;
use crate::browser::page::element_kind::ElementKind;
use crate::browser::page::scripts;
use crate::step::{ErrorKind, StepError};

/// A ref alternative (`@e5`): the element of the user's last snapshot, still on the page;
/// `None` when it is not there now. While its element lives, agent-browser finds it by the ref
/// (a scoped snapshot's ref only inside the scope's element). Once it is gone (a re-render
/// replaced it), the ref follows its like in its place (`follow`): removed, it matches nothing
/// (as a CSS selector that matches nothing: `hidden` holds, an action waits for it).
pub(super) async fn by_ref(
    session: &mut Session,
    r: &str,
    t: Duration,
) -> Result<Option<Found>, StepError> {
    let (table, info) = user_ref(session, r, t).await?;
    // A snapshot taken since (by a role selector) that shows another element under this
    // ref's number: the browser's ref now names that one.
    let renumbered = session
        .latest_refs
        .as_ref()
        .is_some_and(|l| l.document == table.document && l.refs.get(r) != Some(&info));
    if !renumbered && lives(session, r, table.scope.as_ref(), t).await? {
        return Ok(Some(found(format!("@{r}"), &info)));
    }
    follow(session, r, (&table, &info), t).await
}

/// Whether ref `r`'s element is on the page (inside `scope`'s element, when given).
async fn lives(
    session: &mut Session,
    r: &str,
    scope: Option<&RefScope>,
    t: Duration,
) -> Result<bool, StepError> {
    let Some(scope) = scope else {
        let selector = format!("@{r}");
        return match session.send(Command::GetBox { selector }, t).await {
            Err(e) if lost(&e.message) => Ok(false),
            Err(e) => Err(e),
            Ok(_) => Ok(true),
        };
    };
    let keys = [r.to_string()];
    let frame = scope.frame.as_deref();
    Ok(inside(session, &keys, frame, &scope.handle, t).await? == Some(vec![true]))
}

/// The element in ref `r`'s place now that its own is gone: of the elements with its role and
/// name (inside the scope's element, for a scoped snapshot's ref), the one at its place among
/// those the snapshot showed. `None` when there are none; an error when there are more or
/// fewer than the snapshot showed (which is its own cannot be told).
async fn follow(
    session: &mut Session,
    r: &str,
    (table, info): (&RefTable, &RefInfo),
    t: Duration,
) -> Result<Option<Found>, StepError> {
    let Some((place, then)) = place_among_likes(table, r, info) else {
        return Ok(None);
    };
    let level = Alt {
        find: Find::Role {
            role: info.role.clone(),
            name: Some(info.name.clone()),
            exact: true,
        },
        nth: None,
        frame: table.scope.as_ref().and_then(|s| s.frame.clone()),
        within: None,
    };
    let scope = table.scope.as_ref().map(|s| s.handle.as_str());
    let now = match role_hits(session, &level, scope, t).await? {
        Some(now) if !now.is_empty() => now,
        _ => return Ok(None),
    };
    if now.len() != then {
        let place = table.scope.as_ref().map_or("the page".to_string(), |s| {
            format!("{} (the snapshot's scope)", s.described)
        });
        return Err(StepError::new(
            ErrorKind::CommandFailed,
            format!(
                "ref @{r} ({} \"{}\"): its element is gone from the page, and {place} now has {} elements of its role and name where the snapshot showed {}, so which is its own cannot be told; take a new snapshot",
                info.role,
                info.name,
                now.len(),
                then
            ),
        ));
    }
    // The like in its place must be in the row the ref's element was in (a re-render keeps
    // it; a row removed and another added, as many likes as before, does not): else it is
    // another element, and the ref names none.
    let key = &now[place].0;
    if let Some(was) = table.contexts.get(r) {
        let frame = table.scope.as_ref().and_then(|s| s.frame.as_deref());
        let is = contexts(session, std::slice::from_ref(key), frame, t)
            .await?
            .and_then(|v| v.into_iter().next().flatten());
        if is.as_deref() != Some(was.as_str()) {
            let mask = |c: &str| session.masker.mask(c);
            let is = is.map_or("no row".to_string(), |c| format!("\"{}\"", mask(&c)));
            return Err(StepError::new(
                ErrorKind::CommandFailed,
                format!(
                    "ref @{r} ({} \"{}\"): the element it named is gone from the page (it was in \"{}\"), and the one in its place now is in {is}: another element; take a new snapshot",
                    info.role,
                    info.name,
                    mask(was)
                ),
            ));
        }
    }
    Ok(Some(found(format!("@{key}"), info)))
}

/// The row each of the refs `keys` (of `frame`'s snapshot) sits in now, by its box
/// (`scripts::REF_CONTEXT`): its nearest ancestor's text, `''` for none; `None` when the
/// page changed meanwhile (an element gone).
pub(crate) async fn contexts(
    session: &mut Session,
    keys: &[String],
    frame: Option<&str>,
    t: Duration,
) -> Result<Option<Vec<Option<String>>>, StepError> {
    if keys.is_empty() {
        return Ok(Some(Vec::new()));
    }
    let Some(boxes) = ref_boxes(session, keys, t).await? else {
        return Ok(None);
    };
    let js = call(
        &scripts::ref_context(frame),
        &[json!(frame), Value::Array(boxes)],
    );
    let v = session.eval(&js, t).await?;
    Ok(v.as_array()
        .map(|a| a.iter().map(|c| c.as_str().map(str::to_string)).collect()))
}

/// Where ref `r` (`info`: what `table` says it is) is among `table`'s refs of its role and name,
/// in document order, and how many those are; `None` when it is not one of them.
pub(super) fn place_among_likes(
    table: &RefTable,
    r: &str,
    info: &RefInfo,
) -> Option<(usize, usize)> {
    let like = |i: &RefInfo| role_matches(i, &info.role, Some(&info.name), true);
    let mut likes: Vec<&String> = table
        .refs
        .iter()
        .filter(|(_, i)| like(i))
        .map(|(k, _)| k)
        .collect();
    likes.sort_by_cached_key(|k| table.place(k));
    let at = likes.iter().position(|k| *k == r)?;
    Some((at, likes.len()))
}

/// What a ref found: one element, of the ref's role.
fn found(target: String, info: &RefInfo) -> Found {
    Found {
        target,
        count: 1,
        matches: vec![format!("{} \"{}\"", info.role, info.name)],
        kind: ElementKind {
            role: info.role.clone(),
            ..ElementKind::default()
        },
        read: None,
    }
}

/// What agent-browser says of a ref whose element (by its role and name) is not on the page.
const GONE: &str = "Could not locate element with role=";

/// Whether agent-browser's error says a ref's element is not on the page: gone (by its role and
/// name), gone with others like it (it does not guess which), or dropped from its refs by a
/// later snapshot.
fn lost(message: &str) -> bool {
    message.contains(GONE) || message.contains("Stale ref") || message.contains("Unknown ref")
}

/// A role level: the elements of a snapshot taken now (of its iframe, when it names one) with
/// that role and name, inside the element runner's handle `scope` names when given; `None`
/// when none is, or none is the one its `nth` picks.
pub(super) async fn by_role(
    session: &mut Session,
    level: &Alt,
    scope: Option<&str>,
    t: Duration,
) -> Result<Option<Found>, StepError> {
    let Some(hits) = role_hits(session, level, scope, t).await? else {
        return Ok(None);
    };
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

/// The refs of a role level's elements in a snapshot taken now (of its iframe, when it names
/// one), in document order, inside the element runner's handle `scope` names when given;
/// `None` when the page changed meanwhile.
async fn role_hits(
    session: &mut Session,
    level: &Alt,
    scope: Option<&str>,
    t: Duration,
) -> Result<Option<Vec<(String, RefInfo)>>, StepError> {
    let Find::Role { role, name, exact } = &level.find else {
        return Ok(Some(Vec::new()));
    };
    let frame = level.frame();
    let table = match frame {
        None => session.fresh_refs(t).await?,
        // Asked before the frame's tree is read: a browser that renders a frame of
        // another origin in the page's own process (the headless shell) lets
        // agent-browser read its tree, but not act on it (a click misses it).
        Some(f) => {
            frame_ready(session, f, t).await?;
            session.frame_refs(f, t).await?
        }
    };
    let mut hits: Vec<(String, RefInfo)> = table
        .refs
        .iter()
        .filter(|(_, info)| role_matches(info, role, name.as_deref(), *exact))
        .map(|(k, info)| (k.clone(), info.clone()))
        .collect();
    // `nth` counts in document order: the order the snapshot shows them.
    hits.sort_by_cached_key(|(k, _)| table.place(k));
    if let Some(scope) = scope {
        let keys: Vec<String> = hits.iter().map(|(k, _)| k.clone()).collect();
        let Some(inside) = inside(session, &keys, frame, scope, t).await? else {
            return Ok(None);
        };
        let mut flags = inside.into_iter();
        hits.retain(|_| flags.next().unwrap_or(false));
    }
    Ok(Some(hits))
}

/// The boxes of the refs `keys`, in one batch to agent-browser; `None` when the page changed
/// meanwhile (an element gone).
async fn ref_boxes(
    session: &mut Session,
    keys: &[String],
    t: Duration,
) -> Result<Option<Vec<Value>>, StepError> {
    let boxes = keys
        .iter()
        .map(|k| Command::GetBox {
            selector: format!("@{k}"),
        })
        .collect();
    let boxes = match session.send_all(boxes, t).await {
        Ok(b) => b,
        Err(e) if lost(&e.message) => return Ok(None),
        Err(e) => return Err(e),
    };
    Ok(Some(
        boxes
            .iter()
            .map(|b| b.get("box").unwrap_or(b).clone())
            .collect(),
    ))
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
    let Some(boxes) = ref_boxes(session, keys, t).await? else {
        return Ok(None);
    };
    let js = call(
        &scripts::in_scope(frame),
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
    name.is_none_or(|n| name_matches(&info.name, n, exact))
}

/// Whether accessible name `have` is the name asked (`want`): a case-insensitive substring of
/// it, or equal with `exact`, both whitespace-normalised (`normalize`).
pub(super) fn name_matches(have: &str, want: &str, exact: bool) -> bool {
    let (have, want) = (normalize(have), normalize(want));
    if exact {
        have == want
    } else {
        have.to_lowercase().contains(&want.to_lowercase())
    }
}

/// The user's last snapshot and what it says ref `r` is: refused when there is none, when it
/// has no such ref (naming the refs nearest in number), and when it is from an earlier page.
async fn user_ref(
    session: &mut Session,
    r: &str,
    t: Duration,
) -> Result<(RefTable, RefInfo), StepError> {
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
    Ok((table, info))
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
