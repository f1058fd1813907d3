//! Resolving a selector: its alternatives tried in order, re-checked until one matches or the
//! step's time is up (then a miss, with suggestions), and strict mode (one element, or `nth`
//! says which).

use std::time::Duration;

use serde_json::Value;
use tokio::time::Instant;

use super::alternative::{Alt, alternatives};
use super::found::{Found, Read};
use super::poll::Poll;
use crate::browser::driver::session::Session;
use crate::browser::page::element_kind::ElementKind;
use crate::config::model::Selector;
use crate::step::{ErrorKind, StepError};

/// A resolved element.
#[derive(Debug, Clone)]
pub(crate) struct Resolved {
    /// What agent-browser gets for exactly this element: `@e5`, or a CSS handle runner put on it
    /// (`[data-runner-sel="…"]`).
    pub(crate) target: String,
    /// Which alternative matched, as the user wrote it.
    pub(crate) matched: String,
    /// Its position in a fallback list.
    pub(crate) index: usize,
    /// How many elements that alternative matched (actions refuse more than one without `nth`).
    pub(crate) count: usize,
    /// Whether the alternative said which match it means (`nth`).
    pub(crate) has_nth: bool,
    /// Up to 5 of the matches, described (`button "Remove"`, `button#rm.danger "Remove"`).
    pub(crate) matches: Vec<String>,
    /// What kind of element it is, for the actions that need a particular one.
    pub(crate) kind: ElementKind,
    /// The iframe (CSS in the page) it is inside, when its selector said.
    pub(crate) frame: Option<String>,
    /// What the look-up read of it in the same call, when asked (`resolve_now_reading`) and it
    /// could (an element found by CSS or text; not a ref).
    pub(crate) read: Option<Value>,
}

/// Resolves a selector, waiting up to `deadline` for an element to match.
pub(crate) async fn resolve(
    session: &mut Session,
    sel: &Selector,
    deadline: Instant,
) -> Result<Resolved, StepError> {
    let alts = alternatives(sel);
    let mut poll = Poll::new();
    loop {
        for (index, alt) in alts.iter().enumerate() {
            match poll.settle(try_once(session, alt, None, deadline).await)? {
                Some(Some(found)) => return Ok(found.resolved(alt, index)),
                Some(None) => {}
                // The document changed under the check: all alternatives again, on the new one.
                None => break,
            }
        }
        if !poll.wait(deadline).await {
            break;
        }
    }
    // A `within` that matches nothing: the miss names it (and suggests what is there).
    match poll.still_navigating() {
        Some(e) if !super::scope::is_missing_within(&e.message) => Err(e),
        _ => Err(super::miss::miss(session, &alts).await),
    }
}

/// Resolves a selector to exactly one element: more than one match is an error listing them,
/// unless `nth` says which (strict mode).
pub(crate) async fn resolve_one(
    session: &mut Session,
    sel: &Selector,
    deadline: Instant,
) -> Result<Resolved, StepError> {
    strict(resolve(session, sel, deadline).await?)
}

/// Strict mode: a match of more than one element is an error listing them, unless the
/// selector's `nth` says which.
fn strict(r: Resolved) -> Result<Resolved, StepError> {
    if r.count > 1 && !r.has_nth {
        return Err(StepError::new(
            ErrorKind::CommandFailed,
            format!(
                "strict mode: {} matches {} elements; add `nth: N` (0-based, negative from the end) to say which: {}",
                r.matched,
                r.count,
                r.matches
                    .iter()
                    .enumerate()
                    .map(|(i, m)| format!("[{i}] {m}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }
    Ok(r)
}

/// Resolves once, without waiting; `None` when nothing matches now.
pub(crate) async fn resolve_now(
    session: &mut Session,
    sel: &Selector,
) -> Result<Option<Resolved>, StepError> {
    resolve_now_reading(session, sel, None).await
}

/// `resolve_now`, reading what `read` says of the element in the look-up's own page call
/// (`Resolved::read`) where it can. Not strict: the list checks read every match.
pub(crate) async fn resolve_now_reading(
    session: &mut Session,
    sel: &Selector,
    read: Option<Read>,
) -> Result<Option<Resolved>, StepError> {
    let deadline = Instant::now() + Duration::from_secs(10);
    for (index, alt) in alternatives(sel).iter().enumerate() {
        if let Some(found) = try_once(session, alt, read.as_ref(), deadline).await? {
            return Ok(Some(found.resolved(alt, index)));
        }
    }
    Ok(None)
}

/// Resolves once, without waiting, to exactly one element (strict, as `resolve_one`): what an
/// assertion or wait about one element's state reads. `None` when nothing matches now.
pub(crate) async fn resolve_now_one(
    session: &mut Session,
    sel: &Selector,
) -> Result<Option<Resolved>, StepError> {
    resolve_now(session, sel).await?.map(strict).transpose()
}

/// `resolve_now_one`, reading what `read` says of the element in the same page call where it can
/// (`Resolved::read`; `None` for a ref, which the caller reads on its own).
pub(crate) async fn resolve_now_one_reading(
    session: &mut Session,
    sel: &Selector,
    read: Read,
) -> Result<Option<Resolved>, StepError> {
    resolve_now_reading(session, sel, Some(read))
        .await?
        .map(strict)
        .transpose()
}

/// How many elements the first alternative of `sel` matches; with `nth`, one or none.
pub(crate) async fn count(session: &mut Session, sel: &Selector) -> Result<usize, StepError> {
    let Some(alt) = alternatives(sel).into_iter().next() else {
        return Ok(0);
    };
    // As a reading look-up's (`resolve_now_reading`): a long list's tree takes seconds.
    let deadline = Instant::now() + Duration::from_secs(10);
    Ok(
        match try_once(session, &alt, Some(&Read::Count), deadline).await? {
            None => 0,
            Some(_) if alt.nth().is_some() => 1,
            Some(found) => found.count,
        },
    )
}

/// The time a look-up of the page may take: what is left of the step, at least 2 s.
fn lookup_time(deadline: Instant) -> Duration {
    deadline
        .saturating_duration_since(Instant::now())
        .max(Duration::from_secs(2))
}

/// The time an action's command may take: what is left of the step, at least 1 s.
pub(crate) fn left(deadline: Instant) -> Duration {
    deadline
        .saturating_duration_since(Instant::now())
        .max(Duration::from_secs(1))
}

impl Found {
    fn resolved(self, alt: &Alt, index: usize) -> Resolved {
        Resolved {
            target: self.target,
            matched: alt.describe(),
            index,
            count: self.count,
            has_nth: alt.nth().is_some(),
            matches: self.matches,
            kind: self.kind,
            frame: alt.frame().map(str::to_string),
            read: self.read,
        }
    }
}

/// One look for `alt` in the page, without waiting (reading what `read` says of the element
/// found by CSS or text); `None` when nothing matches now.
async fn try_once(
    session: &mut Session,
    alt: &Alt,
    read: Option<&Read>,
    deadline: Instant,
) -> Result<Option<Found>, StepError> {
    if alt.has_empty_text() {
        return Err(StepError::new(
            ErrorKind::CommandFailed,
            format!(
                "{}: the text is empty (after rendering and whitespace normalisation), and an empty text is in every element's: give the text to look for, or drop it",
                alt.describe()
            ),
        ));
    }
    super::scope::find(session, alt, read, lookup_time(deadline)).await
}
