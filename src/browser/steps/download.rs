//! The `download` step: a click whose download is waited for and kept (see `downloads`).

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;

use crate::browser::driver::command::Command;
use crate::browser::driver::downloads::{Download, Downloads};
use crate::browser::driver::reply::Attribute;
use crate::browser::driver::script::call;
use crate::browser::driver::session::Session;
use crate::browser::page::pointer_action::click_resolved;
use crate::browser::page::selector::{Poll, left, resolve_one};
use crate::browser::steps::files::StepFiles;
use crate::step::{ErrorKind, StepError};

/// `(href) => url | null`: a link's `href` resolved against the page's URL.
const ABSOLUTE_URL_JS: &str = include_str!("scripts/absolute_url.js");

/// `download`: clicks the target and waits (up to the step's timeout) for the download it
/// starts to finish; the file goes to `path` (relative to the flow's artifacts directory) or
/// `downloads/<suggested name>`. Outputs `path`, `size`, `suggested_name` and `url`.
pub(crate) async fn download(
    session: &mut Session,
    d: &crate::config::model::DownloadAction,
    files: &StepFiles,
    deadline: Instant,
) -> Result<Value, StepError> {
    let dest = match &d.path {
        Some(p) => Some(files.artifact(p, "download")?),
        None => None,
    };
    let Some(mut downloads) = session.downloads.take() else {
        return Err(StepError::new(
            ErrorKind::CommandFailed,
            "`download` needs a browser runner launches here (a remote browser saves files on its own machine)",
        ));
    };
    let r = run(session, &mut downloads, d, dest, files, deadline).await;
    session.downloads = Some(downloads);
    let out = r?;
    // The tab the download emptied (a `target=_blank` link's) is closed, as a user's browser
    // closes it; the flow stays on the tab it was on.
    session.close_emptied_tabs(deadline).await?;
    Ok(out)
}

async fn run(
    session: &mut Session,
    downloads: &mut Downloads,
    d: &crate::config::model::DownloadAction,
    dest: Option<PathBuf>,
    files: &StepFiles,
    deadline: Instant,
) -> Result<Value, StepError> {
    // Downloads begun before this step are not its (they keep their own fate).
    downloads.refresh().await?;
    let before: Vec<String> = downloads.seen.iter().map(|x| x.guid.clone()).collect();
    let fresh = |x: &Download| !x.taken && !before.contains(&x.guid);
    let r = resolve_one(session, &d.target, deadline).await?;
    let t = left(deadline);
    // A link's download is the one of its URL: a download a step before this one started may
    // begin only now, and must not pass for this one.
    let href = link_url(session, &r.target, t).await?;
    let clicked_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    // The click gets the checks of every pointer action: it must reach the link.
    click_resolved(session, &r, deadline).await?;
    let mut poll = Poll::new();
    let done = loop {
        downloads.refresh().await?;
        // The link's URL and where it redirected to since the click (the request log).
        let urls = match &href {
            Some(h) if !downloads.seen.iter().any(|x| fresh(x) && x.url == *h) => {
                redirects(session, h, clicked_ms).await?
            }
            Some(h) => vec![h.clone()],
            None => Vec::new(),
        };
        let mine = downloads
            .seen
            .iter()
            .find(|x| fresh(x) && (href.is_none() || urls.contains(&x.url)))
            .cloned();
        match mine {
            Some(x) if downloads.over_cap(&x.guid) => return Err(past_bound(&x.url)),
            Some(x) if x.state == "completed" => break x,
            Some(x) if x.state == "canceled" => {
                return Err(StepError::new(
                    ErrorKind::CommandFailed,
                    format!("the download of {} was canceled", x.url),
                ));
            }
            _ => {}
        }
        if !poll.wait(deadline).await {
            return Err(StepError::new(
                ErrorKind::Timeout,
                match (mine, &href) {
                    (Some(x), _) => format!("timed out: the download of {} did not finish", x.url),
                    (None, Some(h)) => format!(
                        "timed out: clicking {} started no download of its URL {h}{}",
                        r.matched,
                        others(downloads, &before)
                    ),
                    (None, None) => {
                        format!("timed out: clicking {} started no download", r.matched)
                    }
                },
            ));
        }
    };
    let dest = keep(downloads, &done, dest, files)?;
    let size = std::fs::metadata(&dest).map_or(0, |m| m.len());
    Ok(json!({
        "path": dest.display().to_string(),
        "size": size,
        "suggested_name": done.suggested,
        "url": done.url,
        "matched": r.matched,
    }))
}

/// Moves a finished download from the browser's directory to `dest` (the step's `path`) or
/// `downloads/<suggested name>` (secrets masked, the next free name when it is taken), and
/// marks it taken; where it went.
fn keep(
    downloads: &mut Downloads,
    done: &Download,
    dest: Option<PathBuf>,
    files: &StepFiles,
) -> Result<PathBuf, StepError> {
    if let Some(x) = downloads.seen.iter_mut().find(|x| x.guid == done.guid) {
        x.taken = true;
    }
    let failed = |why: String| StepError::new(ErrorKind::CommandFailed, why);
    let Some(dest) = dest else {
        return downloads.name(done, &files.masker).map_err(failed);
    };
    // `dest` was made ready (its folders made, no link followed) by `files.artifact`.
    let from = downloads.at.dir.join(&done.guid);
    std::fs::rename(&from, &dest).map_err(|e| {
        failed(format!(
            "cannot move the download to {}: {e}",
            dest.display()
        ))
    })?;
    Ok(dest)
}

/// The error of a step whose download went past the flow's bound (and was cancelled).
fn past_bound(url: &str) -> StepError {
    StepError::new(
        ErrorKind::CommandFailed,
        format!(
            "the download of {url} was canceled: the flow's downloads reached their bound ({} downloads, {} MiB in all)",
            crate::browser::driver::cdp::MAX_DOWNLOADS,
            crate::browser::driver::cdp::MAX_DOWNLOAD_BYTES / 1024 / 1024
        ),
    )
}

/// The downloads that began during the step but are not its, for its error.
fn others(downloads: &Downloads, before: &[String]) -> String {
    let urls: Vec<&str> = downloads
        .seen
        .iter()
        .filter(|x| !x.taken && !before.contains(&x.guid))
        .map(|x| x.url.as_str())
        .collect();
    if urls.is_empty() {
        String::new()
    } else {
        format!(" (downloads that began meanwhile: {})", urls.join(", "))
    }
}

/// `url` and the URLs it redirected to since `since_ms`: the requests of agent-browser's log
/// that share a request id with a request of `url` (DevTools keeps a request's id across its
/// redirects).
async fn redirects(
    session: &mut Session,
    url: &str,
    since_ms: u128,
) -> Result<Vec<String>, StepError> {
    let requests = session.requests_since(since_ms).await?;
    let log: Vec<(&str, &str)> = requests
        .iter()
        .filter_map(|r| Some((r.get("requestId")?.as_str()?, r.get("url")?.as_str()?)))
        .collect();
    let ids: Vec<&str> = log
        .iter()
        .filter(|(_, u)| *u == url)
        .map(|(id, _)| *id)
        .collect();
    let mut chain = vec![url.to_string()];
    for (id, u) in &log {
        if ids.contains(id) && !chain.iter().any(|c| c == u) {
            chain.push((*u).to_string());
        }
    }
    Ok(chain)
}

/// The absolute URL a link points to, when the target is a link with an `href` that loads
/// something: none for `#` (a fragment of the page) or `javascript:`, whose click's download is
/// one its script makes (a Blob's `blob:` URL), taken whatever its URL.
async fn link_url(
    session: &mut Session,
    target: &str,
    t: Duration,
) -> Result<Option<String>, StepError> {
    let attr = Command::GetAttribute {
        selector: target.to_string(),
        attribute: "href".into(),
    };
    let Some(href) = session.ask::<Attribute>(attr, t).await?.value else {
        return Ok(None);
    };
    let js = call(ABSOLUTE_URL_JS, &[json!(href)]);
    Ok(session.eval(&js, t).await?.as_str().map(str::to_string))
}
