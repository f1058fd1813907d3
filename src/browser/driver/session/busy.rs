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
    /// Every command was answered, but runner closed a dialog over its own connection
    /// (`dialog::answer` of one that held a command, or its watch's armed answer) and the daemon
    /// may not have heard it close yet: it reads the browser's events only while it handles a
    /// command, and would refuse the next one as "blocked by a dialog" that is gone. Before the
    /// next command runner asks it until it says so (see `session::dialog_close`).
    ClosedBeside,
}
