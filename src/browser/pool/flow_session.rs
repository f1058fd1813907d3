//! The browser of one flow run (sub-flows share it): on first use, a fresh context and tab in a
//! worker's browser (see `pool`); when the flow ends, the context is disposed and the browser
//! goes back to the pool.

use std::path::{Path, PathBuf};
use std::sync::PoisonError;
use std::time::Duration;

use serde_json::{Map, Value};
use tokio::sync::{MappedMutexGuard, Mutex, MutexGuard};

use super::host::BrowserHost;
use super::worker::{BrowserSpec, Context, Worker};
use crate::browser::driver::command::Command;
use crate::browser::driver::pictures::{
    PICTURE_READ, page_left_out, shot_left_out, snapshot_text, withheld,
};
use crate::browser::driver::session::Session;
use crate::step::{Masker, StepError};

/// The key of the flow at `index` in this run (its background agents are filed under it).
pub(crate) fn session_name(index: usize) -> String {
    format!("r{}-{}", std::process::id(), index + 1)
}

/// A flow's context in a worker's browser, and the session its commands go through.
struct Leased {
    session: Session,
    worker: Worker,
    context: Context,
}

/// Where a flow's browser is at.
enum Slot {
    /// Not taken yet.
    Empty,
    Ready(Box<Leased>),
    /// No browser could be had: every browser step reports this, none launches again.
    Failed(StepError),
}

/// What a flow sets up in its own context (`browser:` of the flow).
#[derive(Debug, Clone, Default)]
pub(crate) struct ContextSetup {
    /// The answer to a confirm or prompt no `dialog` step answers: true accepts.
    pub(crate) dialogs: Option<bool>,
    pub(crate) emulation: super::worker::Emulation,
    /// Where the flow's downloads go (its artifacts `downloads/`, inside the run's artifacts
    /// directory: made there following no symlink, Chromium would write through one); `None`
    /// for a remote browser, which saves files on its own machine.
    pub(crate) downloads: Option<crate::browser::driver::downloads::DownloadDir>,
    /// The attribute `{ testid }` selectors read (`browser.testid_attribute`); `None`:
    /// `data-testid`.
    pub(crate) testid_attribute: Option<String>,
    /// The flow's tabs record for its trace (`--trace`), their pictures taken so: their
    /// screencast or snapshots, console, failed requests (see `driver::recorder`).
    pub(crate) record: Option<crate::browser::driver::recorder::Recording>,
    /// The flow's masker: what its session shows of the page's texts is masked with it before
    /// it is cut (see `Session::masker`).
    pub(crate) masker: crate::step::Masker,
}

/// A flow run's browser.
pub(crate) struct FlowBrowser {
    state: Mutex<Slot>,
    name: String,
    spec: BrowserSpec,
    /// Its settings, rendered (see `set_up_with`) before the context is made.
    setup: std::sync::Mutex<ContextSetup>,
    cwd: PathBuf,
    /// The pictures of its trace (see `trace`).
    pictures: std::sync::Mutex<trace::Pictures>,
    /// Told once the end of its kept trace is taken (see `trace_tail`): its context goes then.
    hold: std::sync::Mutex<Option<tokio::sync::oneshot::Receiver<()>>>,
}

impl FlowBrowser {
    /// A browser for the flow at `index`, taken on its first use.
    pub(crate) fn new(
        index: usize,
        spec: BrowserSpec,
        setup: ContextSetup,
        cwd: PathBuf,
    ) -> FlowBrowser {
        FlowBrowser {
            state: Mutex::new(Slot::Empty),
            name: session_name(index),
            spec,
            setup: std::sync::Mutex::new(setup),
            cwd,
            pictures: std::sync::Mutex::new(trace::Pictures::default()),
            hold: std::sync::Mutex::new(None),
        }
    }

    /// Changes the settings of the context to be made (its templates rendered); a context
    /// already made keeps those it was made with.
    pub(crate) fn set_up_with(&self, change: impl FnOnce(&mut ContextSetup)) {
        change(&mut self.setup.lock().unwrap_or_else(PoisonError::into_inner));
    }

    /// The flow's key (its background agents are filed under it).
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// The session, in a context of its own opened on first use.
    pub(crate) async fn session(
        &self,
        host: &BrowserHost,
    ) -> Result<MappedMutexGuard<'_, Session>, StepError> {
        let mut guard = self.state.lock().await;
        if matches!(*guard, Slot::Empty) {
            *guard = match self.lease(host).await {
                Ok(l) => Slot::Ready(Box::new(l)),
                Err(e) => Slot::Failed(e),
            };
        }
        if let Slot::Failed(e) = &*guard {
            return Err(e.clone());
        }
        Ok(MutexGuard::map(guard, |s| match s {
            Slot::Ready(l) => &mut l.session,
            Slot::Empty | Slot::Failed(_) => unreachable!("a context was put in place above"),
        }))
    }

    /// Takes the flow's context ahead of its first browser step; a failure is kept for that
    /// step to report.
    pub(crate) async fn prepare(&self, host: &BrowserHost) {
        let _ = self.session(host).await;
    }

    /// Waits until a context being taken (by `prepare`) is in place.
    pub(crate) async fn settled(&self) {
        drop(self.state.lock().await);
    }

    /// A context in a browser with this flow's settings. A browser that served earlier flows
    /// and fails to give one (it died since) is discarded and a fresh one tried; a fresh one
    /// that fails is the answer.
    async fn lease(&self, host: &BrowserHost) -> Result<Leased, StepError> {
        let setup = self
            .setup
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        loop {
            let mut worker = host.acquire(&self.spec, self.cwd.clone()).await?;
            let reused = worker.served();
            let mut session = Session::attached(
                host.adapter()?,
                worker.name().to_string(),
                self.spec.headed,
                self.cwd.clone(),
            );
            session.dialog_default = setup.dialogs;
            session.testid_attribute.clone_from(&setup.testid_attribute);
            session.masker = setup.masker.clone();
            let opened = worker
                .open_context(&mut session, setup.downloads.as_ref(), setup.record)
                .await;
            match opened {
                Ok((context, saved)) => {
                    // The flow's first step is recorded from its start (its trace, and the
                    // requests its pages make: see `request_log`).
                    // A locale waits longer: the session that records the first tab's requests
                    // holds its workers for the language too (see `Worker::set_up`).
                    let wait = match setup.emulation.locale {
                        Some(_) => Duration::from_secs(5),
                        None => Duration::from_secs(2),
                    };
                    if let Some(w) = &session.watched {
                        let requests = w.requests.recording(wait);
                        tokio::join!(w.recording(Duration::from_secs(2)), requests);
                    }
                    session.tabs = Some(worker.tabs(&context));
                    let set_up = async {
                        if let Some(saved) = saved {
                            session.downloads = Some(saved?);
                        }
                        worker
                            .set_up(&context, &mut session, &setup.emulation)
                            .await
                    };
                    if let Err(e) = set_up.await {
                        let healthy = worker.dispose(&context).await;
                        host.release(worker, healthy);
                        return Err(e);
                    }
                    // The next flow's context is made once this flow's first command has
                    // finished (see `Worker::spare`), when a flow may come after this one.
                    let (tx, rx) = tokio::sync::oneshot::channel();
                    session.first_done = Some(tx);
                    if !host.only_flow_left() {
                        worker.make_spare(Some(rx));
                    }
                    return Ok(Leased {
                        session,
                        worker,
                        context,
                    });
                }
                Err(e) => {
                    host.release(worker, false);
                    if !reused {
                        return Err(e);
                    }
                }
            }
        }
    }

    /// Why the flow fails for a confirm or prompt in another of its tabs that nothing answered
    /// (runner dismissed it, see `dialog_watch`), when no browser step since has said so; or for
    /// an answer a `dialog` step armed that no dialog took.
    pub(crate) async fn unanswered_dialog(&self) -> Option<StepError> {
        let mut guard = self.state.lock().await;
        let Slot::Ready(l) = &mut *guard else {
            return None;
        };
        if let Err(e) = crate::browser::driver::dialog::take_watched(&mut l.session).await {
            return Some(e);
        }
        crate::browser::driver::dialog::unused_armed(&l.session)
    }

    /// After a browser step failed: a screenshot and a snapshot of the page, for the report.
    pub(crate) async fn failure_artifacts(
        &self,
        root: &Path,
        dir: &Path,
        base: &str,
        masker: &Masker,
    ) -> Value {
        let mut guard = self.state.lock().await;
        let Slot::Ready(l) = &mut *guard else {
            return Value::Null;
        };
        let s = &mut l.session;
        // (A step cut off by the engine left its end behind: these have their own limits.)
        s.step_end = None;
        // At most 3 s in all on top of the failed step (4.5 s when the run has secrets: the
        // page's rendered text is read too): a wedged page must not stretch a failure by the
        // artifacts' own timeouts.
        let t = Duration::from_millis(1500);
        let png = dir.join(format!("{base}-failure.png"));
        let txt = dir.join(format!("{base}-failure.snapshot.txt"));
        let mut out = Map::new();
        // A page blocked by a dialog answers neither (and would keep its daemon busy past
        // these timeouts): the dialog is what there is to show.
        // (Not when the failed command never finished: the daemon is still busy with it.)
        let dialog = if s.unsettled() {
            None
        } else {
            crate::browser::driver::dialog::open_within(s, t)
                .await
                .ok()
                .flatten()
        };
        if let Some(mut open) = dialog {
            let message = masker.mask(open["message"].as_str().unwrap_or(""));
            open["message"] = Value::String(message);
            out.insert("dialog".into(), open);
            return Value::Object(out);
        }
        // A daemon still busy with the failed command answers neither: waiting for them
        // would only stretch the failure.
        if s.unsettled() {
            return Value::Object(out);
        }
        // Each file inside the artifacts, never through a symlink a reused directory holds.
        let safe = |p: &Path| crate::fs::artifact_file(root, p).is_ok();
        // The snapshot and the rendered text first: a page that shows a secret (typed into a
        // field, or its own text, split by markup or shown in pieces or not) is not
        // photographed, since no masker reads pixels.
        let raw = snapshot_text(s, t).await;
        if let Some(why) = page_left_out(s, masker, raw.as_deref(), (t, t)).await {
            out.insert("screenshot_left_out".into(), Value::String(why.into()));
        } else if safe(&png) && s.send(Command::screenshot(&png), t).await.is_ok() {
            out.insert(
                "screenshot".into(),
                Value::String(png.display().to_string()),
            );
        }
        if let Some(raw) = raw {
            let text = masker.mask(&raw);
            let written = crate::fs::create_artifact(root, &txt)
                .is_ok_and(|mut f| std::io::Write::write_all(&mut f, text.as_bytes()).is_ok());
            if written {
                out.insert("snapshot".into(), Value::String(txt.display().to_string()));
            }
        }
        Value::Object(out)
    }

    /// Why the page's picture after a step is not kept with `trace: on`, if it is not: its
    /// rendered text or its snapshot shows a secret of `masker`, or cannot be read to tell (see
    /// `withheld`: the rendered text first, by a script that stops itself at `PICTURE_READ`;
    /// the snapshot only when that shows none, so a huge page showing a secret leaves no
    /// snapshot running for the flow's next step to wait behind: attack 30, F6).
    pub(crate) async fn picture_left_out(&self, masker: &Masker) -> Option<&'static str> {
        if masker.is_empty() {
            return None;
        }
        let mut guard = self.state.lock().await;
        let Slot::Ready(l) = &mut *guard else {
            return None;
        };
        if l.session.unsettled() {
            return shot_left_out(masker, None);
        }
        let t = Duration::from_millis(1500);
        withheld(&mut l.session, masker, (t, PICTURE_READ)).await
    }

    /// Waits (up to `grace`) for the downloads under way that no step took, when the flow's
    /// browser has begun any.
    pub(crate) async fn settle_downloads(&self, grace: Duration) {
        if let Slot::Ready(l) = &mut *self.state.lock().await
            && let Some(d) = &mut l.session.downloads
        {
            d.settle(grace).await;
        }
    }

    /// What the flow notes of its downloads (some went past its bound), when it has any.
    pub(crate) async fn downloads_note(&self) -> Option<String> {
        match &*self.state.lock().await {
            Slot::Ready(l) => l.session.downloads.as_ref()?.note(),
            _ => None,
        }
    }

    /// Ends the flow's context (its tabs, dialogs, downloads and storage go with it) and gives
    /// the browser back; a browser that does not answer, or whose daemon may still be busy with
    /// a command that did not finish, is closed instead and the next flow gets a fresh one.
    /// The downloads no step took are named as the page suggested, with `masker`'s secrets
    /// masked.
    pub(crate) async fn close(&self, host: &BrowserHost, masker: &Masker, last: bool) {
        if let Slot::Ready(mut l) = std::mem::replace(&mut *self.state.lock().await, Slot::Empty) {
            if let Some(d) = &mut l.session.downloads {
                d.finish(masker).await;
            }
            // No flow of the run takes a browser after this one (`last`: see
            // `BrowserHost::only_flow_left`): a browser runner started is ended now, and this
            // flow's context with it (`Worker::end_own`), instead of moving to a next flow's
            // context no flow will use. (Others close at the run's end, as always.)
            let hold = self
                .hold
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take();
            if last && l.worker.runner_started() {
                // Not before the end of its kept trace is taken: its last pictures are frames
                // of its tab still to come.
                if let Some(hold) = hold {
                    let _ = tokio::time::timeout(super::worker::HOLD, hold).await;
                }
                host.close_later(l.worker);
                return;
            }
            // Routes belong to the worker's session: the next flow must not get this one's.
            let mut unrouted = true;
            if !l.session.routes.is_empty() && !l.session.unsettled() {
                unrouted = l
                    .session
                    .send(Command::Unroute { url: None }, Duration::from_secs(2))
                    .await
                    .is_ok();
            }
            // (Not when the daemon may still be busy with a command that did not finish: then
            // the browser is discarded, once its kept trace is taken.)
            let healthy = if unrouted && !l.session.unsettled() {
                Box::pin(l.worker.hand_over(&l.context, &mut l.session, hold)).await
            } else {
                l.worker.hold_for_trace(hold);
                false
            };
            host.release(l.worker, healthy);
        }
    }
}

mod trace;
pub(crate) use trace::{HELD_PICTURES, Recorded};
