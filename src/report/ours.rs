//! The one rule for every file runner writes by a name it was given (`--report json=PATH`,
//! `junit=PATH`, an HTML report's `DIR/index.html` and `DIR/assets/`, the `report.json` in
//! `--artifacts DIR`, `atlas diff --html FILE`, `atlas export --out DIR`): a file already there
//! is written over only when it is runner's own of that kind; anything else (a flow, a server's
//! script, an upload, another tool's file, an export edited by hand) is refused, naming it, and
//! left as it was. Runner's own is told by what runner writes in it: a JSON report by its shape
//! ([`is_runner_report`]), a JUnit report by the [`JUNIT_HEAD`] it opens with, an HTML page by
//! the [`PAGE_HEAD`] it opens with (the mark must open the file: `<testsuite`, or the mark,
//! anywhere in a file's head is in every JUnit report of every tool and in a note that talks
//! of them), a file runner wrote before these marks by the exact head it wrote then, an export
//! by its [`stamp`] header, which holds a hash of what follows it (an edited export is no
//! longer runner's), an HTML report's `assets/` by the [`ASSETS_MARK`] file runner writes in
//! it.
//! What a path may be (a FIFO, `/dev/stdout`, no directory) is [`crate::fs::write_named`]'s.

use std::io::Read;
use std::path::Path;

use sha2::Digest;

/// What runner writes at a name it was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Runner's JSON report.
    JsonReport,
    /// A JUnit report.
    Junit,
    /// Runner's HTML page: a run's report, an atlas diff.
    Page,
    /// An exported flow or Playwright script (`atlas export --out`).
    Export,
}

impl Kind {
    /// What a file of this kind is, as a refusal names it.
    fn what(self) -> &'static str {
        match self {
            Kind::JsonReport => "a report (runner's JSON report)",
            Kind::Junit => "a report (a JUnit report)",
            Kind::Page => "a report (runner's HTML page)",
            Kind::Export => "runner's export",
        }
    }
}

/// How each HTML page runner makes opens (a run's report, an atlas diff): its generator mark.
pub(crate) const PAGE_HEAD: &str = "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"generator\" content=\"runner\">";

/// How runner's pages opened before [`PAGE_HEAD`]: a run's report, an atlas diff.
const OLD_PAGE_HEADS: [&str; 2] = [
    "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>runner report ",
    "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n<title>atlas diff ",
];

/// The XML declaration a JUnit report opens with.
pub(crate) const XML_DECLARATION: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";

/// How each JUnit report runner writes opens: the declaration, then its generator mark.
pub(crate) const JUNIT_HEAD: &str =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- generator: runner -->\n";

/// How runner's JUnit reports opened before [`JUNIT_HEAD`].
const OLD_JUNIT_HEAD: &str =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"runner\" tests=\"";

/// The file runner writes into an HTML report's `assets/` when it makes it.
pub(crate) const ASSETS_MARK: &str = ".runner-assets";

/// What [`ASSETS_MARK`] says to whoever opens it.
const ASSETS_MARK_TEXT: &str =
    "runner made this folder for an HTML report's files and writes over what is in it.\n";

/// How an export's header begins; the hash of what follows the header line ends it.
const EXPORT_HEAD: &str = "# Written by `runner atlas export`; runner writes over this file only while it is unchanged. sha256:";

/// How much of a file's head is read to tell a JUnit report or an HTML page.
const HEAD: u64 = 512;

/// `text` (an export) with runner's header: a comment (in YAML and in Python) that holds the
/// hash of `text`.
pub(crate) fn stamp(text: &str) -> String {
    format!("{EXPORT_HEAD}{}\n{text}", hash(text))
}

fn hash(text: &str) -> String {
    sha2::Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Why runner does not write its file of `kind` at `file`, a name it was given; `None` when it
/// does: nothing is there, an empty file, runner's own of that kind, or what
/// [`crate::fs::write_named`] writes through (a FIFO, a device).
pub(crate) fn refusal(file: &Path, kind: Kind) -> Option<String> {
    if let Some(why) = crate::fs::named_file_problem(file) {
        return Some(why);
    }
    let meta = std::fs::symlink_metadata(file).ok()?;
    if !meta.is_file() || meta.len() == 0 {
        return None;
    }
    let shown = file.display();
    let ours = match kind {
        Kind::JsonReport => std::fs::File::open(file).is_ok_and(is_runner_report),
        Kind::Junit => opens_with(file, &[JUNIT_HEAD, OLD_JUNIT_HEAD]),
        Kind::Page => opens_with(file, &[PAGE_HEAD, OLD_PAGE_HEADS[0], OLD_PAGE_HEADS[1]]),
        Kind::Export => match export_unchanged(file) {
            Some(true) => true,
            Some(false) => {
                return Some(format!(
                    "{shown} exists and was edited since runner wrote it: runner does not write over it (remove it, or name another --out)"
                ));
            }
            None => false,
        },
    };
    (!ours).then(|| {
        format!(
            "{shown} exists and is not {}: runner does not write over it (remove it or name another path)",
            kind.what()
        )
    })
}

/// Writes runner's file of `kind` at `file` (see [`crate::fs::write_named`]), unless
/// [`refusal`] says no.
pub(crate) fn write_ours(
    file: &Path,
    kind: Kind,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    match refusal(file, kind) {
        Some(why) => Err(std::io::Error::other(why)),
        None => crate::fs::write_named(file, write),
    }
}

/// Why runner does not write an HTML report's files into `dir/assets`; `None` when it does:
/// there is none, it holds [`ASSETS_MARK`], or `dir/index.html` is runner's page (a report
/// written before the mark).
pub(crate) fn assets_refusal(dir: &Path) -> Option<String> {
    let assets = dir.join("assets");
    std::fs::symlink_metadata(&assets).ok()?;
    let marked = std::fs::symlink_metadata(assets.join(ASSETS_MARK)).is_ok_and(|m| m.is_file());
    let page = dir.join("index.html");
    let old_report = std::fs::symlink_metadata(&page).is_ok_and(|m| m.is_file() && m.len() > 0)
        && refusal(&page, Kind::Page).is_none();
    (!(marked || old_report)).then(|| {
        format!(
            "{} exists and runner did not make it (it holds no {ASSETS_MARK}): runner does not write into it (remove it or name another folder)",
            assets.display()
        )
    })
}

/// Marks `dir/assets` (made by the caller, inside `dir` as named) as runner's.
pub(crate) fn mark_assets(dir: &Path) -> Result<(), String> {
    let mark = dir.join("assets").join(ASSETS_MARK);
    crate::fs::write_artifact(dir, &mark, ASSETS_MARK_TEXT.as_bytes())
}

/// Whether `json` (read to its end) is runner's JSON report: one JSON object whose first key is
/// `run_id` (runner writes it first; a GitHub job's JSON has a `run_id` further in) and which
/// has `flows` and `summary`. Scanned, not built: the values are skipped. The one rule for "is
/// this runner's JSON report" where it is not parsed as one: before a `--report json=PATH`
/// replaces a file, and when `merge-reports` tells a broken report from another JSON file.
pub(crate) fn is_runner_report(json: impl Read) -> bool {
    struct Shape;
    impl<'de> serde::de::Visitor<'de> for Shape {
        type Value = bool;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
            let (mut first, mut run_id, mut flows, mut summary) = (true, false, false, false);
            while let Some(key) = map.next_key::<String>()? {
                run_id |= first && key == "run_id";
                flows |= key == "flows";
                summary |= key == "summary";
                first = false;
                map.next_value::<serde::de::IgnoredAny>()?;
            }
            Ok(run_id && flows && summary)
        }
    }
    let mut de = serde_json::Deserializer::from_reader(std::io::BufReader::new(json));
    serde::Deserializer::deserialize_map(&mut de, Shape).is_ok_and(|ours| ours) && de.end().is_ok()
}

/// Whether the export at `file` is as runner wrote it (its header's hash is of what follows);
/// `None` when it has no header of runner's.
fn export_unchanged(file: &Path) -> Option<bool> {
    let text = std::fs::read_to_string(file).ok()?;
    let (head, rest) = text.split_once('\n')?;
    let sum = head.strip_prefix(EXPORT_HEAD)?;
    Some(sum == hash(rest))
}

/// Whether `file` opens with one of `heads` (its first [`HEAD`] bytes; no, when it cannot be
/// read).
fn opens_with(file: &Path, heads: &[&str]) -> bool {
    let mut head = Vec::new();
    let read = std::fs::File::open(file).and_then(|f| f.take(HEAD).read_to_end(&mut head));
    read.is_ok() && heads.iter().any(|h| head.starts_with(h.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::{JUNIT_HEAD, Kind, PAGE_HEAD, is_runner_report, refusal, stamp};

    /// A JUnit report or a page is runner's when it opens with runner's head; the same text,
    /// or the mark, further in (a note that quotes it, another tool's file) is not.
    #[test]
    fn a_junit_report_or_a_page_is_runners_only_when_it_opens_with_the_mark() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("x");
        for (kind, head) in [(Kind::Junit, JUNIT_HEAD), (Kind::Page, PAGE_HEAD)] {
            std::fs::write(&f, format!("{head}rest\n")).unwrap();
            assert_eq!(refusal(&f, kind), None);
            std::fs::write(&f, format!("# notes\n{head}rest\n")).unwrap();
            assert!(refusal(&f, kind).unwrap().contains("is not a report"));
        }
        std::fs::write(
            &f,
            "<?xml version=\"1.0\"?><testsuites><testsuite name=\"pytest\">",
        )
        .unwrap();
        assert!(refusal(&f, Kind::Junit).is_some());
    }

    /// A stamped export is runner's until a byte of it changes; one without the header never is.
    #[test]
    fn an_export_is_runners_while_its_hash_holds() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("x.yaml");
        std::fs::write(&f, stamp("{\"name\": \"a\"}\n")).unwrap();
        assert_eq!(refusal(&f, Kind::Export), None);
        std::fs::write(&f, stamp("{\"name\": \"a\"}\n") + "# mine\n").unwrap();
        assert!(refusal(&f, Kind::Export).unwrap().contains("was edited"));
        std::fs::write(&f, "{\"name\": \"a\"}\n").unwrap();
        assert!(
            refusal(&f, Kind::Export)
                .unwrap()
                .contains("is not runner's export")
        );
    }

    /// A report runner wrote is one; JSON that opens otherwise, lacks `flows` or `summary`, is
    /// no object, or does not end where the object does, is not.
    #[test]
    fn a_runner_report_is_told_by_its_first_key_and_its_parts() {
        let ours = include_str!("../../tests/fixtures/golden-run/expected/report.json");
        assert!(is_runner_report(ours.as_bytes()));
        assert!(is_runner_report(
            &b"  {\"run_id\": \"x\", \"flows\": [], \"summary\": {}}\n"[..]
        ));
        for other in [
            "{\"id\": 42, \"run_id\": 7, \"flows\": [], \"summary\": {}}",
            "{\"run_id\": 7, \"id\": 42, \"name\": \"build\"}",
            "{\"run_id\": 7, \"flows\": []}",
            "[\"run_id\", \"flows\", \"summary\"]",
            "{\"run_id\": 7, \"flows\": [], \"summary\": {}} trailing",
            "{\"run_id\": 7, \"flows\": [], \"summary\": {",
            "",
        ] {
            assert!(!is_runner_report(other.as_bytes()), "{other}");
        }
        let cut = &ours[..ours.len() / 2];
        assert!(!is_runner_report(cut.as_bytes()));
    }
}
