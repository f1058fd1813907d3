//! Ports: a free one for `port: auto` (never one handed out before in this run, so two servers
//! starting at once do not get the same), and whether a port already answers.

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

fn handed_out() -> &'static Mutex<HashSet<u16>> {
    static H: OnceLock<Mutex<HashSet<u16>>> = OnceLock::new();
    H.get_or_init(|| Mutex::new(HashSet::new()))
}

/// A port nothing listens on at 127.0.0.1, not handed out before in this run.
pub(crate) fn pick_free() -> std::io::Result<u16> {
    for _ in 0..50 {
        let port = std::net::TcpListener::bind("127.0.0.1:0")?
            .local_addr()?
            .port();
        if handed_out().lock().is_ok_and(|mut h| h.insert(port)) {
            return Ok(port);
        }
    }
    Err(std::io::Error::other("no free port found"))
}

/// Whether something accepts connections at `host:port`.
pub(crate) async fn in_use(host: &str, port: u16) -> bool {
    matches!(
        tokio::time::timeout(
            Duration::from_secs(1),
            tokio::net::TcpStream::connect((host, port))
        )
        .await,
        Ok(Ok(_))
    )
}

/// The host and port a URL names (80 or 443 by its scheme when it names none).
pub(crate) fn host_port(url: &str) -> Option<(String, u16)> {
    let u = reqwest::Url::parse(url).ok()?;
    let host = u.host_str()?.trim_matches(['[', ']']).to_string();
    Some((host, u.port_or_known_default()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_ports_are_not_handed_out_twice() {
        let ports: HashSet<u16> = (0..20).map(|_| pick_free().unwrap()).collect();
        assert_eq!(ports.len(), 20);
    }

    #[test]
    fn urls_name_their_host_and_port() {
        assert_eq!(
            host_port("http://127.0.0.1:8765/x"),
            Some(("127.0.0.1".into(), 8765))
        );
        assert_eq!(
            host_port("http://localhost/"),
            Some(("localhost".into(), 80))
        );
        assert_eq!(
            host_port("https://localhost/health"),
            Some(("localhost".into(), 443))
        );
        assert_eq!(host_port("http://[::1]:8080/"), Some(("::1".into(), 8080)));
        assert_eq!(host_port("not a url"), None);
    }
}
