//! A running agent-browser session's daemon, spoken to over its socket.
//!
//! The CLI is a process per call (~4–10 ms each, a flow makes dozens) that turns its argv into
//! one JSON line for the session's daemon (`<socket dir>/<session>.sock`, newline-delimited JSON
//! `{id, action, ...}` → `{id, success, data, error}`) and prints the answer. Once a session's
//! browser is up, runner sends those same lines itself on one kept-open connection: the same
//! daemon does the same work and answers the same `data` and `error`, at ~0.5 ms a call. The CLI
//! still launches browsers (its launch logic and environment) and closes them.
//!
//! Each line is a `Command` serialized as the CLI would write it (see `command`). A dead daemon
//! is an error here, never a silent relaunch of a fresh browser as the CLI would do.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;

use super::adapter::{AdapterError, answer_data};
use super::command::Command;

/// What can go wrong sending a command to a session's daemon.
#[derive(Debug, thiserror::Error)]
pub(crate) enum DaemonError {
    /// The daemon cannot be reached or stopped talking: the session's browser is gone.
    #[error("the browser session is gone: {why}")]
    Gone { command: &'static str, why: Gone },
    #[error("agent-browser's daemon answered no JSON: {source}")]
    NotJson {
        source: serde_json::Error,
        line: String,
    },
    /// The daemon ran the command, and it failed: agent-browser's message.
    #[error("{message}")]
    Refused {
        command: &'static str,
        message: String,
    },
    #[error("agent-browser {command} timed out after {}", humantime::format_duration(*timeout))]
    Timeout {
        command: &'static str,
        timeout: Duration,
    },
}

/// Why a session's daemon does not answer.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Gone {
    #[error("cannot reach agent-browser's daemon at {}: {source}", socket.display())]
    Unreachable {
        socket: PathBuf,
        source: std::io::Error,
    },
    #[error("agent-browser's daemon stopped listening: {0}")]
    StoppedListening(std::io::Error),
    #[error("agent-browser's daemon closed the connection")]
    Closed,
    #[error("reading agent-browser's daemon: {0}")]
    Read(std::io::Error),
}

impl From<DaemonError> for AdapterError {
    /// The same errors the CLI gives for the same failures, so a step reads one kind of error
    /// whichever way its command went.
    fn from(e: DaemonError) -> AdapterError {
        match e {
            DaemonError::Gone { command, .. } => AdapterError::CommandFailed {
                command: command.into(),
                exit_code: None,
                stderr: String::new(),
                error_message: e.to_string(),
            },
            DaemonError::NotJson { source, line } => AdapterError::ParseError {
                message: format!("agent-browser's daemon answered no JSON: {source}"),
                raw_output: line,
            },
            DaemonError::Refused { command, message } => AdapterError::CommandFailed {
                command: command.into(),
                exit_code: None,
                stderr: String::new(),
                error_message: message,
            },
            DaemonError::Timeout { command, timeout } => AdapterError::Timeout {
                command: command.into(),
                timeout,
            },
        }
    }
}

/// A kept-open connection to one session's daemon.
pub(crate) struct DaemonLink {
    socket: PathBuf,
    conn: Option<BufReader<UnixStream>>,
    next_id: u64,
    /// How many commands of the last batch were answered (all of them when it succeeded).
    pub(crate) answered: usize,
    /// The last batch's last command was answered without a `warning`: agent-browser adds one
    /// to every answer but a `dialog` command's while it counts a dialog as open (any tab's,
    /// also one whose tab has gone: checked with agent-browser 0.41.2), so it held none then.
    /// False when the batch failed before an answer (not known).
    pub(crate) no_dialog: bool,
    /// The last batch was given up when a dialog blocked the page (see `send_all_unless`): the
    /// daemon may still be busy with the command the dialog holds.
    pub(crate) cut_by_dialog: bool,
}

impl DaemonLink {
    /// A link to the daemon of `session` (connected on first use).
    pub(crate) fn new(socket_dir: &Path, session: &str) -> DaemonLink {
        DaemonLink {
            socket: socket_dir.join(format!("{session}.sock")),
            conn: None,
            next_id: 0,
            answered: 0,
            no_dialog: false,
            cut_by_dialog: false,
        }
    }

    /// Sends commands one after another, stopping at the first that fails (as `batch --bail`);
    /// returns each one's `data`, or the first failure. Paths are made absolute against `cwd`.
    /// A command that does not answer within `timeout` drops the connection (its answer must
    /// not be read as the next command's).
    pub(crate) async fn send_all(
        &mut self,
        commands: &[Command],
        cwd: &Path,
        timeout: Duration,
    ) -> Result<Vec<Value>, DaemonError> {
        if let Ok(r) = tokio::time::timeout(timeout, self.exchange(commands, cwd)).await {
            r
        } else {
            self.conn = None;
            Err(DaemonError::Timeout {
                command: commands.first().map_or("batch", Command::name),
                timeout,
            })
        }
    }

    /// `send_all`, given up as soon as `blocked` gives agent-browser's message for a dialog
    /// that blocks the page: a command already sent then waits on the dialog (a page script
    /// evaluated after a click whose handler opens a confirm a moment later: agent-browser
    /// refuses a command while it knows a dialog is open, not one already under way). The
    /// connection is dropped (its late answer must not be read as the next command's); the
    /// command under way fails with that message, as agent-browser's refusal would.
    pub(crate) async fn send_all_unless(
        &mut self,
        commands: &[Command],
        cwd: &Path,
        timeout: Duration,
        blocked: impl std::future::Future<Output = String>,
    ) -> Result<Vec<Value>, DaemonError> {
        self.cut_by_dialog = false;
        let why = {
            let run = self.send_all(commands, cwd, timeout);
            tokio::pin!(run);
            tokio::select! {
                biased;
                r = &mut run => return r,
                why = blocked => why,
            }
        };
        self.conn = None;
        self.cut_by_dialog = true;
        let at = self.answered.min(commands.len().saturating_sub(1));
        Err(DaemonError::Refused {
            command: commands.get(at).map_or("batch", Command::name),
            message: why,
        })
    }

    async fn exchange(
        &mut self,
        commands: &[Command],
        cwd: &Path,
    ) -> Result<Vec<Value>, DaemonError> {
        let mut out = Vec::with_capacity(commands.len());
        self.answered = 0;
        self.no_dialog = false;
        for command in commands {
            let name = command.name();
            self.next_id += 1;
            let id = format!("runner{}", self.next_id);
            let line = request_line(command, cwd, &id);
            let answer = self.ask(&line, &id).await.map_err(|why| match why {
                Asked::Gone(why) => {
                    self.conn = None;
                    DaemonError::Gone { command: name, why }
                }
                Asked::NotJson(source, line) => DaemonError::NotJson { source, line },
            })?;
            self.no_dialog = answer.get("warning").is_none();
            out.push(answer_data(&answer).map_err(|r| DaemonError::Refused {
                command: name,
                message: r.0,
            })?);
            self.answered = out.len();
        }
        Ok(out)
    }

    /// Writes one request line and reads lines until the answer with id `id`.
    async fn ask(&mut self, line: &str, id: &str) -> Result<Value, Asked> {
        if self.conn.is_none() {
            let s = UnixStream::connect(&self.socket).await.map_err(|source| {
                Asked::Gone(Gone::Unreachable {
                    socket: self.socket.clone(),
                    source,
                })
            })?;
            self.conn = Some(BufReader::new(s));
        }
        let conn = self.conn.as_mut().expect("connected above");
        conn.get_mut()
            .write_all(line.as_bytes())
            .await
            .map_err(|e| Asked::Gone(Gone::StoppedListening(e)))?;
        loop {
            let mut buf = String::new();
            match conn.read_line(&mut buf).await {
                Ok(0) => return Err(Asked::Gone(Gone::Closed)),
                Err(e) => return Err(Asked::Gone(Gone::Read(e))),
                Ok(_) => {}
            }
            let v: Value =
                serde_json::from_str(buf.trim()).map_err(|e| Asked::NotJson(e, buf.clone()))?;
            // An answer to an earlier command cut off by its timeout is not this one's.
            if v.get("id").and_then(Value::as_str) == Some(id) {
                return Ok(v);
            }
        }
    }
}

/// SIGTERMs the agent-browser daemon whose pid file is `pid_file` (`<socket dir>/<session>.pid`),
/// if it still runs.
pub(crate) fn terminate(pid_file: &Path) {
    if let Ok(text) = std::fs::read_to_string(pid_file)
        && let Ok(pid) = text.trim().parse::<i32>()
        && pid > 1
        && std::fs::read_to_string(format!("/proc/{pid}/cmdline"))
            .is_ok_and(|c| c.contains("agent-browser"))
    {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGTERM,
        );
    }
}

/// Why `ask` got no answer.
enum Asked {
    Gone(Gone),
    NotJson(serde_json::Error, String),
}

/// The line sent for `command`: its JSON with the request's `id`, the flow's tab pinned (its
/// commands fail once the tab is gone, never go to another) and no plugins, as the CLI sends it.
fn request_line(command: &Command, cwd: &Path, id: &str) -> String {
    let mut req = serde_json::to_value(command.absolute(cwd))
        // A command is strings, numbers and JSON values: nothing serde can refuse.
        .expect("a command serializes");
    if let Value::Object(m) = &mut req {
        m.insert("id".into(), id.into());
        m.insert("pinTab".into(), true.into());
        m.insert("plugins".into(), json!([]));
    }
    let mut line = req.to_string();
    line.push('\n');
    line
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::{Value, json};
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    use super::DaemonLink;
    use crate::browser::driver::command::Command;

    #[tokio::test]
    async fn a_missing_daemon_is_an_error_not_a_relaunch() {
        let dir = tempfile::tempdir().unwrap();
        let mut link = DaemonLink::new(dir.path(), "nobody");
        let e = link
            .send_all(&[Command::GetUrl], dir.path(), Duration::from_secs(2))
            .await
            .unwrap_err();
        assert!(e.to_string().contains("the browser session is gone"), "{e}");
    }

    /// A fake daemon: answers an earlier id first (a late answer to a command that timed out),
    /// then this command's, then fails the next: the stale answer is skipped and the batch
    /// stops at the failure.
    #[tokio::test]
    async fn answers_are_matched_by_id_and_a_failure_stops_the_batch() {
        let dir = tempfile::tempdir().unwrap();
        let sock = dir.path().join("s.sock");
        let listener = tokio::net::UnixListener::bind(&sock).unwrap();
        let server = tokio::spawn(async move {
            let (s, _) = listener.accept().await.unwrap();
            let mut r = BufReader::new(s);
            let mut seen = Vec::new();
            for n in 0..2 {
                let mut line = String::new();
                r.read_line(&mut line).await.unwrap();
                let v: Value = serde_json::from_str(&line).unwrap();
                let id = v["id"].as_str().unwrap().to_string();
                seen.push(v.clone());
                let reply = if n == 0 {
                    format!(
                        "{}\n{}\n",
                        json!({"id":"old","success":true,"data":{"url":"stale"}}),
                        json!({"id":id,"success":true,"data":{"url":"fresh"}})
                    )
                } else {
                    format!(
                        "{}\n",
                        json!({"id":id,"success":false,"error":"Element not found: #x"})
                    )
                };
                r.get_mut().write_all(reply.as_bytes()).await.unwrap();
            }
            seen
        });
        let mut link = DaemonLink::new(dir.path(), "s");
        let e = link
            .send_all(
                &[
                    Command::GetUrl,
                    Command::Click {
                        selector: "#x".into(),
                    },
                    Command::GetTitle,
                ],
                dir.path(),
                Duration::from_secs(5),
            )
            .await
            .unwrap_err();
        assert!(e.to_string().contains("Element not found: #x"), "{e}");
        let seen = server.await.unwrap();
        assert_eq!(seen.len(), 2, "the command after the failure is not sent");
        assert_eq!(seen[0]["action"], "url");
        assert_eq!(seen[0]["pinTab"], true);
        assert_eq!(seen[1]["action"], "click");

        // And a good answer is read as `data`.
        let listener = tokio::net::UnixListener::bind(dir.path().join("t.sock")).unwrap();
        tokio::spawn(async move {
            let (s, _) = listener.accept().await.unwrap();
            let mut r = BufReader::new(s);
            let mut line = String::new();
            r.read_line(&mut line).await.unwrap();
            let v: Value = serde_json::from_str(&line).unwrap();
            let reply = json!({"id":v["id"],"success":true,"data":{"title":"T"}});
            r.get_mut()
                .write_all(format!("{reply}\n").as_bytes())
                .await
                .unwrap();
        });
        let mut link = DaemonLink::new(dir.path(), "t");
        let got = link
            .send_all(&[Command::GetTitle], dir.path(), Duration::from_secs(5))
            .await
            .unwrap();
        assert_eq!(got, vec![json!({"title":"T"})]);
    }
}
