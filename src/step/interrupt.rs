//! Whether runner got an interrupt (Ctrl-C, SIGTERM, SIGHUP), for the few waits that are not
//! futures: a cancellation token ends async work at its next await, but a synchronous wait on
//! the runtime's thread (for a lock another process holds) has none, and would keep the run
//! from ending. Such a wait polls this instead.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Once, OnceLock};
use std::time::Duration;

use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

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

/// Notes that an interrupt came (the signal watcher calls it at the first).
pub(crate) fn note() {
    flag().store(true, Ordering::SeqCst);
    let _ = first().set(Instant::now());
}

/// When the first interrupt came.
fn first() -> &'static OnceLock<Instant> {
    static FIRST: OnceLock<Instant> = OnceLock::new();
    &FIRST
}

/// Notes a second interrupt (the signal watcher calls it): what runner still does after the
/// first — `finally` steps, stopping servers — is cut short.
pub(crate) fn note_again() {
    again().cancel();
}

/// Cancelled at a second interrupt (Ctrl-C twice: "stop now").
pub(crate) fn again() -> &'static CancellationToken {
    static AGAIN: OnceLock<CancellationToken> = OnceLock::new();
    AGAIN.get_or_init(CancellationToken::new)
}

/// When a grace of `grace` that an interrupt gives ends: one deadline from the first interrupt
/// for all that runs after it (a sub-flow's `finally` run by a `finally` gets no grace of its
/// own), or `grace` from now when no signal came (the work was cancelled otherwise).
pub(crate) fn grace_end(grace: Duration) -> Instant {
    first().get().copied().unwrap_or_else(Instant::now) + grace
}

/// Cancels a token at the end of an interrupt's grace (see `grace_end`), or at once at a
/// second interrupt; returns it.
pub(crate) fn graced(grace: Duration) -> CancellationToken {
    let token = CancellationToken::new();
    let t = token.clone();
    let until = grace_end(grace);
    tokio::spawn(async move {
        tokio::select! {
            () = tokio::time::sleep_until(until) => {}
            () = again().cancelled() => {}
        }
        t.cancel();
    });
    token
}

/// Whether an interrupt came.
pub(crate) fn interrupted() -> bool {
    flag().load(Ordering::SeqCst)
}
