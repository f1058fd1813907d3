//! Where a run's browsers keep their files: on a RAM disk (`/dev/shm`) when the machine has one
//! with room, else on disk. Two kinds of files are on the critical path there:
//!
//! - agent-browser's session files (socket, pid, tab binding) in the run's socket directory: its
//!   daemon rewrites the tab binding, and fsyncs it, at every tab switch and navigation
//!   (agent-browser 0.41.2) — on a disk, a flush on the path of each flow's start and each `open`
//!   (~0.5 ms on a quiet disk, 7 ms and more on a busy one; ~0.1 ms on a RAM disk);
//! - the profiles of the browsers runner launches, removed (some 70 files) when the browser
//!   closes, at the end of every run: on a disk that discards on delete (ext4 mounted with
//!   `discard`, common on cloud VMs) that took 60-260 ms; on a RAM disk under 1 ms.
//!
//! A run's RAM-disk directory is `/dev/shm/rnr-<uid>-<pid>`, made by runner with mode 0700 (a
//! directory of that name it did not make, or that others may write, is not used); for a run
//! it is the socket directory, profiles included (`BrowserHost::adapter`). Without one, a
//! run's socket directory is `/tmp/rnr-<uid>/<pid>`, and profiles go to the RAM disk when
//! it has room then (`dir`). It goes at the end of the run, by the guardian when runner dies,
//! and by the next run when both died.

use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};

/// A RAM disk is used only with this much room (a profile takes a few MB; a small `/dev/shm`,
/// as Docker's default 64 MB, is left to Chromium's shared memory).
const MIN_FREE: u64 = 1 << 30;

const RAM_DISK: &str = "/dev/shm";

/// The run's directory on the RAM disk for the run of socket directory `socket_dir` (named by
/// runner's pid, or `doctor-<pid>`).
pub(crate) fn ram_dir(socket_dir: &Path) -> Option<PathBuf> {
    let pid = socket_dir.file_name()?.to_str()?;
    Some(Path::new(RAM_DISK).join(format!("rnr-{}-{pid}", nix::unistd::getuid())))
}

/// The RAM-disk directory of the run named `name` (runner's pid), made here (private) when there
/// is a RAM disk with room: the run's socket directory (see the module's doc).
pub(crate) fn run_dir(name: &str) -> Option<PathBuf> {
    let d = Path::new(RAM_DISK).join(format!("rnr-{}-{name}", nix::unistd::getuid()));
    (has_room() && private(&d)).then_some(d)
}

/// Whether `socket_dir` is a run's RAM-disk directory (`run_dir`).
fn on_ram_disk(socket_dir: &Path) -> bool {
    socket_dir.parent() == Some(Path::new(RAM_DISK))
}

/// Where the profiles of the run of `socket_dir` go: `socket_dir` when it is on the RAM disk;
/// else the run's RAM-disk directory (made here, private) when there is a RAM disk with room,
/// else `socket_dir`.
pub(crate) fn dir(socket_dir: &Path) -> PathBuf {
    if on_ram_disk(socket_dir) {
        return socket_dir.to_path_buf();
    }
    ram_dir(socket_dir)
        .filter(|d| has_room() && private(d))
        .unwrap_or_else(|| socket_dir.to_path_buf())
}

/// Removes the RAM-disk directory of the run of `socket_dir` (on disk), if it has one (a
/// socket directory on the RAM disk goes as the socket directory).
pub(crate) fn remove(socket_dir: &Path) {
    if let Some(d) = ram_dir(socket_dir).filter(|_| !on_ram_disk(socket_dir)) {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// The RAM-disk directories of this user's runs whose runner is gone.
pub(crate) fn stale() -> Vec<PathBuf> {
    let prefix = format!("rnr-{}-", nix::unistd::getuid());
    let Ok(entries) = std::fs::read_dir(RAM_DISK) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        // `<pid>`, or `doctor-<pid>` (`runner doctor`'s check).
        let Some(pid) = name
            .strip_prefix(&prefix)
            .and_then(|rest| rest.rsplit('-').next())
        else {
            continue;
        };
        if pid.parse::<u32>().is_ok_and(|p| p != std::process::id())
            && !Path::new(&format!("/proc/{pid}")).exists()
        {
            out.push(e.path());
        }
    }
    out
}

fn has_room() -> bool {
    nix::sys::statvfs::statvfs(RAM_DISK)
        .is_ok_and(|s| s.blocks_available().saturating_mul(s.fragment_size()) >= MIN_FREE)
}

/// Makes `dir` (mode 0700) unless it is there; true when it is a directory (not a symlink) of
/// this user with mode 0700.
fn private(dir: &Path) -> bool {
    let _ = std::fs::DirBuilder::new().mode(0o700).create(dir);
    std::fs::symlink_metadata(dir).is_ok_and(|m| {
        m.is_dir() && m.uid() == nix::unistd::getuid().as_raw() && m.mode() & 0o777 == 0o700
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_runs_ram_disk_directory_is_named_by_its_user_and_pid() {
        assert_eq!(
            ram_dir(Path::new("/tmp/rnr-0/1234")),
            Some(PathBuf::from(format!(
                "/dev/shm/rnr-{}-1234",
                nix::unistd::getuid()
            )))
        );
    }

    #[test]
    fn a_socket_directory_on_the_ram_disk_holds_the_profiles_and_goes_with_them() {
        let on_ram = PathBuf::from(format!("/dev/shm/rnr-{}-1234", nix::unistd::getuid()));
        assert_eq!(dir(&on_ram), on_ram);
        assert!(on_ram_disk(&on_ram));
        assert!(!on_ram_disk(Path::new("/tmp/rnr-0/1234")));
    }

    #[test]
    fn a_directory_others_may_write_is_not_private() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        let mine = d.path().join("mine");
        assert!(private(&mine));
        let open = d.path().join("open");
        std::fs::create_dir(&open).unwrap();
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
        assert!(!private(&open));
        let link = d.path().join("link");
        std::os::unix::fs::symlink(&mine, &link).unwrap();
        assert!(!private(&link));
    }
}
