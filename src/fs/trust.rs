//! Whether a file runner takes its settings from without being told to (the project file, found
//! upward from the working directory) is the user's own. Such a file can start commands
//! (`[[web_server]]`), so one that another user wrote, or may change, would run their commands
//! as whoever runs runner, as Git's repository discovery would have before `safe.directory`
//! (CVE-2022-24765). The rule is OpenSSH's for the files it trusts (`StrictModes`): owned by
//! the user or by root (or by the owner of the working directory: a CI job in a container runs
//! as root in a checkout another uid owns, and the checkout's own file is as much the job's as
//! its flows are), writable by neither others nor a group others are in, with Debian's
//! allowance for a user-private group (a user's own group, named after them, with nobody else
//! in it: where `umask 002` is the default, files are group-writable in it).

use std::os::unix::fs::MetadataExt;

use nix::unistd::{Gid, Group, Uid, User};

/// Why a file is not the user's own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Distrust {
    /// Owned by another user (neither the one running runner nor root).
    Owner { uid: u32, name: Option<String> },
    /// Writable by anyone (`o+w`).
    Anyone { mode: u32 },
    /// Writable by a group other users may be in (`g+w`).
    Group {
        gid: u32,
        name: Option<String>,
        mode: u32,
    },
}

impl std::fmt::Display for Distrust {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Distrust::Owner { uid, name } => match name {
                Some(n) => write!(
                    f,
                    "it is owned by {n} (uid {uid}), not by you, root or the working directory's owner"
                ),
                None => write!(
                    f,
                    "it is owned by uid {uid}, not by you, root or the working directory's owner"
                ),
            },
            Distrust::Anyone { mode } => write!(f, "anyone may change it (mode {mode:04o})"),
            Distrust::Group { gid, name, mode } => {
                let group = name.clone().unwrap_or_else(|| format!("gid {gid}"));
                write!(f, "its group ({group}) may change it (mode {mode:04o})")
            }
        }
    }
}

impl Distrust {
    /// What to do about it, for `file`, which runner took because `found` (how it finds such a
    /// file: "runner takes the nearest project file at or above the working directory").
    pub(crate) fn help(&self, file: &str, found: &str) -> String {
        match self {
            Distrust::Owner { .. } => format!(
                "{found}: if you trust this one, make it yours (`chown $(id -u) {file}`), else remove it"
            ),
            Distrust::Anyone { .. } | Distrust::Group { .. } => {
                format!("if you trust it, let only its owner change it: `chmod go-w {file}`")
            }
        }
    }
}

/// Why the file of `meta` is not the own of the user running runner (or of `also`, the owner of
/// the working directory, when known); `None` when it is.
pub(crate) fn distrust(meta: &std::fs::Metadata, also: Option<u32>) -> Option<Distrust> {
    let (uid, gid, mode) = (meta.uid(), meta.gid(), meta.mode() & 0o7777);
    if uid != 0 && uid != nix::unistd::geteuid().as_raw() && Some(uid) != also {
        let name = User::from_uid(Uid::from_raw(uid))
            .ok()
            .flatten()
            .map(|u| u.name);
        return Some(Distrust::Owner { uid, name });
    }
    if mode & 0o002 != 0 {
        return Some(Distrust::Anyone { mode });
    }
    if mode & 0o020 != 0 && !private_group(uid, gid) {
        let name = Group::from_gid(Gid::from_raw(gid))
            .ok()
            .flatten()
            .map(|g| g.name);
        return Some(Distrust::Group { gid, name, mode });
    }
    None
}

/// Whether `gid` is the user-private group of `uid`: its primary group, named after it, with
/// no other member listed.
fn private_group(uid: u32, gid: u32) -> bool {
    let (Ok(Some(user)), Ok(Some(group))) = (
        User::from_uid(Uid::from_raw(uid)),
        Group::from_gid(Gid::from_raw(gid)),
    ) else {
        return false;
    };
    user.gid.as_raw() == gid && group.name == user.name && group.mem.iter().all(|m| *m == user.name)
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::{Distrust, distrust};

    #[test]
    fn the_users_own_file_is_trusted_unless_others_may_write_it() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("runner.toml");
        std::fs::write(&f, "").unwrap();
        let with_mode = |mode: u32| {
            std::fs::set_permissions(&f, std::fs::Permissions::from_mode(mode)).unwrap();
            distrust(&std::fs::metadata(&f).unwrap(), None)
        };
        assert_eq!(with_mode(0o644), None);
        assert_eq!(with_mode(0o600), None);
        assert_eq!(with_mode(0o646), Some(Distrust::Anyone { mode: 0o646 }));
        // Group-writable: trusted only in the user's private group (named after them).
        let me = nix::unistd::User::from_uid(nix::unistd::geteuid())
            .unwrap()
            .unwrap();
        let group = nix::unistd::Group::from_gid(me.gid).unwrap().unwrap();
        let private = group.name == me.name && group.mem.iter().all(|m| *m == me.name);
        assert_eq!(with_mode(0o664).is_none(), private, "{group:?}");
    }
}
