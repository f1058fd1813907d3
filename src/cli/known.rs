//! The secrets what runner says before a run may quote: a diagnostic shows the source lines
//! around its place, and a flow's or the project file's lines may hold a remote browser's token
//! (`cdp = "wss://…?token=…"`) or the value of a secret a flow declares. Every diagnostic, error
//! and warning is masked with them (`report::known_secrets`), read when the first is said.

use std::path::{Path, PathBuf};

use crate::config::project::{self, Project};
use crate::report::{Known, known_secrets};
use crate::source::Diagnostic;
use crate::step::url_secrets::url_secrets;

/// Makes every diagnostic, error and warning said from now on mask the secrets that the flow
/// files `files` (and the sub-flows they run) declare, with their values from the environment,
/// and the tokens of the remote browsers they name (`browser.cdp`): called before anything about
/// those files, or the vars given for them, is said. The files are read when the first is said
/// (most runs say none).
pub(crate) fn learn_secrets(files: &[PathBuf]) {
    let files = files.to_vec();
    known_secrets(move || flows_known(&files));
}

/// The project file found from `cwd` (`project::find`), after making what is said from now on
/// mask the secrets its diagnostics may quote: the tokens of the remote browsers it names
/// (`[browser] cdp`) and `cdp` (`--browser-cdp`), and the secrets the flows declare — those
/// of `paths` when given, else of the project's `flows` as far as the file reads, else of the
/// project's folder ([`learn_secrets`] comes after, once the flows are known).
pub(crate) fn find_project(
    cwd: &Path,
    paths: &[PathBuf],
    cdp: Option<&str>,
) -> Result<Option<Project>, Vec<Diagnostic>> {
    let (start, paths, cdp) = (cwd.to_path_buf(), paths.to_vec(), cdp.map(str::to_string));
    known_secrets(move || {
        let file = project_file(&start);
        let text = file.as_deref().map(text_of).unwrap_or_default();
        let paths = match (&file, paths.is_empty()) {
            (Some(f), true) => project_flows(f),
            _ => paths,
        };
        let existing: Vec<PathBuf> = paths.into_iter().filter(|p| p.exists()).collect();
        let files = super::files::collect(&existing, None)
            .map(|c| c.files)
            .unwrap_or_default();
        let mut known = flows_known(&files);
        for url in cdp_urls(&text).iter().chain(&cdp) {
            known.values.extend(url_secrets(url));
        }
        known
    });
    project::find(cwd)
}

/// What the flow files `files` hold that a diagnostic may quote: the secrets they (and their
/// sub-flows) declare, with values from the environment; the tokens of the `cdp` URLs written
/// in them.
fn flows_known(files: &[PathBuf]) -> Known {
    let named = crate::config::declared_secrets::declared(files)
        .into_iter()
        .filter_map(|n| std::env::var(&n).ok().map(|v| (n, v)))
        .collect();
    let values = files
        .iter()
        .flat_map(|f| cdp_urls(&text_of(f)))
        .flat_map(|url| url_secrets(&url))
        .collect();
    Known { named, values }
}

/// The text of a file, read as runner reads its inputs (a regular file of at most 10 MB: a device
/// or a FIFO is never read, `document::read_bytes`); empty when it cannot be read.
fn text_of(path: &Path) -> String {
    crate::config::document::read_bytes(path)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default()
}

/// The project file `project::find` takes from `start` (the nearest by one of its names, up to
/// the folder holding `.git`), whether or not it reads.
fn project_file(start: &Path) -> Option<PathBuf> {
    for dir in start.ancestors() {
        if let Some(f) = project::NAMES
            .iter()
            .map(|n| dir.join(n))
            .find(|p| p.is_file())
        {
            return Some(f);
        }
        if dir.join(".git").symlink_metadata().is_ok() {
            return None;
        }
    }
    None
}

/// The flows of the project file `file` (its `flows`, resolved from its folder) as far as the
/// file reads; its folder when it does not read, or names none.
fn project_flows(file: &Path) -> Vec<PathBuf> {
    let dir = file.parent().unwrap_or(Path::new("."));
    let listed: Vec<PathBuf> = crate::config::document::read(file)
        .ok()
        .and_then(|doc| doc.value.get("flows").and_then(|f| f.as_array()).cloned())
        .unwrap_or_default()
        .iter()
        .filter_map(|f| f.as_str())
        .map(|f| dir.join(f))
        .collect();
    if listed.is_empty() {
        vec![dir.to_path_buf()]
    } else {
        listed
    }
}

/// The URLs written as a `cdp` value in `text` (a flow or a project file, read as text: it may
/// not parse): after `cdp` (quoted or not), `=` or `:`, a value with `://` in it, quoted or up to
/// a space, `,` or `}`.
fn cdp_urls(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("cdp") {
        rest = &rest[at + 3..];
        let after = rest
            .trim_start_matches(['"', '\''])
            .trim_start_matches([' ', '\t']);
        let Some(value) = after.strip_prefix(['=', ':']) else {
            continue;
        };
        let value = value.trim_start_matches([' ', '\t']);
        let (body, ends): (&str, &[char]) = match value.chars().next() {
            Some('"') => (&value[1..], &['"', '\n']),
            Some('\'') => (&value[1..], &['\'', '\n']),
            _ => (value, &[' ', '\t', '\r', '\n', ',', '}']),
        };
        let url = &body[..body.find(ends).unwrap_or(body.len())];
        if url.contains("://") {
            out.push(url.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::cdp_urls;

    #[test]
    fn cdp_urls_are_found_in_a_file_as_written() {
        let text = "[browser]\ncdp = \"wss://h/?token=T1\"\n{\"cdp\": \"ws://u:p@h\"}\nbrowser: { cdp: 'wss://h/?t=T2', x: 1 }\n  cdp: http://h:9222/?k=T3 # c\ncdp_note = \"x\"\ncdp: 9222\n";
        assert_eq!(
            cdp_urls(text),
            [
                "wss://h/?token=T1",
                "ws://u:p@h",
                "wss://h/?t=T2",
                "http://h:9222/?k=T3"
            ]
        );
    }
}
