//! Child processes: every process runner starts leads its own process group, registered so that
//! a timeout, Ctrl-C or the end of the run ends the whole group (grandchildren included).

mod group;
pub(crate) mod guardian;
mod lines;
mod signal;

pub(crate) use group::{GroupGuard, kill_all, spawn_group, terminate_child_group, unregister};
pub(crate) use lines::Lines;
pub(crate) use signal::signal_group;

/// Whether process `pid` is running: it exists and is not a zombie waiting to be reaped.
pub(crate) fn is_live(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|stat| stat.split(") ").nth(1).is_some_and(|r| !r.starts_with('Z')))
}

/// Whether `name` is an executable file in a directory of `PATH`.
pub(crate) fn on_path(name: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(name).is_file()))
}
