//! A flow's downloads: its context saves them into the flow's artifacts directory (never the
//! user's `~/Downloads`), each file first named by its download id; the DevTools events say
//! what each one is (URL, suggested name) and when it is done. The `download` step (see
//! `download`) moves its file where it says; the others get their suggested names when the
//! flow ends.

use std::path::PathBuf;
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
    /// The frame whose navigation or link started it (a tab's main frame has the tab's id).
    pub(crate) frame: String,
    /// Whether the tab it may have emptied was looked at, once it ended (see
    /// `Session::close_emptied_tabs`).
    pub(crate) looked: bool,
}

/// How long the end of a flow waits for the downloads still under way (see
/// [`Downloads::settle`]); none when the run is interrupted.
pub(crate) const FINISH_GRACE: Duration = Duration::from_secs(3);

/// Where a flow's downloads go: `dir` (the flow's artifacts `downloads/`) inside the run's
/// artifacts directory `root`.
#[derive(Debug, Clone)]
pub(crate) struct DownloadDir {
    pub(crate) root: PathBuf,
    pub(crate) dir: PathBuf,
}

/// A flow's downloads.
pub(crate) struct Downloads {
    cdp: Arc<Cdp>,
    /// Where the browser saves them.
    pub(crate) at: DownloadDir,
    pub(crate) seen: Vec<Download>,
}

impl Downloads {
    pub(crate) fn new(cdp: Arc<Cdp>, at: DownloadDir) -> Downloads {
        Downloads {
            cdp,
            at,
            seen: Vec::new(),
        }
    }

    /// Gives the finished download `d` the name its page suggested (secrets masked), or the
    /// next free one (see [`crate::fs::move_to_free_name`]); where it went.
    pub(crate) fn name(&self, d: &Download, masker: &Masker) -> Result<PathBuf, String> {
        let name = safe_name(&d.suggested, masker);
        crate::fs::move_to_free_name(&self.at.root, &self.at.dir, &d.guid, &name)
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
                    frame: text("frameId"),
                    looked: false,
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

    /// Waits (up to `grace`) for the downloads no step took that are under way to finish: at
    /// the end of the flow's steps, before its web server stops (which would cancel them).
    pub(crate) async fn settle(&mut self, grace: Duration) {
        let until = tokio::time::Instant::now() + grace;
        while self.refresh().await.is_ok()
            && self
                .seen
                .iter()
                .any(|d| !d.taken && d.state == "inProgress")
            && tokio::time::Instant::now() < until
        {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Gives the finished downloads no step took their suggested names, secrets masked (at the
    /// end of the flow); one that did not finish keeps its download id for a name. What a
    /// download past the flow's bound left (it finished before its cancel came) is removed.
    pub(crate) async fn finish(&mut self, masker: &Masker) {
        let _ = self.refresh().await;
        let over = self.cdp.downloads_over_cap();
        for guid in &over {
            // (By name in the folder made safe: a link there is removed, never followed.)
            for name in [guid.clone(), format!("{guid}.crdownload")] {
                let _ = std::fs::remove_file(self.at.dir.join(name));
            }
        }
        for d in self
            .seen
            .iter()
            .filter(|d| !d.taken && d.state == "completed" && !over.contains(&d.guid))
        {
            // (One that cannot be moved keeps its download id for a name.)
            let _ = self.name(d, masker);
        }
    }

    /// Whether download `guid` went past the flow's bound (and was cancelled).
    pub(crate) fn over_cap(&self, guid: &str) -> bool {
        self.cdp.downloads_over_cap().iter().any(|g| g == guid)
    }

    /// What the flow notes when downloads went past its bound: how many, the first's URL.
    pub(crate) fn note(&self) -> Option<String> {
        let over = self.cdp.downloads_over_cap();
        let first = over.first()?;
        let url = self
            .seen
            .iter()
            .find(|d| d.guid == *first)
            .map_or_else(String::new, |d| format!(", the first of {}", d.url));
        Some(format!(
            "{} download(s) past the flow's bound ({} downloads, {} MiB in all) cancelled and not kept{url}",
            over.len(),
            super::cdp::MAX_DOWNLOADS,
            super::cdp::MAX_DOWNLOAD_BYTES / 1024 / 1024
        ))
    }
}

/// A suggested file name as a plain file name: its secrets masked (a page may name a file after
/// what was typed into it) before anything else, so that no cut keeps part of one; its last
/// path component (no directories); control characters (a line break) as `_`; never empty nor
/// only dots. [`crate::fs::numbered_name`] cuts one that is too long.
pub(crate) fn safe_name(suggested: &str, masker: &Masker) -> String {
    let masked = masker.mask(suggested);
    let last = masked
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or("");
    let name: String = last
        .chars()
        .map(|c| if c.is_control() { '_' } else { c })
        .collect();
    if name.chars().all(|c| c == '.' || c.is_whitespace()) {
        "download".to_string()
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_stay_in_the_directory_and_hold_no_secret() {
        let none = Masker::default();
        for (suggested, want) in [
            ("../../etc/passwd", "passwd"),
            ("/etc/passwd", "passwd"),
            ("dir/", "dir"),
            ("", "download"),
            (".", "download"),
            ("..", "download"),
            ("...", "download"),
            (" .. ", "download"),
            ("a\nb\u{1b}[2J.csv", "a_b_[2J.csv"),
            ("nul\0.csv", "nul_.csv"),
            (".hidden", ".hidden"),
        ] {
            assert_eq!(safe_name(suggested, &none), want, "{suggested:?}");
        }
        let m = Masker::new(["s3cret/x".to_string()]);
        assert_eq!(safe_name("report-s3cret/x.csv", &m), "report-***.csv");
        // A long name whose secret straddles the cut: masked first, no part of it is kept.
        let m = Masker::new(["Kx9-ZeQrUt-Qm4".to_string()]);
        let long = format!("{}Kx9-ZeQrUt-Qm4.csv", "L".repeat(245));
        let cut = crate::fs::numbered_name(&safe_name(&long, &m), 1);
        assert_eq!(cut, format!("{}***.csv", "L".repeat(245)));
        assert!(!cut.contains("Kx9"), "{cut}");
    }
}
