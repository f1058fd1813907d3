//! Child processes: every process runner starts leads its own process group, registered so that
//! a timeout, Ctrl-C or the end of the run ends the whole group (grandchildren included).

mod group;
pub(crate) mod guardian;
mod lines;

pub(crate) use group::{
    GroupGuard, kill_all, signal_group, spawn_group, terminate_child_group, unregister,
};
pub(crate) use lines::Lines;

/// Whether `name` is an executable file in a directory of `PATH`.
pub(crate) fn on_path(name: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(name).is_file()))
}
