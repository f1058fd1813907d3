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
/// `run --watch`): flow discovery does not look for flows under a directory holding it (a
/// page's download lands in the artifacts under a name the page chooses, `evil.yaml` among
/// them), wherever the artifacts are (`--artifacts` inside the flows' directory).
pub(crate) const MARKER: &str = ".runner-artifacts";

/// What [`MARKER`] says to whoever opens it.
pub(crate) const MARKER_TEXT: &str = "This directory holds the artifacts of a runner run (its flows' files, a page's downloads among them).\nrunner looks for no flow under it.\n";

/// Whether `dir` holds [`MARKER`] (a regular file, not a link): it is a run's artifacts.
pub(crate) fn is_marked(dir: &std::path::Path) -> bool {
    std::fs::symlink_metadata(dir.join(MARKER)).is_ok_and(|m| m.is_file())
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
