//! The readiness probe: an HTTP GET of a server's readiness URL (`ready_url`, else `url`),
//! `http` or `https` (on 443 when the URL names no port). A server is ready when it answers with
//! a status below 404 (2xx, a redirect, 401, 403), as Playwright's `webServer.url`; a 404 or a
//! 5xx (an app still warming up) is not ready. The probe does not check an `https` server's
//! certificate (dev servers often use a self-signed one): it only asks whether the server
//! answers, and the flows' browser makes its own checks.

use std::sync::OnceLock;
use std::time::Duration;

/// What a GET of `url` got: its status, or `None` when nothing answered (in 2 s).
pub(crate) async fn status(url: &str) -> Option<u16> {
    let resp = client()?.get(url).send().await.ok()?;
    Some(resp.status().as_u16())
}

/// Whether a status says the server is ready.
pub(crate) fn is_ready(status: u16) -> bool {
    status < 404
}

/// One client for every probe: no proxy (the servers are local), no redirect followed (a 3xx is
/// an answer), no connection kept (a server is stopped with nothing of runner's open on it).
fn client() -> Option<&'static reqwest::Client> {
    static CLIENT: OnceLock<Option<reqwest::Client>> = OnceLock::new();
    CLIENT
        .get_or_init(|| {
            reqwest::Client::builder()
                .no_proxy()
                .redirect(reqwest::redirect::Policy::none())
                .danger_accept_invalid_certs(true)
                .pool_max_idle_per_host(0)
                .connect_timeout(Duration::from_secs(1))
                .timeout(Duration::from_secs(2))
                .build()
                .ok()
        })
        .as_ref()
}
