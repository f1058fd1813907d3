//! One browser session per flow run: opened lazily by its first command, closed at the end of
//! the flow (also after failures and interrupts). Keeps the refs of the last snapshot and the
//! page they came from, to refuse stale refs.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::adapter::{AdapterError, AgentBrowser, Cmd, ExecOptions, RefInfo, parse_snapshot_refs};
use super::daemon::DaemonLink;
use crate::step::StepError;

/// The identity of a document: a new one after every navigation.
const DOCUMENT_JS: &str = "String(performance.timeOrigin) + ' ' + location.href";

/// The arguments of an `eval` of `js` (sent base64-encoded: any script survives the batch).
pub(crate) fn eval_args(js: &str) -> Vec<String> {
    use base64::Engine;
    vec![
        "-b".into(),
        base64::engine::general_purpose::STANDARD.encode(js),
    ]
}

/// The answer of `is <what> <target>`.
pub(crate) fn is_answer(data: &Value, what: &str) -> bool {
    data.get(what)
        .or_else(|| data.get("result"))
        .or_else(|| data.get("value"))
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

/// The refs a snapshot returned and the document they belong to.
#[derive(Debug, Clone, Default)]
pub(crate) struct RefTable {
    pub(crate) refs: BTreeMap<String, RefInfo>,
    /// `performance.timeOrigin` of the document: a new one after every navigation.
    pub(crate) document: String,
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
    /// The last command did not finish: it timed out, or its step was cut short while it ran.
    /// The daemon handles one command at a time and may still be busy with it (a page in an
    /// endless loop), so the browser is replaced rather than handed to the next flow.
    unsettled: bool,
    /// The refs of the user's last `snapshot` step.
    pub(crate) user_refs: Option<RefTable>,
    /// The refs of the latest snapshot taken by anyone (selectors take their own).
    pub(crate) latest_refs: Option<RefTable>,
}

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
            unsettled: false,
            user_refs: None,
            latest_refs: None,
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
    pub(crate) async fn cmd(
        &mut self,
        command: &str,
        args: &[String],
        timeout: Duration,
    ) -> Result<Value, StepError> {
        let mut all = self.cmds(&[(command, args)], timeout).await?;
        Ok(all.swap_remove(0))
    }

    /// Runs commands in one call (one round trip to the browser), stopping at the first that
    /// fails: for a step's commands that always go together.
    pub(crate) async fn cmds(
        &mut self,
        commands: &[Cmd<'_>],
        timeout: Duration,
    ) -> Result<Vec<Value>, StepError> {
        let opts = ExecOptions {
            session: self.name.clone(),
            headed: self.headed,
            timeout: timeout.max(Duration::from_millis(500)),
            cwd: self.cwd.clone(),
            cdp: self.cdp.clone(),
        };
        // A session's commands run one at a time (the flow awaits each), so its first command
        // (which starts the daemon, through the CLI) never races another of the same session;
        // the others go straight to the daemon.
        let first = !self.opened;
        self.opened = true;
        self.unsettled = true;
        let r = if first {
            self.adapter.execute_all(commands, &opts).await
        } else {
            let link = self
                .link
                .get_or_insert_with(|| DaemonLink::new(self.adapter.socket_dir(), &self.name));
            link.send_all(commands, &self.cwd, opts.timeout).await
        };
        self.unsettled = matches!(r, Err(AdapterError::Timeout { .. }));
        r.map_err(|e| e.into_step_error(first))
    }

    /// Whether the last command did not finish (see `unsettled`).
    pub(crate) fn unsettled(&self) -> bool {
        self.unsettled
    }

    /// Evaluates JavaScript and returns its result (`eval_args` makes its command).
    pub(crate) async fn eval(&mut self, js: &str, timeout: Duration) -> Result<Value, StepError> {
        let data = self.cmd("eval", &eval_args(js), timeout).await?;
        Ok(data.get("result").cloned().unwrap_or(Value::Null))
    }

    /// `is visible|checked|enabled <target>`.
    pub(crate) async fn is(&mut self, what: &str, target: &str) -> Result<bool, StepError> {
        let data = self
            .cmd(
                "is",
                &[what.to_string(), target.to_string()],
                Duration::from_secs(5),
            )
            .await?;
        Ok(is_answer(&data, what))
    }

    /// The identity of the current document.
    pub(crate) async fn document(&mut self, timeout: Duration) -> Result<String, StepError> {
        let v = self.eval(DOCUMENT_JS, timeout).await?;
        Ok(v.as_str().unwrap_or_default().to_string())
    }

    /// Takes a snapshot; returns its data and records its refs.
    pub(crate) async fn snapshot(
        &mut self,
        args: &[String],
        timeout: Duration,
    ) -> Result<Value, StepError> {
        // The snapshot and the identity of the document it came from, in one call.
        let eval = eval_args(DOCUMENT_JS);
        let mut both = self
            .cmds(&[("snapshot", args), ("eval", &eval)], timeout)
            .await?;
        let document = both
            .pop()
            .and_then(|d| d.get("result").and_then(Value::as_str).map(str::to_string))
            .unwrap_or_default();
        let data = both.swap_remove(0);
        self.latest_refs = Some(RefTable {
            refs: parse_snapshot_refs(&data),
            document,
        });
        Ok(data)
    }

    /// Takes a snapshot and returns its refs (role selectors resolve against them).
    pub(crate) async fn fresh_refs(
        &mut self,
        timeout: Duration,
    ) -> Result<BTreeMap<String, RefInfo>, StepError> {
        self.snapshot(&[], timeout).await?;
        Ok(self
            .latest_refs
            .as_ref()
            .map(|r| r.refs.clone())
            .unwrap_or_default())
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
        let closed = self.adapter.execute("close", &[], &opts).await.is_ok();
        self.opened = false;
        closed
    }
}
