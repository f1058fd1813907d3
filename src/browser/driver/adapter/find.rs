//! Where the agent-browser binary is: `$AGENT_BROWSER`, then the working directory's
//! `node_modules`, then the global ones, then PATH. The path found is absolute: agent-browser is
//! started from the flow's folder, not from runner's working directory. A binary in the working
//! directory's `node_modules` is a command a checkout (or anyone who could write there) put
//! there, so it is run only when it and its folders up to the working directory are the user's
//! own, as the project file is ([`crate::fs::distrust`]); one that is not is passed over, and
//! why is said (`runner doctor`, and the error when nothing else is found).

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::native_name;

/// What the look for agent-browser found, and the places it passed over, each with why and
/// what to do about it.
pub(crate) struct Found {
    pub(crate) binary: Option<PathBuf>,
    pub(crate) passed_over: Vec<(String, String)>,
}

/// Finds the native binary (see the module's documentation; an absolute path), and says which
/// it passed over.
pub(crate) fn look() -> Found {
    let absolute = |p: PathBuf| std::path::absolute(&p).unwrap_or(p);
    if let Some(p) = std::env::var_os("AGENT_BROWSER").map(PathBuf::from) {
        return Found {
            binary: p.is_file().then(|| absolute(p)),
            passed_over: Vec::new(),
        };
    }
    let native = native_name();
    let mut passed_over = Vec::new();
    let local = Path::new("node_modules/agent-browser/bin").join(&native);
    if local.is_file() {
        match own_local(&local) {
            Ok(()) => {
                return Found {
                    binary: Some(absolute(local)),
                    passed_over,
                };
            }
            Err((part, why)) => {
                let shown = part.display().to_string();
                passed_over.push((
                    format!("{shown} is not used: {why}"),
                    why.help(&shown, "runner looks for agent-browser in the working directory's node_modules first"),
                ));
            }
        }
    }
    let mut candidates: Vec<PathBuf> = ["/usr/local/lib", "/usr/lib"]
        .iter()
        .map(|prefix| {
            Path::new(prefix)
                .join("node_modules/agent-browser/bin")
                .join(&native)
        })
        .collect();
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            candidates.push(dir.join(&native));
            // An npm global bin links to the Node wrapper; the native binary sits beside the
            // package it points into.
            let wrapper = dir.join("agent-browser");
            if let Ok(real) = std::fs::canonicalize(&wrapper)
                && let Some(bin) = real.parent()
            {
                candidates.push(bin.join(&native));
            }
        }
    }
    Found {
        binary: candidates.into_iter().find(|p| p.is_file()).map(absolute),
        passed_over,
    }
}

/// Whether `local` (a path relative to the working directory) and each folder on its way there
/// are the user's own, root's or the working directory's owner's, and writable by no one else;
/// else the first that is not, and why.
fn own_local(local: &Path) -> Result<(), (PathBuf, crate::fs::Distrust)> {
    let also = std::fs::metadata(".").ok().map(|m| m.uid());
    for part in local.ancestors().filter(|p| !p.as_os_str().is_empty()) {
        // Followed, as the spawn follows it: a link counts as what it points to.
        let Ok(meta) = std::fs::metadata(part) else {
            continue;
        };
        if let Some(why) = crate::fs::distrust(&meta, also) {
            return Err((part.to_path_buf(), why));
        }
    }
    Ok(())
}
