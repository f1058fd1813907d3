//! A flow's tab before its first command: what runner knows of it without asking, and when the
//! worker makes the next flow's context.

use super::Session;

/// Whether the flow's tab may have a dialog that agent-browser knows of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TabUse {
    /// The blank tab the flow's context was made with: no command has run in it, and
    /// agent-browser, already acting on it, was found holding no dialog
    /// (`Worker::open_context`). No dialog can be open (one needs a page script to open it),
    /// so the first step's `dialog::settle` does not ask agent-browser.
    Untouched,
    /// A command may have run a page script in it (any command makes it so).
    Used,
}

impl Session {
    /// Tells the worker (once) that the flow's first browser work is done (see `first_done`).
    pub(crate) fn tell_first_done(&mut self) {
        if let Some(tx) = self.first_done.take() {
            let _ = tx.send(());
        }
    }

    /// Whether agent-browser's answer to the last command said it holds no dialog (see
    /// `DaemonLink::no_dialog`); false when not known (the CLI answered, or nothing did).
    pub(crate) fn no_dialog_said(&self) -> bool {
        self.link.as_ref().is_some_and(|l| l.no_dialog)
    }
}
