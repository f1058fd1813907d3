//! The `agent` and `stop_agent` steps.

use std::path::PathBuf;
use std::time::Duration;

use indexmap::IndexMap;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::error::AgentError;
use super::execution::{self, Ended, Finished, Launch, Relay};
use super::registry;
use super::session_id::{self, SessionId};
use crate::config::model::AgentAction;
use crate::config::profiles::Registry;
use crate::step::Masker;

/// What an agent step needs from the flow.
pub(crate) struct AgentCtx<'a> {
    pub(crate) profiles: &'a Registry,
    pub(crate) flow_dir: PathBuf,
    pub(crate) env: IndexMap<String, String>,
    pub(crate) masker: Masker,
    pub(crate) relay: Relay,
    pub(crate) cancel: CancellationToken,
    pub(crate) log_path: PathBuf,
    /// Identifies the flow run, to stop its background agents when it ends.
    pub(crate) flow_key: String,
    /// `steps.<id>.session_id` of earlier steps.
    pub(crate) session_of_step: &'a (dyn Fn(&str) -> Option<String> + Send + Sync),
    pub(crate) timeout: Duration,
}

/// Runs an `agent` step: a new chat or a follow-up, in the foreground or the background.
pub(crate) async fn run_step(a: AgentAction, c: AgentCtx<'_>) -> Result<Value, AgentError> {
    let launch = launch(&a, &c)?;
    let timeout = launch.timeout;
    let mut running = execution::start(launch)?;
    let log = c.log_path.display().to_string();
    if a.background.unwrap_or(false) {
        let sid = running.resolved_session_id().await;
        if let Some(bad) = running.invalid_session_id() {
            running.stop.cancel();
            let _ = running.task.await;
            return Err(AgentError::InvalidSessionId(bad));
        }
        registry::insert(
            sid.clone(),
            c.flow_key.clone(),
            running.stop.clone(),
            Some(running.task),
        );
        return Ok(json!({ "session_id": sid, "log": log, "background": true }));
    }
    // Registered while it runs, so a follow-up of the same session is refused meanwhile.
    let provisional = running.current_session_id();
    registry::insert(
        provisional.clone(),
        c.flow_key.clone(),
        running.stop.clone(),
        None,
    );
    // The agent watches the run's cancellation itself and ends its process group gracefully.
    let result = running
        .task
        .await
        .map_err(|e| AgentError::Task(e.to_string()));
    registry::remove(&provisional);
    outputs(result?, &a.profile, log, timeout, &c.masker)
}

/// What starts the step's agent: the profile's command (its variant's), where it runs, what
/// it is told, its environment and timeouts.
fn launch(a: &AgentAction, c: &AgentCtx<'_>) -> Result<Launch, AgentError> {
    let profile = c
        .profiles
        .get_profile(&a.profile)
        .ok_or_else(|| AgentError::UnknownProfile(a.profile.clone()))?;
    let command = profile
        .command_of(a.variant.as_deref())
        .cloned()
        .ok_or_else(|| AgentError::UnknownVariant {
            profile: profile.label.clone(),
            variant: a.variant.clone().unwrap_or_default(),
        })?;
    let follow_up = follow_up(a, c)?;
    // A follow-up runs where its session started: agents resume per directory.
    let workspace = match (&follow_up, &a.workspace) {
        (Some(s), _) => s.workspace.clone(),
        (None, Some(w)) => c.flow_dir.join(w),
        (None, None) => c.flow_dir.clone(),
    };
    let message = match &follow_up {
        Some(_) => a.message.clone().unwrap_or_default(),
        None => a.prompt.clone().unwrap_or_default(),
    };
    let mut env = c.env.clone();
    env.extend(a.env.iter().map(|(k, v)| (k.clone(), v.to_string())));
    let parse = |d: &Option<String>| {
        d.as_deref()
            .and_then(|s| crate::config::duration::parse_duration(s).ok())
    };
    Ok(Launch {
        label: profile.label.clone(),
        executor_type: profile.executor_type.clone(),
        kind: profile.kind,
        variant: a.variant.clone(),
        command,
        workspace,
        message,
        follow_up,
        env,
        timeout: parse(&a.timeout).unwrap_or(c.timeout),
        idle_timeout: parse(&a.idle_timeout),
        log_path: c.log_path.clone(),
        masker: c.masker.clone(),
        relay: c.relay.clone(),
        cancel: c.cancel.clone(),
    })
}

/// The session a follow-up continues (`follow_up: <step id>` or `session: <id>`), if the step
/// is one; refused while that session's agent still runs.
fn follow_up(a: &AgentAction, c: &AgentCtx<'_>) -> Result<Option<SessionId>, AgentError> {
    let full = match (&a.follow_up, &a.session) {
        (Some(step), _) => {
            (c.session_of_step)(step).ok_or_else(|| AgentError::NoSession(step.clone()))?
        }
        (None, Some(s)) => s.clone(),
        (None, None) => return Ok(None),
    };
    if registry::is_running(&full) {
        return Err(AgentError::StillRunning(full));
    }
    session_id::parse(&full)
        .map(Some)
        .ok_or(AgentError::NotASessionId(full))
}

/// The step's outputs when the agent exited by itself with success; else its error.
fn outputs(
    finished: Finished,
    profile: &str,
    log: String,
    timeout: Duration,
    masker: &Masker,
) -> Result<Value, AgentError> {
    if let Some(bad) = finished.invalid_session_id {
        return Err(AgentError::InvalidSessionId(bad));
    }
    let answer = finished.state.kept_answer(masker);
    let outputs = json!({
        "session_id": finished.session_id,
        "result": answer,
        // An answer over 1 MiB: the result holds its start, the agent's log all of it.
        "truncated": finished.state.answer_truncated(),
        "exit_code": finished.exit_code,
        "cost_usd": finished.state.cost_usd,
        "usage": finished.state.usage,
        "log": log,
    });
    match finished.ended {
        Ended::Timeout => Err(AgentError::Timeout(timeout)),
        Ended::Idle => Err(AgentError::Idle),
        Ended::Interrupted => Err(AgentError::Interrupted),
        Ended::Stopped => Err(AgentError::Stopped),
        Ended::Overlong => Err(AgentError::Overlong {
            profile: profile.to_string(),
            mib: execution::MAX_LINE >> 20,
        }),
        Ended::Exited if finished.exit_code != Some(0) => Err(AgentError::Exited {
            code: finished
                .exit_code
                .map_or("none (killed by a signal)".to_string(), |c| c.to_string()),
            log,
        }),
        Ended::Exited if finished.state.is_error => {
            Err(AgentError::Reported(answer.unwrap_or_default()))
        }
        Ended::Exited => Ok(outputs),
    }
}

/// Runs a `stop_agent` step: `target` is a step id or a session id.
pub(crate) async fn stop_step(
    target: &str,
    session_of_step: &(dyn Fn(&str) -> Option<String> + Send + Sync),
) -> Result<Value, AgentError> {
    let sid = session_of_step(target).unwrap_or_else(|| target.to_string());
    let stopped = registry::stop(&sid).await.is_some();
    Ok(json!({ "stopped": stopped, "session_id": sid }))
}
