//! The tabs downloads emptied: a tab a page opened (a `target=_blank` link, `window.open`)
//! whose first page turned into a download shows nothing, and a user's browser closes it. runner
//! closes it too, whether a `download` step or a plain `click` started the download, before the
//! flow reads its tabs (`tab` steps, `expect: { tabs }`): the flow stays on its own tab and
//! never counts or switches to an empty one.

use std::time::Duration;

use serde_json::json;
use tokio::time::Instant;

use super::Session;
use crate::step::{ErrorKind, StepError};

/// How long each look at the browser may take.
const CALL: Duration = Duration::from_secs(5);

impl Session {
    /// The flow's open tabs in order, `(target id, url)`, once the tabs downloads emptied are
    /// closed (see [`Session::close_emptied_tabs`]); empty without the flow's own context.
    pub(crate) async fn tab_list(
        &mut self,
        deadline: Instant,
    ) -> Result<Vec<(String, String)>, StepError> {
        self.close_emptied_tabs(deadline).await?;
        match self.tabs.as_mut() {
            Some(tabs) => tabs.list().await,
            None => Ok(Vec::new()),
        }
    }

    /// Closes each tab a download emptied: a tab a page opened whose page is still blank (its
    /// first navigation became the download), once the download has ended, never the tab the
    /// flow is on nor one runner made (the flow's first tab, `tab: new`). Each download is
    /// looked at once; one under way is looked at later. A tab that went on to a page is left.
    pub(crate) async fn close_emptied_tabs(&mut self, deadline: Instant) -> Result<(), StepError> {
        let (Some(downloads), Some(_)) = (self.downloads.as_mut(), self.tabs.as_ref()) else {
            return Ok(());
        };
        downloads.refresh().await?;
        let mut frames = Vec::new();
        for d in downloads.seen.iter_mut().filter(|d| !d.looked) {
            if d.state == "inProgress" {
                continue;
            }
            d.looked = true;
            frames.push((d.frame.clone(), d.url.clone()));
        }
        for (frame, url) in frames {
            self.close_emptied(&frame, &url, deadline).await?;
        }
        Ok(())
    }

    /// Closes tab `frame` if the download of `url` emptied it (see `close_emptied_tabs`), and
    /// waits until the browser's list no longer has it.
    async fn close_emptied(
        &mut self,
        frame: &str,
        url: &str,
        deadline: Instant,
    ) -> Result<(), StepError> {
        let Some(tabs) = self.tabs.as_mut() else {
            return Ok(());
        };
        if frame.is_empty() || frame == tabs.current {
            return Ok(());
        }
        // (An iframe's download names a frame that is no tab: it is not found here.)
        let blank = tabs
            .list()
            .await?
            .iter()
            .any(|(id, u)| id == frame && (u.is_empty() || u == "about:blank"));
        if !blank {
            return Ok(());
        }
        let info = tabs
            .cdp
            .call("Target.getTargetInfo", json!({ "targetId": frame }), CALL)
            .await?;
        let opener = info["targetInfo"]["openerId"].as_str().unwrap_or_default();
        if opener.is_empty() {
            return Ok(());
        }
        let failed = |why: String| StepError::new(ErrorKind::CommandFailed, why);
        let target = json!({ "targetId": frame });
        if let Err(e) = tabs.cdp.call("Target.closeTarget", target, CALL).await {
            return Err(failed(format!(
                "cannot close the empty tab the download of {url} left: {e}"
            )));
        }
        // Gone from the browser's list before the flow reads it (a `tab: { switch: last }` must
        // not find it).
        loop {
            if !tabs.list().await?.iter().any(|(id, _)| id == frame) {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(failed(format!(
                    "the empty tab the download of {url} left is still open"
                )));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}
