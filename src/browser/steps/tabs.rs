//! The flow's tabs and the page's dialogs: `tab` (switch, close) and `dialog` (answer the one
//! the page opened).

use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;

use crate::browser::driver::command::Command;
use crate::browser::driver::session::Session;
use crate::browser::page::selector::{Poll, left};
use crate::step::{ErrorKind, StepError};

/// `dialog`: answers the dialog the previous step opened — the one open now, or an alert or
/// beforeunload dialog that was accepted as it opened — and says what it was (`type`: alert,
/// confirm, prompt, beforeunload; `message`; `accepted`). With none, it arms the answer for the
/// next dialog of the flow's tab and returns at once (`armed: true`), as Playwright's
/// `page.once('dialog')` before the action that opens it.
pub(crate) async fn dialog(
    session: &mut Session,
    d: &crate::config::model::DialogAction,
    deadline: Instant,
) -> Result<Value, StepError> {
    use crate::browser::driver::dialog;
    let (accept, text) = d.answer();
    dialog::take_watched(session).await?;
    if let Some(open) = dialog::open(session).await? {
        // An answer armed before, for the next dialog, and a dialog open that did not get it:
        // two answers for one dialog. The armed one was written first: it answers, and this
        // step fails rather than one of them vanishing.
        if let Some(first) = dialog::take_armed(session) {
            dialog::answer(session, open, first.accept, first.text.as_deref()).await?;
            return Err(twice(&first, accept, true));
        }
        return dialog::answer(session, open, accept, text).await;
    }
    let Some(watched) = session.watched.clone() else {
        return wait_and_answer(session, accept, text, deadline).await;
    };
    if let Some(seen) = watched.take_as_opened().into_iter().next() {
        if !accept && seen["type"] == "beforeunload" {
            return Err(StepError::new(
                ErrorKind::CommandFailed,
                format!(
                    "the beforeunload dialog was accepted as it opened ({}), and the page left: to stay on the page, put the `dialog: dismiss` step before the step that opens it",
                    seen["message"]
                ),
            ));
        }
        return Ok(seen);
    }
    let armed = dialog::Armed {
        accept,
        text: text.map(str::to_string),
    };
    if let Err(first) = watched.arm(armed) {
        return Err(twice(&first, accept, false));
    }
    Ok(json!({ "armed": true }))
}

/// A `dialog` step (answer `accept`) while the answer `first` of an earlier one was armed for
/// the next dialog (`open`: a dialog was open, and got `first`): one `dialog` step answers one
/// dialog.
fn twice(first: &crate::browser::driver::dialog::Armed, accept: bool, open: bool) -> StepError {
    let word = |a: bool| if a { "accept" } else { "dismiss" };
    let (this, first) = (word(accept), word(first.accept));
    let message = if open {
        format!(
            "this `dialog: {this}` found the open dialog already claimed: an answer armed by an earlier `dialog: {first}` step was waiting for it, and answered it (each `dialog` step answers one dialog: drop one of the two steps)"
        )
    } else {
        format!(
            "this `dialog: {this}` has no dialog to answer: an answer armed by an earlier `dialog: {first}` step is still waiting for the next dialog, and no dialog has opened since (each `dialog` step answers one dialog: put the action that opens the first one between them)"
        )
    };
    StepError::new(ErrorKind::CommandFailed, message)
}

/// `dialog` without runner's watch on the flow's tab: waits (up to the step's timeout) for the
/// dialog to open, and answers it.
async fn wait_and_answer(
    session: &mut Session,
    accept: bool,
    text: Option<&str>,
    deadline: Instant,
) -> Result<Value, StepError> {
    use crate::browser::driver::dialog;
    let mut poll = Poll::new();
    loop {
        if let Some(open) = dialog::open(session).await? {
            return dialog::answer(session, open, accept, text).await;
        }
        if !poll.wait(deadline).await {
            return Err(StepError::new(
                ErrorKind::Timeout,
                "timed out waiting for a dialog: the page opened none (a `dialog` step answers one the previous step opened)",
            ));
        }
    }
}

/// `tab`: switches to another tab of the flow's context (waiting, up to the step's timeout, for
/// it to open), or closes the current one and goes back to the one before it. Outputs the tab's
/// `index` (0: the flow's first), `url`, and the `count` of open tabs.
pub(crate) async fn tab(
    session: &mut Session,
    t: &crate::config::model::TabAction,
    deadline: Instant,
) -> Result<Value, StepError> {
    use crate::config::model::TabAction;
    let t_left = left(deadline);
    let (target, list) = match t {
        TabAction::Word(_) => close(session, t_left, deadline).await?,
        TabAction::Switch(s) => find(session, &s.switch, deadline).await?,
    };
    session.switch_tab(&target, t_left).await?;
    let index = list.iter().position(|(id, _)| *id == target).unwrap_or(0);
    Ok(json!({
        "index": index,
        "url": list.get(index).map(|(_, u)| u.clone()).unwrap_or_default(),
        "count": list.len(),
    }))
}

/// The flow's open tabs: (target id, URL), in the order they opened.
type TabList = Vec<(String, String)>;

fn no_tabs() -> StepError {
    StepError::new(
        ErrorKind::CommandFailed,
        "`tab` needs the flow's own browser context (not available here)",
    )
}

/// `tab: close`: closes the current tab, once the browser says it is gone; the tab before it
/// (the one to go back to) and the tabs left.
async fn close(
    session: &mut Session,
    t_left: Duration,
    deadline: Instant,
) -> Result<(String, TabList), StepError> {
    let list = session.tab_list(deadline).await?;
    let tabs = session.tabs.as_mut().ok_or_else(no_tabs)?;
    let current = tabs.current.clone();
    let at = list.iter().position(|(id, _)| *id == current).unwrap_or(0);
    if list.len() < 2 {
        return Err(StepError::new(
            ErrorKind::CommandFailed,
            "`tab: close` would close the flow's only tab",
        ));
    }
    let back = if at == 0 { 1 } else { at - 1 };
    let back = list[back].0.clone();
    session
        .send(
            Command::TabClose {
                tab_id: current.clone(),
            },
            t_left,
        )
        .await?;
    // The browser's word that the tab is gone, not agent-browser's.
    let mut poll = Poll::new();
    let list = loop {
        let tabs = session.tabs.as_mut().ok_or_else(no_tabs)?;
        let list = tabs.list().await?;
        if !list.iter().any(|(id, _)| *id == current) {
            break list;
        }
        if !poll.wait(deadline).await {
            return Err(StepError::new(
                ErrorKind::CommandFailed,
                "`tab: close`: the tab is still open",
            ));
        }
    };
    Ok((back, list))
}

/// `tab: { switch }`: the tab it names, waited for up to `deadline`, and the open tabs.
async fn find(
    session: &mut Session,
    which: &crate::config::model::TabWhich,
    deadline: Instant,
) -> Result<(String, TabList), StepError> {
    use crate::config::model::TabWhich;
    let mut poll = Poll::new();
    loop {
        let list = session.tab_list(deadline).await?;
        let tabs = session.tabs.as_mut().ok_or_else(no_tabs)?;
        let n = i64::try_from(list.len()).unwrap_or(i64::MAX);
        let found = match which {
            TabWhich::Word(w) if w == "first" => list.first(),
            // The newest tab, once it is not the one the flow is on.
            TabWhich::Word(_) => list.last().filter(|(id, _)| *id != tabs.current),
            TabWhich::Index(i) => {
                let i = if *i < 0 { n + i } else { *i };
                usize::try_from(i).ok().and_then(|i| list.get(i))
            }
            TabWhich::Url(u) => list
                .iter()
                .find(|(_, url)| super::navigation::url_has(url, &u.url)),
        };
        if let Some((id, _)) = found {
            return Ok((id.clone(), list));
        }
        if !poll.wait(deadline).await {
            let open: Vec<String> = list
                .iter()
                .enumerate()
                .map(|(i, (_, url))| format!("[{i}] {url}"))
                .collect();
            let want = match which {
                TabWhich::Word(w) if w == "first" => "the first tab".to_string(),
                TabWhich::Word(_) => "a new tab".to_string(),
                TabWhich::Index(i) => format!("tab {i}"),
                TabWhich::Url(u) => format!("a tab whose URL contains `{}`", u.url),
            };
            return Err(StepError::new(
                ErrorKind::Timeout,
                format!(
                    "timed out waiting for {want}; the flow's tabs: {}",
                    open.join(", ")
                ),
            ));
        }
    }
}
