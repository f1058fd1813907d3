//! A program that dies with runner by itself: `runner __bound <runner's pid> -- PROGRAM
//! ARGS...`, runner's own binary, asks the kernel for a SIGKILL when its parent dies
//! (`PR_SET_PDEATHSIG`, kept across `exec`) and then becomes PROGRAM (same pid, same process
//! group, same environment). For the Chromium runner launches itself (`chromium`): it is
//! runner's child, so a `kill -9` of runner ends it even when runner's guardian, which ends it
//! otherwise, was killed first (attack 28, E1). (No `pre_exec` hook sets it in the child
//! directly: that takes `unsafe`.)
//!
//! The kernel counts the thread that started the process as its parent: runner starts it from
//! its async runtime's threads (the main one, or a worker), which live as long as the run.

use std::ffi::{CString, OsStr, OsString};
use std::os::unix::ffi::OsStrExt;

/// The hidden argument that makes runner's binary start a program bound to it.
pub(crate) const ARG: &str = "__bound";

/// A command that runs `program` bound to runner: give it `program`'s arguments, environment
/// and stdio as to `program` itself.
pub(crate) fn bound(program: impl AsRef<OsStr>) -> tokio::process::Command {
    // A unit test's binary is not runner's: there, programs run unbound.
    if cfg!(test) {
        return tokio::process::Command::new(program);
    }
    let mut cmd = tokio::process::Command::new("/proc/self/exe");
    cmd.arg(ARG)
        .arg(std::process::id().to_string())
        .arg("--")
        .arg(program);
    cmd
}

/// `__bound`'s own work (`args`: the parent's pid, `--`, the program and its arguments): binds
/// this process to its parent and becomes the program. Returns only when it cannot: 1 when the
/// parent is already gone, 127 when the program cannot be started.
pub(crate) fn run(args: &[OsString]) -> i32 {
    let (Some(parent), Some(rest)) = (args.first(), args.get(1..)) else {
        eprintln!("runner: {ARG} needs a parent and a command");
        return 2;
    };
    let Some(parent) = parent.to_str().and_then(|p| p.parse::<i32>().ok()) else {
        eprintln!("runner: {ARG} needs a parent's pid");
        return 2;
    };
    let rest = rest
        .strip_prefix(&[OsString::from("--")][..])
        .unwrap_or(rest);
    let argv: Vec<CString> = rest
        .iter()
        .filter_map(|a| CString::new(a.as_bytes()).ok())
        .collect();
    let Some(program) = argv.first() else {
        eprintln!("runner: {ARG} needs a command");
        return 2;
    };
    #[cfg(target_os = "linux")]
    let _ = nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGKILL);
    // The parent died before the binding took: nothing would end this process.
    if nix::unistd::getppid().as_raw() != parent {
        return 1;
    }
    let Err(e) = nix::unistd::execvp(program, &argv);
    eprintln!("runner: cannot start `{}`: {e}", program.to_string_lossy());
    127
}
