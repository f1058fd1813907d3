//! Whether runner got an interrupt (Ctrl-C, SIGTERM, SIGHUP), for the few waits that are not
//! futures: a cancellation token ends async work at its next await, but a synchronous wait on
//! the runtime's thread (for a lock another process holds) has none, and would keep the run
//! from ending. Such a wait polls this instead.

use std::sync::atomic::{AtomicBool, Ordering};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Notes that an interrupt came (the signal watcher calls it).
pub(crate) fn note() {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// Whether an interrupt came.
pub(crate) fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}
