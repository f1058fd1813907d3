//! After runner closed a dialog over its own connection, the daemon is asked until it has heard
//! so (see `Busy::ClosedBeside`).

use std::time::Duration;

use super::super::command::{Command, DialogResponse};
use super::super::reply::DialogStatus;
use super::{Busy, Session};

/// How long the daemon has to hear a closed dialog closed: past it, the next command goes
/// anyway (and a dialog still open is refused for, as it should be).
const CLOSE_HEARD: Duration = Duration::from_secs(1);

/// Between two asks.
const PAUSE: Duration = Duration::from_millis(20);

impl Session {
    /// Asks the daemon for the dialog open in its tab (a command, during which it reads the
    /// browser's events) until it says none, or one other than the dialog runner answered last
    /// (a new one is the next command's to meet), or `CLOSE_HEARD` has passed. Never resends a
    /// command: it only asks before the next one.
    pub(super) async fn hear_dialog_closed(&mut self) {
        self.busy = Busy::No;
        let answered = self.dialogs.last().map(|d| d["message"].clone());
        let deadline = tokio::time::Instant::now() + CLOSE_HEARD;
        loop {
            let status = Command::Dialog {
                response: DialogResponse::Status,
                prompt_text: None,
            };
            let Ok(mut data) = self.exchange(vec![status], CLOSE_HEARD).await else {
                return;
            };
            let s: DialogStatus = serde_json::from_value(data.swap_remove(0)).unwrap_or_default();
            let same = answered.as_ref().is_some_and(|m| *m == s.message);
            if s.has_dialog != Some(true) || !same || tokio::time::Instant::now() >= deadline {
                return;
            }
            tokio::time::sleep(PAUSE).await;
        }
    }
}
