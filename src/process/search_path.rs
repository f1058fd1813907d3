//! Whether a program is installed: an executable file of that name in a directory of `PATH`.

/// Whether `name` is an executable file in a directory of `PATH`.
pub(crate) fn on_path(name: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(name).is_file()))
}
