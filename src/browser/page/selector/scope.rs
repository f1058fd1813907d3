//! One look for an alternative with all its levels (`within`, as deep as it goes): each level
//! looked for inside the one element the level around it found, strict at every level but the
//! last (one element, or its `nth` says which). Consecutive levels found in the DOM are looked
//! up in one page call (`lookup`); a role in the browser's accessibility tree (`ax_roles`, which
//! marks it with runner's handle as `lookup` does); a ref in the accessibility snapshot (`refs`)
//! and, to scope the levels inside it, marked with runner's handle by its box.

use std::time::Duration;

use super::alternative::{Alt, Find};
use super::found::{Found, Read};
use super::lookup::{Looked, in_document};
use crate::browser::driver::session::Session;
use crate::step::{ErrorKind, StepError};

/// One look for `alt` in the page, without waiting (reading what `read` says of the element
/// when it is found in the DOM); `None` when nothing matches now, at any level.
pub(super) async fn find(
    session: &mut Session,
    alt: &Alt,
    read: Option<&Read>,
    t: Duration,
) -> Result<Option<Found>, StepError> {
    let levels = alt.levels();
    let last = levels.len() - 1;
    let frame = alt.frame();
    let mut scope: Option<String> = None;
    let mut i = 0;
    while i <= last {
        let found = if levels[i].in_dom() {
            // This level and the DOM levels inside it, in one call.
            let end = (i..=last)
                .find(|&k| !levels[k].in_dom())
                .unwrap_or(last + 1);
            let run = &levels[i..end];
            let read = if end > last { read } else { None };
            match in_document(session, (frame, scope.as_deref()), run, read, t).await? {
                Looked::Found(f) => {
                    i = end - 1;
                    f
                }
                // A `within` level that matches nothing is an error (re-checked until the
                // check's time runs out), never "no element": see `missing_within`.
                Looked::Missed(Some(k)) => return Err(missing_within(&levels[..=(i + k)])),
                Looked::Missed(None) => return Ok(None),
                Looked::Ambiguous {
                    level,
                    count,
                    matches,
                } => return Err(ambiguous(alt, run[level], count, &matches)),
            }
        } else {
            // A `within` level of a check reads nothing, but is a check's (`Read::Present`).
            let read = if i == last {
                read
            } else {
                read.map(|_| &Read::Present)
            };
            by_snapshot(session, levels[i], scope.as_deref(), read, t).await?
        };
        let Some(found) = found else {
            if i < last {
                return Err(missing_within(&levels[..=i]));
            }
            return Ok(None);
        };
        if i == last {
            return Ok(Some(found));
        }
        if found.count > 1 && levels[i].nth.is_none() {
            return Err(ambiguous(alt, levels[i], found.count, &found.matches));
        }
        scope = Some(handle_of(session, (levels[i], frame), found.target, t).await?);
        i += 1;
    }
    Ok(None)
}

/// A level the accessibility tree answers (a ref from the snapshot; a role from the browser's
/// tree, reading what `read` asks of its element), inside `scope` when given.
async fn by_snapshot(
    session: &mut Session,
    level: &Alt,
    scope: Option<&str>,
    read: Option<&Read>,
    t: Duration,
) -> Result<Option<Found>, StepError> {
    match &level.find {
        Find::Ref(r) if scope.is_none() => super::refs::by_ref(session, r, t).await,
        Find::Ref(r) => Err(StepError::new(
            ErrorKind::CommandFailed,
            format!("a ref names one element: @{r} takes no `within`"),
        )),
        _ => super::ax_roles::by_role(session, level, scope, read, t).await,
    }
}

/// Runner's handle on a scope level's element: the look-up's own, or (found through the
/// snapshot, `@e5`) one put on the element with its box in `frame`'s document (the chain's:
/// the levels inside look there).
async fn handle_of(
    session: &mut Session,
    (level, frame): (&Alt, Option<&str>),
    target: String,
    t: Duration,
) -> Result<String, StepError> {
    if !target.starts_with('@') {
        return Ok(target);
    }
    match super::mark::mark(session, &target, frame, t).await? {
        Some(h) => Ok(h),
        None => Err(StepError::new(
            ErrorKind::NotFound,
            format!(
                "cannot look inside {}: it has no size, or an element of the same size covers it, so it cannot be found in the page's DOM by its box; select it by css, text or label",
                level.describe_level()
            ),
        )),
    }
}

/// What a `within` that matches nothing says (as a missing `frame`, `lookup::MISSING_FRAME`):
/// nothing inside it can be told present or absent, so a negative check (`hidden`, `count: 0`,
/// `texts: []`, a `wait` for hidden) does not hold on a mistyped `within`; a check re-checks
/// while it is missing (it may be rendered late) and fails with this when its time runs out.
const MISSING_WITHIN: &str =
    "so nothing inside it can be told present or absent; check the `within`'s selector";

/// The error for the last of `levels` (a `within`, the levels around it first) matching nothing.
fn missing_within(levels: &[&Alt]) -> StepError {
    let (level, around) = levels.split_last().expect("a level");
    let inside = around
        .last()
        .map(|a| format!(" inside {}", a.describe_level()))
        .unwrap_or_default();
    StepError::new(
        ErrorKind::NotFound,
        format!(
            "the `within` {} matches nothing{inside} on the page, {MISSING_WITHIN}",
            level.describe_level()
        ),
    )
}

/// Whether `message` says a selector's `within` matches nothing (see [`missing_within`]).
pub(crate) fn is_missing_within(message: &str) -> bool {
    message.starts_with("the `within` ") && message.contains(MISSING_WITHIN)
}

/// Strict mode at a `within`: `level` (of `alt`) matches `count` elements and says not which.
fn ambiguous(alt: &Alt, level: &Alt, count: usize, matches: &[String]) -> StepError {
    StepError::new(
        ErrorKind::CommandFailed,
        format!(
            "strict mode: the `within` {} matches {count} elements (looking for {}); add `nth: N` to that `within` (0-based, negative from the end) to say which: {}",
            level.describe_level(),
            alt.describe(),
            matches
                .iter()
                .enumerate()
                .map(|(i, m)| format!("[{i}] {m}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    )
}

/// Which level of `alt` (one with a `within`) matches nothing now, said for a miss's message:
/// the outermost `within` that finds nothing, or the innermost one found with nothing inside
/// it that `alt` looks for. `None` for an alternative without a `within`.
pub(super) async fn missing_level(session: &mut Session, alt: &Alt, t: Duration) -> Option<String> {
    let levels = alt.levels();
    let (target, scopes) = levels.split_last()?;
    let mut around: Option<&Alt> = None;
    for level in scopes {
        // A level with its own `within`s: found as the whole chain up to it.
        match find(session, level, None, t).await {
            Ok(Some(_)) => around = Some(level),
            Ok(None) => {
                return Some(match around {
                    None => format!("the `within` {} matches nothing", level.describe_level()),
                    Some(a) => format!(
                        "the `within` {} matches nothing inside {}",
                        level.describe_level(),
                        a.describe_level()
                    ),
                });
            }
            Err(e) => return Some(super::handle_messages::scrub(&e.message)),
        }
    }
    around.map(|a| {
        format!(
            "the `within` {} is there, but nothing inside it matches {}",
            a.describe_level(),
            target.describe_level()
        )
    })
}

/// Runner's handle on the one element `alt`'s `within` finds now (strict, as when `alt` is
/// looked for), for a read of every match of `alt` inside it: an error when that `within`
/// matches nothing now (see [`missing_within`]), `Ok(Some(None))` for an alternative without a
/// `within`.
pub(crate) async fn within_handle(
    session: &mut Session,
    alt: &Alt,
    t: Duration,
) -> Result<Option<Option<String>>, StepError> {
    let Some(w) = alt.within.as_deref() else {
        return Ok(Some(None));
    };
    let Some(found) = find(session, w, None, t).await? else {
        return Err(missing_within(&w.levels()));
    };
    if found.count > 1 && w.nth.is_none() {
        return Err(ambiguous(alt, w, found.count, &found.matches));
    }
    let handle = handle_of(session, (w, alt.frame()), found.target, t).await?;
    Ok(Some(Some(handle)))
}

#[cfg(test)]
mod tests;
