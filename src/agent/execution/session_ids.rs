//! How a running agent's session id is written out: its own id, once known, in the
//! `{executor}:{project}:{id}` form, else the id runner minted for it.

use std::path::PathBuf;

use crate::agent::session_id;

/// How a session id is written out: the agent's own id as `{executor}:{project}:{id}`, else
/// the one runner minted.
#[derive(Clone)]
pub(super) struct SessionIds {
    pub(super) executor_type: String,
    pub(super) workspace: PathBuf,
    pub(super) minted: String,
}

impl SessionIds {
    pub(super) fn full(&self, id: Option<&str>) -> String {
        match id {
            Some(id) => session_id::format(&self.executor_type, &self.workspace, id),
            None => self.minted.clone(),
        }
    }
}
