//! From one flow to the next in a worker's browser: the session's switch to the next flow's tab
//! (made ahead), under way beside the next flow's start, and the last flow's context disposed
//! after it.

use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinHandle;

use super::super::connect::CDP_TIMEOUT;
use super::{Context, HOLD, Worker, disposed, new_context};
use crate::browser::driver::cdp::{Cdp, CdpError};
use crate::browser::driver::session::Session;
use crate::step::{ErrorKind, StepError};

/// The next flow's context, and the session's switch to its tab: done, or under way beside the
/// next flow's start (see `Worker::hand_over`), its answer whether agent-browser said the tab
/// holds no dialog (`Context::no_dialog`).
pub(super) struct Next {
    pub(super) id: String,
    pub(super) target: String,
    pub(super) switch: Switch,
}

/// The session's switch to the next flow's tab.
pub(super) enum Switch {
    Done { no_dialog: bool },
    Going(JoinHandle<Result<bool, StepError>>),
}

impl Next {
    /// The context once the session is on its tab; a switch that failed has disposed it.
    pub(super) async fn switched(self) -> Result<Context, StepError> {
        let no_dialog = match self.switch {
            Switch::Done { no_dialog } => no_dialog,
            Switch::Going(h) => h.await.map_err(|e| {
                StepError::new(
                    ErrorKind::CommandFailed,
                    format!("switching to the flow's tab did not finish: {e}"),
                )
            })??,
        };
        Ok(Context {
            id: self.id,
            target: self.target,
            no_dialog,
        })
    }
}

impl Worker {
    /// A flow is done with `context`: its session first moves to the next flow's tab (the one
    /// made ahead, else a new one), so agent-browser never has its current tab (or a popup it is
    /// still attaching to) closed under it — a switch after that sometimes hung for 10 s. The
    /// switch goes on beside the next flow's start, which waits for it only where it needs the
    /// tab (`open_context`: its downloads are set up meanwhile); a switch that fails fails that
    /// flow's start, and the browser is then discarded and a fresh one taken (see
    /// `FlowBrowser::lease`). The context is then disposed beside the next flow, off its path
    /// (here, with contexts made ahead off: nothing runs beside a flow), once `hold` is told:
    /// the end of the flow's kept trace is taken as its tab's last frames come, and the context
    /// stays watched until then (`HOLD` at most). False when the browser did not answer (it is
    /// then discarded).
    pub(crate) async fn hand_over(
        &mut self,
        context: &Context,
        mut session: Session,
        hold: Option<tokio::sync::oneshot::Receiver<()>>,
    ) -> bool {
        // A flow that ended before its first command (it failed to start) never said so: the
        // context made ahead would wait its whole second for it (`make_spare`).
        session.tell_first_done();
        // The next flow's tab is not this flow's: the watch on this flow's context must not
        // take it for a tab the flow moved to and attach to it (a second DevTools session on
        // the next flow's tab, hearing its page events for nothing, until the tab goes). The
        // next flow's own watch attaches to it (`open_context`).
        session.watched = None;
        let last = match self.disposing.take() {
            Some(h) => h.await.unwrap_or(false),
            None => true,
        };
        let made = tokio::select! {
            made = made(&mut self.spare, &self.cdp) => made,
            Some(e) = silent(self.cdp.clone()) => Err(e),
        };
        // Told (dropped) once the session has left this flow's tab.
        let (left, moved) = tokio::sync::oneshot::channel::<()>();
        let next = if let Ok((id, target)) = made {
            let (cdp, tab) = (self.cdp.clone(), (id.clone(), target.clone()));
            let going = tokio::spawn(async move {
                let switched = tokio::select! {
                    s = switch_to(&mut session, &cdp, &tab) => s,
                    Some(e) = silent(cdp.clone()) => Err(e),
                };
                drop(left);
                switched
            });
            Some(Next {
                id,
                target,
                switch: Switch::Going(going),
            })
        } else {
            drop(left);
            None
        };
        let (watch, cdp, id) = (self.watch.clone(), self.cdp.clone(), context.id.clone());
        let dispose = async move {
            let _ = moved.await;
            if let Some(hold) = hold {
                let _ = tokio::time::timeout(HOLD, hold).await;
            }
            watch.unregister(&id);
            disposed(cdp, id).await
        };
        let disposed = if self.ahead {
            self.disposing = Some(tokio::spawn(dispose));
            true
        } else {
            dispose.await
        };
        let Some(mut next) = next else { return false };
        if !self.ahead
            && let Switch::Going(h) = next.switch
        {
            match h.await {
                Ok(Ok(no_dialog)) => next.switch = Switch::Done { no_dialog },
                _ => return false,
            }
        }
        self.next = Some(next);
        last && disposed
    }

    /// Ends a switch to the next flow's tab still under way (its browser is ending).
    pub(super) fn stop_switch(&mut self) {
        if let Some(Next {
            switch: Switch::Going(h),
            ..
        }) = &self.next
        {
            h.abort();
        }
    }
}

/// A new context (`spare`, the one made ahead, when there is one) with `session` switched to its
/// tab.
pub(super) async fn switched(
    spare: &mut Option<JoinHandle<Result<(String, String), CdpError>>>,
    cdp: &Cdp,
    session: &mut Session,
) -> Result<Next, StepError> {
    let (id, target) = made(spare, cdp).await?;
    let no_dialog = switch_to(session, cdp, &(id.clone(), target.clone())).await?;
    Ok(Next {
        id,
        target,
        switch: Switch::Done { no_dialog },
    })
}

/// A new context (`spare`, the one made ahead, when there is one): (context id, target id).
async fn made(
    spare: &mut Option<JoinHandle<Result<(String, String), CdpError>>>,
    cdp: &Cdp,
) -> Result<(String, String), StepError> {
    let fail = |e: String| StepError::new(ErrorKind::CommandFailed, e);
    let made = match spare.take() {
        Some(h) => h
            .await
            .map_err(|e| fail(format!("making a context did not finish: {e}")))?,
        None => new_context(cdp).await,
    };
    match made {
        Ok(made) => Ok(made),
        // A browser that stopped answering or exited since the last flow says so (and the
        // pool does not wait for a remote one again: `BrowserHost::release`).
        Err(e) => {
            let gone = cdp.health().await.and(cdp.gone_error());
            Err(gone.unwrap_or_else(|| fail(e.to_string())))
        }
    }
}

/// Switches `session` to the tab of context `(id, target)`; disposes the context when the switch
/// fails. Whether agent-browser's answer said the tab holds no dialog (`Context::no_dialog`).
async fn switch_to(
    session: &mut Session,
    cdp: &Cdp,
    (id, target): &(String, String),
) -> Result<bool, StepError> {
    if let Err(e) = session.switch_tab(target, Duration::from_secs(10)).await {
        let _ = cdp.dispose_context(id, CDP_TIMEOUT).await;
        return Err(e);
    }
    Ok(session.no_dialog_said())
}

/// A switch that takes long may be to a browser that stopped answering: asked after 500 ms, so
/// that it is found gone at once (the flows after then fail without waiting for it); pending
/// while it answers.
async fn silent(cdp: Arc<Cdp>) -> Option<StepError> {
    tokio::time::sleep(Duration::from_millis(500)).await;
    match cdp.health().await {
        Some(_) => cdp.gone_error(),
        None => std::future::pending().await,
    }
}
