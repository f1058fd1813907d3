//! The active-execution registry: every running agent, by session id, with the flow run that
//! started it. Follow-ups of a running session are refused; a flow's background agents are
//! stopped when it ends; nothing is left behind.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::execution::Finished;

struct Entry {
    flow: String,
    stop: CancellationToken,
    /// The agent's task, for background agents (a foreground step awaits its own).
    task: Option<JoinHandle<Finished>>,
}

fn entries() -> &'static Mutex<HashMap<String, Entry>> {
    static R: OnceLock<Mutex<HashMap<String, Entry>>> = OnceLock::new();
    R.get_or_init(|| Mutex::new(HashMap::new()))
}

/// Registers a running agent under its session id.
pub(crate) fn insert(
    session_id: String,
    flow: String,
    stop: CancellationToken,
    task: Option<JoinHandle<Finished>>,
) {
    if let Ok(mut e) = entries().lock() {
        e.insert(session_id, Entry { flow, stop, task });
    }
}

/// Forgets an agent (its step has finished with it).
pub(crate) fn remove(session_id: &str) {
    if let Ok(mut e) = entries().lock() {
        e.remove(session_id);
    }
}

/// Whether an agent with this session id is still running.
pub(crate) fn is_running(session_id: &str) -> bool {
    entries().lock().is_ok_and(|e| {
        e.get(session_id)
            .is_some_and(|x| x.task.as_ref().is_none_or(|t| !t.is_finished()))
    })
}

/// Stops an agent and waits for it; `None` when no agent has this session id.
pub(crate) async fn stop(session_id: &str) -> Option<Option<Finished>> {
    let entry = entries().lock().ok()?.remove(session_id)?;
    entry.stop.cancel();
    Some(match entry.task {
        Some(t) => t.await.ok(),
        None => None,
    })
}

/// Stops every agent the flow run `flow` started and still runs.
pub(crate) async fn stop_flow(flow: &str) {
    let ids: Vec<String> = entries()
        .lock()
        .map(|e| {
            e.iter()
                .filter(|(_, x)| x.flow == flow)
                .map(|(k, _)| k.clone())
                .collect()
        })
        .unwrap_or_default();
    for id in ids {
        stop(&id).await;
    }
}
