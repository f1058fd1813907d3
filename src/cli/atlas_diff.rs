//! `runner atlas diff A B [--format text|json] [--html FILE]`: the command-line side of
//! `atlas::compare` — the two directories checked to be atlases, the result printed (and
//! written as a page), its end an exit code: 0 no differences, 1 differences, 2 bad input.

use std::path::Path;

use super::args::DiffFormat;
use super::error::CliError;
use super::exit::Outcome;
use crate::atlas::{self, Atlas};
use crate::report::{OwnKind, Reporter, atlas_diff_html, atlas_diff_text};

/// An atlas directory to compare, which must be one (nothing is created).
fn existing(dir: &Path) -> Result<Atlas, CliError> {
    if !dir.exists() {
        return Err(CliError::Usage(format!(
            "no atlas at {}: no such directory",
            dir.display()
        )));
    }
    if !dir.join("nodes").is_dir() {
        return Err(CliError::Usage(format!(
            "{} is not an atlas: it has no nodes/ directory (record one with `runner explore` or `link_state` steps)",
            dir.display()
        )));
    }
    Ok(Atlas {
        root: dir.to_path_buf(),
        reach: crate::atlas::Reach::default(),
    })
}

/// `runner atlas diff`.
pub(super) fn run(
    a: &Path,
    b: &Path,
    format: DiffFormat,
    html: Option<&Path>,
    reporter: &Reporter,
) -> Result<Outcome, CliError> {
    let (a, b) = (existing(a)?, existing(b)?);
    let d = atlas::compare(&a, &b)?;
    let s = &d.summary;
    if s.states_unchanged + s.states_changed + s.states_added + s.states_removed == 0 {
        return Err(CliError::Usage(format!(
            "neither atlas has a state: nothing to compare ({} and {} are empty)",
            d.a, d.b
        )));
    }
    if let Some(file) = html {
        super::files::write_own(file, OwnKind::Page, &atlas_diff_html(&d))?;
    }
    match format {
        DiffFormat::Text => reporter.out(&atlas_diff_text(&d)),
        // A document of strings, numbers and lists always serializes.
        DiffFormat::Json => reporter.out(&format!(
            "{}\n",
            serde_json::to_string_pretty(&d).unwrap_or_default()
        )),
    }
    Ok(if d.differ {
        Outcome::Differences
    } else {
        Outcome::Passed
    })
}
