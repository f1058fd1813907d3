//! The requests the flow's pages made, for `expect: { request }` and a download's redirects.

use std::time::Duration;

use serde_json::Value;

use super::super::command::Command;
use super::Session;
use crate::step::{ErrorKind, StepError};

impl Session {
    /// The requests the flow's pages made at or after `since_ms` (ms since the epoch), each
    /// `{url, method, requestId, timestamp}`: runner's own record of them (see `request_log`),
    /// once its connection has read the events the browser sent before this call. A session
    /// without runner's watch reads agent-browser's log, which may lack requests under load.
    /// Never an empty list for a record that may lack some: an error says why.
    pub(crate) async fn requests_since(&mut self, since_ms: u128) -> Result<Vec<Value>, StepError> {
        if let Some(w) = self.watched.clone() {
            w.caught_up(Duration::from_secs(2)).await;
            return w
                .requests
                .since(since_ms)
                .map_err(|e| StepError::new(ErrorKind::CommandFailed, e));
        }
        let data = self
            .send(Command::Requests { clear: false }, Duration::from_secs(5))
            .await?;
        let list = data
            .get("requests")
            .and_then(Value::as_array)
            .ok_or_else(|| {
                StepError::new(
                    ErrorKind::CommandFailed,
                    "agent-browser's answer to `network requests` holds no list of requests",
                )
            })?;
        Ok(list
            .iter()
            .filter(|r| {
                r.get("timestamp")
                    .and_then(Value::as_u64)
                    .is_none_or(|t| u128::from(t) >= since_ms)
            })
            .cloned()
            .collect())
    }

    /// A dedicated worker of the flow's pages (its URL) that ran before runner held it, since
    /// the flow began: runner's record may lack what it requested as it started (see
    /// `request_log::workers`). Read after [`Session::requests_since`].
    pub(crate) fn unheld_worker(&self) -> Option<String> {
        self.watched.as_ref()?.requests.unheld_since(self.since_ms)
    }
}
