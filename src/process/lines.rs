//! Reading a child's output stream line by line (agent relays; a web server's output is read in
//! pieces instead, see `engine::server::output`).

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

/// The lines of a stream.
pub(crate) struct Lines<R> {
    reader: BufReader<R>,
}

impl<R: AsyncRead + Unpin> Lines<R> {
    /// Reads `stream`.
    pub(crate) fn new(stream: R) -> Lines<R> {
        Lines {
            reader: BufReader::new(stream),
        }
    }

    /// The next line's bytes (its newline included when it has one); `None` once the stream
    /// has ended or failed.
    pub(crate) async fn next(&mut self) -> Option<Vec<u8>> {
        let mut line = Vec::new();
        match self.reader.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(line),
        }
    }
}
