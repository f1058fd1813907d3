//! A server's output: stdout and stderr, masked as they are read (the server may print a secret
//! of the flow's, or one it was given in its environment), into its log file
//! (`web_server/<name>.log`, at most [`MAX_LOG`]) and a tail of the last lines (each shown up to
//! [`MAX_LINE`]), shown when it fails. Read in pieces, never a whole line at once: a server that
//! prints one endless line costs neither memory nor a flood of text. Every cut is made in text
//! already masked, so no part of a secret is left on either side of one.

use std::collections::VecDeque;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::task::JoinHandle;

use crate::step::Masker;
use crate::step::masked_stream::MaskedStream;

/// How many lines of a server's output a failure shows.
pub(crate) const TAIL_LINES: usize = 20;

/// The most of a server's output its log keeps: the rest is read and dropped, with a note.
pub(crate) const MAX_LOG: usize = 16 * 1024 * 1024;

/// The most of one line a failure shows (bytes); a longer one is cut, with a note.
pub(crate) const MAX_LINE: usize = 1000;

/// What ends a log cut at [`MAX_LOG`].
const LOG_CUT: &str =
    "\n… (truncated: the server printed more than 16 MiB; the rest is not kept)\n";

/// How much is read at once, and the most of an unfinished line held back from the log (so
/// that a line of stdout and one of stderr do not land inside each other).
const CHUNK: usize = 64 * 1024;

/// The output of one server process.
pub(crate) struct Output {
    tail: Arc<Mutex<Tail>>,
    /// The log file (absolute).
    pub(crate) log: PathBuf,
    /// Why the log could not be made (a symlink in its place): the output is then only in the
    /// tail.
    pub(crate) not_kept: Option<String>,
    readers: Mutex<Vec<JoinHandle<()>>>,
}

impl Output {
    /// Reads `child`'s stdout and stderr, masked with `masker`, into `log` (created with its
    /// directory) and the tail. (Inside `artifacts`, no symlink followed: a log that cannot be
    /// made there is not kept, and `not_kept` says why.)
    pub(crate) fn capture(
        child: &mut tokio::process::Child,
        log: &Path,
        artifacts: &Path,
        masker: &Masker,
    ) -> Output {
        let (file, not_kept) = match crate::fs::create_artifact(artifacts, log) {
            Ok(file) => {
                let log = Log {
                    file,
                    written: 0,
                    full: false,
                };
                (Some(Arc::new(Mutex::new(log))), None)
            }
            Err(why) => (None, Some(why)),
        };
        let tail = Arc::new(Mutex::new(Tail::default()));
        let mut readers = Vec::new();
        if let Some(out) = child.stdout.take() {
            let to = To {
                stream: 0,
                log: file.clone(),
                tail: tail.clone(),
            };
            readers.push(tokio::spawn(read(out, to, masker.clone())));
        }
        if let Some(err) = child.stderr.take() {
            let to = To {
                stream: 1,
                log: file,
                tail: tail.clone(),
            };
            readers.push(tokio::spawn(read(err, to, masker.clone())));
        }
        Output {
            tail,
            log: log.to_path_buf(),
            not_kept,
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

    /// The last lines (a line still being printed too), indented, after a line saying where
    /// the whole log is (or why none is kept).
    pub(crate) fn tail(&self, artifacts: &Path) -> String {
        let lines = self.tail.lock().map(|t| t.shown()).unwrap_or_default();
        let shown = match &self.not_kept {
            None => format!(
                "log: {}",
                self.log
                    .strip_prefix(artifacts)
                    .unwrap_or(&self.log)
                    .display()
            ),
            Some(why) => format!("no log kept: {why}"),
        };
        if lines.is_empty() {
            return format!("it printed nothing ({shown})");
        }
        let mut s = format!("its last {} line(s) ({shown}):", lines.len());
        for l in lines {
            s.push_str("\n  | ");
            s.push_str(&l);
        }
        s
    }
}

/// Where one stream's text goes.
struct To {
    /// 0: stdout, 1: stderr.
    stream: usize,
    log: Option<Arc<Mutex<Log>>>,
    tail: Arc<Mutex<Tail>>,
}

impl To {
    fn write(&self, text: &str) {
        if let Some(log) = &self.log
            && let Ok(mut log) = log.lock()
        {
            log.write(text);
        }
    }
}

/// Reads a stream to its end in pieces: masked, into the tail and (whole lines, or pieces of a
/// line longer than [`CHUNK`]) into the log.
async fn read<R: AsyncRead + Unpin>(mut stream: R, to: To, masker: Masker) {
    let mut masked = MaskedStream::new(masker);
    let mut buf = vec![0u8; CHUNK];
    // This stream's text not in the log yet, and whether what it wrote there ends a line.
    let mut held = String::new();
    let mut ended = true;
    loop {
        let n = stream.read(&mut buf).await.unwrap_or(0);
        masked.push(&buf[..n]);
        let text = masked.take(n == 0);
        if let Ok(mut t) = to.tail.lock() {
            t.add(to.stream, &text);
            if n == 0 {
                t.close(to.stream);
            }
        }
        held.push_str(&text);
        let upto = if n == 0 || held.len() >= CHUNK {
            held.len()
        } else {
            held.rfind('\n').map_or(0, |i| i + 1)
        };
        if upto > 0 {
            ended = held[..upto].ends_with('\n');
            to.write(&held[..upto]);
            held.drain(..upto);
        }
        if n == 0 {
            if !ended {
                to.write("\n");
            }
            break;
        }
    }
}

/// A server's log file, written up to [`MAX_LOG`].
struct Log {
    file: std::fs::File,
    written: usize,
    full: bool,
}

impl Log {
    fn write(&mut self, text: &str) {
        if self.full {
            return;
        }
        let room = MAX_LOG - self.written;
        let cut = floor_boundary(text, room);
        let _ = self.file.write_all(&text.as_bytes()[..cut]);
        self.written += cut;
        if cut < text.len() {
            let _ = self.file.write_all(LOG_CUT.as_bytes());
            self.full = true;
        }
    }
}

/// The last lines of a server's output, and the line each stream is printing.
#[derive(Default)]
struct Tail {
    lines: VecDeque<String>,
    open: [Line; 2],
}

impl Tail {
    /// Text of `stream`: its lines end, the rest goes on its open line.
    fn add(&mut self, stream: usize, text: &str) {
        for piece in text.split_inclusive('\n') {
            self.open[stream].push(piece);
            if piece.ends_with('\n') {
                self.close(stream);
            }
        }
    }

    /// Ends `stream`'s open line, if it has one.
    fn close(&mut self, stream: usize) {
        let line = std::mem::take(&mut self.open[stream]);
        if line.len > 0 {
            if self.lines.len() == TAIL_LINES {
                self.lines.pop_front();
            }
            self.lines.push_back(line.text(false));
        }
    }

    /// The last [`TAIL_LINES`] lines, the open ones after those ended.
    fn shown(&self) -> Vec<String> {
        let open = self.open.iter().filter(|l| l.len > 0).map(|l| l.text(true));
        let all: Vec<String> = self.lines.iter().cloned().chain(open).collect();
        all[all.len().saturating_sub(TAIL_LINES)..].to_vec()
    }
}

/// A line of output: its first [`MAX_LINE`] bytes, and how long it is.
#[derive(Default)]
struct Line {
    shown: String,
    len: usize,
}

impl Line {
    fn push(&mut self, piece: &str) {
        self.len += piece.len();
        let room = MAX_LINE.saturating_sub(self.shown.len());
        self.shown.push_str(&piece[..floor_boundary(piece, room)]);
    }

    /// The line as a failure shows it; `open`: it is still being printed.
    fn text(&self, open: bool) -> String {
        let mut s = self.shown.trim_end().to_string();
        if self.len > self.shown.len() {
            s.push_str(&format!(
                "… (truncated: a line of {}{})",
                size(self.len),
                if open { " so far" } else { "" }
            ));
        }
        s
    }
}

/// The largest character boundary of `text` at most `at`.
fn floor_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// `n` bytes, in MiB (one decimal) from 1 MiB on.
fn size(n: usize) -> String {
    const MIB: usize = 1024 * 1024;
    if n < MIB {
        return format!("{n} bytes");
    }
    let tenths = (n * 10 + MIB / 2) / MIB;
    format!("{}.{} MiB", tenths / 10, tenths % 10)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_are_cut_with_their_length_and_the_tail_keeps_the_last_ones() {
        let mut t = Tail::default();
        t.add(0, "one\ntw");
        t.add(1, "err\r\n");
        assert_eq!(t.shown(), ["one", "err", "tw"]);
        t.add(0, &"o".repeat(2 * 1024 * 1024));
        let open = format!(
            "tw{}… (truncated: a line of 2.0 MiB so far)",
            "o".repeat(998)
        );
        assert_eq!(t.shown(), ["one", "err", open.as_str()]);
        t.close(0);
        assert_eq!(t.shown()[2], open.replace(" so far", ""));
        for i in 0..30 {
            t.add(1, &format!("{i}\n"));
        }
        assert_eq!(t.shown().len(), TAIL_LINES);
        assert_eq!(t.shown()[TAIL_LINES - 1], "29");
        // A cut inside a character keeps it out whole.
        let mut l = Line::default();
        l.push(&format!("{}é", "a".repeat(MAX_LINE - 1)));
        assert_eq!(l.shown.len(), MAX_LINE - 1);
        assert_eq!(size(999), "999 bytes");
        assert_eq!(size(50_000_000), "47.7 MiB");
    }
}
