//! Child processes: every process runner starts leads its own process group, registered so that
//! a timeout, Ctrl-C or the end of the run ends the whole group (grandchildren included); the
//! commands of flows run under a supervisor (`supervisor`) that also keeps what leaves the
//! group (`setsid`), and runner itself is a child subreaper, so nothing it started outlives it.

pub(crate) mod bound;
mod commands;
mod group;
pub(crate) mod guardian;
mod lines;
mod listeners;
mod liveness;
mod search_path;
mod signal;
pub(crate) mod supervisor;
mod tree;

pub(crate) use group::{
    GroupGuard, TreeGuard, kill_all, spawn_group, terminate_child_group, unregister,
};
pub(crate) use lines::Lines;
pub(crate) use listeners::{Holder, holder};
pub(crate) use liveness::is_live;
pub(crate) use search_path::on_path;
pub(crate) use signal::signal_group;
pub(crate) use supervisor::{spawn_supervised, supervised};
pub(crate) use tree::{kill_tree, start_time};

/// After supervisor `pid` has exited: when it was killed before its command, ends the command's
/// group and what it started, and returns the command's pid (`commands::end_orphaned`). What the
/// command started that left its tree (a `setsid` child) went to runner, a subreaper, as the
/// supervisor died: the guardian is told of it at once, not once the step is over (a step still
/// waits, up to its grace, for the output such a child holds open, and a `kill -9` of runner
/// then must not leave it running).
pub(crate) fn end_orphaned(pid: i32) -> Option<i32> {
    let command = commands::end_orphaned(pid)?;
    group::tell_adopted();
    Some(command)
}
