//! A worker discarded after a flow whose kept trace is still being finished in its browser.

use tokio::sync::oneshot;

use super::{HOLD, Worker};

impl Worker {
    /// The worker is discarded after a flow (its browser did not answer, or agent-browser may
    /// still be busy with a command that did not finish: see `FlowBrowser::close`) whose kept
    /// trace is still to be finished in its browser: its last pictures, a failed flow's drawn
    /// there in a tab of their own. `hold` is told once they are taken; the browser is not
    /// closed before (`HOLD` at most), as when the worker is handed over (see `hand_over`). A
    /// browser found gone is closed at once all the same (see `close`): the trace's calls to
    /// it fail at once then.
    pub(crate) fn hold_for_trace(&mut self, hold: Option<oneshot::Receiver<()>>) {
        let Some(hold) = hold else { return };
        let before = self.disposing.take();
        self.holding = true;
        self.disposing = Some(tokio::spawn(async move {
            let answered = match before {
                Some(h) => h.await.unwrap_or(false),
                None => true,
            };
            let _ = tokio::time::timeout(HOLD, hold).await;
            answered
        }));
    }
}
