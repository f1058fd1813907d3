//! The report files a run (or `atlas verify`) writes: `--report junit=PATH`, `json=PATH`,
//! `html=DIR`. Written whole or not at all (write, then rename). A path the user gives is taken
//! as given (its folders made, links and all, like a shell's `> file`), and the file is replaced
//! (a symlink in its place too, never written through); a FIFO, a character device or
//! `/dev/stdout` is written through, a directory or a socket refused (see
//! [`crate::fs::write_named`]); what runner makes inside an HTML report's folder (`assets/` and
//! the files in it) follows no symlink there. What is there already is written over only when
//! it is runner's own of the report's kind, `assets/` only when runner made it (see
//! [`super::ours`]).

use std::io::Read;
use std::path::{Path, PathBuf};

use super::model::Report;
use super::ours::Kind;

/// A report that could not be written.
#[derive(Debug, thiserror::Error)]
#[error("cannot write {}: {source}", path.display())]
pub(crate) struct ReportError {
    path: PathBuf,
    source: std::io::Error,
}

/// A report to write at the end.
#[derive(Debug, Clone)]
pub(crate) enum ReportTarget {
    Junit(PathBuf),
    Json(PathBuf),
    Html(PathBuf),
}

impl ReportTarget {
    /// Parses `--report KIND=PATH` values.
    /// A path that holds what no report can be written to (a directory, a socket) is refused
    /// here, before anything runs.
    pub(crate) fn parse_all(specs: &[String]) -> Result<Vec<ReportTarget>, String> {
        specs
            .iter()
            .map(|s| {
                let target = match s.split_once('=') {
                    Some(("junit", p)) if !p.is_empty() => ReportTarget::Junit(PathBuf::from(p)),
                    Some(("json", p)) if !p.is_empty() => ReportTarget::Json(PathBuf::from(p)),
                    Some(("html", p)) if !p.is_empty() => ReportTarget::Html(PathBuf::from(p)),
                    _ => {
                        return Err(format!(
                            "invalid --report `{s}`: expected junit=PATH, json=PATH or html=DIR"
                        ));
                    }
                };
                match target.problem() {
                    Some(why) => Err(format!("invalid --report `{s}`: {why}")),
                    None => Ok(target),
                }
            })
            .collect()
    }

    /// The file this report is written to (an HTML report's: its `index.html`).
    pub(crate) fn file(&self) -> PathBuf {
        match self {
            ReportTarget::Junit(p) | ReportTarget::Json(p) => p.clone(),
            ReportTarget::Html(dir) => dir.join("index.html"),
        }
    }

    /// As `--report` gives it: `KIND=PATH`.
    pub(crate) fn spec(&self) -> String {
        let (kind, p) = match self {
            ReportTarget::Junit(p) => ("junit", p),
            ReportTarget::Json(p) => ("json", p),
            ReportTarget::Html(p) => ("html", p),
        };
        format!("{kind}={}", p.display())
    }

    /// Why this report could not be written where it is asked for (see [`super::ours`]);
    /// `None` when it can.
    fn problem(&self) -> Option<String> {
        if let ReportTarget::Html(dir) = self {
            if std::fs::metadata(dir).is_ok_and(|m| !m.is_dir()) {
                return Some(format!("{} is not a directory", dir.display()));
            }
            if let Some(why) = super::ours::assets_refusal(dir) {
                return Some(why);
            }
        }
        super::ours::refusal(&self.file(), self.kind())
    }

    /// What kind of runner's file this report is.
    fn kind(&self) -> Kind {
        match self {
            ReportTarget::Json(_) => Kind::JsonReport,
            ReportTarget::Junit(_) => Kind::Junit,
            ReportTarget::Html(_) => Kind::Page,
        }
    }

    /// Writes this report of a report document (a run's, or shards' merged); what was left out
    /// of it (files its paths name that its flows may not read), and why.
    pub(crate) fn write_report(&self, r: &Report) -> Result<Vec<String>, ReportError> {
        match self {
            ReportTarget::Json(p) => write_json(p, r).map(|()| Vec::new()),
            ReportTarget::Junit(p) => {
                write(p, Kind::Junit, &super::junit::report(r)).map(|()| Vec::new())
            }
            ReportTarget::Html(dir) => {
                let mut page = super::html::report(r);
                if !page.assets.is_empty() {
                    let assets = dir.join("assets");
                    let err = |why: String| ReportError {
                        path: assets.clone(),
                        source: std::io::Error::other(why),
                    };
                    if let Some(why) = super::ours::assets_refusal(dir) {
                        return Err(err(why));
                    }
                    super::ours::mark_assets(dir).map_err(err)?;
                }
                for a in &page.assets {
                    // Opened again as the flow's reads allow: what was checked is what is copied.
                    let (from, cap) = match a.reads.open(&a.from) {
                        Ok(f) => f,
                        Err(why) => {
                            page.notes
                                .push(format!("{:?} left out of the report: {why}", a.from));
                            continue;
                        }
                    };
                    let to = dir.join("assets").join(&a.name);
                    let err = |source| ReportError {
                        path: to.clone(),
                        source,
                    };
                    // Inside the report's folder (taken as named), as in the artifacts: no
                    // symlink a reused folder holds (`assets/1.log -> ~/.bashrc`) is followed.
                    let mut out = crate::fs::create_artifact(dir, &to)
                        .map_err(|why| err(std::io::Error::other(why)))?;
                    std::io::copy(&mut from.take(cap), &mut out).map_err(err)?;
                }
                write(&dir.join("index.html"), Kind::Page, &page.html).map(|()| page.notes)
            }
        }
    }
}

/// Writes the JSON report to `path`.
pub(crate) fn write_json(path: &Path, r: &Report) -> Result<(), ReportError> {
    write_with(path, Kind::JsonReport, |w| super::json::write(w, r))
}

fn write(path: &Path, kind: Kind, text: &str) -> Result<(), ReportError> {
    write_with(path, kind, |w| w.write_all(text.as_bytes()))
}

/// Writes runner's file of `kind` at `path`, unless what is there is not runner's of that kind
/// (see [`super::ours`]).
fn write_with(
    path: &Path,
    kind: Kind,
    f: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<(), ReportError> {
    super::ours::write_ours(path, kind, f).map_err(|source| ReportError {
        path: path.to_path_buf(),
        source,
    })
}
