//! The async runtime a command runs on, started with the guardian that ends what runner
//! started if runner dies.

use super::error::CliError;

/// The async runtime of a command (2 workers: the machines runner targets have 2 cores).
pub(super) fn start() -> Result<tokio::runtime::Runtime, CliError> {
    // Whatever runner starts from here on is ended by the guardian if runner dies; what loses
    // its parent becomes runner's child (not init's), to be ended at runner's end (`kill_all`).
    #[cfg(target_os = "linux")]
    let _ = nix::sys::prctl::set_child_subreaper(true);
    crate::process::guardian::start();
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| CliError::Environment(format!("cannot start the async runtime: {e}")))
}
