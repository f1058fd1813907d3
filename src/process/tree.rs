//! A process's descendants, by their parents in `/proc`: what a process group does not hold. A
//! child that calls `setsid` (a daemon, `setsid cmd &`) leaves its group and session, so a
//! signal to the group misses it; it stays a descendant of the nearest subreaper above it (the
//! supervisor runner starts each command under, see `supervisor`), and is found here.

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

/// How many times `kill_descendants` looks again for processes that a fork racing its last
/// look made (each look kills what it finds; a process that forks endlessly is outrun after a
/// few).
const PASSES: usize = 20;

/// Field `n` (1-based, as proc(5) numbers them) of `/proc/<pid>/stat`, from the state (3) on.
fn stat_field(pid: i32, n: usize) -> Option<u64> {
    stat_fields(pid, [n]).map(|[f]| f)
}

/// Fields `ns` of `/proc/<pid>/stat` (see [`stat_field`]), read at once.
fn stat_fields<const N: usize>(pid: i32, ns: [usize; N]) -> Option<[u64; N]> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ppid ...`: the name may hold spaces and parentheses.
    let fields: Vec<&str> = stat.rsplit_once(") ")?.1.split(' ').collect();
    let mut out = [0; N];
    for (o, n) in out.iter_mut().zip(ns) {
        *o = fields.get(n.checked_sub(3)?)?.parse().ok()?;
    }
    Some(out)
}

/// When `pid` started, in clock ticks after boot (`starttime` of `/proc/<pid>/stat`): only to
/// compare with another process's.
pub(crate) fn start_time(pid: i32) -> Option<u64> {
    stat_field(pid, 22)
}

/// Whether `pid` leads its own process group in the session of `other`: a command a supervisor
/// started (`supervisor::start` makes it a group's leader, in the supervisor's session), not a
/// process the supervisor adopted (one that left with `setsid` has a session of its own; one left
/// in the command's group does not lead it).
pub(crate) fn leads_a_group_in_session_of(pid: i32, other: i32) -> bool {
    let Some([group, session]) = stat_fields(pid, [5, 6]) else {
        return false;
    };
    group == u64::from(pid.cast_unsigned()) && stat_field(other, 6) == Some(session)
}

/// Every live process's id, from `/proc`.
pub(crate) fn all_pids() -> Vec<i32> {
    std::fs::read_dir("/proc").map_or_else(
        |_| Vec::new(),
        |entries| {
            entries
                .flatten()
                .filter_map(|e| e.file_name().to_str()?.parse().ok())
                .collect()
        },
    )
}

/// The children of `pid`: those of each of its threads (`/proc/<pid>/task/<tid>/children`; an
/// orphan a subreaper adopts is the child of one of its threads).
pub(crate) fn children(pid: i32) -> Vec<i32> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    tasks
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("children")).ok())
        .flat_map(|c| {
            c.split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect::<Vec<i32>>()
        })
        .collect()
}

/// Every process's parent: `(pid, parent pid)`, from `/proc/<pid>/stat`.
fn parents() -> Vec<(i32, i32)> {
    all_pids()
        .into_iter()
        .filter_map(|pid| Some((pid, i32::try_from(stat_field(pid, 4)?).ok()?)))
        .collect()
}

/// Whether the kernel lists each task's children (`/proc/<pid>/task/<tid>/children`, Linux's
/// `CONFIG_PROC_CHILDREN`).
fn children_listed() -> bool {
    static LISTED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *LISTED.get_or_init(|| {
        let me = std::process::id();
        std::path::Path::new(&format!("/proc/{me}/task/{me}/children")).exists()
    })
}

/// The processes that descend from `pid` (not `pid` itself), children before grandchildren,
/// leaving out `spare` and what descends from it. Found by walking down from `pid` through its
/// threads' children, so only its own tree is read: a look over every process on the machine
/// (each one's `/proc/<pid>/stat`) costs with their number and waits on processes being torn
/// down (a browser just killed: 30 ms seen at the end of a run). Without the kernel's lists,
/// by every process's parent.
fn descendants(pid: i32, spare: Option<i32>) -> Vec<i32> {
    let mut out = vec![pid];
    let all = if children_listed() {
        None
    } else {
        Some(parents())
    };
    let mut i = 0;
    while i < out.len() {
        let of = out[i];
        let found: Vec<i32> = match &all {
            None => children(of),
            Some(all) => all
                .iter()
                .filter(|(_, pp)| *pp == of)
                .map(|(p, _)| *p)
                .collect(),
        };
        for p in found {
            // (A pid taken again while the walk runs must not loop it.)
            if Some(p) != spare && !out.contains(&p) {
                out.push(p);
            }
        }
        i += 1;
    }
    out.remove(0);
    out
}

/// `pid` and the processes that descend from it: the tree of a command runner started.
pub(crate) fn tree(pid: i32) -> Vec<i32> {
    let mut out = vec![pid];
    out.extend(descendants(pid, None));
    out
}

/// SIGKILLs every live descendant of `pid` (not `pid` itself), and looks again while a look
/// finds live ones: the children of a killed process go to the nearest subreaper above it, and
/// a fork may race a look.
pub(crate) fn kill_descendants(pid: i32) {
    kill_descendants_but(pid, None);
}

/// `kill_descendants`, sparing `spare` and what descends from it.
pub(crate) fn kill_descendants_but(pid: i32, spare: Option<i32>) {
    for _ in 0..PASSES {
        let live: Vec<i32> = descendants(pid, spare)
            .into_iter()
            .filter(|p| super::is_live(*p))
            .collect();
        if live.is_empty() {
            return;
        }
        for p in live {
            let _ = kill(Pid::from_raw(p), Signal::SIGKILL);
        }
    }
}

/// Ends a process group runner started and everything its leader started, also what left the
/// group: the leader's descendants first (the leader, alive, keeps the orphans of those it
/// loses), then the group.
pub(crate) fn kill_tree(pgid: i32) {
    if pgid > 1 && super::is_live(pgid) {
        kill_descendants(pgid);
    }
    super::signal::signal_group(pgid, Signal::SIGKILL);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_setsid_grandchild_is_a_descendant_and_is_killed() {
        let d = tempfile::tempdir().unwrap();
        let pidfile = d.path().join("pid");
        let mut sh = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!(
                "setsid sleep 300 & echo $! > {}; exec sleep 300",
                pidfile.display()
            ))
            .spawn()
            .unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let grandchild: i32 = loop {
            if let Some(p) = std::fs::read_to_string(&pidfile)
                .ok()
                .and_then(|t| t.trim().parse().ok())
            {
                break p;
            }
            assert!(std::time::Instant::now() < deadline);
            std::thread::sleep(std::time::Duration::from_millis(10));
        };
        let sh_pid = i32::try_from(sh.id()).unwrap();
        assert!(descendants(sh_pid, None).contains(&grandchild));
        assert!(!descendants(sh_pid, Some(grandchild)).contains(&grandchild));
        kill_descendants(sh_pid);
        // The shell itself (exec'd into sleep) is not a descendant of itself.
        assert!(super::super::is_live(sh_pid));
        let gone = (0..200).any(|_| {
            std::thread::sleep(std::time::Duration::from_millis(10));
            !super::super::is_live(grandchild)
        });
        let _ = sh.kill();
        let _ = sh.wait();
        assert!(gone, "{grandchild} lives on");
    }

    /// The walk down through the kernel's children lists finds what a look at every process's
    /// parent finds: children, grandchildren (a nested shell's), in that order, and no other.
    #[test]
    fn the_walk_down_finds_the_tree_every_parent_shows() {
        let mut sh = std::process::Command::new("sh")
            .arg("-c")
            .arg("sleep 300 & sh -c 'sleep 300 & sleep 300 & exec sleep 300' & exec sleep 300")
            .spawn()
            .unwrap();
        let sh_pid = i32::try_from(sh.id()).unwrap();
        let by_parents = || {
            let all = parents();
            let mut out = vec![sh_pid];
            let mut i = 0;
            while i < out.len() {
                let of = out[i];
                out.extend(all.iter().filter(|(_, pp)| *pp == of).map(|(p, _)| *p));
                i += 1;
            }
            out.remove(0);
            out
        };
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while by_parents().len() < 4 {
            assert!(std::time::Instant::now() < deadline, "the tree never grew");
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!(children_listed(), "this kernel lists children");
        let mut walked = descendants(sh_pid, None);
        let mut scanned = by_parents();
        kill_descendants(sh_pid);
        let _ = sh.kill();
        let _ = sh.wait();
        assert_eq!(walked.len(), 4, "{walked:?}");
        walked.sort_unstable();
        scanned.sort_unstable();
        assert_eq!(walked, scanned);
    }

    #[test]
    fn only_a_group_leader_in_the_same_session_passes_for_a_supervisors_command() {
        use std::os::unix::process::CommandExt;
        let me = std::process::id().cast_signed();
        let spawn = |f: fn(&mut std::process::Command)| {
            let mut c = std::process::Command::new("sleep");
            c.arg("30");
            f(&mut c);
            c.spawn().unwrap()
        };
        // As the supervisor starts a command: a group of its own, in the supervisor's session.
        let mut leader = spawn(|c| {
            c.process_group(0);
        });
        // Left in its parent's group (a command's background job): it leads none.
        let mut member = spawn(|_| {});
        // Gone with `setsid` (which calls it in place, not being a group's leader).
        let mut away = std::process::Command::new("setsid")
            .args(["sleep", "30"])
            .spawn()
            .unwrap();
        let away_pid = away.id();
        let until = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while stat_field(away_pid.cast_signed(), 6) != Some(away_pid.into())
            && std::time::Instant::now() < until
        {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        let found = [&leader, &member, &away]
            .map(|c| leads_a_group_in_session_of(c.id().cast_signed(), me));
        for c in [&mut leader, &mut member, &mut away] {
            let _ = c.kill();
            let _ = c.wait();
        }
        assert_eq!(found, [true, false, false]);
    }
}
