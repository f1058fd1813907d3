//! A running agent, and its session id as far as it is known.

use std::path::PathBuf;
use std::time::Duration;

use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::session_ids::SessionIds;
use super::supervise::Finished;
use crate::agent::session_id;

/// A running agent.
pub(crate) struct Running {
    /// The id runner minted (the fallback).
    pub(crate) minted: String,
    pub(crate) pre_assigned: Option<String>,
    pub(crate) executor_type: String,
    pub(crate) workspace: PathBuf,
    /// The agent's own id once known (stdout events or session files).
    pub(super) found: watch::Receiver<Option<String>>,
    pub(super) ids: SessionIds,
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

    /// The id the agent gave that runner does not use, if it gave one (see
    /// `session_id::is_valid_id`): its step fails.
    pub(crate) fn invalid_session_id(&self) -> Option<String> {
        self.ids.invalid()
    }

    /// Waits until the session id is known (at most 30 s, or until the agent ends or gives an
    /// invalid one).
    pub(crate) async fn resolved_session_id(&mut self) -> String {
        if self.pre_assigned.is_none() {
            let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
            while self.found.borrow().is_none()
                && !self.task.is_finished()
                && self.ids.invalid().is_none()
            {
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
