//! Who listens on a TCP port, from `/proc` (Linux), measured against the tree of a command
//! runner started: the listening sockets of `/proc/net/tcp` and `/proc/net/tcp6` (this network
//! namespace's), and the processes that hold each (a `/proc/<pid>/fd` link `socket:[inode]`).
//! A web server's readiness asks it once the port answers, so that an answer from another
//! program on the port (a parallel run's server) is not taken for the command's.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use super::tree;

/// Who holds what listens on a port.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Holder {
    /// A process of the command's tree (its supervisor and what descends from it).
    Ours,
    /// Another program: a process outside the tree that was running before the command
    /// started. `command` is its command line.
    Other { pid: i32, command: String },
    /// Nothing to say: no listener in this network namespace (a remote host, a container's
    /// port forwarded by the firewall), a holder runner may not look at (another user's), or
    /// one started after the command (`docker-proxy` for a `docker run -p` the command ran),
    /// or not Linux.
    Unknown,
}

/// A listening socket: its local address and port, and its inode.
#[derive(Debug, PartialEq, Eq)]
struct Listener {
    addr: IpAddr,
    port: u16,
    inode: u64,
}

/// `st` of a socket in `LISTEN` (the kernel's `TCP_LISTEN`, 10).
const LISTEN: &str = "0A";

/// The listening sockets of a `/proc/net/tcp` or `/proc/net/tcp6` table: a header line, then
/// `sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...`.
fn parse(table: &str) -> Vec<Listener> {
    table
        .lines()
        .skip(1)
        .filter_map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            if *f.get(3)? != LISTEN {
                return None;
            }
            let (addr, port) = f.get(1)?.split_once(':')?;
            Some(Listener {
                addr: address(addr)?,
                port: u16::from_str_radix(port, 16).ok()?,
                inode: f.get(9)?.parse().ok()?,
            })
        })
        .collect()
}

/// An address as the kernel writes it: 32-bit words in hex (one for IPv4, four for IPv6), each
/// the network-order bytes read as a number of the machine's byte order.
fn address(hex: &str) -> Option<IpAddr> {
    let word = |i: usize| -> Option<[u8; 4]> {
        Some(
            u32::from_str_radix(hex.get(i * 8..i * 8 + 8)?, 16)
                .ok()?
                .to_ne_bytes(),
        )
    };
    match hex.len() {
        8 => Some(IpAddr::V4(Ipv4Addr::from(word(0)?))),
        32 => {
            let mut b = [0u8; 16];
            for i in 0..4 {
                b[i * 4..i * 4 + 4].copy_from_slice(&word(i)?);
            }
            Some(IpAddr::V6(Ipv6Addr::from(b)))
        }
        _ => None,
    }
}

/// Whether a connection to `host` reaches a socket listening on `addr`: the same address, or
/// the wildcard (`::` may take IPv4 too) when `host` is one of this machine's addresses.
fn reaches(host: IpAddr, addr: IpAddr) -> bool {
    let host = host.to_canonical();
    if addr.is_unspecified() {
        return (addr.is_ipv6() || host.is_ipv4()) && is_local(host);
    }
    host == addr.to_canonical()
}

/// Whether `ip` is this machine's: a loopback address, or one a socket can be bound to.
fn is_local(ip: IpAddr) -> bool {
    ip.is_loopback() || std::net::UdpSocket::bind((ip, 0)).is_ok()
}

/// The inodes of the sockets listening on `port` that a connection to `host` (an address, or
/// a name resolved as the probe resolves it) may reach.
fn listening(host: &str, port: u16) -> Vec<u64> {
    use std::net::ToSocketAddrs;
    let hosts: Vec<IpAddr> = match host.parse() {
        Ok(ip) => vec![ip],
        Err(_) => (host, port)
            .to_socket_addrs()
            .map(|a| a.map(|a| a.ip()).collect())
            .unwrap_or_default(),
    };
    ["/proc/net/tcp", "/proc/net/tcp6"]
        .iter()
        .filter_map(|t| std::fs::read_to_string(t).ok())
        .flat_map(|t| parse(&t))
        .filter(|l| l.port == port && hosts.iter().any(|h| reaches(*h, l.addr)))
        .map(|l| l.inode)
        .collect()
}

/// The processes among `pids` that hold one of the sockets `inodes` (those runner may look at).
fn holding(pids: impl Iterator<Item = i32>, inodes: &[u64]) -> Vec<i32> {
    let links: Vec<String> = inodes.iter().map(|i| format!("socket:[{i}]")).collect();
    pids.filter(|pid| {
        let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
            return false;
        };
        fds.flatten().any(|fd| {
            std::fs::read_link(fd.path())
                .is_ok_and(|to| links.iter().any(|l| to.as_os_str() == l.as_str()))
        })
    })
    .collect()
}

/// A process's command line, its arguments separated by spaces (its name when it has none).
fn command_line(pid: i32) -> String {
    let raw = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    let args: Vec<String> = raw
        .split(|b| *b == 0)
        .filter(|a| !a.is_empty())
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    if args.is_empty() {
        std::fs::read_to_string(format!("/proc/{pid}/comm"))
            .map(|c| c.trim().to_string())
            .unwrap_or_default()
    } else {
        args.join(" ")
    }
}

/// Who holds what listens at `host:port`, against the tree of `leader` (the process runner
/// started, at `started`: its `tree::start_time`). The tree is looked at first (a few
/// processes), every process only when no process of the tree holds the socket.
pub(crate) fn holder(host: &str, port: u16, leader: i32, started: Option<u64>) -> Holder {
    if !cfg!(target_os = "linux") {
        return Holder::Unknown;
    }
    let inodes = listening(host, port);
    if inodes.is_empty() {
        return Holder::Unknown;
    }
    let ours = tree::tree(leader);
    if !holding(ours.iter().copied(), &inodes).is_empty() {
        return Holder::Ours;
    }
    let Some(started) = started else {
        return Holder::Unknown;
    };
    let others = tree::all_pids().into_iter().filter(|p| !ours.contains(p));
    // Several processes share a socket when a server forks its workers: the oldest is the one
    // that opened it. Started before the command, it cannot be the command's.
    holding(others, &inodes)
        .into_iter()
        .filter_map(|pid| Some((tree::start_time(pid)?, pid)))
        .min()
        .filter(|(at, _)| *at < started)
        .map_or(Holder::Unknown, |(_, pid)| Holder::Other {
            pid,
            command: command_line(pid),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(target_endian = "little")]
    fn the_tables_give_listening_sockets_with_their_addresses_ports_and_inodes() {
        let tcp = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 45121 1 0000000000000000 100 0 0 10 0
   1: 00000000:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1234 1 0000000000000000 100 0 0 10 0
   2: 0100007F:1F90 0100007F:C350 01 00000000:00000000 00:00000000 00000000  1000        0 45999 1 0000000000000000 20 4 30 10 -1
";
        assert_eq!(
            parse(tcp),
            vec![
                Listener {
                    addr: "127.0.0.1".parse().unwrap(),
                    port: 8080,
                    inode: 45121
                },
                Listener {
                    addr: "0.0.0.0".parse().unwrap(),
                    port: 22,
                    inode: 1234
                },
            ]
        );
        let tcp6 = "  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000001000000:1F91 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 777 1 0000000000000000 100 0 0 10 0
   1: 00000000000000000000000000000000:0050 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 778 1 0000000000000000 100 0 0 10 0
   2: 0000000000000000FFFF00000100007F:1F92 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 779 1 0000000000000000 100 0 0 10 0
";
        let got: Vec<(IpAddr, u16, u64)> = parse(tcp6)
            .into_iter()
            .map(|l| (l.addr, l.port, l.inode))
            .collect();
        assert_eq!(
            got,
            vec![
                ("::1".parse().unwrap(), 8081, 777),
                ("::".parse().unwrap(), 80, 778),
                ("::ffff:127.0.0.1".parse().unwrap(), 8082, 779),
            ]
        );
        assert!(parse("header\ngarbage line\n").is_empty());
    }

    #[test]
    fn a_connection_reaches_its_own_address_and_the_wildcards_of_this_machine() {
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        let v4 = ip("127.0.0.1");
        assert!(reaches(v4, ip("127.0.0.1")));
        assert!(reaches(v4, ip("0.0.0.0")));
        assert!(reaches(v4, ip("::")));
        assert!(reaches(v4, ip("::ffff:127.0.0.1")));
        assert!(reaches(ip("::ffff:127.0.0.1"), ip("0.0.0.0")));
        assert!(!reaches(v4, ip("127.0.0.2")));
        assert!(!reaches(v4, ip("::1")));
        let v6 = ip("::1");
        assert!(reaches(v6, ip("::1")));
        assert!(reaches(v6, ip("::")));
        assert!(!reaches(v6, ip("0.0.0.0")));
        assert!(!reaches(v6, ip("127.0.0.1")));
        // Another machine's address reaches no listener here, not even a wildcard one.
        assert!(!reaches(ip("192.0.2.7"), ip("0.0.0.0")));
        assert!(!reaches(ip("2001:db8::7"), ip("::")));
    }

    /// `sh` that forks a Python listener on a free port and waits: the port, and the `sh`.
    fn wrapped_listener() -> (u16, std::process::Child) {
        use std::io::BufRead;
        let listen = "import socket, time; s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(); print(s.getsockname()[1], flush=True); time.sleep(60)";
        let mut sh = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("python3 -c \"{listen}\" & wait"))
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(sh.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        (line.trim().parse().unwrap(), sh)
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_grandchild_listening_is_ours_and_anything_else_older_is_another_program() {
        let (port, mut sh) = wrapped_listener();
        let sh_pid = i32::try_from(sh.id()).unwrap();
        let started = tree::start_time(sh_pid);
        assert!(started.is_some());
        // The listener is sh's child, not sh: found by the tree.
        assert_eq!(holder("127.0.0.1", port, sh_pid, started), Holder::Ours);
        assert_eq!(holder("localhost", port, sh_pid, started), Holder::Ours);
        // Against another tree (a `sleep` that started after everything), it is another
        // program, named ...
        let mut sleep = std::process::Command::new("sleep")
            .arg("60")
            .spawn()
            .unwrap();
        let other = i32::try_from(sleep.id()).unwrap();
        match holder("127.0.0.1", port, other, Some(u64::MAX)) {
            Holder::Other { pid, command } => {
                assert_ne!(pid, sh_pid);
                assert!(command.contains("python3 -c import socket"), "{command}");
            }
            h => panic!("{h:?}"),
        }
        // ... but not when it started after that tree's start.
        assert_eq!(holder("127.0.0.1", port, other, Some(0)), Holder::Unknown);
        // A connection to ::1 does not reach it.
        assert_eq!(holder("::1", port, other, Some(u64::MAX)), Holder::Unknown);
        tree::kill_descendants(sh_pid);
        let _ = sh.kill();
        let _ = sh.wait();
        // The test's own listener, outside that tree and older than a later start.
        let mine = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = mine.local_addr().unwrap().port();
        let me = i32::try_from(std::process::id()).unwrap();
        assert_eq!(
            holder("127.0.0.1", port, other, Some(u64::MAX)),
            Holder::Other {
                pid: me,
                command: command_line(me)
            }
        );
        let _ = sleep.kill();
        let _ = sleep.wait();
    }
}
