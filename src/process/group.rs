//! Process groups: [`spawn_group`] starts every child as the leader of its own group and
//! registers it, so a timeout, Ctrl-C or the end of the run can end the whole group.

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use nix::sys::signal::Signal;

use super::signal::signal_group;

/// How long a group gets between SIGTERM and SIGKILL.
pub(crate) const GRACE: Duration = Duration::from_secs(2);

fn registry() -> &'static Mutex<HashSet<i32>> {
    static R: OnceLock<Mutex<HashSet<i32>>> = OnceLock::new();
    R.get_or_init(|| Mutex::new(HashSet::new()))
}

/// Registers a live process group; it is ended by [`kill_all`] if still there.
pub(crate) fn register(pgid: i32) {
    if let Ok(mut r) = registry().lock() {
        r.insert(pgid);
    }
    super::guardian::tell(&format!("+{pgid}"));
}

/// Forgets a process group that has been ended; tells the guardian what runner adopted.
pub(crate) fn unregister(pgid: i32) {
    if let Ok(mut r) = registry().lock() {
        r.remove(&pgid);
    }
    super::commands::forget(pgid);
    tell_adopted();
    super::guardian::tell(&format!("-{pgid}"));
}

/// Tells the guardian (`=pid:start`) runner's live children that lead no registered group, once
/// each: orphans runner adopted as a subreaper (what a supervisor that was killed held), which
/// the guardian kills if runner is killed. Looked at when a group ends, after which what it left
/// may be runner's, and when a supervisor was found killed (`commands::end_orphaned`).
pub(super) fn tell_adopted() {
    static TOLD: OnceLock<Mutex<HashSet<(i32, u64)>>> = OnceLock::new();
    let Some(guardian) = super::guardian::pid() else {
        return;
    };
    let groups = registry().lock().map(|r| r.clone()).unwrap_or_default();
    let adopted = super::tree::children(std::process::id().cast_signed())
        .into_iter()
        .filter(|p| *p != guardian && !groups.contains(p) && super::is_live(*p))
        .filter_map(|p| Some((p, super::tree::start_time(p)?)));
    let Ok(mut told) = TOLD.get_or_init(Mutex::default).lock() else {
        return;
    };
    for (pid, start) in adopted {
        if told.insert((pid, start)) {
            super::guardian::tell(&format!("={pid}:{start}"));
        }
    }
}

/// SIGKILLs every registered group with all its leader started (see `tree`), and every other
/// process runner still has as a child but the guardian: orphans it adopted as a subreaper
/// (the last resort at exit).
pub(crate) fn kill_all() {
    let groups: Vec<i32> = registry()
        .lock()
        .map(|r| r.iter().copied().collect())
        .unwrap_or_default();
    for g in groups {
        super::tree::kill_tree(g);
    }
    super::tree::kill_descendants_but(std::process::id().cast_signed(), super::guardian::pid());
}

/// Ends the group of `child` (its leader): SIGTERM, up to [`GRACE`] for the leader to exit
/// (reaping it, so a zombie leader is not mistaken for a live one), then SIGKILL for anything
/// left of it: what its leader started (also outside the group: a supervisor's orphans), then
/// the group. When `now` is cancelled (a second interrupt: "stop now"), before or during the
/// grace, nothing is asked or waited for: SIGKILL at once.
pub(crate) async fn terminate_child_group(
    pgid: i32,
    child: &mut tokio::process::Child,
    now: &tokio_util::sync::CancellationToken,
) {
    if !now.is_cancelled() {
        signal_group(pgid, Signal::SIGTERM);
        tokio::select! {
            _ = tokio::time::timeout(GRACE, child.wait()) => {}
            () = now.cancelled() => {}
        }
    }
    super::tree::kill_tree(pgid);
}

/// Spawns `cmd` as the leader of a new process group (killed if its handle is dropped), and
/// registers the group. Returns the child and its group id.
pub(crate) fn spawn_group(
    cmd: &mut tokio::process::Command,
) -> std::io::Result<(tokio::process::Child, i32)> {
    cmd.process_group(0).kill_on_drop(true);
    let child = cmd.spawn()?;
    // A child that has already been reaped has no id; 0 never names a group we signal.
    let pgid = child.id().map_or(0, |p| i32::try_from(p).unwrap_or(0));
    register(pgid);
    Ok((child, pgid))
}

/// SIGKILLs the group when dropped (a future cancelled mid-way still leaves no orphans).
pub(crate) struct GroupGuard(pub(crate) i32);

impl Drop for GroupGuard {
    fn drop(&mut self) {
        signal_group(self.0, Signal::SIGKILL);
        unregister(self.0);
    }
}

/// SIGKILLs the group and all its leader started when dropped (see `tree::kill_tree`): for a
/// supervised command, whose leader keeps what leaves the group.
pub(crate) struct TreeGuard(pub(crate) i32);

impl Drop for TreeGuard {
    fn drop(&mut self) {
        super::tree::kill_tree(self.0);
        unregister(self.0);
    }
}
