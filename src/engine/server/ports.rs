//! Ports: a free one for `port: auto`, and whether a port already answers.
//!
//! `port: auto` does not ask the kernel for a port (a bind to port 0): that port comes from the
//! ephemeral range (`/proc/sys/net/ipv4/ip_local_port_range`), where every other bind to port
//! 0 picks too and where every outgoing connection takes its local port — Chromium makes many —
//! so another program may take it between the pick and the server's bind (the server then
//! fails "address in use", or another program answers in its place). The port is drawn at
//! random below that range instead (from 10000 up), checked free on every local address, and
//! never handed out twice in a run, so two servers starting at once do not get the same. The
//! check binds without listening (see `claim`); another program that picks at random too may
//! still take the port before the server binds it: the start then picks again
//! (`process::Server::start`).

use std::collections::HashSet;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
use std::ops::RangeInclusive;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use tokio::net::TcpSocket;

/// The lowest port `port: auto` picks: below are the ports servers are configured on by hand
/// (3000, 5432, 8080, ...).
const LOWEST: u16 = 10000;

/// The fewest ports a range to pick from may have.
const ENOUGH: u16 = 1000;

/// Linux's default ephemeral range, when it cannot be read (it is also below the IANA dynamic
/// range, 49152-65535, that other systems use).
const EPHEMERAL: (u16, u16) = (32768, 60999);

fn handed_out() -> &'static Mutex<HashSet<u16>> {
    static H: OnceLock<Mutex<HashSet<u16>>> = OnceLock::new();
    H.get_or_init(|| Mutex::new(HashSet::new()))
}

/// The ephemeral range, `ip_local_port_range` (`low<TAB>high`).
fn ephemeral(text: Option<&str>) -> (u16, u16) {
    let mut it = text.unwrap_or_default().split_whitespace().map(str::parse);
    match (it.next(), it.next()) {
        (Some(Ok(lo)), Some(Ok(hi))) if lo <= hi => (lo, hi),
        _ => EPHEMERAL,
    }
}

/// The ports to pick from: below the ephemeral range (from `LOWEST`), else above it, when
/// either holds `ENOUGH`; else (an ephemeral range that spans nearly all) every port from
/// `LOWEST`, where being checked free is all there is.
fn band((lo, hi): (u16, u16)) -> RangeInclusive<u16> {
    if lo.saturating_sub(LOWEST) >= ENOUGH {
        LOWEST..=lo - 1
    } else if u16::MAX - hi >= ENOUGH {
        hi.max(LOWEST) + 1..=u16::MAX
    } else {
        LOWEST..=u16::MAX
    }
}

/// Whether nothing is bound to `port` on any local address: the IPv4 wildcard, then the IPv6
/// one (a machine without IPv6 cannot bind it: only "in use" counts there). Bound one after
/// the other, as a dual-stack `::` would clash with the IPv4 one held.
fn free(port: u16) -> bool {
    if claim((Ipv4Addr::UNSPECIFIED, port).into()).is_err() {
        return false;
    }
    !matches!(
        claim((Ipv6Addr::UNSPECIFIED, port).into()),
        Err(e) if e.kind() == std::io::ErrorKind::AddrInUse
    )
}

/// A socket bound to `addr` (with `SO_REUSEADDR`, as servers bind) and not listening: the bind
/// fails when something listens on the port, which is all the check asks. It must not listen:
/// a process runner forks meanwhile (a browser, a step's command, another server) holds a copy
/// of every open socket until it runs its program, so a listening one would outlive its drop
/// and accept the connection of the start's `in_use`, which would then find the port "already
/// in use" — by runner's own check. A socket that only is bound accepts nothing.
fn claim(addr: SocketAddr) -> std::io::Result<TcpSocket> {
    let socket = if addr.is_ipv4() {
        TcpSocket::new_v4()?
    } else {
        TcpSocket::new_v6()?
    };
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    Ok(socket)
}

/// A port nothing is bound to, drawn at random from `band`, not handed out before in this run.
pub(crate) fn pick_free() -> std::io::Result<u16> {
    let range = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range").ok();
    let band = band(ephemeral(range.as_deref()));
    let span = u128::from(band.end() - band.start()) + 1;
    for _ in 0..200 {
        let offset = u16::try_from(uuid::Uuid::new_v4().as_u128() % span)
            .expect("an offset in a span of ports fits a port");
        let port = band.start() + offset;
        if free(port) && handed_out().lock().is_ok_and(|mut h| h.insert(port)) {
            return Ok(port);
        }
    }
    Err(std::io::Error::other(format!(
        "no free port found in {}-{}",
        band.start(),
        band.end()
    )))
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
    use std::net::TcpListener;
    use std::os::fd::AsFd;

    #[test]
    fn free_ports_are_below_the_ephemeral_range_free_and_not_handed_out_twice() {
        let range = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range").ok();
        let (lo, _) = ephemeral(range.as_deref());
        let ports: HashSet<u16> = (0..50).map(|_| pick_free().unwrap()).collect();
        assert_eq!(ports.len(), 50);
        for p in &ports {
            assert!((LOWEST..lo).contains(p), "{p} is not below {lo}");
        }
        // Drawn at random, not in order.
        let mut sorted: Vec<u16> = ports.iter().copied().collect();
        sorted.sort_unstable();
        assert!(sorted.windows(2).any(|w| w[1] - w[0] > 1), "{sorted:?}");
        // A port something listens on is not free (on the address it listens on, or any).
        let taken = TcpListener::bind("127.0.0.1:0").unwrap();
        assert!(!free(taken.local_addr().unwrap().port()));
    }

    #[tokio::test]
    async fn a_copy_of_the_free_check_left_in_a_forked_process_accepts_no_connection() {
        // What a process forked while `free` holds its socket has: a copy of it, alive until the
        // child runs its program (`dup` makes the same copy, at a moment the test chooses).
        let port = pick_free().unwrap();
        let checked = claim((Ipv4Addr::UNSPECIFIED, port).into()).unwrap();
        let copy = checked.as_fd().try_clone_to_owned().unwrap();
        drop(checked);
        assert!(
            !in_use("127.0.0.1", port).await,
            "port {port}: runner's own check answers"
        );
        drop(copy);
        assert!(free(port));
    }

    #[test]
    fn the_band_is_below_the_ephemeral_range_else_above_else_everything() {
        assert_eq!(ephemeral(Some("32768\t60999\n")), (32768, 60999));
        assert_eq!(ephemeral(Some("garbage")), EPHEMERAL);
        assert_eq!(ephemeral(None), EPHEMERAL);
        assert_eq!(band((32768, 60999)), 10000..=32767);
        assert_eq!(band((49152, 65535)), 10000..=49151);
        assert_eq!(band((1024, 50000)), 50001..=65535);
        assert_eq!(band((10500, 65000)), 10000..=65535);
        assert_eq!(band((1024, 65535)), 10000..=65535);
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
