//! One browser session per flow run: opened lazily by its first command, closed at the end of
//! the flow (also after failures and interrupts). Keeps the refs of the last snapshot and the
//! page they came from, to refuse stale refs.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::adapter::{AdapterError, AgentBrowser, ExecOptions, RefInfo, parse_snapshot_refs};
use crate::step::StepError;

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

    /// Runs a command; errors become step errors of the right kind.
    pub(crate) async fn cmd(
        &mut self,
        command: &str,
        args: &[String],
        timeout: Duration,
    ) -> Result<Value, StepError> {
        let opts = ExecOptions {
            session: self.name.clone(),
            headed: self.headed,
            timeout: timeout.max(Duration::from_millis(500)),
            cwd: self.cwd.clone(),
        };
        // A session's commands run one at a time (the flow awaits each), so its first command
        // (which starts the daemon) never races another of the same session.
        let first = !self.opened;
        self.opened = true;
        self.unsettled = true;
        let r = self.adapter.execute(command, args, &opts).await;
        self.unsettled = matches!(r, Err(AdapterError::Timeout { .. }));
        r.map_err(|e| e.into_step_error(first))
    }

    /// Whether the last command did not finish (see `unsettled`).
    pub(crate) fn unsettled(&self) -> bool {
        self.unsettled
    }

    /// Evaluates JavaScript and returns its result.
    pub(crate) async fn eval(&mut self, js: &str, timeout: Duration) -> Result<Value, StepError> {
        use base64::Engine;
        let b64 = base64::engine::general_purpose::STANDARD.encode(js);
        let data = self.cmd("eval", &["-b".into(), b64], timeout).await?;
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
        Ok(data
            .get(what)
            .or_else(|| data.get("result"))
            .or_else(|| data.get("value"))
            .and_then(Value::as_bool)
            .unwrap_or(false))
    }

    /// The identity of the current document.
    pub(crate) async fn document(&mut self, timeout: Duration) -> Result<String, StepError> {
        let v = self
            .eval(
                "String(performance.timeOrigin) + ' ' + location.href",
                timeout,
            )
            .await?;
        Ok(v.as_str().unwrap_or_default().to_string())
    }

    /// Takes a snapshot; returns its data and records its refs.
    pub(crate) async fn snapshot(
        &mut self,
        args: &[String],
        timeout: Duration,
    ) -> Result<Value, StepError> {
        let data = self.cmd("snapshot", args, timeout).await?;
        let document = self.document(timeout).await?;
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
        };
        let closed = self.adapter.execute("close", &[], &opts).await.is_ok();
        self.opened = false;
        closed
    }
}
