//! The guardian: a small process runner starts first, outside every child's process group, that
//! holds the read end of a pipe from runner and learns each process group runner starts. When the
//! pipe closes — runner exited for any reason, `kill -9` included — it kills every group still
//! registered with all their leaders started (`tree`), runs the cleanup it was given (the run's
//! browser daemons), kills the orphans runner adopted (below) and exits.
//!
//! runner is a child subreaper: what loses its parent under it (the orphans of a supervisor that
//! was itself killed) becomes runner's child, and once runner is gone, init's, where no group
//! finds it. So each time a group ends (what it left may just have been adopted) runner tells the
//! guardian its children that lead no group it registered (`=pid:start`, with the start time,
//! so that a process that took a freed pid is spared), and the guardian kills those still there
//! with what they started.

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, Write};
use std::process::{ChildStdin, Command, Stdio};
use std::sync::{Mutex, OnceLock};

/// The guardian's process name (`comm`), which holds no `runner`.
#[cfg(target_os = "linux")]
const NAME: &std::ffi::CStr = c"rnr-guardian";

/// The guardian's pid, once started.
static PID: OnceLock<i32> = OnceLock::new();

/// The guardian's pid (runner's child that outlives it: `kill_all` spares it).
pub(crate) fn pid() -> Option<i32> {
    PID.get().copied()
}

fn pipe() -> &'static Mutex<Option<ChildStdin>> {
    static P: OnceLock<Mutex<Option<ChildStdin>>> = OnceLock::new();
    P.get_or_init(|| Mutex::new(None))
}

/// Starts the guardian (this binary as `rnr-guardian __guardian <runner's pid>`); without one (it could not start), runner
/// still ends its groups itself on every exit it lives through.
pub(crate) fn start() {
    // One guardian per runner: a second runtime's start finds it.
    if PID.get().is_some() {
        return;
    }
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    let mut cmd = Command::new(exe);
    // Its command line holds no `runner` either: `pkill -f runner` matches it.
    std::os::unix::process::CommandExt::arg0(&mut cmd, "rnr-guardian");
    cmd.arg("__guardian")
        .arg(std::process::id().to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // Its own group: a Ctrl-C to the terminal's group must not end it before runner.
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    if let Ok(mut child) = cmd.spawn()
        && let (Some(stdin), Ok(mut p)) = (child.stdin.take(), pipe().lock())
    {
        *p = Some(stdin);
        let _ = PID.set(i32::try_from(child.id()).unwrap_or(0));
        // Reaped by the kernel's init once it exits; runner does not wait for it.
        std::mem::forget(child);
    }
}

/// Tells the guardian about a group (`+pgid`) or that it is gone (`-pgid`).
pub(crate) fn tell(line: &str) {
    if let Ok(mut p) = pipe().lock()
        && let Some(stdin) = p.as_mut()
        && writeln!(stdin, "{line}").is_err()
    {
        *p = None;
    }
}

/// The guardian's own loop (`runner __guardian`): reads `+pgid`/`-pgid`/`=pid:start` lines
/// until the pipe closes, then SIGKILLs the groups left, calls `cleanup` and SIGKILLs the orphans
/// runner adopted that are still there.
pub(crate) fn run(cleanup: &dyn Fn()) {
    // Not named `runner`: `killall -9 runner` or `pkill -9 runner`, the usual way to stop a hung
    // tool, match the process name and would end the guardian with runner, leaving the browser
    // runner launched to run on under init. (Its command line, which `pkill -f` matches, is
    // `rnr-guardian __guardian <pid>`: see `start`.)
    #[cfg(target_os = "linux")]
    let _ = nix::sys::prctl::set_name(NAME);
    // It runs in a process group of its own: a Ctrl-C or a terminal hangup goes to runner's
    // group, not to the guardian, which must outlive runner.
    let mut groups: HashSet<i32> = HashSet::new();
    let mut adopted: HashMap<i32, u64> = HashMap::new();
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let (sign, rest) = line.split_at(line.len().min(1));
        if sign == "=" {
            if let Some((pid, start)) = rest.split_once(':')
                && let (Ok(pid), Ok(start)) = (pid.parse(), start.trim().parse())
            {
                // Those gone since are forgotten: the list stays as long as what is alive.
                adopted.retain(|p, s| super::tree::start_time(*p) == Some(*s));
                adopted.insert(pid, start);
            }
            continue;
        }
        let Ok(pgid) = rest.trim().parse::<i32>() else {
            continue;
        };
        match sign {
            "+" => {
                groups.insert(pgid);
            }
            "-" => {
                groups.remove(&pgid);
            }
            _ => {}
        }
    }
    // Each group's tree while its leader still holds it: a supervisor (`supervisor`) keeps
    // what left the group as its own children.
    for g in groups {
        super::tree::kill_tree(g);
    }
    cleanup();
    for (pid, start) in adopted {
        if super::tree::start_time(pid) == Some(start) {
            super::tree::kill_descendants(pid);
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
    }
}
