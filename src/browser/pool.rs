//! One browser per worker, a fresh browser context per flow (SPEC §7): a worker is an
//! agent-browser session whose Chromium is launched once; each flow gets a new context and tab
//! in it (~20 ms instead of a ~0.6 s launch) and the context is disposed when the flow ends, so
//! nothing of one flow (cookies, storage, IndexedDB, cache, tabs, dialogs) reaches the next.
//! Flows with other launch settings (headed) get browsers of their own. A browser that does not
//! answer when its flow ends is discarded, and the next flow gets a fresh one.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::adapter::AgentBrowser;
use super::cdp::Cdp;
use super::session::Session;
use crate::step::{ErrorKind, StepError};

/// How long a DevTools call may take before its browser counts as wedged.
const CDP_TIMEOUT: Duration = Duration::from_secs(5);

/// A launched browser: its agent-browser session and its DevTools connection.
pub(crate) struct Worker {
    /// The worker's own session: launches the browser and closes it.
    session: Session,
    cdp: Cdp,
    pub(crate) headed: bool,
}

/// A flow's context in a worker's browser.
pub(crate) struct Context {
    id: String,
}

impl Worker {
    /// Launches a browser under session `name`.
    pub(crate) async fn launch(
        adapter: Arc<AgentBrowser>,
        name: String,
        headed: bool,
        cwd: PathBuf,
    ) -> Result<Worker, StepError> {
        let mut session = Session::new(adapter, name, headed, cwd);
        match Self::connect(&mut session).await {
            Ok(cdp) => Ok(Worker {
                session,
                cdp,
                headed,
            }),
            Err(e) => {
                session.close().await;
                Err(e)
            }
        }
    }

    async fn connect(session: &mut Session) -> Result<Cdp, StepError> {
        // The launch and the browser's DevTools URL in one call.
        let data = session
            .cmds(
                &[
                    ("open", &["about:blank".into()]),
                    ("get", &["cdp-url".into()]),
                ],
                Duration::from_secs(30),
            )
            .await?
            .pop()
            .unwrap_or_default();
        let url = data.get("cdpUrl").and_then(Value::as_str).ok_or_else(|| {
            StepError::new(
                ErrorKind::Environment,
                format!("agent-browser named no DevTools URL for its browser: {data}"),
            )
        })?;
        Cdp::connect(url, CDP_TIMEOUT)
            .await
            .map_err(|e| StepError::new(ErrorKind::Environment, e))
    }

    /// The agent-browser session name (every flow in this browser sends its commands there).
    pub(crate) fn name(&self) -> &str {
        &self.session.name
    }

    /// A new context with one tab, and `session` switched to that tab (pinned: a command after
    /// the tab is gone fails instead of acting on another tab).
    pub(crate) async fn open_context(&self, session: &mut Session) -> Result<Context, StepError> {
        let (id, target) = self
            .cdp
            .new_context(CDP_TIMEOUT)
            .await
            .map_err(|e| StepError::new(ErrorKind::CommandFailed, e))?;
        if let Err(e) = session
            .cmd(
                "tab",
                std::slice::from_ref(&target),
                Duration::from_secs(10),
            )
            .await
        {
            let _ = self.cdp.dispose_context(&id, CDP_TIMEOUT).await;
            return Err(e);
        }
        Ok(Context { id })
    }

    /// Disposes a flow's context; false when the browser did not answer (it is then discarded).
    pub(crate) async fn dispose(&self, context: &Context) -> bool {
        self.cdp
            .dispose_context(&context.id, Duration::from_secs(2))
            .await
            .is_ok()
    }

    /// The session to close when the worker is done.
    pub(crate) fn into_session(self) -> Session {
        self.session
    }
}
