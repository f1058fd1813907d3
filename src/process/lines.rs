//! Reading a child's output stream line by line (agent relays; a web server's output is read in
//! pieces instead, see `engine::server::output`), a line held up to a cap: a process that prints
//! one endless line costs runner no more than the cap.

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

/// How much is read at once.
const CHUNK: usize = 64 * 1024;

/// A line of a stream: whole, or its first bytes up to the cap.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Line {
    /// Its bytes (its newline included when it has one and is whole).
    pub(crate) bytes: Vec<u8>,
    /// It was longer than the cap: `bytes` are its first ones, the rest is read and dropped.
    pub(crate) cut: bool,
}

/// The lines of a stream.
pub(crate) struct Lines<R> {
    reader: BufReader<R>,
    max: usize,
    /// The rest of a line that was cut is still to be dropped.
    dropping: bool,
}

impl<R: AsyncRead + Unpin> Lines<R> {
    /// Reads `stream`, holding at most `max` bytes of a line.
    pub(crate) fn new(stream: R, max: usize) -> Lines<R> {
        Lines {
            reader: BufReader::with_capacity(CHUNK, stream),
            max,
            dropping: false,
        }
    }

    /// The next line, given as soon as it ends or reaches the cap (then cut: what follows of
    /// it up to its newline is dropped); `None` once the stream has ended or failed.
    pub(crate) async fn next(&mut self) -> Option<Line> {
        if self.dropping {
            self.drop_rest().await?;
        }
        let mut bytes = Vec::new();
        loop {
            let buf = self.reader.fill_buf().await.ok()?;
            if buf.is_empty() {
                return (!bytes.is_empty()).then_some(Line { bytes, cut: false });
            }
            let room = self.max - bytes.len();
            if let Some(i) = buf.iter().position(|b| *b == b'\n').filter(|i| *i < room) {
                bytes.extend_from_slice(&buf[..=i]);
                self.reader.consume(i + 1);
                return Some(Line { bytes, cut: false });
            }
            let take = buf.len().min(room);
            bytes.extend_from_slice(&buf[..take]);
            self.reader.consume(take);
            if bytes.len() == self.max {
                self.dropping = true;
                return Some(Line { bytes, cut: true });
            }
        }
    }

    /// Reads and drops the rest of a cut line, its newline included; `None` if the stream
    /// ends first.
    async fn drop_rest(&mut self) -> Option<()> {
        loop {
            let buf = self.reader.fill_buf().await.ok()?;
            if buf.is_empty() {
                return None;
            }
            if let Some(i) = buf.iter().position(|b| *b == b'\n') {
                self.reader.consume(i + 1);
                self.dropping = false;
                return Some(());
            }
            let n = buf.len();
            self.reader.consume(n);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_line_over_the_cap_is_cut_and_its_rest_dropped() {
        let text = format!("short\n{}\nafter\nlast", "x".repeat(200_000));
        let mut lines = Lines::new(text.as_bytes(), 10);
        let mut got = Vec::new();
        while let Some(l) = lines.next().await {
            got.push((String::from_utf8(l.bytes).unwrap(), l.cut));
        }
        let want = [
            ("short\n", false),
            ("xxxxxxxxxx", true),
            ("after\n", false),
            ("last", false),
        ];
        let want: Vec<(String, bool)> = want.iter().map(|(s, c)| (s.to_string(), *c)).collect();
        assert_eq!(got, want);
        // A line of the cap's length with its newline is cut (its newline is past the cap);
        // one a byte shorter is whole.
        let mut lines = Lines::new("123456789\n1234567890\nend\n".as_bytes(), 10);
        assert!(!lines.next().await.unwrap().cut);
        assert!(lines.next().await.unwrap().cut);
        assert_eq!(lines.next().await.unwrap().bytes, b"end\n");
        assert_eq!(lines.next().await, None);
    }
}
