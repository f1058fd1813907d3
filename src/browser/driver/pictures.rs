//! The one rule for every picture of the page runner writes (a failed step's screenshot, a
//! `trace: on` picture, a `screenshot` step's file, an agent-answered `act`'s page before and
//! after): none of a page that shows a secret, since no masker reads pixels.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use crate::browser::driver::command::Command;
use crate::browser::driver::session::{Session, UNREAD};
use crate::step::{Masker, StepError};

/// Why no picture of the page may be written now, if none may: its snapshot or its rendered
/// text shows a secret of `masker`, or cannot be read within `t` to tell (`page_left_out`).
///
/// Its rendered text first, read by a page script that stops itself at `t` (so nothing is left
/// running in the browser for the next step to wait on): one that shows a secret, or cannot be
/// read in that time, is the answer, and the snapshot (agent-browser's: seconds on a page of a
/// hundred thousand nodes, and left running when cut) is not read. Only a page whose rendered
/// text shows no secret has its snapshot read too (it holds what the rendered text does not: a
/// frame of another origin's text, an `aria-label`). A part of the page neither reads (a frame
/// of another origin the accessibility tree leaves out) cannot be read to tell
/// (`Session::shown_texts`).
/// The script reading the rendered text stops itself at `budget` (at most `t`); the snapshot
/// is read within `t`.
pub(crate) async fn withheld(
    s: &mut Session,
    masker: &Masker,
    (t, budget): (Duration, Duration),
) -> Option<&'static str> {
    if masker.is_empty() {
        return None;
    }
    match s.shown_texts(t, budget).await {
        Ok(texts) if masker.learn_shown(&texts) => return Some("the page showed a secret"),
        Ok(_) => {}
        Err(why) => return Some(why),
    }
    let raw = snapshot_text(s, t).await;
    shot_left_out(masker, raw.as_deref())
}

/// Writes a picture of the page (`shot`, a screenshot command to `path`) unless [`withheld`]
/// says why not: then nothing is written and the reason is given back.
pub(crate) async fn shoot(
    s: &mut Session,
    masker: &Masker,
    shot: Command,
    timeout: Duration,
) -> Result<Option<&'static str>, StepError> {
    if let Some(why) = withheld(s, masker, (timeout, timeout)).await {
        return Ok(Some(why));
    }
    s.send(shot, timeout).await?;
    Ok(None)
}

/// [`shoot`] of the whole page's viewport to `path`.
pub(crate) async fn shoot_page(
    s: &mut Session,
    masker: &Masker,
    path: &Path,
    timeout: Duration,
) -> Result<Option<&'static str>, StepError> {
    shoot(s, masker, Command::screenshot(path), timeout).await
}

/// Why a failure screenshot is not taken, if it is not: the page's snapshot (its text, the
/// values of its fields) shows a secret, or, when there are secrets, it could not be read to
/// tell. A screenshot shows what the page shows in pixels, which no masker reads.
pub(crate) fn shot_left_out(masker: &Masker, snapshot: Option<&str>) -> Option<&'static str> {
    match snapshot {
        _ if masker.is_empty() => None,
        Some(text) if masker.holds_secret(text) => Some("the page showed a secret"),
        Some(_) => None,
        None => Some(UNREAD),
    }
}

/// The most time the page spends, after a step, reading the text it renders for a secret before
/// a `trace: on` picture (a page of hundreds of thousands of nodes takes seconds, held from the
/// flow's next step): past it the picture is left out, as one that cannot be read to tell.
pub(crate) const PICTURE_READ: Duration = Duration::from_millis(300);

/// Why a picture of the page is not kept, if it is not (see `shot_left_out`): its snapshot
/// (`snapshot`, as read) shows a secret, or its text as it is rendered does (`SHOWN_TEXT`: the
/// shown text nodes, generated content and fields' values joined, as pixels show them; the
/// snapshot gives each flex or inline-block item, each piece around a hidden node and each
/// piece CSS generates or a field shows as a text of its own, so a secret the page shows in
/// pieces is in none of them), or either cannot be read to tell. The rendered text is read
/// whenever the run has secrets, even when the snapshot already shows one (a piece learned
/// before, as a flow before found it): the pieces of a secret found there are learned
/// ([`Masker::learn_shown`]), so the snapshot written shows none of them.
pub(crate) async fn page_left_out(
    s: &mut Session,
    masker: &Masker,
    snapshot: Option<&str>,
    (t, budget): (Duration, Duration),
) -> Option<&'static str> {
    if masker.is_empty() {
        return None;
    }
    let shown = s.shown_texts(t, budget).await;
    let in_pixels = shown.as_ref().is_ok_and(|texts| masker.learn_shown(texts));
    if let Some(why) = shot_left_out(masker, snapshot) {
        return Some(why);
    }
    match shown {
        Ok(_) if in_pixels => Some("the page showed a secret"),
        Ok(_) => None,
        Err(why) => Some(why),
    }
}

/// The text of the page's snapshot (none when it cannot be read within `t`).
pub(crate) async fn snapshot_text(s: &mut Session, t: Duration) -> Option<String> {
    let data = s.send(Command::snapshot(), t).await.ok()?;
    Some(
        data.get("snapshot")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
    )
}
