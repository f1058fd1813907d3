//! Whether a process is still running, as `/proc` says: a zombie waiting to be reaped is not.

/// Whether process `pid` is running: it exists and is not a zombie waiting to be reaped.
pub(crate) fn is_live(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|stat| stat.split(") ").nth(1).is_some_and(|r| !r.starts_with('Z')))
}

/// The kernel's flag on a task that has begun to exit (`PF_EXITING`, include/linux/sched.h):
/// from then on it runs no code of its program again.
const PF_EXITING: u64 = 0x4;

/// Whether process `pid` can still run code of its program: it is live ([`is_live`]) and has
/// not begun to exit. A process killed by SIGKILL is exiting at once, but the kernel takes tens
/// of ms more to free a large one's memory (a browser's: 15–55 ms measured) before it is a
/// zombie; it can do nothing in that time, so it is as good as gone.
pub(crate) fn can_run(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        let mut fields = stat
            .rsplit_once(") ")
            .map(|(_, r)| r)
            .unwrap_or("")
            .split(' ');
        let state = fields.next().unwrap_or("Z");
        let flags = fields
            .nth(5)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0);
        !state.starts_with(['Z', 'X', 'x']) && flags & PF_EXITING == 0
    })
}

#[cfg(test)]
mod tests {
    use super::{can_run, is_live};

    /// A child killed by SIGKILL can run nothing from the moment the kill is delivered, before
    /// it is reaped; a running one can.
    #[test]
    fn a_killed_process_can_run_nothing_before_it_is_reaped() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let pid = i32::try_from(child.id()).unwrap();
        assert!(can_run(pid) && is_live(pid));
        child.kill().unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while can_run(pid) && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert!(!can_run(pid), "a killed process still runs");
        // Not reaped yet: its entry is still there.
        assert!(std::path::Path::new(&format!("/proc/{pid}")).exists());
        child.wait().unwrap();
        assert!(!can_run(pid));
    }
}
