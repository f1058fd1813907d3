//! One browser per worker, a fresh browser context per flow (SPEC §7): a worker is an
//! agent-browser session connected to a Chromium launched once (headless: started by runner,
//! see `chromium`; else by agent-browser in a launcher session); each flow gets a new context
//! and tab in it (~15 ms with the headless shell, ~55 ms with Chromium, plus ~50 ms and ~80 ms
//! for agent-browser attaching to the tab, against ~0.3–0.6 s for a launch) and the context is
//! disposed when the flow ends, so nothing of one flow (cookies,
//! storage, IndexedDB, cache, tabs, dialogs) reaches the next. Flows with other launch settings
//! (headed) get browsers of their own. A browser that does not answer when its flow ends, or
//! whose daemon may still be busy with a command that did not finish, is discarded (see
//! `FlowBrowser::close`), and the next flow gets a fresh one.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinHandle;

use super::connect::{CDP_TIMEOUT, cdp_url};
pub(crate) use super::emulation::Emulation;
use crate::browser::driver::adapter::{AgentBrowser, CHROMIUM_ARGS};
use crate::browser::driver::cdp::{Cdp, CdpError};
use crate::browser::driver::chromium::Chromium;
use crate::browser::driver::command::{Command, DialogResponse};
use crate::browser::driver::dialog_watch::Watch;
use crate::browser::driver::downloads::Downloads;
use crate::browser::driver::session::{Session, TabUse};
use crate::step::{ErrorKind, StepError};

mod discard;
mod setup;

/// The longest a flow's context is kept, after the flow, for the end of its kept trace (see
/// `hand_over`).
pub(crate) const HOLD: Duration = Duration::from_secs(5);

/// How a flow's browser is had: launched by this run (headed or not), or a browser already
/// running elsewhere, connected to through its DevTools endpoint (`cdp`: `http://host:port` or a
/// `ws://` URL) and never closed by runner. Flows with equal specs share browsers.
#[derive(Debug, Clone)]
pub(crate) struct BrowserSpec {
    pub(crate) headed: bool,
    pub(crate) cdp: Option<String>,
    /// How long connecting to a running browser (`cdp`) may take: the flow's `browser.timeout`
    /// (a browser runner launches gets what a cold launch needs). Not a launch setting: flows
    /// that differ only in it share browsers.
    pub(crate) timeout: Duration,
}

impl PartialEq for BrowserSpec {
    fn eq(&self, other: &BrowserSpec) -> bool {
        self.headed == other.headed && self.cdp == other.cdp
    }
}

impl Eq for BrowserSpec {}

/// A launched (or connected) browser: its agent-browser session and its DevTools connection.
pub(crate) struct Worker {
    /// The worker's own session: launches the browser and closes it.
    session: Session,
    /// The blank page agent-browser opened for the session in a running browser runner
    /// connected to (`spec.cdp`), closed after the session (see `connect::own_page`).
    own_page: Option<String>,
    /// The browser when runner started it (headless with a known Chromium); else agent-browser
    /// launched it and closes it.
    browser: Option<Chromium>,
    cdp: Arc<Cdp>,
    /// The flows' contexts whose other tabs' dialogs runner answers (see `dialog_watch`).
    watch: Arc<Watch>,
    pub(crate) spec: BrowserSpec,
    /// The next flow's context and its tab, made while the current flow runs: once that flow's
    /// first command has finished (`make_spare`), not at once. Making a tab is work for
    /// Chromium's browser process, its new renderer and agent-browser (which attaches to every
    /// new tab), so a tab made while the flow's first `open` runs slows
    /// that `open` by as much as it saves the next flow; made a command later, it overlaps
    /// what the flow does without the browser. Measured with 50 flows, alternating runs
    /// (`scripts/bench-todomvc`, headless shell): ~5 % less wall time than a context made ahead
    /// without its tab, though ~25 ms of its making still lands in the running flow's steps.
    spare: Option<JoinHandle<Result<(String, String), CdpError>>>,
    /// Whether the next flow's context is made ahead (`RUNNER_CONTEXT_AHEAD`, on unless `off`):
    /// off, each flow's context and tab are made when it starts, and nothing runs beside a
    /// flow's steps (what `scripts/bench-todomvc` measures the steps' own time with).
    ahead: bool,
    /// The session in which agent-browser launched the browser, when it did (see `launch`);
    /// the flows' session is connected to that browser.
    launcher: Option<Session>,
    /// Whether it has given a flow a context before.
    served: bool,
    /// The next flow's context, its tab already the session's current one (see `hand_over`).
    next: Option<Context>,
    /// The last flow's context being disposed, beside the next flow: whether the browser
    /// answered.
    disposing: Option<JoinHandle<bool>>,
    /// Whether that disposal waits for the end of the flow's kept trace (its last pictures still
    /// being chosen or drawn in this browser: see `hand_over`).
    holding: bool,
}

/// A flow's context in a worker's browser.
pub(crate) struct Context {
    pub(crate) id: String,
    /// The flow's tab.
    pub(crate) target: String,
    /// agent-browser's answer to the switch to the tab said it holds no dialog (see
    /// `Session::no_dialog_said`); no command has gone to it since (the flow has not started).
    pub(crate) no_dialog: bool,
}

impl Worker {
    /// Launches a browser under session `name`, or connects to the running one `spec` names.
    pub(crate) async fn launch(
        adapter: Arc<AgentBrowser>,
        name: String,
        spec: BrowserSpec,
        cwd: PathBuf,
    ) -> Result<Worker, StepError> {
        let headed = spec.headed;
        // `RUNNER_BROWSER_LAUNCH=agent-browser` keeps agent-browser's own launch also headless
        // (the way headed runs and machines without a known Chromium always go); any other
        // value but `runner` is refused, not taken for the default.
        let own = choice("RUNNER_BROWSER_LAUNCH", "runner", "agent-browser")?;
        let ahead = choice("RUNNER_CONTEXT_AHEAD", "on", "off")?;
        let own_eval = choice("RUNNER_OWN_EVAL", "on", "off")?;
        let browser = Self::own_chromium(&adapter, &name, &spec, own).await?;
        let remote = spec.cdp.clone();
        // When agent-browser launches the browser (headed runs, no Chromium known to runner,
        // `RUNNER_BROWSER_LAUNCH=agent-browser`), it does so in a session of its own, and the
        // flows' session connects to that browser with `--cdp` like to any other: a daemon that
        // launched its browser makes every new tab its active one, pinned or not (agent-browser
        // 0.41.2), so a popup a page opened would get the flow's next commands.
        let (url, launcher) =
            if let Some(url) = browser.as_ref().map(|b| b.url.clone()).or(remote.clone()) {
                (url, None)
            } else {
                let (l, url) = Self::agent_browsers_launch(&adapter, &name, headed, &cwd).await?;
                (url, Some(l))
            };
        let mut session = Session::new(adapter, name, false, cwd);
        session.connect_to(url);
        let watch = Arc::new(Watch::new(own_eval));
        let connected = match &remote {
            Some(url) => super::connect::remote(&mut session, &watch, url, spec.timeout).await,
            None => super::connect::launched(&mut session, &watch)
                .await
                .map(|cdp| (cdp, None)),
        };
        match connected {
            Ok((cdp, own_page)) => {
                let mut w = Worker {
                    session,
                    own_page,
                    browser,
                    cdp: Arc::new(cdp),
                    watch,
                    spec,
                    launcher,
                    spare: None,
                    ahead,
                    served: false,
                    next: None,
                    disposing: None,
                    holding: false,
                };
                w.make_spare(None);
                w.switch_ahead().await;
                Ok(w)
            }
            Err(e) => {
                // A daemon still busy connecting (to a browser that does not answer) would not
                // answer `close` either: it is ended with the run's processes.
                if !session.unsettled() {
                    session.close().await;
                }
                if let Some(mut l) = launcher {
                    l.close().await;
                }
                if let Some(b) = browser {
                    b.kill().await;
                }
                Err(e)
            }
        }
    }

    /// The Chromium runner starts itself for a headless run (see `chromium`), or none: a remote
    /// browser (`spec.cdp`), a headed run, no known Chromium, or `RUNNER_BROWSER_LAUNCH`
    /// choosing agent-browser's launch.
    async fn own_chromium(
        adapter: &AgentBrowser,
        name: &str,
        spec: &BrowserSpec,
        own: bool,
    ) -> Result<Option<Chromium>, StepError> {
        Ok(match adapter.headless.clone() {
            _ if spec.cdp.is_some() => None,
            Some(exe) if !spec.headed && own => {
                let profile =
                    super::profiles::dir(adapter.socket_dir()).join(format!("{name}.profile"));
                let launched = Chromium::launch(
                    &exe,
                    CHROMIUM_ARGS,
                    adapter.socket_dir(),
                    profile,
                    Duration::from_secs(30),
                )
                .await
                .map_err(|e| {
                    StepError::new(
                        ErrorKind::Environment,
                        format!("the browser cannot launch: {e}"),
                    )
                })?;
                Some(launched)
            }
            _ => None,
        })
    }

    /// agent-browser's own launch, in a session of its own (`<name>-launcher`): the launcher
    /// and the browser's DevTools URL.
    async fn agent_browsers_launch(
        adapter: &Arc<AgentBrowser>,
        name: &str,
        headed: bool,
        cwd: &Path,
    ) -> Result<(Session, String), StepError> {
        let mut l = Session::new(
            adapter.clone(),
            format!("{name}-launcher"),
            headed,
            cwd.to_path_buf(),
        );
        match Self::launch_for(&mut l).await {
            Ok(url) => Ok((l, url)),
            Err(e) => {
                l.close().await;
                Err(e)
            }
        }
    }

    /// Has agent-browser launch a browser in session `launcher`; returns its DevTools URL.
    async fn launch_for(launcher: &mut Session) -> Result<String, StepError> {
        let blank = Command::Navigate {
            url: "about:blank".into(),
        };
        let data = launcher
            .send_all(vec![blank, Command::CdpUrl], Duration::from_secs(30))
            .await?
            .pop()
            .unwrap_or_default();
        cdp_url(&data).map(str::to_string)
    }

    /// What happened to the browser, when it was found gone (stopped, out of reach, exited:
    /// see `cdp::health`).
    pub(crate) fn gone_error(&self) -> Option<StepError> {
        self.cdp.gone_error()
    }

    /// Whether it has given a flow a context before (then a failure to give another means it
    /// died since, and a fresh browser is worth a try).
    pub(crate) fn served(&self) -> bool {
        self.served
    }

    /// Whether runner started the browser itself (see `chromium`): it is ended with SIGKILL.
    pub(crate) fn runner_started(&self) -> bool {
        self.browser.is_some()
    }

    /// The agent-browser session name (every flow in this browser sends its commands there).
    pub(crate) fn name(&self) -> &str {
        &self.session.name
    }

    /// A new context with one tab, and `session` switched to that tab (pinned: a command after
    /// the tab is gone fails instead of acting on another tab).
    /// Given `downloads`, the context saves the flow's downloads there (see `save_downloads`,
    /// whose outcome comes with the context): asked beside agent-browser's dialog check.
    pub(crate) async fn open_context(
        &mut self,
        session: &mut Session,
        downloads: Option<&crate::browser::driver::downloads::DownloadDir>,
        record: Option<crate::browser::driver::recorder::Recording>,
    ) -> Result<(Context, Option<Result<Downloads, StepError>>), StepError> {
        // A browser that did not answer the last flow's disposal is not given another flow.
        if self.disposing.as_ref().is_some_and(JoinHandle::is_finished)
            && let Some(h) = self.disposing.take()
            && !h.await.unwrap_or(false)
        {
            return Err(StepError::new(
                ErrorKind::CommandFailed,
                "the browser did not dispose the last flow's context".to_string(),
            ));
        }
        let context = match self.next.take() {
            Some(c) => c,
            None => self.switched_context(session).await?,
        };
        // A dialog agent-browser still counts as open is the last flow's: its tab went with its
        // context, but not every browser tells agent-browser the dialog closed (the headless
        // shell does not), and a stale one would fail this flow's first step. Answering it
        // clears agent-browser's record (the new tab has no dialog to answer). Nothing to ask
        // when the switch to this tab, agent-browser's last command, was answered without a
        // dialog (`Context::no_dialog`), or in a browser runner started that no flow has used:
        // besides the flows' blank tabs, it has only the one it started with, where nothing ran.
        let unused = !self.served && self.browser.is_some();
        let this = &*self;
        let ask = async {
            if unused || context.no_dialog {
                Ok(None)
            } else {
                crate::browser::driver::dialog::open(session).await
            }
        };
        let save = async {
            match downloads {
                Some(dir) => Some(this.save_downloads(&context, dir).await),
                None => None,
            }
        };
        let (asked, saved) = tokio::join!(ask, save);
        match asked {
            Ok(Some(_)) => {
                let _ = session
                    .send(
                        Command::Dialog {
                            response: DialogResponse::Dismiss,
                            prompt_text: None,
                        },
                        Duration::from_secs(5),
                    )
                    .await;
            }
            // agent-browser holds no dialog now, and none can come into its record before a
            // command runs a page script in the flow's blank tab: it records the dialogs of the
            // tab it acts on only (a confirm the last flow's tab opened after the switch to this
            // one is not in it: checked with agent-browser 0.41.2), and the session was switched
            // before this ask. So the first step need not ask again (`TabUse::Untouched`).
            // (After a stale one was answered, or no answer came, it asks.)
            Ok(None) => session.tab_use = TabUse::Untouched,
            Err(_) => {}
        }
        // Dialogs in the flow's other tabs (popups) are answered by runner (see `dialog_watch`);
        // its tabs record for its trace when it keeps one (see `recorder`).
        let flow = (context.target.as_str(), session.dialog_default, record);
        session.watched = Some(self.watch.register(self.cdp.link(), &context.id, flow));
        self.served = true;
        Ok((context, saved))
    }

    /// A new context (the one made ahead, when there is one) with `session` switched to its tab.
    async fn switched_context(&mut self, session: &mut Session) -> Result<Context, StepError> {
        switched(&mut self.spare, &self.cdp, session).await
    }

    /// Right after the launch, the first flow's context made and the worker's session switched
    /// to its tab (`next`), while the run's servers start: agent-browser's first switch is its
    /// slowest (~13 ms on a quiet machine). None made when contexts are not made ahead (nothing
    /// runs beside the flows then), or on a failure (the first flow's `open_context` tries
    /// again, and says why).
    async fn switch_ahead(&mut self) {
        if self.ahead {
            self.next = switched(&mut self.spare, &self.cdp, &mut self.session)
                .await
                .ok();
        }
    }

    /// A flow is done with `context`: the session first moves to the next flow's tab (the one
    /// made ahead, else a new one), so agent-browser never has its current tab (or a popup it is
    /// still attaching to) closed under it — a switch after that sometimes hung for 10 s. The
    /// context is then disposed beside the next flow, off its path (here, with contexts made
    /// ahead off: nothing runs beside a flow), once `hold` is told: the end of the flow's kept
    /// trace is taken as its tab's last frames come, and the context stays watched until then
    /// (`HOLD` at most). False when the browser did not answer (it is then discarded).
    pub(crate) async fn hand_over(
        &mut self,
        context: &Context,
        session: &mut Session,
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
        // A switch that takes long may be to a browser that stopped answering: asked then, so
        // that it is found gone at once (the flows after then fail without waiting for it).
        let cdp = self.cdp.clone();
        let silent = async move {
            tokio::time::sleep(Duration::from_millis(500)).await;
            match cdp.health().await {
                Some(_) => cdp.gone_error(),
                None => std::future::pending().await,
            }
        };
        let next = tokio::select! {
            next = self.switched_context(session) => next,
            Some(e) = silent => Err(e),
        };
        let (watch, cdp, id) = (self.watch.clone(), self.cdp.clone(), context.id.clone());
        self.holding = hold.is_some();
        let dispose = async move {
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
        match next {
            Ok(c) => {
                self.next = Some(c);
                last && disposed
            }
            Err(_) => false,
        }
    }

    /// Disposes a flow's context; false when the browser did
    /// not answer (it is then discarded).
    pub(crate) async fn dispose(&self, context: &Context) -> bool {
        self.watch.unregister(&context.id);
        disposed(self.cdp.clone(), context.id.clone()).await
    }

    /// Starts making the next flow's context: at once, or, given `after`, once it fires or is
    /// dropped (at most 1 s later). Never over one already being made (it would be left behind).
    pub(crate) fn make_spare(&mut self, after: Option<tokio::sync::oneshot::Receiver<()>>) {
        if self.spare.is_some() || !self.ahead {
            return;
        }
        let cdp = self.cdp.clone();
        self.spare = Some(tokio::spawn(async move {
            if let Some(first) = after {
                let _ = tokio::time::timeout(Duration::from_secs(1), first).await;
            }
            new_context(&cdp).await
        }));
    }

    /// Closes the browser: its session, then (when agent-browser launched it) the browser
    /// itself; a browser runner started is ended with its daemon (`end_own`). A browser runner
    /// connected to (`spec.cdp`) stays: `close` only disconnects agent-browser from it (checked
    /// with agent-browser 0.41.2), and every context runner made in it was disposed with its
    /// flow. False when the session did not answer `close` (a wedged page).
    pub(crate) async fn close(mut self) -> bool {
        // A browser found gone is not asked anything (it would not answer): its daemons and
        // processes are ended without a grace (see `host::end_processes`).
        if self.cdp.gone().is_some() {
            if let Some(h) = self.spare.take() {
                h.abort();
            }
            if let Some(b) = self.browser {
                b.kill().await;
            }
            return false;
        }
        if let Some(b) = self.browser.take() {
            return self.end_own(b).await;
        }
        // The next flow's context made ahead is runner's to dispose (a browser runner connected
        // to outlives the run).
        if let Some(h) = self.disposing.take() {
            let _ = h.await;
        }
        let spare = match self.spare.take() {
            Some(h) => h.await.ok().and_then(Result::ok),
            None => None,
        };
        for id in spare
            .map(|(id, _)| id)
            .into_iter()
            .chain(self.next.take().map(|c| c.id))
        {
            let _ = self.cdp.dispose_context(&id, Duration::from_secs(2)).await;
        }
        let answered = self.session.close().await;
        if let Some(page) = &self.own_page {
            super::connect::close_own_page(&self.cdp, page).await;
        }
        // The session that launched the browser closes it (after the flows' session let go).
        let launcher_answered = match &mut self.launcher {
            Some(l) => l.close().await,
            None => true,
        };
        answered && launcher_answered
    }

    /// Ends `browser`, which runner started (see `chromium`), and the session's daemon at once:
    /// SIGKILL for the browser and SIGTERM for the daemon, without asking either first. Nothing
    /// there is worth a request: the contexts in the browser (the next flow's, made ahead) go
    /// with it and its profile is removed, and the daemon's `close` would only disconnect it
    /// from a browser about to go (~30 ms, and a process of agent-browser's CLI to start).
    /// Waits for the browser to exit; the daemon's exit is waited for with the run's other
    /// processes (`host::end_processes`, whose grace it gets: it exits in ~10 ms on SIGTERM).
    async fn end_own(mut self, browser: Chromium) -> bool {
        if let Some(h) = self.spare.take() {
            h.abort();
        }
        if let Some(h) = self.disposing.take() {
            // The kept trace of the flow before is not cut short (`HOLD` at most).
            if self.holding {
                let _ = tokio::time::timeout(HOLD, h).await;
            } else {
                h.abort();
            }
        }
        crate::browser::driver::daemon::terminate(&self.session.daemon_pid_file());
        browser.kill().await;
        true
    }
}

/// Reads the environment variable `var`, one of two choices: true for `default` (also when unset
/// or empty), false for `other`; any other value is refused, not taken for the default.
fn choice(var: &str, default: &str, other: &str) -> Result<bool, StepError> {
    match std::env::var(var) {
        Err(_) => Ok(true),
        Ok(v) if v.is_empty() || v == default => Ok(true),
        Ok(v) if v == other => Ok(false),
        Ok(v) => Err(StepError::new(
            ErrorKind::Environment,
            format!("{var}={v}: expected `{default}` (the default) or `{other}`"),
        )),
    }
}

/// Disposes context `id`; false when the browser did not answer. Whether the browser itself is
/// gone (then a remote one is not connected to again) is asked meanwhile: a live browser answers
/// at once, a gone one costs no more wait than the disposal's own.
async fn disposed(cdp: Arc<Cdp>, id: String) -> bool {
    let (disposed, gone) = tokio::join!(cdp.dispose_context(&id, CDP_TIMEOUT), cdp.health());
    disposed.is_ok() && gone.is_none()
}

/// A new context (`spare`, the one made ahead, when there is one) with `session` switched to its
/// tab.
async fn switched(
    spare: &mut Option<JoinHandle<Result<(String, String), CdpError>>>,
    cdp: &Cdp,
    session: &mut Session,
) -> Result<Context, StepError> {
    let fail = |e: String| StepError::new(ErrorKind::CommandFailed, e);
    let made = match spare.take() {
        Some(h) => h
            .await
            .map_err(|e| fail(format!("making a context did not finish: {e}")))?,
        None => new_context(cdp).await,
    };
    let (id, target) = match made {
        Ok(made) => made,
        // A browser that stopped answering or exited since the last flow says so (and the
        // pool does not wait for a remote one again: `BrowserHost::release`).
        Err(e) => {
            let gone = cdp.health().await.and(cdp.gone_error());
            return Err(gone.unwrap_or_else(|| fail(e.to_string())));
        }
    };
    if let Err(e) = session.switch_tab(&target, Duration::from_secs(10)).await {
        let _ = cdp.dispose_context(&id, CDP_TIMEOUT).await;
        return Err(e);
    }
    Ok(Context {
        id,
        target,
        no_dialog: session.no_dialog_said(),
    })
}

/// A new context with its blank tab: (context id, target id).
async fn new_context(cdp: &Cdp) -> Result<(String, String), CdpError> {
    let id = cdp.create_context(CDP_TIMEOUT).await?;
    let target = cdp.open_tab(&id, CDP_TIMEOUT).await?;
    Ok((id, target))
}
