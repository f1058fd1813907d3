//! A server's output: stdout and stderr, line by line, masked (the server may print a secret of
//! the flow's, or one it was given in its environment) into its log file
//! (`web_server/<name>.log`) and a tail of the last lines, shown when it fails.

use std::collections::VecDeque;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::task::JoinHandle;

use crate::process::Lines;
use crate::step::Masker;

/// How many lines of a server's output a failure shows.
pub(crate) const TAIL_LINES: usize = 20;

/// The output of one server process.
pub(crate) struct Output {
    tail: Arc<Mutex<VecDeque<String>>>,
    /// The log file (absolute).
    pub(crate) log: PathBuf,
    readers: Mutex<Vec<JoinHandle<()>>>,
}

impl Output {
    /// Reads `child`'s stdout and stderr, each line masked with `masker`, into `log` (created
    /// with its directory) and the tail. (Inside `artifacts`, no symlink followed: a log that
    /// cannot be made there is not kept.)
    pub(crate) fn capture(
        child: &mut tokio::process::Child,
        log: &Path,
        artifacts: &Path,
        masker: &Masker,
    ) -> Output {
        let file = crate::fs::artifact_file(artifacts, log)
            .ok()
            .and_then(|log| std::fs::File::create(log).ok())
            .map(|f| Arc::new(Mutex::new(f)));
        let tail = Arc::new(Mutex::new(VecDeque::with_capacity(TAIL_LINES)));
        let mut readers = Vec::new();
        if let Some(out) = child.stdout.take() {
            readers.push(tokio::spawn(read(
                Lines::new(out),
                file.clone(),
                tail.clone(),
                masker.clone(),
            )));
        }
        if let Some(err) = child.stderr.take() {
            readers.push(tokio::spawn(read(
                Lines::new(err),
                file,
                tail.clone(),
                masker.clone(),
            )));
        }
        Output {
            tail,
            log: log.to_path_buf(),
            readers: Mutex::new(readers),
        }
    }

    /// Waits (a little) for the readers to reach the end of the output of a process that has
    /// exited, so the tail holds its last words.
    pub(crate) async fn drained(&self) {
        let readers: Vec<_> = self
            .readers
            .lock()
            .map(|mut r| r.drain(..).collect())
            .unwrap_or_default();
        for r in readers {
            let _ = tokio::time::timeout(Duration::from_millis(500), r).await;
        }
    }

    /// The last lines, indented, after a line saying where the whole log is.
    pub(crate) fn tail(&self, artifacts: &Path) -> String {
        let lines: Vec<String> = self
            .tail
            .lock()
            .map(|t| t.iter().cloned().collect())
            .unwrap_or_default();
        let shown = self
            .log
            .strip_prefix(artifacts)
            .unwrap_or(&self.log)
            .display()
            .to_string();
        if lines.is_empty() {
            return format!("it printed nothing (log: {shown})");
        }
        let mut s = format!("its last {} line(s) (log: {shown}):", lines.len());
        for l in lines {
            s.push_str("\n  | ");
            s.push_str(&l);
        }
        s
    }
}

async fn read<R: tokio::io::AsyncRead + Unpin>(
    mut lines: Lines<R>,
    file: Option<Arc<Mutex<std::fs::File>>>,
    tail: Arc<Mutex<VecDeque<String>>>,
    masker: Masker,
) {
    while let Some(line) = lines.next().await {
        let line = masker.mask(&String::from_utf8_lossy(&line));
        if let Some(f) = &file
            && let Ok(mut f) = f.lock()
        {
            let _ = f.write_all(line.as_bytes());
            if !line.ends_with('\n') {
                let _ = f.write_all(b"\n");
            }
        }
        let text = line.trim_end().to_string();
        if let Ok(mut t) = tail.lock() {
            if t.len() == TAIL_LINES {
                t.pop_front();
            }
            t.push_back(text);
        }
    }
}
