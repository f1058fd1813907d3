//! `--browser-cdp` / `RUNNER_BROWSER_CDP`: the DevTools endpoint of a browser already running,
//! checked before anything is started.

use super::error::CliError;

/// A running browser's DevTools endpoint (`--browser-cdp`, `RUNNER_BROWSER_CDP`): empty is none;
/// anything but an `http(s)://` or `ws(s)://` URL is refused, not tried.
pub(super) fn remote_browser(url: Option<&str>) -> Result<Option<String>, CliError> {
    let Some(url) = url.map(str::trim).filter(|u| !u.is_empty()) else {
        return Ok(None);
    };
    let ok = ["http://", "https://", "ws://", "wss://"]
        .iter()
        .any(|s| url.starts_with(s) && url.len() > s.len());
    if !ok {
        return Err(CliError::Usage(format!(
            "--browser-cdp / RUNNER_BROWSER_CDP: `{}` is not a DevTools endpoint: give http://host:port or a ws:// URL",
            crate::step::url_secrets::shown_url(url)
        )));
    }
    Ok(Some(url.to_string()))
}
