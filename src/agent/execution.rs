//! The execution service: starts an agent from a profile (new chat or follow-up), relays its
//! output as `[execution:{sessionId}] line`, keeps the whole log, resolves its session id, and
//! stops it (SIGTERM to its process group, then SIGKILL after a grace period) on a wall-clock
//! timeout, an idle timeout, a stop request or an interrupt.

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use indexmap::IndexMap;
use tokio::io::AsyncWriteExt;
use tokio::process::Command;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::error::AgentError;
use super::kind::EventState;
use super::session_id::{self, SessionId};
use crate::config::profiles::{Kind, ProfileCommand};
use crate::process::{self, GroupGuard};
use crate::step::Masker;

/// Receives each relayed line (already masked and prefixed).
pub(crate) type Relay = Arc<dyn Fn(&str) + Send + Sync>;

/// Everything needed to start one agent.
pub(crate) struct Launch {
    pub(crate) label: String,
    pub(crate) executor_type: String,
    pub(crate) kind: Kind,
    pub(crate) variant: Option<String>,
    pub(crate) command: ProfileCommand,
    pub(crate) workspace: PathBuf,
    /// The prompt (new chat) or the message (follow-up); written to stdin, never to argv.
    pub(crate) message: String,
    /// The session to continue, for a follow-up.
    pub(crate) follow_up: Option<SessionId>,
    pub(crate) env: IndexMap<String, String>,
    pub(crate) timeout: Duration,
    pub(crate) idle_timeout: Option<Duration>,
    pub(crate) log_path: PathBuf,
    pub(crate) masker: Masker,
    pub(crate) relay: Relay,
    pub(crate) cancel: CancellationToken,
}

/// Why an agent stopped before finishing by itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ended {
    Exited,
    Timeout,
    Idle,
    Stopped,
    Interrupted,
}

/// A finished agent.
#[derive(Debug, Clone)]
pub(crate) struct Finished {
    pub(crate) exit_code: Option<i32>,
    pub(crate) ended: Ended,
    pub(crate) state: EventState,
    pub(crate) session_id: String,
}

/// A running agent.
pub(crate) struct Running {
    /// The id runner minted (the fallback).
    pub(crate) minted: String,
    pub(crate) pre_assigned: Option<String>,
    pub(crate) executor_type: String,
    pub(crate) workspace: PathBuf,
    /// The agent's own id once known (stdout events or session files).
    found: watch::Receiver<Option<String>>,
    pub(crate) stop: CancellationToken,
    pub(crate) task: tokio::task::JoinHandle<Finished>,
}

impl Running {
    /// The full session id: pre-assigned, else found in events or files, else the minted one.
    pub(crate) fn current_session_id(&self) -> String {
        if let Some(id) = &self.pre_assigned {
            return session_id::format(&self.executor_type, &self.workspace, id);
        }
        match self.found.borrow().clone() {
            Some(id) => session_id::format(&self.executor_type, &self.workspace, &id),
            None => self.minted.clone(),
        }
    }

    /// Waits until the session id is known (at most 30 s, or until the agent ends).
    pub(crate) async fn resolved_session_id(&mut self) -> String {
        if self.pre_assigned.is_none() {
            let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
            while self.found.borrow().is_none() && !self.task.is_finished() {
                tokio::select! {
                    r = self.found.changed() => if r.is_err() { break },
                    () = tokio::time::sleep_until(deadline) => break,
                    () = tokio::time::sleep(Duration::from_millis(50)) => {},
                }
                if tokio::time::Instant::now() >= deadline {
                    break;
                }
            }
        }
        self.current_session_id()
    }
}

/// Starts the agent.
pub(crate) fn start(l: Launch) -> Result<Running, AgentError> {
    if !l.workspace.is_dir() {
        return Err(AgentError::NoWorkspace(l.workspace.display().to_string()));
    }
    if l.command.binary.trim().is_empty() {
        return Err(AgentError::NoCommand(l.label.clone()));
    }
    let uuid = uuid::Uuid::new_v4().to_string();
    let minted = session_id::format(&l.executor_type, &l.workspace, &uuid);
    let (args, pre_assigned, kind_name) = if let Some(s) = &l.follow_up {
        let args = l
            .kind
            .follow_up_args(&l.command.args, &s.id)
            .ok_or_else(|| AgentError::CannotFollowUp(l.label.clone()))?;
        (args, Some(s.id.clone()), "follow-up")
    } else {
        let pre = l.kind.pre_assigns().then(|| uuid.clone());
        (
            l.kind.new_chat_args(&l.command.args, pre.as_deref()),
            pre,
            "new",
        )
    };
    let full_now = pre_assigned.as_deref().map_or_else(
        || minted.clone(),
        |id| session_id::format(&l.executor_type, &l.workspace, id),
    );
    let project = session_id::project_id(&l.workspace);
    let mut cmd = Command::new(&l.command.binary);
    cmd.args(&args)
        .current_dir(&l.workspace)
        .envs(&l.command.env)
        .envs(&l.env)
        .env("NODE_NO_WARNINGS", "1")
        .env("NORMALIZED_EXECUTION_KIND", kind_name)
        .env("NORMALIZED_EXECUTION_PROFILE", &l.label)
        // The composite `{EXECUTOR_TYPE}:{ACTUAL_PROJECT_ID}`, as the session id starts.
        .env(
            "NORMALIZED_EXECUTION_PROJECT_ID",
            format!("{}:{project}", l.executor_type),
        )
        .env("NORMALIZED_EXECUTION_ACTUAL_PROJECT_ID", &project)
        .env("NORMALIZED_EXECUTION_WORKSPACE", &l.workspace)
        .env("NORMALIZED_EXECUTION_SESSION_ID", &full_now)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(v) = &l.variant {
        cmd.env("NORMALIZED_EXECUTION_VARIANT", v);
    }
    let launched = SystemTime::now();
    let (mut child, pgid) = process::spawn_group(&mut cmd).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            AgentError::BinaryNotFound {
                binary: l.command.binary.clone(),
                profile: l.label.clone(),
            }
        } else {
            AgentError::Spawn {
                binary: l.command.binary.clone(),
                message: e.to_string(),
            }
        }
    })?;

    if let Some(mut stdin) = child.stdin.take() {
        let text = l.message.clone();
        tokio::spawn(async move {
            let _ = stdin.write_all(text.as_bytes()).await;
            let _ = stdin.shutdown().await;
        });
    }
    if let Some(dir) = l.log_path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let state = Arc::new(Mutex::new(EventState::default()));
    let (found_tx, found_rx) = watch::channel::<Option<String>>(pre_assigned.clone());
    let found_tx = Arc::new(found_tx);
    let last_output = Arc::new(Mutex::new(tokio::time::Instant::now()));
    let log = Arc::new(tokio::sync::Mutex::new(None::<tokio::fs::File>));
    let sid_for_relay = {
        let found = found_rx.clone();
        let exec = l.executor_type.clone();
        let ws = l.workspace.clone();
        let minted = minted.clone();
        move || match found.borrow().clone() {
            Some(id) => session_id::format(&exec, &ws, &id),
            None => minted.clone(),
        }
    };
    let sid_for_relay = Arc::new(sid_for_relay);
    let mut readers = Vec::new();
    for (is_stdout, stream) in [
        (
            true,
            child
                .stdout
                .take()
                .map(|s| Box::new(s) as Box<dyn tokio::io::AsyncRead + Unpin + Send>),
        ),
        (
            false,
            child
                .stderr
                .take()
                .map(|s| Box::new(s) as Box<dyn tokio::io::AsyncRead + Unpin + Send>),
        ),
    ] {
        let Some(stream) = stream else { continue };
        let state = state.clone();
        let found_tx = found_tx.clone();
        let last_output = last_output.clone();
        let log = log.clone();
        let log_path = l.log_path.clone();
        let relay = l.relay.clone();
        let masker = l.masker.clone();
        let kind = l.kind;
        let sid = sid_for_relay.clone();
        let pre = pre_assigned.is_some();
        readers.push(tokio::spawn(async move {
            let mut lines = process::Lines::new(stream);
            while let Some(buf) = lines.next().await {
                if let Ok(mut t) = last_output.lock() {
                    *t = tokio::time::Instant::now();
                }
                let raw = String::from_utf8_lossy(&buf)
                    .trim_end_matches(['\n', '\r'])
                    .to_string();
                if is_stdout && let Ok(mut st) = state.lock() {
                    kind.parse_line(&mut st, &raw);
                    if !pre
                        && let Some(id) = st.session_id.clone()
                        && found_tx.borrow().as_ref() != Some(&id)
                    {
                        let _ = found_tx.send(Some(id));
                    }
                }
                let line = masker.mask(&raw);
                {
                    let mut guard = log.lock().await;
                    if guard.is_none() {
                        *guard = tokio::fs::File::create(&log_path).await.ok();
                    }
                    if let Some(f) = guard.as_mut() {
                        let _ = f.write_all(format!("{line}\n").as_bytes()).await;
                    }
                }
                relay(&format!("[execution:{}] {line}", sid()));
            }
        }));
    }
    // Gemini may print no id on stdout: watch its session files too.
    if l.kind == Kind::Gemini && pre_assigned.is_none() {
        let home = std::env::var_os("HOME")
            .map(PathBuf::from)
            .unwrap_or_default();
        let found_tx = found_tx.clone();
        tokio::spawn(async move {
            let tx = found_tx.clone();
            let id = session_id::watch_gemini_session(home, launched, move || {
                tx.borrow().is_some() || tx.is_closed()
            })
            .await;
            if let Some(id) = id
                && found_tx.borrow().is_none()
            {
                let _ = found_tx.send(Some(id));
            }
        });
    }
    let stop = CancellationToken::new();
    let task = {
        let stop = stop.clone();
        let cancel = l.cancel.clone();
        let timeout = l.timeout;
        let idle = l.idle_timeout;
        let last_output = last_output.clone();
        let state = state.clone();
        let found = found_rx.clone();
        let exec = l.executor_type.clone();
        let ws = l.workspace.clone();
        let minted2 = minted.clone();
        let pre = pre_assigned.clone();
        let kind = l.kind;
        tokio::spawn(async move {
            let _guard = GroupGuard(pgid);
            let deadline = tokio::time::Instant::now() + timeout;
            let ended = loop {
                let idle_left = idle.map(|d| {
                    let last = last_output
                        .lock()
                        .map_or_else(|_| tokio::time::Instant::now(), |t| *t);
                    (last + d).saturating_duration_since(tokio::time::Instant::now())
                });
                tokio::select! {
                    _ = child.wait() => break Ended::Exited,
                    () = tokio::time::sleep_until(deadline) => break Ended::Timeout,
                    () = stop.cancelled() => break Ended::Stopped,
                    () = cancel.cancelled() => break Ended::Interrupted,
                    () = tokio::time::sleep(idle_left.unwrap_or(Duration::from_secs(3600)).max(Duration::from_millis(10))) => {
                        if idle_left.is_some_and(|l| l <= Duration::from_millis(10)) {
                            break Ended::Idle;
                        }
                    }
                }
            };
            if ended != Ended::Exited {
                process::terminate_child_group(pgid, &mut child).await;
            }
            let status = child.wait().await.ok();
            // Whatever the agent left running in its group goes with it.
            process::signal_group(pgid, nix::sys::signal::Signal::SIGKILL);
            for r in readers {
                let _ = tokio::time::timeout(Duration::from_secs(2), r).await;
            }
            let st = state.lock().map(|s| s.clone()).unwrap_or_default();
            // The session file may appear just before the agent exits, between two polls.
            let late_file = (kind == Kind::Gemini && pre.is_none() && found.borrow().is_none())
                .then(|| {
                    let home = std::env::var_os("HOME")
                        .map(PathBuf::from)
                        .unwrap_or_default();
                    let since = launched
                        .checked_sub(Duration::from_secs(5))
                        .unwrap_or(launched);
                    session_id::find_gemini_session(&home, since)
                })
                .flatten();
            let session_id = match (pre, found.borrow().clone().or(late_file)) {
                (Some(id), _) | (None, Some(id)) => session_id::format(&exec, &ws, &id),
                (None, None) => minted2,
            };
            Finished {
                exit_code: status.and_then(|s| s.code()),
                ended,
                state: st,
                session_id,
            }
        })
    };
    Ok(Running {
        minted,
        pre_assigned,
        executor_type: l.executor_type,
        workspace: l.workspace,
        found: found_rx,
        stop,
        task,
    })
}
