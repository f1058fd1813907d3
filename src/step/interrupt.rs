//! Whether runner got an interrupt (Ctrl-C, SIGTERM, SIGHUP), for the few waits that are not
//! futures: a cancellation token ends async work at its next await, but a synchronous wait on
//! the runtime's thread (for a lock another process holds) has none, and would keep the run
//! from ending. Such a wait polls this instead.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Once, OnceLock};

/// Notes every interrupt in the signal handler itself, not in a task of the runtime: the
/// synchronous waits this is for block a runtime thread, and the signal watcher's task can be
/// stuck behind it (a 2-thread runtime, the task woken into that thread's own slot) — the wait
/// then ran its whole 10 s after a SIGTERM. Registered beside tokio's own handlers (both run).
pub(crate) fn listen() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        for signal in [SIGINT, SIGTERM, SIGHUP] {
            let _ = signal_hook::flag::register(signal, Arc::clone(flag()));
        }
    });
}

/// The flag the signal handlers set.
fn flag() -> &'static Arc<AtomicBool> {
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    FLAG.get_or_init(|| Arc::new(AtomicBool::new(false)))
}

/// Notes that an interrupt came (the signal watcher calls it).
pub(crate) fn note() {
    flag().store(true, Ordering::SeqCst);
}

/// Whether an interrupt came.
pub(crate) fn interrupted() -> bool {
    flag().load(Ordering::SeqCst)
}
