//! How a running agent's session id is written out: its own id, once known and valid, in the
//! `{executor}:{project}:{id}` form, else the id runner minted for it; an invalid one is kept
//! aside, so the step fails saying so (see [`session_id::is_valid_id`]).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use crate::agent::session_id;

/// How a session id is written out: the agent's own id as `{executor}:{project}:{id}`, else
/// the one runner minted.
#[derive(Clone)]
pub(super) struct SessionIds {
    pub(super) executor_type: String,
    pub(super) workspace: PathBuf,
    pub(super) minted: String,
    /// The first id the agent gave that runner does not use.
    pub(super) invalid: Arc<Mutex<Option<String>>>,
}

impl SessionIds {
    pub(super) fn full(&self, id: Option<&str>) -> String {
        match id {
            Some(id) => session_id::format(&self.executor_type, &self.workspace, id),
            None => self.minted.clone(),
        }
    }

    /// The agent's own id, if it is one runner uses; else `None`, and it is kept as invalid.
    /// The one place an agent's id (from its events or its session files) is taken.
    pub(super) fn adopt(&self, id: String) -> Option<String> {
        if session_id::is_valid_id(&id) {
            return Some(id);
        }
        if let Ok(mut bad) = self.invalid.lock() {
            bad.get_or_insert(id);
        }
        None
    }

    /// The invalid id the agent gave, if it gave one.
    pub(super) fn invalid(&self) -> Option<String> {
        self.invalid.lock().ok().and_then(|b| b.clone())
    }
}
