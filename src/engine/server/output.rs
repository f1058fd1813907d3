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
    /// What masks the tail when it is shown.
    masker: Masker,
    /// The log file (absolute).
    pub(crate) log: PathBuf,
    /// Why the log could not be made (a symlink in its place): the output is then only in the
    /// tail.
    pub(crate) not_kept: Option<String>,
    readers: Mutex<Vec<JoinHandle<()>>>,
}

impl Output {
    /// Reads `child`'s stdout and stderr into `log` (created with its directory), masked with
    /// `masker`, and into the tail as read (masked when shown). (Inside `artifacts`, no symlink
    /// followed: a log that cannot be made there is not kept, and `not_kept` says why.)
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
            masker: masker.clone(),
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

    /// The last lines (a line still being printed too), masked and indented, after a line
    /// saying where the whole log is (or why none is kept).
    pub(crate) fn tail(&self, artifacts: &Path) -> String {
        let lines = self
            .tail
            .lock()
            .map(|t| t.shown(&self.masker))
            .unwrap_or_default();
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

    /// Whether the log takes more text: not once it is full (or when none is kept).
    fn logging(&self) -> bool {
        self.log
            .as_ref()
            .is_some_and(|l| l.lock().is_ok_and(|l| !l.full))
    }
}

/// Reads a stream to its end in pieces: into the tail as read, and, while the log takes more,
/// masked into it (whole lines, or pieces of a line longer than [`CHUNK`]). Past the log's cap
/// nothing is masked as it is read (only the tail is kept, masked when shown): a server that
/// prints hundreds of megabytes is read at the pace of finding its line breaks, and never held
/// back by a full pipe.
async fn read<R: AsyncRead + Unpin>(mut stream: R, to: To, masker: Masker) {
    let mut decoded = MaskedStream::new(Masker::default());
    let mut masked = MaskedStream::new(masker);
    let mut buf = vec![0u8; CHUNK];
    // This stream's text not in the log yet, and whether what it wrote there ends a line.
    let mut held = String::new();
    let mut ended = true;
    let mut logging = to.logging();
    loop {
        let n = stream.read(&mut buf).await.unwrap_or(0);
        decoded.push(&buf[..n]);
        let text = decoded.take_read(n == 0);
        if let Ok(mut t) = to.tail.lock() {
            t.add(to.stream, &text);
            if n == 0 {
                t.close(to.stream);
            }
        }
        if logging {
            masked.push(text.as_bytes());
            held.push_str(&masked.take(n == 0));
            let upto = if n == 0 || held.len() >= CHUNK {
                held.len()
            } else {
                held.rfind('\n').map_or(0, |i| i + 1)
            };
            if upto > 0 {
                ended = held[..upto].ends_with('\n');
                to.write(&held[..upto]);
                held.drain(..upto);
                logging = to.logging();
            }
            if n == 0 && !ended {
                to.write("\n");
            }
        }
        if n == 0 {
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

/// The last lines of a server's output as it printed them, and the line each stream is
/// printing.
#[derive(Default)]
struct Tail {
    lines: VecDeque<Line>,
    open: [Line; 2],
}

impl Tail {
    /// Text of `stream`: its lines end, the rest goes on its open line. Of a piece with more
    /// than [`TAIL_LINES`] line breaks, only what follows its last [`TAIL_LINES`] + 1 is looked
    /// at: the lines before would all be pushed out.
    fn add(&mut self, stream: usize, text: &str) {
        let text = match text.rmatch_indices('\n').nth(TAIL_LINES) {
            Some((at, _)) => {
                self.lines.clear();
                self.open[stream] = Line::default();
                &text[at + 1..]
            }
            None => text,
        };
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
            self.lines.push_back(line);
        }
    }

    /// The last [`TAIL_LINES`] lines, the open ones after those ended, masked with `masker`
    /// together (a secret wrapped over two lines is one form) and each cut at [`MAX_LINE`].
    fn shown(&self, masker: &Masker) -> Vec<String> {
        let open = self.open.iter().filter(|l| l.len > 0).map(|l| (l, true));
        let all: Vec<(&Line, bool)> = self.lines.iter().map(|l| (l, false)).chain(open).collect();
        let all = &all[all.len().saturating_sub(TAIL_LINES)..];
        let raw: Vec<&str> = all.iter().map(|(l, _)| l.settled(masker)).collect();
        let masked = masker.mask(&raw.join("\n"));
        let parts: Vec<&str> = masked.split('\n').collect();
        if parts.len() != all.len() {
            // A form masked across a line break made two lines one.
            return parts.iter().map(|p| Line::cut(p, None)).collect();
        }
        parts
            .iter()
            .zip(all)
            .map(|(p, (l, open))| Line::cut(p, l.cut_note(*open)))
            .collect()
    }
}

/// A line of output as printed: its first [`KEPT_LINE`] bytes, and how long it is.
#[derive(Default)]
struct Line {
    kept: String,
    len: usize,
}

/// The most of a line kept (bytes): the [`MAX_LINE`] shown, and room after them for a secret
/// that begins there, so that it is masked whole before the line is cut.
const KEPT_LINE: usize = 4 * MAX_LINE;

impl Line {
    fn push(&mut self, piece: &str) {
        self.len += piece.len();
        let room = KEPT_LINE.saturating_sub(self.kept.len());
        self.kept.push_str(&piece[..floor_boundary(piece, room)]);
    }

    /// What of the line can be masked: all of it when it is all kept, else up to where no
    /// secret the rest of it would complete can begin ([`Masker::settled`]).
    fn settled(&self, masker: &Masker) -> &str {
        let text = self.kept.trim_end_matches(['\n', '\r']);
        if self.len > self.kept.len() {
            &text[..masker.settled(text)]
        } else {
            text
        }
    }

    /// What a line cut says after it: a line not all kept, or longer than [`MAX_LINE`].
    fn cut_note(&self, open: bool) -> Option<String> {
        (self.len > MAX_LINE).then(|| {
            format!(
                "… (truncated: a line of {}{})",
                size(self.len),
                if open { " so far" } else { "" }
            )
        })
    }

    /// A masked line as a failure shows it: its first [`MAX_LINE`] bytes, and `note` when it
    /// was cut.
    fn cut(masked: &str, note: Option<String>) -> String {
        let cut = masked.len() > MAX_LINE;
        let mut s = masked[..floor_boundary(masked, MAX_LINE)]
            .trim_end()
            .to_string();
        match note {
            Some(note) => s.push_str(&note),
            None if cut => s.push('…'),
            None => {}
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
        let m = Masker::default();
        let mut t = Tail::default();
        t.add(0, "one\ntw");
        t.add(1, "err\r\n");
        assert_eq!(t.shown(&m), ["one", "err", "tw"]);
        t.add(0, &"o".repeat(2 * 1024 * 1024));
        let open = format!(
            "tw{}… (truncated: a line of 2.0 MiB so far)",
            "o".repeat(998)
        );
        assert_eq!(t.shown(&m), ["one", "err", open.as_str()]);
        t.close(0);
        assert_eq!(t.shown(&m)[2], open.replace(" so far", ""));
        for i in 0..30 {
            t.add(1, &format!("{i}\n"));
        }
        assert_eq!(t.shown(&m).len(), TAIL_LINES);
        assert_eq!(t.shown(&m)[TAIL_LINES - 1], "29");
        // One piece of many lines: its last ones, the other stream's open line after them.
        t.add(0, "open");
        let many: String = (0..100).map(|i| format!("line {i}\n")).collect();
        t.add(1, &many);
        let shown = t.shown(&m);
        assert_eq!(shown[0], "line 81");
        assert_eq!(shown[TAIL_LINES - 2], "line 99");
        assert_eq!(shown[TAIL_LINES - 1], "open");
        // A cut inside a character keeps it out whole.
        let cut = Line::cut(&format!("{}é", "a".repeat(MAX_LINE - 1)), None);
        assert_eq!(cut, format!("{}…", "a".repeat(MAX_LINE - 1)));
        assert_eq!(size(999), "999 bytes");
        assert_eq!(size(50_000_000), "47.7 MiB");
    }

    /// The tail is kept as printed and masked when shown: a secret across the cut of a long
    /// line, and one wrapped over two lines, show as `***`, never a piece.
    #[test]
    fn the_tail_is_masked_when_shown_also_across_a_cut() {
        let secret = "Zebra-Kestrel-4471";
        let m = Masker::new([secret.to_string()]);
        let mut t = Tail::default();
        t.add(
            1,
            &format!("{}{secret} and more\n", "a".repeat(MAX_LINE - 5)),
        );
        t.add(1, &format!("{}{secret}", "b".repeat(KEPT_LINE - 5)));
        t.add(1, &"c".repeat(100));
        let shown = t.shown(&m).join("\n");
        assert!(
            !shown.contains("Zebra") && !shown.contains("Kest"),
            "{shown}"
        );
        assert!(shown.starts_with(&"a".repeat(MAX_LINE - 5)), "{shown}");
    }
}
