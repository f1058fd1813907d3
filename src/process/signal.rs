//! Signalling a process group: the one primitive both the registry (`group`) and the guardian
//! use, so neither depends on the other for it.

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

/// Sends `signal` to a whole group; a group that is gone already is fine.
pub(crate) fn signal_group(pgid: i32, signal: Signal) {
    if pgid > 1 {
        let _ = killpg(Pid::from_raw(pgid), signal);
    }
}
