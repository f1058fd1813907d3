//! One browser session per flow run: opened lazily by its first command, closed at the end of
//! the flow (also after failures and interrupts). Keeps the refs of the last snapshot and the
//! page they came from, to refuse stale refs.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::adapter::{AdapterError, AgentBrowser, ExecOptions};
use super::command::{Command, SnapshotOptions};
use super::daemon::DaemonLink;
use super::ref_table::RefTable;
use crate::step::{ErrorKind, StepError};

/// The identity of a document: a new one after every navigation.
static DOCUMENT_JS: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    super::script::call(include_str!("scripts/document_identity.js"), &[])
});

/// Where agent-browser's commands run.
#[derive(Debug, Clone, PartialEq)]
enum Frame {
    /// In the page's main frame (`None`) or in the iframe of this CSS.
    Known(Option<String>),
    /// Not known: a batch that moved between frames failed part-way, leaving agent-browser in
    /// either; the next command switches to its own.
    Unknown,
}

/// A browser session.
pub(crate) struct Session {
    adapter: Arc<AgentBrowser>,
    pub(crate) name: String,
    pub(crate) headed: bool,
    pub(crate) cwd: PathBuf,
    opened: bool,
    /// The connection to its daemon, once the browser is up (see `daemon`).
    link: Option<DaemonLink>,
    /// The DevTools URL of a browser runner started, for the daemon to connect to.
    cdp: Option<String>,
    /// Whether the daemon may still be busy with a command of the session's.
    busy: Busy,
    /// The CLI name of the last command sent (`eval` for a page script runner's session ran):
    /// while `busy`, the one that did not finish, as the next step's message names it.
    pub(crate) last_command: &'static str,
    /// How many commands of the last `send_all` batch were answered (see `answered`).
    answered: usize,
    /// The refs of the user's last `snapshot` step.
    pub(crate) user_refs: Option<RefTable>,
    /// The refs of the latest snapshot taken by anyone (selectors take their own).
    pub(crate) latest_refs: Option<RefTable>,
    /// The flow's answer to a confirm or prompt no `dialog` step answers (`browser.dialogs`):
    /// true accepts.
    pub(crate) dialog_default: Option<bool>,
    /// The attribute `{ testid }` selectors read (`browser.testid_attribute`); `None`:
    /// `data-testid`.
    pub(crate) testid_attribute: Option<String>,
    /// The flow's masker: a page's text a message shows comes whole, is masked, then cut.
    pub(crate) masker: crate::step::Masker,
    /// The dialogs answered in this flow, oldest first: `{type, message, accepted}`.
    pub(crate) dialogs: Vec<Value>,
    /// How many of `dialogs` no `expect: { dialog }` may meet any more: those answered before
    /// the last step that acts on the page began (see `steps::dispatch::acts_on_the_page`), or
    /// before the last `expect: { dialog }` (one dialog meets one check).
    pub(crate) dialogs_spent: usize,
    /// What `dialogs_spent` becomes once the `expect` whose dialog check held this round passes
    /// as a whole (see `steps::expect::failed`).
    pub(crate) dialogs_meeting: Option<usize>,
    /// Handles runner put on elements inside iframes, and the iframe (CSS) of each: a command
    /// naming one runs with agent-browser switched into that frame.
    pub(crate) frame_of: std::collections::HashMap<String, String>,
    /// The frame agent-browser is switched into.
    frame: Frame,
    /// The flow's tabs, when the session works in a context of its own.
    pub(crate) tabs: Option<Tabs>,
    /// The `route` patterns the flow added (removed when it ends: routes belong to the
    /// worker's agent-browser session, which the next flow uses too).
    pub(crate) routes: Vec<String>,
    /// When the flow's context opened (ms since the epoch): the worker's request log holds
    /// earlier flows' requests too.
    pub(crate) since_ms: u128,
    /// Where the flow's downloads go, when its browser saves them here.
    pub(crate) downloads: Option<super::downloads::Downloads>,
    /// Told when the flow's first command after its set-up has finished, or its first step
    /// found no need to ask agent-browser for a dialog (`TabUse::Untouched`; that ask was its
    /// first command): the worker then makes the next flow's context, beside the first step's own
    /// commands (see `Worker::make_spare`).
    pub(crate) first_done: Option<tokio::sync::oneshot::Sender<()>>,
    /// Whether a command has run in the flow's tab (see `TabUse`).
    pub(crate) tab_use: TabUse,
    /// runner's watch on the dialogs of the flow's other tabs (see `dialog_watch`).
    pub(crate) watched: Option<Arc<super::dialog_watch::FlowDialogs>>,
    /// When the step the session's commands are for runs out (set by the browser steps'
    /// dispatch): no command may outlast it by more than `STEP_SLACK` (see `limit`).
    pub(crate) step_end: Option<tokio::time::Instant>,
}

/// How long a command may run past the end of its step: time for the step's last look at the
/// page (a miss's suggestions) and for its message, within the half second every step gives up
/// in after its timeout.
const STEP_SLACK: Duration = Duration::from_millis(300);

impl Session {
    /// A session that opens on its first command.
    pub(crate) fn new(
        adapter: Arc<AgentBrowser>,
        name: String,
        headed: bool,
        cwd: PathBuf,
    ) -> Session {
        Session {
            adapter,
            name,
            headed,
            cwd,
            opened: false,
            link: None,
            cdp: None,
            busy: Busy::No,
            last_command: "",
            answered: 0,
            user_refs: None,
            latest_refs: None,
            dialog_default: None,
            testid_attribute: None,
            masker: crate::step::Masker::default(),
            dialogs: Vec::new(),
            dialogs_spent: 0,
            dialogs_meeting: None,
            frame_of: std::collections::HashMap::new(),
            frame: Frame::Known(None),
            tabs: None,
            routes: Vec::new(),
            downloads: None,
            first_done: None,
            tab_use: TabUse::Used,
            watched: None,
            step_end: None,
            since_ms: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis()),
        }
    }

    /// A session whose browser is already up (a worker's, see `pool`): closing it is the
    /// worker's business.
    pub(crate) fn attached(
        adapter: Arc<AgentBrowser>,
        name: String,
        headed: bool,
        cwd: PathBuf,
    ) -> Session {
        Session {
            opened: true,
            ..Session::new(adapter, name, headed, cwd)
        }
    }

    /// Makes its first command connect the daemon to the browser at `url` (started by runner,
    /// see `chromium`) instead of launching one.
    pub(crate) fn connect_to(&mut self, url: String) {
        self.cdp = Some(url);
    }

    /// Runs a command; errors become step errors of the right kind.
    pub(crate) async fn send(
        &mut self,
        command: Command,
        timeout: Duration,
    ) -> Result<Value, StepError> {
        let mut all = self.send_all(vec![command], timeout).await?;
        Ok(all.swap_remove(0))
    }

    /// Runs a command and reads its answer as `T` (an answer without the fields `T` reads
    /// gives `T`'s default, as a missing field of an untyped answer reads as empty).
    pub(crate) async fn ask<T: DeserializeOwned + Default>(
        &mut self,
        command: Command,
        timeout: Duration,
    ) -> Result<T, StepError> {
        let data = self.send(command, timeout).await?;
        Ok(serde_json::from_value(data).unwrap_or_default())
    }

    /// Runs commands in one call (one round trip to the browser), stopping at the first that
    /// fails: for a step's commands that always go together. A browser found gone is not
    /// asked (see `gone`; whether it is gone is asked once per failed step, not per command,
    /// so a caller's own time budget holds).
    pub(crate) async fn send_all(
        &mut self,
        commands: Vec<Command>,
        timeout: Duration,
    ) -> Result<Vec<Value>, StepError> {
        if let Some(gone) = self.browser_gone() {
            return Err(gone);
        }
        if self.busy == Busy::ClosedBeside {
            self.hear_dialog_closed().await;
        }
        self.exchange(commands, timeout).await
    }

    /// `send_all`'s round trip.
    async fn exchange(
        &mut self,
        mut commands: Vec<Command>,
        timeout: Duration,
    ) -> Result<Vec<Value>, StepError> {
        // A session's commands run one at a time (the flow awaits each), so its first command
        // (which starts the daemon, through the CLI) never races another of the same session;
        // the others go straight to the daemon.
        let first = !self.opened;
        self.tab_use = TabUse::Used;
        let (timeout, capped) = self.limit(timeout, first);
        let opts = ExecOptions {
            session: self.name.clone(),
            headed: self.headed,
            timeout,
            cwd: self.cwd.clone(),
            cdp: self.cdp.clone(),
        };
        self.opened = true;
        self.busy = Busy::Unsettled;
        self.last_command = commands.last().map_or("", Command::name);
        // A command naming an element inside an iframe runs in that frame; every other one (an
        // `eval` too: agent-browser evaluates in the main frame) in the page's main frame.
        let wanted = commands
            .iter()
            .find_map(|c| c.target().and_then(|t| self.frame_of.get(t).cloned()));
        let switch = !first && self.frame != Frame::Known(wanted.clone());
        if switch {
            commands.insert(
                0,
                match wanted.clone() {
                    Some(selector) => Command::Frame { selector },
                    None => Command::MainFrame,
                },
            );
        }
        let r = if first {
            self.adapter.execute_all(&commands, &opts).await
        } else {
            self.linked(&commands, opts.timeout).await
        };
        self.busy = if self.cut_by_dialog() && !first {
            Busy::HeldByDialog
        } else if matches!(r, Err(AdapterError::Timeout { .. })) {
            Busy::Unsettled
        } else {
            Busy::No
        };
        self.tell_first_done();
        self.answered = answered(self.link.as_ref(), first, &r, switch);
        let switched = if switch { wanted.clone() } else { None };
        if switch {
            // Where agent-browser is now: the switch is the batch's first command; after a
            // failure, the switch or a later command failed, and it is in either frame.
            self.frame = if r.is_ok() {
                Frame::Known(wanted)
            } else {
                Frame::Unknown
            };
        }
        r.map(|mut data| {
            if switch {
                data.remove(0);
            }
            data
        })
        .map_err(|e| match e {
            // The limit was the step's own: its timeout, not the command's, ran out.
            AdapterError::Timeout { command, .. } if capped => StepError::new(
                ErrorKind::Timeout,
                format!(
                    "timed out: the step's time ran out while the browser was still answering its `{command}`"
                ),
            ),
            e => frame_switch::explained(e.into_step_error(first), switched.as_deref()),
        })
    }

    /// `commands` over the kept-open connection to the daemon, given up with agent-browser's
    /// refusal when a dialog only the flow answers opens meanwhile (`send_all_unless`; runner
    /// then answers it: `dialog::answer`); never a `dialog` command, the answer itself.
    async fn linked(
        &mut self,
        commands: &[Command],
        timeout: Duration,
    ) -> Result<Vec<Value>, AdapterError> {
        let link = self
            .link
            .get_or_insert_with(|| DaemonLink::new(self.adapter.socket_dir(), &self.name));
        // Only a dialog opening meanwhile: one already open is agent-browser's to refuse for.
        let watched = (self.watched.clone())
            .filter(|_| !commands.iter().any(|c| matches!(c, Command::Dialog { .. })))
            .and_then(|w| Some((w.current()?, w)).filter(|(t, w)| w.blocking(t).is_none()));
        let blocked = async move {
            match watched {
                Some((tab, w)) => w.until_blocked(&tab).await.refusal(),
                None => std::future::pending().await,
            }
        };
        link.send_all_unless(commands, &self.cwd, timeout, blocked)
            .await
            .map_err(AdapterError::from)
    }

    /// The time a command may take: `asked`, at least 500 ms, and never past the end of the
    /// step it is for (`step_end`) and `STEP_SLACK`, so that every step gives up within half a
    /// second of its timeout whatever its commands asked for (true when that cut it).
    /// A session's first command starts agent-browser's daemon: not cut.
    fn limit(&self, asked: Duration, first: bool) -> (Duration, bool) {
        let asked = asked.max(Duration::from_millis(500));
        match self.step_end {
            Some(end) if !first => {
                let left = (end + STEP_SLACK)
                    .saturating_duration_since(tokio::time::Instant::now())
                    .max(Duration::from_millis(1));
                if left < asked {
                    (left, true)
                } else {
                    (asked, false)
                }
            }
            _ => (asked, false),
        }
    }

    /// Makes the session act on tab `target` of its context (refs and frame start afresh).
    ///
    /// agent-browser learns of a tab from its own DevTools connection's events, which may come
    /// after runner's `Target.createTarget` has answered (or after runner listed a popup): while
    /// it says it has no such tab, the switch is asked again, for up to `timeout` (at most 2 s).
    pub(crate) async fn switch_tab(
        &mut self,
        target: &str,
        timeout: Duration,
    ) -> Result<(), StepError> {
        let deadline = std::time::Instant::now() + timeout.min(Duration::from_secs(2));
        loop {
            let switch = Command::TabSwitch {
                tab_id: target.to_string(),
            };
            match self.send(switch, timeout).await {
                // agent-browser says either, for a tab it has not heard of yet.
                Err(e)
                    if (e.message.contains("No tab with target id")
                        || e.message.contains(&format!("No tab with label `{target}`")))
                        && std::time::Instant::now() < deadline =>
                {
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
                r => {
                    r?;
                    break;
                }
            }
        }
        self.frame = Frame::Known(None);
        self.user_refs = None;
        self.latest_refs = None;
        if let Some(t) = &mut self.tabs {
            t.current = target.to_string();
        }
        if let Some(w) = &self.watched {
            w.set_current(target);
        }
        Ok(())
    }

    /// The attribute `{ testid }` selectors read: `browser.testid_attribute`, else `data-testid`
    /// (Playwright's default).
    pub(crate) fn testid(&self) -> &str {
        self.testid_attribute.as_deref().unwrap_or("data-testid")
    }

    /// How many commands of the last `send_all` batch the browser answered before the one
    /// that failed (all of them after a success).
    pub(crate) fn answered(&self) -> usize {
        self.answered
    }

    /// Whether the last batch was given up on a dialog that opened while its command after the
    /// `answered` ones was under way (see `DaemonLink::send_all_unless`).
    pub(crate) fn cut_by_dialog(&self) -> bool {
        self.link.as_ref().is_some_and(|l| l.cut_by_dialog)
    }

    /// The pid file of the session's daemon.
    pub(crate) fn daemon_pid_file(&self) -> PathBuf {
        self.adapter.socket_dir().join(format!("{}.pid", self.name))
    }

    /// Whether the daemon may still be busy with a command (see `Busy`).
    pub(crate) fn unsettled(&self) -> bool {
        matches!(self.busy, Busy::Unsettled | Busy::HeldByDialog)
    }

    /// Whether a dialog holds the daemon's command (see `Busy::HeldByDialog`).
    pub(crate) fn held_by_dialog(&self) -> bool {
        self.busy == Busy::HeldByDialog
    }

    /// runner answered a dialog over its own connection (one that held the daemon's command:
    /// that command finishes now): the daemon is to hear it closed before its next command.
    pub(crate) fn dialog_answered(&mut self) {
        if matches!(self.busy, Busy::HeldByDialog | Busy::No) {
            self.busy = Busy::ClosedBeside;
        }
    }

    /// Evaluates JavaScript in the page's main frame and returns its result: over runner's own
    /// DevTools session on the flow's tab when it has one (see `own_eval`), else as
    /// agent-browser's `eval`.
    pub(crate) async fn eval(&mut self, js: &str, timeout: Duration) -> Result<Value, StepError> {
        if let Some(r) = self.eval_own(js, timeout).await {
            return r;
        }
        let data = self.send(Command::eval(js), timeout).await?;
        Ok(data.get("result").cloned().unwrap_or(Value::Null))
    }

    /// `is visible|checked|enabled <target>`.
    pub(crate) async fn is(&mut self, what: &str, target: &str) -> Result<bool, StepError> {
        let selector = target.to_string();
        let command = match what {
            "visible" => Command::IsVisible { selector },
            "checked" => Command::IsChecked { selector },
            "enabled" => Command::IsEnabled { selector },
            other => {
                return Err(StepError::new(
                    ErrorKind::CommandFailed,
                    format!("internal error: `is {other}` is not known to runner's daemon link"),
                ));
            }
        };
        let data = self.send(command, Duration::from_secs(5)).await?;
        Ok(super::reply::is_answer(&data, what))
    }

    /// The page's URL (`get url`).
    pub(crate) async fn url(&mut self, timeout: Duration) -> Result<String, StepError> {
        let r: super::reply::Url = self.ask(Command::GetUrl, timeout).await?;
        Ok(r.url)
    }

    /// The page's title (`get title`).
    pub(crate) async fn title(&mut self, timeout: Duration) -> Result<String, StepError> {
        let r: super::reply::Title = self.ask(Command::GetTitle, timeout).await?;
        Ok(r.title)
    }

    /// The identity of the current document.
    pub(crate) async fn document(&mut self, timeout: Duration) -> Result<String, StepError> {
        let v = self.eval(&DOCUMENT_JS, timeout).await?;
        Ok(v.as_str().unwrap_or_default().to_string())
    }

    /// Takes a snapshot; returns its data and records its refs.
    pub(crate) async fn snapshot(
        &mut self,
        options: SnapshotOptions,
        timeout: Duration,
    ) -> Result<Value, StepError> {
        // The snapshot and the identity of the document it came from, in one call.
        let both = vec![
            Command::Snapshot(options),
            Command::eval(DOCUMENT_JS.as_str()),
        ];
        let mut both = self.send_all(both, timeout).await?;
        let document = both
            .pop()
            .and_then(|d| d.get("result").and_then(Value::as_str).map(str::to_string))
            .unwrap_or_default();
        let data = both.swap_remove(0);
        self.latest_refs = Some(RefTable::of_snapshot(&data, document));
        Ok(data)
    }

    /// The refs inside iframe `frame` (CSS in the page): a snapshot taken with agent-browser
    /// switched into it. Refs name elements across frames, so they are used as any other.
    pub(crate) async fn frame_refs(
        &mut self,
        frame: &str,
        timeout: Duration,
    ) -> Result<RefTable, StepError> {
        // Switched in and back out in one call (the session's frame stays the main one).
        self.frame = Frame::Known(None);
        let batch = vec![
            Command::MainFrame,
            Command::Frame {
                selector: frame.to_string(),
            },
            Command::snapshot(),
            Command::MainFrame,
            Command::eval(DOCUMENT_JS.as_str()),
        ];
        let answer = self.send_all(batch, timeout).await;
        // A batch that stopped part-way (after `frame X`, before `frame main`) may have left
        // agent-browser inside the frame: the next command then switches to its own.
        if answer.is_err() {
            self.frame = Frame::Unknown;
        }
        let mut all = match answer {
            Ok(all) => all,
            // No such iframe (yet): nothing matches inside it.
            Err(e) if super::adapter::Cause::of(&e.message).not_found => {
                return Ok(RefTable::default());
            }
            Err(mut e) => {
                e.message = format!("frame `{frame}`: {}", e.message);
                return Err(e);
            }
        };
        let document = all
            .pop()
            .and_then(|d| d.get("result").and_then(Value::as_str).map(str::to_string))
            .unwrap_or_default();
        let table = RefTable::of_snapshot(&all[2], document);
        self.latest_refs = Some(table.clone());
        Ok(table)
    }

    /// Takes a snapshot and returns its refs (role selectors resolve against them).
    pub(crate) async fn fresh_refs(&mut self, timeout: Duration) -> Result<RefTable, StepError> {
        self.snapshot(SnapshotOptions::default(), timeout).await?;
        Ok(self.latest_refs.clone().unwrap_or_default())
    }

    /// Closes the browser (best effort; the daemon goes with it); false when the browser did not
    /// answer (a wedged page): the caller kills it.
    pub(crate) async fn close(&mut self) -> bool {
        if !self.opened {
            return true;
        }
        let opts = ExecOptions {
            session: self.name.clone(),
            headed: self.headed,
            // A wedged page (a script in an endless loop) can hold `close` up: the daemon and its
            // browser are killed after this anyway.
            timeout: Duration::from_secs(2),
            cwd: self.cwd.clone(),
            cdp: None,
        };
        self.link = None;
        let closed = self.adapter.execute(Command::Close, &opts).await.is_ok();
        self.opened = false;
        closed
    }
}

/// What of a batch the browser answered (the frame switch left out); the first command's CLI
/// path does not say, so none counts as answered there.
fn answered<E>(
    link: Option<&DaemonLink>,
    first: bool,
    r: &Result<Vec<Value>, E>,
    switch: bool,
) -> usize {
    match (link, first, r) {
        (_, _, Ok(data)) => data.len(),
        (Some(link), false, Err(_)) => link.answered,
        _ => 0,
    }
    .saturating_sub(usize::from(switch))
}

mod busy;
mod dialog_close;
mod emptied;
#[cfg(test)]
mod fake;
mod frame_switch;
mod fresh;
mod gone;
mod navigation;
mod own_eval;
pub(crate) use own_eval::value as page_value;
mod left_out;
mod requests;
pub(crate) use left_out::LeftOut;
mod shown;
pub(crate) use shown::UNREAD;
mod tabs;
pub(crate) use busy::Busy;
#[cfg(test)]
pub(crate) use fake::on_fake_daemon;
pub(crate) use fresh::TabUse;
pub(crate) use tabs::Tabs;
#[cfg(test)]
mod tests;
