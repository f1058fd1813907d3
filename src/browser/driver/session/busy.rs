//! Whether a session's daemon may still be busy with one of its commands.

/// Whether a session's daemon may still be busy with one of its commands.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Busy {
    /// Every command it was sent has been answered.
    No,
    /// The last command did not finish: it timed out, or its step was cut short while it ran.
    /// The daemon handles one command at a time and may still be busy with it (a page in an
    /// endless loop), so the browser is replaced rather than handed to the next flow.
    Unsettled,
    /// A dialog opened while a command was under way and holds it: the daemon is busy with that
    /// command until the dialog is answered, which runner then does over its own connection
    /// (see `dialog::answer`).
    HeldByDialog,
}
