//! The exit codes the documentation lists are the ones runner has: README's (or docs/'s)
//! "Exit codes" table against `runner::cli::exit::ALL`, the codes the one exit-code map gives.

use std::collections::BTreeSet;
use std::path::Path;

use crate::common::root;

/// The codes of the `| code | meaning |` table under a heading that says "Exit codes", if the
/// file has one.
fn table_codes(text: &str) -> Option<BTreeSet<i32>> {
    let mut lines = text
        .lines()
        .skip_while(|l| !(l.starts_with('#') && l.contains("Exit codes")))
        .skip(1)
        .skip_while(|l| !l.trim_start().starts_with('|'));
    let header = lines.next()?;
    let cells: Vec<&str> = header.split('|').map(str::trim).collect();
    if cells.get(1) != Some(&"code") {
        return None;
    }
    let codes = lines
        .take_while(|l| l.trim_start().starts_with('|'))
        .filter_map(|row| row.split('|').nth(1)?.trim().parse().ok())
        .collect();
    Some(codes)
}

/// README.md's table, else the first in docs/*.md (in name order), with the file it is in.
fn documented_codes() -> (String, BTreeSet<i32>) {
    let readme = root().join("README.md");
    let mut files = vec![readme];
    let docs = root().join("docs");
    if let Ok(entries) = std::fs::read_dir(&docs) {
        let mut md: Vec<_> = entries
            .filter_map(|e| Some(e.ok()?.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "md"))
            .collect();
        md.sort();
        files.extend(md);
    }
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        if let Some(codes) = table_codes(&text) {
            let name = f.strip_prefix(root()).unwrap_or(Path::new("?"));
            return (name.display().to_string(), codes);
        }
    }
    panic!(
        "no `| code | meaning |` table under an \"Exit codes\" heading in README.md or docs/*.md"
    );
}

#[test]
fn the_documented_exit_codes_are_the_ones_runner_exits_with() {
    let (file, documented) = documented_codes();
    let mapped: BTreeSet<i32> = runner::cli::exit::ALL.into_iter().collect();
    assert_eq!(
        documented, mapped,
        "{file}'s exit-code table and runner::cli::exit::ALL disagree"
    );
}

#[test]
fn a_table_is_read_row_by_row() {
    let text = "# T\n\n### Exit codes\n\nintro\n\n| code | meaning |\n|---|---|\n| 0 | ok |\n| 7 | no |\n\n| 9 | not this table |\n";
    assert_eq!(table_codes(text), Some(BTreeSet::from([0, 7])));
    assert_eq!(
        table_codes("# Nothing here\n| code | meaning |\n| 0 | ok |\n"),
        None
    );
}
