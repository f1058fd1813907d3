//! The supervisor every command of a flow runs under (`exec` steps, agents, web servers):
//! `runner __supervise -- PROGRAM ARGS...`, runner's own binary, the leader of the process group
//! runner registers and the command's parent. The command runs in a process group of its own
//! that the supervisor is not in, so a command that ends its own group (`kill -9 0`, a shell's
//! cleanup idiom) cannot end its supervisor. The supervisor is a child subreaper
//! (`PR_SET_CHILD_SUBREAPER`): whatever the command starts that loses its parent — a daemon's
//! double fork, `setsid cmd &`, which also leaves the group and the session — becomes the
//! supervisor's child instead of init's, so it can still be found (`tree`) and ended:
//!
//! - when the command exits, the supervisor ends everything it left (SIGKILL) and exits with the
//!   command's status (or dies of its signal), so nothing a step started outlives the step;
//! - when runner ends the group (a timeout, a stop, Ctrl-C: SIGTERM, a grace, then the tree:
//!   `group::terminate_child_group`), the supervisor passes the SIGTERM (SIGINT, SIGHUP) on to
//!   the command's group and ends what is left once the command has gone;
//! - when runner dies, `kill -9` included, the guardian ends each registered group's tree while
//!   its supervisor still holds it, and a supervisor that finds its parent gone (it looks every
//!   100 ms) ends its tree itself.
//!
//! A SIGKILL of the supervisor itself (sent to its pid, not to the command's group) cannot be
//! passed on: runner, which looks up each supervisor's command as soon as it has started, ends
//! the command's group and tree when the supervisor exits before the command
//! (`commands::end_orphaned`). What left the group is then runner's (a subreaper too, which
//! ends its adopted children at its end; after a `kill -9` of runner, the guardian ends those
//! it saw: `guardian`), and so is the group of a command that killed its supervisor within
//! its first milliseconds, before runner found it.

use std::ffi::{CString, OsStr, OsString};
use std::path::Path;
use std::time::Duration;

use nix::errno::Errno;
use nix::spawn::{PosixSpawnAttr, PosixSpawnFileActions, PosixSpawnFlags, posix_spawnp};
use nix::sys::signal::{SigSet, Signal};
use nix::sys::wait::{WaitStatus, waitpid};
use nix::unistd::Pid;

/// The hidden argument that makes runner's binary a supervisor.
pub(crate) const ARG: &str = "__supervise";

/// How often a supervisor looks whether runner is still its parent.
const PARENT_CHECK: Duration = Duration::from_millis(100);

/// A command that runs `program` under runner's supervisor: give it `program`'s arguments,
/// environment, working directory and stdio as to `program` itself, and start it with
/// [`spawn_supervised`].
pub(crate) fn supervised(program: impl AsRef<OsStr>) -> tokio::process::Command {
    // A unit test's binary is not runner's: there, commands run unsupervised.
    if cfg!(test) {
        return tokio::process::Command::new(program);
    }
    // `/proc/self/exe` is runner's binary for the child too, also if the file was replaced
    // since runner started.
    let mut cmd = tokio::process::Command::new("/proc/self/exe");
    cmd.arg(ARG).arg("--").arg(program);
    cmd
}

/// Starts a [`supervised`] command as the leader of a new process group (see `spawn_group`).
/// A program that cannot be found or is not executable is the error spawning it directly would
/// give (`NotFound`, `PermissionDenied`), before anything starts.
pub(crate) fn spawn_supervised(
    cmd: &mut tokio::process::Command,
) -> std::io::Result<(tokio::process::Child, i32)> {
    startable(cmd.as_std())?;
    let supervised = cmd.as_std().get_args().next().is_some_and(|a| a == ARG);
    let (child, pgid) = super::spawn_group(cmd)?;
    if supervised {
        tokio::spawn(super::commands::find(pgid));
    }
    Ok((child, pgid))
}

/// Whether the supervised program of `cmd` can be started: found as `execvp` finds it (a
/// name with a `/` against the working directory, else in the child's `PATH`) and executable.
fn startable(cmd: &std::process::Command) -> std::io::Result<()> {
    use std::io::{Error, ErrorKind};
    use std::os::unix::fs::PermissionsExt;
    let mut args = cmd.get_args();
    if args.next().is_none_or(|a| a != ARG) {
        return Ok(());
    }
    let Some(program) = args.nth(1) else {
        return Ok(());
    };
    let program = Path::new(program);
    let cwd = cmd.get_current_dir().map_or_else(
        || std::env::current_dir().unwrap_or_default(),
        Path::to_path_buf,
    );
    let candidates: Vec<std::path::PathBuf> =
        if program.as_os_str().as_encoded_bytes().contains(&b'/') {
            vec![cwd.join(program)]
        } else {
            // The child's PATH: the command's own when it sets one, else runner's.
            // (none at all: the C library's default, as `execvp` takes it).
            let path = match cmd.get_envs().filter(|(k, _)| *k == "PATH").last() {
                Some((_, v)) => v.map(OsStr::to_os_string),
                None => std::env::var_os("PATH"),
            }
            .unwrap_or_else(|| OsString::from("/bin:/usr/bin"));
            std::env::split_paths(&path)
                .map(|d| cwd.join(d).join(program))
                .collect()
        };
    let mut denied = false;
    for c in candidates {
        match std::fs::metadata(&c) {
            Ok(m) if m.is_file() && m.permissions().mode() & 0o111 != 0 => return Ok(()),
            Ok(m) if m.is_file() => denied = true,
            _ => {}
        }
    }
    Err(if denied {
        Error::from(ErrorKind::PermissionDenied)
    } else {
        Error::from(ErrorKind::NotFound)
    })
}

/// Whether the command of the live supervisor `pid` has ended: none of the supervisor's
/// children is alive (the command is a zombie or reaped), so the supervisor is about to exit
/// with its status. A look at one `/proc` file: cheap enough for every failed step. False when
/// it cannot be told, and where commands run unsupervised (a unit test's).
pub(crate) fn command_gone(pid: i32) -> bool {
    if cfg!(test) {
        return false;
    }
    // The command is the main thread's child (started before any other thread).
    std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).is_ok_and(|children| {
        children
            .split_whitespace()
            .filter_map(|c| c.parse::<i32>().ok())
            .all(|c| !super::is_live(c))
    })
}

/// `runner __supervise -- PROGRAM ARGS...` (`args`: what follows `__supervise`): runs the
/// command and returns its exit code, or dies of the signal that ended it.
pub(crate) fn run(args: &[OsString]) -> i32 {
    let args = match args.first() {
        Some(a) if a == "--" => &args[1..],
        _ => args,
    };
    let Some((program, rest)) = args.split_first() else {
        eprintln!("runner: {ARG} needs a command");
        return 2;
    };
    let parent = nix::unistd::getppid();
    #[cfg(target_os = "linux")]
    let _ = nix::sys::prctl::set_child_subreaper(true);
    // The signals runner sends the group (a timeout, a stop, Ctrl-C) are the command's: blocked
    // here from before the command starts (one that comes early waits), in every thread (none
    // has started yet), and passed on to the command's group by the thread below. The command
    // starts with none blocked (`start`).
    let mut mask = SigSet::empty();
    for s in [Signal::SIGTERM, Signal::SIGINT, Signal::SIGHUP] {
        mask.add(s);
    }
    let _ = mask.thread_block();
    let command = match start(program, rest) {
        Ok(pid) => pid,
        Err(e) => {
            let code = if e == Errno::ENOENT { 127 } else { 126 };
            let e = std::io::Error::from(e);
            eprintln!("runner: cannot start `{}`: {e}", program.to_string_lossy());
            return code;
        }
    };
    std::thread::spawn(move || {
        while let Ok(signal) = mask.wait() {
            // The command leads its group: its pid is the group's id.
            super::signal_group(command.as_raw(), signal);
        }
    });
    std::thread::spawn(move || {
        loop {
            std::thread::sleep(PARENT_CHECK);
            if nix::unistd::getppid() != parent {
                // runner is gone: so is everything it started.
                end_leftovers();
                std::process::exit(137);
            }
        }
    });
    let status = loop {
        match waitpid(command, None) {
            Err(Errno::EINTR) => {}
            other => break other,
        }
    };
    end_leftovers();
    match status {
        Ok(WaitStatus::Exited(_, code)) => code,
        Ok(WaitStatus::Signaled(_, signal, _)) => die_of(signal as i32),
        _ => 1,
    }
}

/// Starts `program` (found as `execvp` finds it) with `args` and the supervisor's environment
/// and stdio, as the leader of a new process group, with no signal blocked and SIGPIPE at its
/// default (as the standard library starts a command: Rust ignores SIGPIPE). Not with the
/// standard library: its child inherits the mask, and the supervisor's blocks the signals it
/// passes on from before the command starts.
fn start(program: &OsStr, args: &[OsString]) -> Result<Pid, Errno> {
    use std::os::unix::ffi::{OsStrExt, OsStringExt};
    let c = |s: &OsStr| CString::new(s.as_bytes()).map_err(|_| Errno::EINVAL);
    let path = c(program)?;
    let mut argv = vec![path.clone()];
    for a in args {
        argv.push(c(a)?);
    }
    let envp: Vec<CString> = std::env::vars_os()
        .filter_map(|(k, v)| {
            let mut kv = k.into_vec();
            kv.push(b'=');
            kv.extend(v.into_vec());
            CString::new(kv).ok()
        })
        .collect();
    let mut attr = PosixSpawnAttr::init()?;
    attr.set_flags(
        PosixSpawnFlags::POSIX_SPAWN_SETPGROUP
            | PosixSpawnFlags::POSIX_SPAWN_SETSIGMASK
            | PosixSpawnFlags::POSIX_SPAWN_SETSIGDEF,
    )?;
    attr.set_pgroup(Pid::from_raw(0))?;
    attr.set_sigmask(&SigSet::empty())?;
    let mut default = SigSet::empty();
    default.add(Signal::SIGPIPE);
    attr.set_sigdefault(&default)?;
    posix_spawnp(&path, &PosixSpawnFileActions::init()?, &attr, &argv, &envp)
}

/// Ends everything the command left (its descendants, now the supervisor's), and reaps them:
/// each killed one is waited for (a second at most), so none outlives the supervisor as a
/// zombie passed up to runner, where it could pass for a command still running.
fn end_leftovers() {
    use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
    let me = std::process::id().cast_signed();
    super::tree::kill_descendants(me);
    let until = std::time::Instant::now() + std::time::Duration::from_secs(1);
    loop {
        match waitpid(None, Some(WaitPidFlag::WNOHANG)) {
            Ok(WaitStatus::StillAlive) if std::time::Instant::now() < until => {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            Ok(WaitStatus::StillAlive) | Err(_) => break,
            Ok(_) => {}
        }
    }
}

/// Dies of signal `sig`, as the command did, so runner sees what ended it; returns the shell's
/// `128 + sig` when the signal does not end the supervisor (SIGPIPE, which Rust ignores).
fn die_of(sig: i32) -> i32 {
    if let Ok(signal) = Signal::try_from(sig) {
        let _ = nix::sys::signal::raise(signal);
        let mut one = SigSet::empty();
        one.add(signal);
        let _ = one.thread_unblock();
    }
    128 + sig
}
