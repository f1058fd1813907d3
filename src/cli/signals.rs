//! Interrupts: Ctrl-C, SIGTERM and SIGHUP (a closed terminal or SSH session) all mean "stop,
//! clean up, say what was done".

use std::future::Future;

use tokio_util::sync::CancellationToken;

/// Cancels `cancel` at the first interrupt.
pub(crate) async fn watch(cancel: CancellationToken) {
    use tokio::signal::unix::{SignalKind, signal};
    crate::step::interrupt::listen();
    let Ok(mut term) = signal(SignalKind::terminate()) else {
        return;
    };
    let Ok(mut int) = signal(SignalKind::interrupt()) else {
        return;
    };
    let Ok(mut hup) = signal(SignalKind::hangup()) else {
        return;
    };
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
        _ = hup.recv() => {}
    }
    crate::step::interrupt::note();
    cancel.cancel();
    // A second one: what still runs after the first (`finally`, servers stopping) ends now.
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
        _ = hup.recv() => {}
    }
    crate::step::interrupt::note_again();
}

/// Runs `work` until it ends or an interrupt comes; on an interrupt the work is dropped where it
/// is (nothing after its current await point runs) and the result is `None`.
pub(crate) async fn interruptible<F: Future>(work: F) -> Option<F::Output> {
    let cancel = CancellationToken::new();
    let watcher = tokio::spawn(watch(cancel.clone()));
    let out = tokio::select! {
        out = work => Some(out),
        () = cancel.cancelled() => None,
    };
    watcher.abort();
    out
}
