//! A flow's downloads: its context saves them into the flow's artifacts directory (never the
//! user's `~/Downloads`), each file first named by its download id; the DevTools events say
//! what each one is (URL, suggested name) and when it is done. The `download` step (see
//! `download`) moves its file where it says; the others get their suggested names when the
//! flow ends.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::cdp::Cdp;
use crate::step::{Masker, StepError};

/// One download the browser reported.
#[derive(Debug, Clone)]
pub(crate) struct Download {
    pub(crate) guid: String,
    pub(crate) url: String,
    pub(crate) suggested: String,
    /// `inProgress`, `completed` or `canceled`.
    pub(crate) state: String,
    /// Moved by a `download` step.
    pub(crate) taken: bool,
}

/// A flow's downloads.
pub(crate) struct Downloads {
    cdp: Arc<Cdp>,
    /// Where the browser saves them (the flow's artifacts `downloads/`).
    pub(crate) dir: PathBuf,
    pub(crate) seen: Vec<Download>,
}

impl Downloads {
    pub(crate) fn new(cdp: Arc<Cdp>, dir: PathBuf) -> Downloads {
        Downloads {
            cdp,
            dir,
            seen: Vec::new(),
        }
    }

    /// Reads the browser's download events since the last look.
    pub(crate) async fn refresh(&mut self) -> Result<(), StepError> {
        let events = self.cdp.download_events(Duration::from_secs(5)).await?;
        for e in events {
            let p = e.get("params").cloned().unwrap_or(Value::Null);
            let text = |k: &str| p.get(k).and_then(Value::as_str).unwrap_or("").to_string();
            let guid = text("guid");
            match e.get("method").and_then(Value::as_str) {
                Some("Browser.downloadWillBegin") => self.seen.push(Download {
                    guid,
                    url: text("url"),
                    suggested: text("suggestedFilename"),
                    state: "inProgress".into(),
                    taken: false,
                }),
                Some("Browser.downloadProgress") => {
                    if let Some(d) = self.seen.iter_mut().find(|d| d.guid == guid) {
                        d.state = text("state");
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Gives the downloads no step took their suggested names, secrets masked (at the end of
    /// the flow).
    pub(crate) async fn finish(&mut self, masker: &Masker) {
        let _ = self.refresh().await;
        for d in self
            .seen
            .iter()
            .filter(|d| !d.taken && d.state == "completed")
        {
            let from = self.dir.join(&d.guid);
            let to = free_name(&self.dir, &safe_name(&d.suggested, masker));
            let _ = std::fs::rename(from, to);
        }
    }
}

/// A suggested file name as a plain file name (no directories, never empty), its secrets masked
/// (a page may name a file after what was typed into it).
pub(crate) fn safe_name(suggested: &str, masker: &Masker) -> String {
    let suggested = masker.mask(suggested);
    let name = Path::new(&suggested)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if name.is_empty() || name == "." || name == ".." {
        "download".to_string()
    } else {
        name
    }
}

/// `dir/name`, or `dir/name (2)`, ... when it is taken.
pub(crate) fn free_name(dir: &Path, name: &str) -> PathBuf {
    let first = dir.join(name);
    if !first.exists() {
        return first;
    }
    let (stem, ext) = match name.rsplit_once('.') {
        Some((s, e)) if !s.is_empty() => (s.to_string(), format!(".{e}")),
        _ => (name.to_string(), String::new()),
    };
    (2..100_000)
        .map(|i| dir.join(format!("{stem} ({i}){ext}")))
        .find(|p| !p.exists())
        .unwrap_or(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_stay_in_the_directory_and_do_not_overwrite() {
        let none = Masker::default();
        assert_eq!(safe_name("../../etc/passwd", &none), "passwd");
        assert_eq!(safe_name("", &none), "download");
        let m = Masker::new(["s3cret/x".to_string()]);
        assert_eq!(safe_name("report-s3cret/x.csv", &m), "report-***.csv");
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("a.txt"), "x").unwrap();
        assert_eq!(free_name(d.path(), "a.txt"), d.path().join("a (2).txt"));
        assert_eq!(free_name(d.path(), "b.txt"), d.path().join("b.txt"));
    }
}
