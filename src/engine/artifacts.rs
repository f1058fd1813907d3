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
}
