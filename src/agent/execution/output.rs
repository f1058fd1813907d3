//! An agent's output: each stdout line parsed for events (and the session id in them), every
//! line masked, appended to the log and relayed as `[execution:{sessionId}] line`; for Gemini,
//! its session files watched for the id. A line is held up to [`MAX_LINE`]: a longer one is
//! cut there (its rest read and dropped), and one that runner would read (a JSON event on
//! stdout, or any stdout line of a `generic` agent, whose stdout is its answer) stops the
//! agent, its step failed: an answer with a piece left out is not one.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use tokio::io::{AsyncRead, AsyncWriteExt};
use tokio::process::Child;
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::session_ids::SessionIds;
use crate::agent::kind::EventState;
use crate::agent::session_id;
use crate::config::profiles::Kind;
use crate::process;
use crate::step::Masker;

/// The most of one line of an agent's output runner holds (a Claude event with a screenshot
/// in it is a few MiB).
pub(crate) const MAX_LINE: usize = 16 * 1024 * 1024;

/// Receives each relayed line (already masked and prefixed).
pub(crate) type Relay = Arc<dyn Fn(&str) + Send + Sync>;

type Stream = Box<dyn AsyncRead + Unpin + Send>;

/// An agent's log file.
pub(super) enum Log {
    /// Made at the first line.
    NotYet,
    Open(tokio::fs::File),
    /// It could not be made (the relay said why).
    NotKept,
}

/// What the readers of one agent share.
#[derive(Clone)]
pub(super) struct Readers {
    /// What the agent's events said so far.
    pub(super) state: Arc<Mutex<EventState>>,
    /// The agent's own session id, once found.
    pub(super) found: Arc<watch::Sender<Option<String>>>,
    /// When the agent last wrote a line (for the idle timeout).
    pub(super) last_output: Arc<Mutex<tokio::time::Instant>>,
    /// The log file, created at the first line.
    pub(super) log: Arc<tokio::sync::Mutex<Log>>,
    pub(super) log_path: PathBuf,
    pub(super) relay: Relay,
    pub(super) masker: Masker,
    pub(super) kind: Kind,
    pub(super) ids: SessionIds,
    /// The id was given to the agent: none is looked for in its events.
    pub(super) pre_assigned: bool,
    /// Cancelled when a line runner would read was longer than [`MAX_LINE`].
    pub(super) overlong: CancellationToken,
}

impl Readers {
    /// Reads the agent's stdout (parsed for events) and stderr, each in a task of its own.
    pub(super) fn read(&self, child: &mut Child) -> Vec<JoinHandle<()>> {
        let stdout = child.stdout.take().map(|s| (Box::new(s) as Stream, true));
        let stderr = child.stderr.take().map(|s| (Box::new(s) as Stream, false));
        [stdout, stderr]
            .into_iter()
            .flatten()
            .map(|(stream, is_stdout)| tokio::spawn(self.clone().relay_lines(stream, is_stdout)))
            .collect()
    }

    async fn relay_lines(self, stream: Stream, is_stdout: bool) {
        let mut lines = process::Lines::new(stream, MAX_LINE);
        while let Some(l) = lines.next().await {
            if let Ok(mut t) = self.last_output.lock() {
                *t = tokio::time::Instant::now();
            }
            let line = if l.cut {
                self.cut(&l.bytes, is_stdout)
            } else {
                let raw = String::from_utf8_lossy(&l.bytes);
                let raw = raw.trim_end_matches(['\n', '\r']);
                if is_stdout {
                    self.parse(raw);
                }
                self.masker.mask(raw)
            };
            self.log(&line).await;
            let found = self.found.borrow().clone();
            (self.relay)(&format!(
                "[execution:{}] {line}",
                self.ids.full(found.as_deref())
            ));
        }
    }

    /// A line cut at [`MAX_LINE`], as the log and the relay show it: masked, without the end
    /// that could be the start of a secret the rest completed, and a note. One that runner would
    /// read (see the module's doc) is not: the agent is stopped.
    fn cut(&self, bytes: &[u8], is_stdout: bool) -> String {
        let text = String::from_utf8_lossy(bytes);
        let read = is_stdout && (self.kind == Kind::Generic || text.trim_start().starts_with('{'));
        if read {
            self.overlong.cancel();
        }
        let mut line = self.masker.mask(&text[..self.masker.settled(&text)]);
        line.push_str(&format!(
            "… (cut: a line longer than {} MiB; the rest is not kept{})",
            MAX_LINE >> 20,
            if read {
                ", and the agent is stopped"
            } else {
                ""
            }
        ));
        line
    }

    /// Parses a stdout line as an event; a session id found is published.
    fn parse(&self, raw: &str) {
        let Ok(mut st) = self.state.lock() else {
            return;
        };
        self.kind.parse_line(&mut st, raw);
        if !self.pre_assigned
            && let Some(id) = st.session_id.clone()
            && self.found.borrow().as_ref() != Some(&id)
            && let Some(id) = self.ids.adopt(id)
        {
            let _ = self.found.send(Some(id));
        }
    }

    async fn log(&self, line: &str) {
        let mut guard = self.log.lock().await;
        if matches!(*guard, Log::NotYet) {
            // In the folder of the step's files (runner made it, following no symlink), and not
            // through a symlink in its place (a reused artifacts directory may hold one).
            let dir = self.log_path.parent().unwrap_or(Path::new("."));
            *guard = match crate::fs::create_artifact(dir, &self.log_path) {
                Ok(f) => Log::Open(tokio::fs::File::from_std(f)),
                Err(why) => {
                    (self.relay)(&format!("the agent's log is not kept: {why}"));
                    Log::NotKept
                }
            };
        }
        if let Log::Open(f) = &mut *guard {
            let _ = f.write_all(line.as_bytes()).await;
            let _ = f.write_all(b"\n").await;
        }
    }

    /// Gemini may print no id on stdout: its session files are watched too, until an id is
    /// found or nobody waits for one.
    pub(super) fn watch_gemini_files(&self, launched: SystemTime) {
        let home = std::env::var_os("HOME")
            .map(PathBuf::from)
            .unwrap_or_default();
        let found = self.found.clone();
        let ids = self.ids.clone();
        tokio::spawn(async move {
            let tx = found.clone();
            let id = session_id::watch_gemini_session(home, launched, move || {
                tx.borrow().is_some() || tx.is_closed()
            })
            .await;
            if let Some(id) = id.and_then(|id| ids.adopt(id))
                && found.borrow().is_none()
            {
                let _ = found.send(Some(id));
            }
        });
    }
}
