//! The command each supervisor runs (see `supervisor`), found as soon as it has started: a
//! supervisor killed alone (a SIGKILL to its pid, which it cannot pass on) leaves the command's
//! process group running, and runner ends it when it sees the supervisor exit first
//! ([`end_orphaned`]). A command that kills its supervisor before it is found (within its
//! first milliseconds) is not known: its group is left to runner's end, as what leaves a group.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

/// The command of each supervisor runner started (by the supervisor's pid), with its start
/// time: the leader of the command's group, which a supervisor killed alone leaves running.
fn commands() -> &'static Mutex<HashMap<i32, (i32, u64)>> {
    static C: OnceLock<Mutex<HashMap<i32, (i32, u64)>>> = OnceLock::new();
    C.get_or_init(Mutex::default)
}

/// Records the command supervisor `pid` starts, once it has (the main thread's first child,
/// looked for every millisecond, as a command may kill its supervisor at once; less often after
/// the first 100), unless the supervisor exits first.
pub(super) async fn find(pid: i32) {
    let mut looks = 0;
    while super::is_live(pid) {
        // The main thread's children are the command and, once it has left some, the orphans
        // the supervisor adopts (a subreaper): the command is the one that leads a group in
        // the supervisor's session. Looked at late (a loaded machine), the command may be gone
        // and an orphan first: that orphan is not taken for it.
        let first = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
            .ok()
            .and_then(|c| {
                c.split_whitespace()
                    .filter_map(|c| c.parse::<i32>().ok())
                    .find(|&c| super::tree::leads_a_group_in_session_of(c, pid))
            });
        if let Some((command, start)) = first.and_then(|c| Some((c, super::start_time(c)?))) {
            if let Ok(mut c) = commands().lock() {
                c.insert(pid, (command, start));
            }
            return;
        }
        looks += 1;
        tokio::time::sleep(Duration::from_millis(if looks < 100 { 1 } else { 50 })).await;
    }
}

/// Forgets the command of supervisor `pid` (its group has ended).
pub(super) fn forget(pid: i32) {
    if let Ok(mut c) = commands().lock() {
        c.remove(&pid);
    }
}

/// After supervisor `pid` has exited: when it never reaped its command (it was killed alone,
/// by its pid, or died of a fault: it exits only once the command has, having ended what the
/// command left), ends the command's group and what the command started
/// ([`super::kill_tree`]), and returns the command's pid. `None` when the supervisor ended as
/// it does. The command is known unreaped by its `/proc` entry (running, or a zombie now
/// runner's, which also keeps its group's id from being reused). See `process::end_orphaned`.
pub(super) fn end_orphaned(pid: i32) -> Option<i32> {
    let (command, start) = commands().lock().ok()?.remove(&pid)?;
    (super::start_time(command) == Some(start)).then(|| {
        super::kill_tree(command);
        command
    })
}
