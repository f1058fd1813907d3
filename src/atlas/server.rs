//! Which of a run's web servers a URL is on: what an atlas remembers (`atlas.json`'s `server`)
//! so that its replays go to that server's origin of their own run, for an explore (its start
//! URL) and for `link_state` steps (the URL of the flow's first recorded state).

use serde_json::{Map, Value};

/// The server a URL is on (its name), among `servers` (`web_server.<name>`: `{url, port}`, in
/// order): the one of the URL's origin, else, for a URL on this machine (`localhost`,
/// `127.0.0.1`, `[::1]`), the one of its port; none for a URL on none of them.
pub(crate) fn server_of(url: &str, servers: &Map<String, Value>) -> Option<String> {
    let at = url_origin(url);
    let origins: Vec<(&String, String)> = servers
        .iter()
        .filter_map(|(name, v)| Some((name, url_origin(v.get("url")?.as_str()?))))
        .collect();
    let by_origin = origins.iter().find(|(_, o)| *o == at);
    let by_port = || {
        let (host, port) = host_port(&at)?;
        if !is_local(host) {
            return None;
        }
        origins
            .iter()
            .find(|(_, o)| host_port(o).is_some_and(|(h, p)| is_local(h) && p == port))
    };
    by_origin.or_else(by_port).map(|(name, _)| (*name).clone())
}

/// `scheme://host:port` of a URL (the URL itself, less a trailing `/`, when it has no scheme).
pub(crate) fn url_origin(url: &str) -> String {
    match url.split_once("://") {
        Some((scheme, rest)) => {
            let host = rest.split(['/', '?', '#']).next().unwrap_or("");
            format!("{scheme}://{host}")
        }
        None => url.trim_end_matches('/').to_string(),
    }
}

/// The host and port of an origin (`scheme://host:port`); the scheme's port when it has none.
fn host_port(origin: &str) -> Option<(&str, u16)> {
    let (scheme, authority) = origin.split_once("://")?;
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) if !p.contains(']') => (h, p.parse().ok()?),
        _ => (authority, if scheme == "https" { 443 } else { 80 }),
    };
    Some((host, port))
}

/// Whether a host is this machine.
fn is_local(host: &str) -> bool {
    matches!(host, "localhost" | "[::1]") || host.starts_with("127.")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_url_is_on_the_server_of_its_origin_or_of_its_local_port() {
        let mut servers = Map::new();
        servers.insert(
            "api".into(),
            json!({"url": "http://127.0.0.1:7001", "port": 7001}),
        );
        servers.insert(
            "site".into(),
            json!({"url": "http://127.0.0.1:7002/app/", "port": 7002}),
        );
        for (url, on) in [
            ("http://127.0.0.1:7002/index.html", Some("site")),
            ("http://127.0.0.1:7001", Some("api")),
            ("http://localhost:7002/a?b", Some("site")),
            ("http://127.0.0.1:7003/", None),
            ("http://example.test:7002/", None),
            ("https://example.test/", None),
        ] {
            assert_eq!(server_of(url, &servers).as_deref(), on, "{url}");
        }
        assert_eq!(server_of("http://127.0.0.1:7002/", &Map::new()), None);
        assert_eq!(
            url_origin("http://127.0.0.1:8123/app?x=1"),
            "http://127.0.0.1:8123"
        );
    }
}
