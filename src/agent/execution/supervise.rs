//! Watching a running agent until it ends: by itself, or on the wall-clock timeout, the idle
//! timeout, a stop request or an interrupt (then its process group is terminated); then what
//! it said and its session id.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use tokio::process::Child;
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::session_ids::SessionIds;
use crate::agent::kind::EventState;
use crate::agent::session_id;
use crate::config::profiles::Kind;
use crate::process::{self, TreeGuard};

/// Why an agent stopped before finishing by itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ended {
    Exited,
    Timeout,
    Idle,
    Stopped,
    Interrupted,
    /// It printed a line runner reads (an event, a generic agent's answer) longer than
    /// `MAX_LINE`.
    Overlong,
}

/// A finished agent.
#[derive(Debug, Clone)]
pub(crate) struct Finished {
    pub(crate) exit_code: Option<i32>,
    pub(crate) ended: Ended,
    pub(crate) state: EventState,
    pub(crate) session_id: String,
    /// The id the agent gave that runner does not use (see `session_id::is_valid_id`).
    pub(crate) invalid_session_id: Option<String>,
}

/// Watches one agent.
pub(super) struct Supervisor {
    /// A stop request (`stop_step`, the flow ending).
    pub(super) stop: CancellationToken,
    /// The run's interrupt.
    pub(super) cancel: CancellationToken,
    /// A line runner reads was too long (see `output`).
    pub(super) overlong: CancellationToken,
    pub(super) timeout: Duration,
    pub(super) idle: Option<Duration>,
    pub(super) last_output: Arc<Mutex<tokio::time::Instant>>,
    pub(super) state: Arc<Mutex<EventState>>,
    pub(super) found: watch::Receiver<Option<String>>,
    pub(super) ids: SessionIds,
    pub(super) pre_assigned: Option<String>,
    pub(super) kind: Kind,
    pub(super) launched: SystemTime,
}

impl Supervisor {
    /// Waits for the agent's end (ending it when it must), for its group and its readers to
    /// end; returns what it said and its session id.
    pub(super) async fn watch(
        self,
        mut child: Child,
        pgid: i32,
        readers: Vec<JoinHandle<()>>,
    ) -> Finished {
        let _guard = TreeGuard(pgid);
        let ended = self.wait(&mut child).await;
        if ended != Ended::Exited {
            process::terminate_child_group(pgid, &mut child, crate::step::interrupt::again()).await;
        }
        let status = child.wait().await.ok();
        // Whatever the agent left running in its group goes with it; so does the agent when
        // its supervisor was killed alone.
        process::end_orphaned(pgid);
        process::signal_group(pgid, nix::sys::signal::Signal::SIGKILL);
        for r in readers {
            let _ = tokio::time::timeout(Duration::from_secs(2), r).await;
        }
        // Also when the agent exited before its readers reached the line: what it said is
        // not all there.
        let ended = if self.overlong.is_cancelled() {
            Ended::Overlong
        } else {
            ended
        };
        let state = self.state.lock().map(|s| s.clone()).unwrap_or_default();
        Finished {
            exit_code: status.and_then(|s| s.code()),
            ended,
            state,
            session_id: self.session_id(),
            invalid_session_id: self.ids.invalid(),
        }
    }

    /// Until the agent exits, or the timeout, the idle timeout, a stop or an interrupt.
    async fn wait(&self, child: &mut Child) -> Ended {
        let deadline = tokio::time::Instant::now() + self.timeout;
        loop {
            let idle_left = self.idle.map(|d| {
                let last = self
                    .last_output
                    .lock()
                    .map_or_else(|_| tokio::time::Instant::now(), |t| *t);
                (last + d).saturating_duration_since(tokio::time::Instant::now())
            });
            tokio::select! {
                _ = child.wait() => return Ended::Exited,
                () = tokio::time::sleep_until(deadline) => return Ended::Timeout,
                () = self.stop.cancelled() => return Ended::Stopped,
                () = self.cancel.cancelled() => return Ended::Interrupted,
                () = self.overlong.cancelled() => return Ended::Overlong,
                () = tokio::time::sleep(idle_left.unwrap_or(Duration::from_secs(3600)).max(Duration::from_millis(10))) => {
                    if idle_left.is_some_and(|l| l <= Duration::from_millis(10)) {
                        return Ended::Idle;
                    }
                }
            }
        }
    }

    /// The session id: pre-assigned, else found, else (Gemini) a session file that appeared
    /// just before the agent exited, between two polls, else the minted one.
    fn session_id(&self) -> String {
        let found = self.found.borrow().clone();
        let late_file =
            (self.kind == Kind::Gemini && self.pre_assigned.is_none() && found.is_none())
                .then(|| {
                    let home = std::env::var_os("HOME")
                        .map(PathBuf::from)
                        .unwrap_or_default();
                    let since = self
                        .launched
                        .checked_sub(Duration::from_secs(5))
                        .unwrap_or(self.launched);
                    session_id::find_gemini_session(&home, since)
                })
                .flatten()
                .and_then(|id| self.ids.adopt(id));
        let id = self.pre_assigned.clone().or(found).or(late_file);
        self.ids.full(id.as_deref())
    }
}
