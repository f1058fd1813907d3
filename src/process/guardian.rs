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
//!
//! The guardian ends only once runner is gone. One that exits before (the OOM killer, a stray
//! `kill`, a flow's command) is reaped by runner, which starts another at once and tells it
//! all the dead one knew (`Known`), so a later `kill -9` of runner still leaves nothing; and
//! the Chromium runner launches dies with runner by itself too (`chromium`).

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, Write};
use std::process::{ChildStdin, Command, Stdio};
use std::sync::{Mutex, OnceLock};

/// The guardian's process name (`comm`), which holds no `runner`.
#[cfg(target_os = "linux")]
const NAME: &std::ffi::CStr = c"rnr-guardian";

/// What a guardian has been told and still holds: the groups registered (`+pgid`/`-pgid`) and
/// the orphans runner adopted (`=pid:start`). The guardian keeps it to end them; runner keeps
/// the same, to tell a guardian that replaces one that was killed.
#[derive(Default)]
struct Known {
    groups: HashSet<i32>,
    adopted: HashMap<i32, u64>,
}

impl Known {
    /// Takes in one line of what runner tells (`+pgid`, `-pgid`, `=pid:start`).
    fn learn(&mut self, line: &str) {
        let (sign, rest) = line.split_at(line.len().min(1));
        if sign == "=" {
            if let Some((pid, start)) = rest.split_once(':')
                && let (Ok(pid), Ok(start)) = (pid.parse(), start.trim().parse())
            {
                // Those gone since are forgotten: the list stays as long as what is alive.
                self.adopted
                    .retain(|p, s| super::tree::start_time(*p) == Some(*s));
                self.adopted.insert(pid, start);
            }
            return;
        }
        let Ok(pgid) = rest.trim().parse::<i32>() else {
            return;
        };
        match sign {
            "+" => {
                self.groups.insert(pgid);
            }
            "-" => {
                self.groups.remove(&pgid);
            }
            _ => {}
        }
    }

    /// All of it as the lines that told it.
    fn lines(&self) -> Vec<String> {
        let groups = self.groups.iter().map(|g| format!("+{g}"));
        let adopted = self.adopted.iter().map(|(p, s)| format!("={p}:{s}"));
        groups.chain(adopted).collect()
    }
}

/// How many times a run replaces a guardian that died before runner (see [`replace`]): a
/// guardian that cannot live (it dies as it starts) is not started again and again.
const REPLACEMENTS: u32 = 100;

/// runner's side of its guardian: the guardian's pid (0: none), the pipe to it, and what it
/// has been told.
#[derive(Default)]
struct Link {
    started: bool,
    pid: i32,
    pipe: Option<ChildStdin>,
    known: Known,
    replaced: u32,
}

impl Link {
    /// Starts a guardian and tells it all that is known; watches it (see [`replace`]).
    /// Whether it started.
    fn connect(&mut self) -> bool {
        let Some((mut child, mut stdin)) = spawn() else {
            return false;
        };
        let Ok(pid) = i32::try_from(child.id()) else {
            return false;
        };
        for line in self.known.lines() {
            if writeln!(stdin, "{line}").is_err() {
                break;
            }
        }
        self.pid = pid;
        self.pipe = Some(stdin);
        // The guardian exits only once runner is gone (its pipe closed): if it exits before,
        // it was killed (the OOM killer, a stray `kill`, a flow's command), and what runner
        // started would have no one to end it after a `kill -9` of runner. The watch reaps
        // it (no zombie) and starts another, told the same.
        let _ = std::thread::Builder::new()
            .name("guardian watch".into())
            .spawn(move || {
                let _ = child.wait();
                replace(pid);
            });
        true
    }
}

fn link() -> &'static Mutex<Link> {
    static L: OnceLock<Mutex<Link>> = OnceLock::new();
    L.get_or_init(Mutex::default)
}

/// The guardian's pid (runner's child that outlives it: `kill_all` spares it), once started.
pub(crate) fn pid() -> Option<i32> {
    link().lock().ok().map(|l| l.pid).filter(|p| *p > 0)
}

/// This binary as `rnr-guardian __guardian <runner's pid>`, with the pipe to it.
fn spawn() -> Option<(std::process::Child, ChildStdin)> {
    // `/proc/self/exe` is runner's binary also if the file was replaced since runner started
    // (a guardian may be started again late in a run: see `replace`).
    let mut cmd = Command::new("/proc/self/exe");
    // Its command line holds no `runner` either: `pkill -f runner` matches it.
    std::os::unix::process::CommandExt::arg0(&mut cmd, "rnr-guardian");
    cmd.arg("__guardian")
        .arg(std::process::id().to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // Its own group: a Ctrl-C to the terminal's group must not end it before runner.
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let mut child = cmd.spawn().ok()?;
    let stdin = child.stdin.take()?;
    Some((child, stdin))
}

/// Starts the guardian; without one (it could not start), runner still ends its groups itself
/// on every exit it lives through.
pub(crate) fn start() {
    let Ok(mut l) = link().lock() else {
        return;
    };
    // One guardian per runner: a second runtime's start finds it.
    if !std::mem::replace(&mut l.started, true) {
        l.connect();
    }
}

/// After guardian `dead` exited while runner lives: starts another and tells it what the dead
/// one knew (the groups, the adopted orphans; the browsers it finds from runner's pid), so a
/// later `kill -9` of runner still leaves nothing. The run goes on: a helper killed is no
/// reason to fail a user's flows, and the window without a guardian is the time to start one.
fn replace(dead: i32) {
    let Ok(mut l) = link().lock() else {
        return;
    };
    if l.pid != dead {
        return;
    }
    l.pid = 0;
    l.pipe = None;
    if l.replaced >= REPLACEMENTS {
        return;
    }
    l.replaced += 1;
    if !l.connect() {
        eprintln!(
            "warning: runner's guardian (pid {dead}) was killed and another could not be started: a kill -9 of runner now may leave its browsers running"
        );
    }
}

/// Tells the guardian about a group (`+pgid`) or that it is gone (`-pgid`).
pub(crate) fn tell(line: &str) {
    if let Ok(mut l) = link().lock() {
        l.known.learn(line);
        if let Some(stdin) = l.pipe.as_mut()
            && writeln!(stdin, "{line}").is_err()
        {
            l.pipe = None;
        }
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
    // group, not to the guardian, which must outlive runner. But a guardian that was stopped
    // (SIGSTOP, a debugger) when runner dies is in a group just orphaned with a stopped member:
    // the kernel sends it SIGHUP, then SIGCONT. It takes the hangup as nothing (a handler that
    // only sets a flag no one reads), wakes, and ends what runner left, as it would have.
    let _ = signal_hook::flag::register(
        signal_hook::consts::SIGHUP,
        std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false)),
    );
    let mut known = Known::default();
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        known.learn(&line);
    }
    // Each group's tree while its leader still holds it: a supervisor (`supervisor`) keeps
    // what left the group as its own children.
    for g in known.groups {
        super::tree::kill_tree(g);
    }
    cleanup();
    for (pid, start) in known.adopted {
        if super::tree::start_time(pid) == Some(start) {
            super::tree::kill_descendants(pid);
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Known;

    /// What runner tells a guardian that replaces a killed one is what the killed one held:
    /// the groups still registered (not those said gone) and the adopted orphans still alive.
    #[test]
    fn a_new_guardian_is_told_what_the_old_one_held() {
        let me = std::process::id().cast_signed();
        let start = crate::process::start_time(me).expect("this process's start time");
        let mut runner = Known::default();
        for line in [
            "+11",
            "+12",
            "-11",
            "+13",
            &format!("={me}:{start}"),
            "x",
            "+",
        ] {
            runner.learn(line);
        }
        let mut guardian = Known::default();
        for line in runner.lines() {
            guardian.learn(&line);
        }
        let mut groups: Vec<i32> = guardian.groups.into_iter().collect();
        groups.sort_unstable();
        assert_eq!(groups, [12, 13]);
        assert_eq!(
            guardian.adopted.into_iter().collect::<Vec<_>>(),
            [(me, start)]
        );
    }
}
