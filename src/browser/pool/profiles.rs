//! Where the browsers runner launches keep their profiles: on a RAM disk (`/dev/shm`) when the
//! machine has one with room, else in the run's socket directory. A profile lives only as long
//! as its browser, and it is removed (some 70 files) when the browser closes — at the end of
//! every run, on its critical path. On a disk that discards on delete (ext4 mounted with
//! `discard`, common on cloud VMs) that removal took 60-260 ms; on a RAM disk under 1 ms.
//!
//! The RAM-disk directory of a run is `/dev/shm/rnr-<uid>-<pid>`, made by runner with mode
//! 0700 (a directory of that name it did not make, or that others may write, is not used: the
//! socket directory is). It goes with the run's socket directory: at the end of the run, by
//! the guardian when runner dies, and by the next run when both died.

use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};

/// A RAM disk is used only with this much room (a profile takes a few MB; a small `/dev/shm`,
/// as Docker's default 64 MB, is left to Chromium's shared memory).
const MIN_FREE: u64 = 1 << 30;

const RAM_DISK: &str = "/dev/shm";

/// The run's directory on the RAM disk for the run of socket directory `socket_dir` (named by
/// runner's pid, or `doctor-<pid>`).
fn ram_dir(socket_dir: &Path) -> Option<PathBuf> {
    let pid = socket_dir.file_name()?.to_str()?;
    Some(Path::new(RAM_DISK).join(format!("rnr-{}-{pid}", nix::unistd::getuid())))
}

/// Where the profiles of the run of `socket_dir` go: its RAM-disk directory (made here, private)
/// when there is a RAM disk with room, else `socket_dir`.
pub(crate) fn dir(socket_dir: &Path) -> PathBuf {
    ram_dir(socket_dir)
        .filter(|d| has_room() && private(d))
        .unwrap_or_else(|| socket_dir.to_path_buf())
}

/// Removes the RAM-disk directory of the run of `socket_dir`, if it has one.
pub(crate) fn remove(socket_dir: &Path) {
    if let Some(d) = ram_dir(socket_dir) {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// Removes the RAM-disk directories of this user's runs whose runner is gone.
pub(crate) fn reap_stale() {
    let prefix = format!("rnr-{}-", nix::unistd::getuid());
    let Ok(entries) = std::fs::read_dir(RAM_DISK) else {
        return;
    };
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
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
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
