//! The HTTP status `open` reports: the answer to the navigation it made (attack 29, A1).
//!
//! Read from runner's own record of the documents each tab's main frame asked for (see
//! `request_log`), never from the page: a page answered with a 500 that moves on at once (a
//! meta refresh, `location.replace`) leaves the next page in the tab by the time any page
//! script runs, and a page can rewrite what its script reads of its own status. The first main
//! frame document the tab asked for after the `open` began (the one for the URL opened, when
//! several were) is the navigation; its final response (after HTTP redirects, which keep its
//! request id) gives the status, as Playwright's `page.goto` returns it.

use std::time::Duration;

use reqwest::Url;

use super::HTTP_STATUS_JS;
use crate::browser::driver::request_log::Document;
use crate::browser::driver::script::call;
use crate::browser::driver::session::Session;

/// The status of the document the navigation to `url`, begun at `since_ms` (ms since the epoch),
/// brought into the flow's tab: `Ok(None)` for a URL that is not HTTP(S) and made no request
/// (`about:blank`); `Err` (why) when it cannot be told, never a made-up status.
pub(crate) async fn navigation_status(
    session: &mut Session,
    url: &str,
    since_ms: u128,
    timeout: Duration,
) -> Result<Option<i64>, String> {
    let Some(w) = session.watched.clone() else {
        // Only sessions outside a flow's browser pool go unwatched: the page is asked.
        let v = session.eval(&call(HTTP_STATUS_JS, &[]), timeout).await;
        return match v.map_err(|e| e.message)?.as_i64() {
            Some(s) => Ok(Some(s)),
            None => Err("the page gave no HTTP status".to_string()),
        };
    };
    // Every event the browser sent before the navigation's answer has been read.
    w.caught_up(Duration::from_secs(2)).await;
    w.requests.since(since_ms)?;
    let target = w.current().unwrap_or_default();
    let (after, before) = w.requests.documents(&target, since_ms);
    let wanted = after
        .iter()
        .find(|d| same_page(&d.url, url))
        .or(after.first());
    if let Some(d) = wanted {
        return d
            .status
            .map(Some)
            .ok_or_else(|| format!("runner heard no response to the request for {}", d.url));
    }
    // No new document: a navigation within the page (only its fragment changed) keeps the one
    // it had.
    match before {
        Some(Document {
            url: had,
            status: Some(s),
            ..
        }) if same_page(&had, url) => Ok(Some(s)),
        _ if !url.starts_with("http:") && !url.starts_with("https:") => Ok(None),
        _ => Err(format!(
            "runner heard no request for {url} from the flow's tab"
        )),
    }
}

/// The status of the document a history move (`back`, `forward`, `reload`) begun at `since_ms`
/// (ms since the epoch) brought into the flow's tab, read as `open`'s is: the first main-frame
/// document the tab asked for since (the one for `to`, the history entry's URL, when several
/// were). When it asked for none — an entry of the same document (`pushState`, a `#hash`), a
/// page the back-forward cache kept — the tab shows a document it had: the one whose loader id
/// the tab's main frame has now (`loader`). `Ok(None)` for a page that is not HTTP(S) and made
/// no request; `Err` (why) when it cannot be told.
pub(crate) async fn moved_status(
    session: &mut Session,
    (to, loader, now): (Option<&str>, Option<&str>, &str),
    since_ms: u128,
    timeout: Duration,
) -> Result<Option<i64>, String> {
    let Some(w) = session.watched.clone() else {
        // Only sessions outside a flow's browser pool go unwatched: the page is asked.
        let v = session.eval(&call(HTTP_STATUS_JS, &[]), timeout).await;
        return Ok(v.ok().and_then(|v| v.as_i64()));
    };
    w.caught_up(Duration::from_secs(2)).await;
    w.requests.since(since_ms)?;
    let target = w.current().unwrap_or_default();
    let (after, _) = w.requests.documents(&target, since_ms);
    let asked = after
        .iter()
        .find(|d| to.is_some_and(|to| same_page(&d.url, to)))
        .or(after.first());
    let had = || loader.and_then(|id| w.requests.document(&target, id));
    match asked.cloned().or_else(had) {
        Some(d) => d
            .status
            .map(Some)
            .ok_or_else(|| format!("runner heard no response to the request for {}", d.url)),
        None if !now.starts_with("http:") && !now.starts_with("https:") => Ok(None),
        None => Err(format!(
            "runner heard no request for the document the tab shows ({now})"
        )),
    }
}

/// Whether two URLs name the same page (equal but for their fragments).
fn same_page(a: &str, b: &str) -> bool {
    let page = |u: &str| {
        Url::parse(u).map_or_else(
            |_| u.split('#').next().unwrap_or(u).to_string(),
            |mut u| {
                u.set_fragment(None);
                u.to_string()
            },
        )
    };
    page(a) == page(b)
}

#[cfg(test)]
mod tests {
    use super::same_page;

    #[test]
    fn pages_differ_by_more_than_their_fragments() {
        assert!(same_page("http://a/x#1", "http://a/x"));
        assert!(same_page("http://a", "http://a/"));
        assert!(!same_page("http://a/x", "http://a/y"));
        assert!(!same_page("http://a/x?q=1", "http://a/x"));
    }
}
