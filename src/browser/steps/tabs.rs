//! The flow's tabs and the page's dialogs: `tab` (switch, close) and `dialog` (answer the one
//! the page opened).

use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;

use crate::browser::driver::command::Command;
use crate::browser::driver::session::Session;
use crate::browser::page::selector::{Poll, left};
use crate::step::{ErrorKind, StepError};

/// `dialog`: waits (up to the step's timeout) for the page's dialog to be open, answers it,
/// and says what it was (`type`: alert, confirm, prompt, beforeunload; `message`).
pub(crate) async fn dialog(
    session: &mut Session,
    d: &crate::config::model::DialogAction,
    deadline: Instant,
) -> Result<Value, StepError> {
    let (accept, text) = d.answer();
    let mut poll = Poll::new();
    // A dialog in another of the flow's tabs is runner's to answer, not this step's (see
    // `dialog_watch`): one that opens while the step waits fails it at once, saying so.
    crate::browser::driver::dialog::take_watched(session)?;
    let answered = session.dialogs.len();
    let open = loop {
        if let Some(open) = crate::browser::driver::dialog::open(session).await? {
            break open;
        }
        crate::browser::driver::dialog::take_watched(session)?;
        if let Some(d) = session.dialogs.get(answered) {
            return Err(StepError::new(
                ErrorKind::CommandFailed,
                format!(
                    "the {} dialog ({}) opened in another tab of the flow and got the flow's default answer (`browser: {{ dialogs }}`): a `dialog` step answers a dialog of the tab the flow acts on; switch to that tab (`tab: {{ switch: ... }}`) before it opens the dialog",
                    d["type"].as_str().unwrap_or("?"),
                    d["message"]
                ),
            ));
        }
        if !poll.wait(deadline).await {
            return Err(StepError::new(
                ErrorKind::Timeout,
                "timed out waiting for a dialog: the page opened none (a `dialog` step answers one the previous step opened)",
            ));
        }
    };
    crate::browser::driver::dialog::answer(session, open, accept, text).await
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
    let tabs = session.tabs.as_mut().ok_or_else(no_tabs)?;
    let list = tabs.list().await?;
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
        let tabs = session.tabs.as_mut().ok_or_else(no_tabs)?;
        let list = tabs.list().await?;
        let n = i64::try_from(list.len()).unwrap_or(i64::MAX);
        let found = match which {
            TabWhich::Word(w) if w == "first" => list.first(),
            // The newest tab, once it is not the one the flow is on.
            TabWhich::Word(_) => list.last().filter(|(id, _)| *id != tabs.current),
            TabWhich::Index(i) => {
                let i = if *i < 0 { n + i } else { *i };
                usize::try_from(i).ok().and_then(|i| list.get(i))
            }
            TabWhich::Url(u) => list.iter().find(|(_, url)| url.contains(&u.url)),
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
