//! Starting an agent: its command line (a new chat, with the session id runner gives it where
//! its kind takes one, or a follow-up), its environment and the prompt on stdin; then its
//! output is relayed and its end watched.

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use indexmap::IndexMap;
use tokio::io::AsyncWriteExt;
use tokio::process::Child;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::output::{Readers, Relay};
use super::running::Running;
use super::session_ids::SessionIds;
use super::supervise::Supervisor;
use crate::agent::error::AgentError;
use crate::agent::kind::EventState;
use crate::agent::session_id::{self, SessionId};
use crate::config::profiles::{Kind, ProfileCommand};
use crate::process;
use crate::step::Masker;

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

/// The command line of a new chat or a follow-up.
struct Invocation {
    args: Vec<String>,
    /// The session id the agent is given: the follow-up's, or one runner mints for a kind
    /// that takes it (then no id needs to be found in its output).
    pre_assigned: Option<String>,
    /// `NORMALIZED_EXECUTION_KIND`.
    kind_name: &'static str,
}

impl Invocation {
    fn of(l: &Launch, uuid: &str) -> Result<Invocation, AgentError> {
        if let Some(s) = &l.follow_up {
            let args = l
                .kind
                .follow_up_args(&l.command.args, &s.id)
                .ok_or_else(|| AgentError::CannotFollowUp(l.label.clone()))?;
            return Ok(Invocation {
                args,
                pre_assigned: Some(s.id.clone()),
                kind_name: "follow-up",
            });
        }
        let pre = l.kind.pre_assigns().then(|| uuid.to_string());
        Ok(Invocation {
            args: l.kind.new_chat_args(&l.command.args, pre.as_deref()),
            pre_assigned: pre,
            kind_name: "new",
        })
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
    let ids = SessionIds {
        executor_type: l.executor_type.clone(),
        workspace: l.workspace.clone(),
        minted: session_id::format(&l.executor_type, &l.workspace, &uuid),
        invalid: Arc::default(),
    };
    let inv = Invocation::of(&l, &uuid)?;
    let launched = SystemTime::now();
    let (mut child, pgid) = spawn(&l, &inv, &ids.full(inv.pre_assigned.as_deref()))?;
    if let Some(mut stdin) = child.stdin.take() {
        let text = l.message.clone();
        tokio::spawn(async move {
            let _ = stdin.write_all(text.as_bytes()).await;
            let _ = stdin.shutdown().await;
        });
    }
    let (found_tx, found_rx) = watch::channel::<Option<String>>(inv.pre_assigned.clone());
    let overlong = CancellationToken::new();
    let readers = Readers {
        state: Arc::new(Mutex::new(EventState::of(l.kind))),
        found: Arc::new(found_tx),
        last_output: Arc::new(Mutex::new(tokio::time::Instant::now())),
        log: Arc::new(tokio::sync::Mutex::new(super::output::Log::NotYet)),
        log_path: l.log_path.clone(),
        relay: l.relay.clone(),
        masker: l.masker.clone(),
        kind: l.kind,
        ids: ids.clone(),
        pre_assigned: inv.pre_assigned.is_some(),
        overlong: overlong.clone(),
    };
    let reading = readers.read(&mut child);
    if l.kind == Kind::Gemini && inv.pre_assigned.is_none() {
        readers.watch_gemini_files(launched);
    }
    let stop = CancellationToken::new();
    let supervisor = Supervisor {
        stop: stop.clone(),
        cancel: l.cancel.clone(),
        overlong,
        timeout: l.timeout,
        idle: l.idle_timeout,
        last_output: readers.last_output.clone(),
        state: readers.state.clone(),
        found: found_rx.clone(),
        ids: ids.clone(),
        pre_assigned: inv.pre_assigned.clone(),
        kind: l.kind,
        launched,
    };
    // The senders of the session id are the readers' and the file watch's only: when they
    // end, a wait for the id ends too.
    drop(readers);
    let task = tokio::spawn(supervisor.watch(child, pgid, reading));
    Ok(Running {
        minted: ids.minted.clone(),
        pre_assigned: inv.pre_assigned,
        executor_type: l.executor_type,
        workspace: l.workspace,
        found: found_rx,
        ids,
        stop,
        task,
    })
}

/// Spawns the agent's command in a process group of its own, with the `NORMALIZED_EXECUTION_*`
/// environment; `session_id` is the id it runs under as far as known now.
fn spawn(l: &Launch, inv: &Invocation, session_id: &str) -> Result<(Child, i32), AgentError> {
    let project = session_id::project_id(&l.workspace);
    let mut cmd = process::supervised(&l.command.binary);
    cmd.args(&inv.args)
        .current_dir(&l.workspace)
        .envs(&l.command.env)
        .envs(&l.env)
        .env("NODE_NO_WARNINGS", "1")
        .env("NORMALIZED_EXECUTION_KIND", inv.kind_name)
        .env("NORMALIZED_EXECUTION_PROFILE", &l.label)
        // The composite `{EXECUTOR_TYPE}:{ACTUAL_PROJECT_ID}`, as the session id starts.
        .env(
            "NORMALIZED_EXECUTION_PROJECT_ID",
            format!("{}:{project}", l.executor_type),
        )
        .env("NORMALIZED_EXECUTION_ACTUAL_PROJECT_ID", &project)
        .env("NORMALIZED_EXECUTION_WORKSPACE", &l.workspace)
        .env("NORMALIZED_EXECUTION_SESSION_ID", session_id)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(v) = &l.variant {
        cmd.env("NORMALIZED_EXECUTION_VARIANT", v);
    }
    process::spawn_supervised(&mut cmd).map_err(|e| {
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
    })
}
