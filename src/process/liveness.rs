//! Whether a process is still running, as `/proc` says: a zombie waiting to be reaped is not.

/// Whether process `pid` is running: it exists and is not a zombie waiting to be reaped.
pub(crate) fn is_live(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|stat| stat.split(") ").nth(1).is_some_and(|r| !r.starts_with('Z')))
}
