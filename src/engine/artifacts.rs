//! Names of the files a run leaves in its artifacts directory.

use crate::config::model::Step;

/// `<prefix>NNN-<id>` (or `<prefix>NNN-<fallback>` for a step without an id): the prefix of a
/// step's files; `prefix` is its frame's (see `Frame::prefix`).
pub(crate) fn step_base(prefix: &str, index: usize, step: &Step, fallback: &str) -> String {
    format!(
        "{prefix}{:03}-{}",
        index + 1,
        step.id.as_deref().unwrap_or(fallback)
    )
}

/// `NNN-<slug of name>`: a flow's (or sub-flow's) directory.
pub(crate) fn flow_dir(index: usize, name: &str) -> String {
    format!("{:03}-{}", index + 1, slug(name))
}

/// Whether `name` is a name [`flow_dir`] makes (`001-checkout`): a flow's folder in the
/// artifacts, where its files go (a page's downloads among them, under names the page chose).
pub(crate) fn is_flow_dir(name: &str) -> bool {
    let digits = name.chars().take_while(char::is_ascii_digit).count();
    let Some(rest) = name.get(digits..).and_then(|r| r.strip_prefix('-')) else {
        return false;
    };
    digits >= 3
        && !rest.is_empty()
        && rest
            .chars()
            .all(|c| c == '-' || c.is_alphanumeric() && !c.is_ascii_uppercase())
}

/// The file runner writes into every artifacts directory it makes (`run`, each pass of
/// `run --watch`): everything under a directory holding it is runner's output, never a flow
/// (a page's download lands in a flow's folder under a name the page chooses, `evil.yaml`
/// among them; a flow saves `{{ run.artifacts }}/cluster-state.yaml`), wherever the artifacts
/// are (`--artifacts` inside the flows' directory). runner writes it only into a folder that
/// holds no flow file (`--artifacts` on a folder of flows is refused: attack 26, C1), and a
/// walk that leaves out a marked folder holding files that read as flows says so.
pub(crate) const MARKER: &str = ".runner-artifacts";

/// What [`MARKER`] says to whoever opens it.
pub(crate) const MARKER_TEXT: &str = "This directory holds the artifacts of a runner run (its flows' files, a page's downloads among them).\nrunner looks for no flow anywhere under it; remove this file if the directory holds flows of yours.\n";

/// Whether `dir` holds [`MARKER`] (a regular file, not a link): it is a run's artifacts.
pub(crate) fn is_marked(dir: &std::path::Path) -> bool {
    std::fs::symlink_metadata(dir.join(MARKER)).is_ok_and(|m| m.is_file())
}

/// What of runner's output a path is (see [`output_kind`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Output {
    /// A run's artifacts: it holds [`MARKER`] (or it is the run's own `--artifacts`).
    Artifacts,
    /// A flow's folder in a run's artifacts (`001-checkout/`: its files, its downloads, its
    /// sub-flows' folders).
    FlowFolder,
    /// A flow's downloads (`NNN-flow/downloads/`), wherever they are: a page names files there.
    Downloads,
    /// The run-level servers' logs (`web_server/` in a run's artifacts).
    Logs,
    /// Anything else in a run's artifacts: its report, an atlas replay's `NNN-replay.yaml`, a
    /// file or folder a flow wrote there (`{{ run.artifacts }}/cluster-state.yaml`).
    Written,
}

/// Whether `path` (a file or a directory) is runner's output, and which: the one rule flow
/// discovery (which takes no flow from any of it, and does not go into an [`Output::Artifacts`]
/// below the folder it walks), the `--artifacts` refusal and `merge-reports` (which searches a
/// run's artifacts for the report the run wrote there, but none of its flows' folders and no
/// downloads) all ask. `own`: the run's own `--artifacts`, canonical, when the caller has one.
///
/// Everything in a run's artifacts (a marked folder, or the run's own `--artifacts`) is
/// output: what runner writes there, and what a flow or a page does. A flow's downloads are
/// also told by their folder's name in a folder named as a flow's, marked or not (artifacts
/// copied without their hidden marker, by an older runner, or of a run killed early still
/// have them). A report.json beside a folder is no sign: a user writes theirs beside their own
/// numbered folders of flows (`e2e/001-login/`), which are no output.
pub(crate) fn output_kind(path: &std::path::Path, own: Option<&std::path::Path>) -> Option<Output> {
    let artifacts = |d: &std::path::Path| {
        is_marked(d) || own.is_some_and(|o| std::fs::canonicalize(d).is_ok_and(|c| c == o))
    };
    let dir = path.is_dir();
    if dir && artifacts(path) {
        return Some(Output::Artifacts);
    }
    let parent = path.parent()?;
    let flow_named = |p: &std::path::Path| {
        p.file_name()
            .is_some_and(|n| is_flow_dir(&n.to_string_lossy()))
    };
    if dir && path.file_name().is_some_and(|n| n == "downloads") && flow_named(parent) {
        return Some(Output::Downloads);
    }
    if !artifacts(parent) {
        return None;
    }
    Some(if dir && flow_named(path) {
        Output::FlowFolder
    } else if dir && path.file_name().is_some_and(|n| n == "web_server") {
        Output::Logs
    } else {
        Output::Written
    })
}

/// The name of the flow an atlas replay writes into the artifacts (`001-replay.yaml`).
pub(crate) fn replay_file(index: usize) -> String {
    format!("{:03}-replay.yaml", index + 1)
}

/// Whether a file of a run's artifacts is one runner wrote as a flow: an atlas replay's
/// ([`replay_file`]).
pub(crate) fn is_replay_file(path: &std::path::Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str()?.strip_suffix("-replay.yaml"))
        .is_some_and(|n| n.len() >= 3 && n.bytes().all(|b| b.is_ascii_digit()))
}

/// A file-name-safe form of a name.
pub(crate) fn slug(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    let s = s
        .split('-')
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    let s: String = s.chars().take(50).collect();
    if s.is_empty() { "flow".into() } else { s }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_file_names() {
        assert_eq!(slug("Login smoke / EN"), "login-smoke-en");
        assert_eq!(slug("../.."), "flow");
        assert_eq!(flow_dir(0, "A b"), "001-a-b");
    }

    /// A marked folder (or the run's own `--artifacts`) is artifacts, a flow-named folder in it
    /// a flow's folder (not in an unmarked one, a report.json beside it or not), anything else
    /// in it written there, `downloads` in any flow-named folder a flow's downloads; nothing
    /// else is output.
    #[test]
    fn output_is_told_by_the_marker_and_the_names_runner_gives() {
        let d = tempfile::tempdir().unwrap();
        let art = d.path().join("art");
        let mine = d.path().join("e2e");
        for dir in [
            art.join("001-f/downloads"),
            art.join("001-f/002-sub/downloads"),
            mine.join("001-login/downloads"),
            mine.join("web_server"),
            art.join("web_server"),
            d.path().join("own/002-x"),
        ] {
            std::fs::create_dir_all(dir).unwrap();
        }
        std::fs::write(art.join(MARKER), MARKER_TEXT).unwrap();
        std::fs::write(mine.join("report.json"), "{}").unwrap();
        let own = std::fs::canonicalize(d.path().join("own")).unwrap();
        let kind = |p: &str| output_kind(&d.path().join(p), Some(&own));
        assert_eq!(kind("art"), Some(Output::Artifacts));
        assert_eq!(kind("own"), Some(Output::Artifacts));
        assert_eq!(kind("art/001-f"), Some(Output::FlowFolder));
        assert_eq!(kind("own/002-x"), Some(Output::FlowFolder));
        assert_eq!(kind("art/001-f/downloads"), Some(Output::Downloads));
        assert_eq!(kind("art/001-f/002-sub/downloads"), Some(Output::Downloads));
        assert_eq!(kind("e2e/001-login/downloads"), Some(Output::Downloads));
        assert_eq!(kind("e2e/001-login"), None);
        assert_eq!(kind("art/web_server"), Some(Output::Logs));
        assert_eq!(kind("e2e/web_server"), None);
        // Anything else in a run's artifacts is output too, file or folder; nothing in a
        // folder of the user's is.
        std::fs::write(art.join("001-replay.yaml"), "").unwrap();
        std::fs::write(art.join("cluster-state.yaml"), "").unwrap();
        std::fs::create_dir_all(art.join("reports")).unwrap();
        std::fs::write(mine.join("001-replay.yaml"), "").unwrap();
        assert_eq!(kind("art/001-replay.yaml"), Some(Output::Written));
        assert_eq!(kind("art/cluster-state.yaml"), Some(Output::Written));
        assert_eq!(kind("art/reports"), Some(Output::Written));
        assert_eq!(kind("e2e/001-replay.yaml"), None);
        assert_eq!(kind("e2e/report.json"), None);
        assert_eq!(kind("e2e"), None);
        assert_eq!(output_kind(&d.path().join("own/002-x"), None), None);
    }

    #[test]
    fn a_flows_folder_is_told_by_its_name() {
        for name in ["Checkout", "a b", "", "é", "x-y-z"] {
            let dir = flow_dir(41, name);
            assert!(is_flow_dir(&dir), "{dir}");
        }
        assert!(is_flow_dir(&flow_dir(1234, "f")));
        for other in [
            "s1",
            "art",
            "downloads",
            "01-f",
            "001-",
            "001_f",
            "001-F",
            "abc-001",
        ] {
            assert!(!is_flow_dir(other), "{other}");
        }
    }
}
