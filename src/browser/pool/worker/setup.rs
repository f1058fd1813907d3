//! What a flow sets up in its context before its first step: where its downloads go, its tabs,
//! its device settings and saved state.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use super::super::connect::CDP_TIMEOUT;
use super::super::emulation::{new_tab_calls, settings, touch, worker_calls};
use super::{Context, Emulation, Worker};
use crate::browser::driver::session::Session;
use crate::step::{ErrorKind, StepError};

impl Worker {
    /// Makes the flow's context save its downloads into `at.dir`, for its session: the folder
    /// made first inside the run's artifacts directory following no symlink (Chromium would
    /// save through one; a link there fails the flow's first browser step).
    pub(super) async fn save_downloads(
        &self,
        context: &Context,
        at: &crate::browser::driver::downloads::DownloadDir,
    ) -> Result<crate::browser::driver::downloads::Downloads, StepError> {
        let dir = &at.dir;
        crate::fs::artifact_dir(&at.root, dir).map_err(|why| {
            StepError::new(
                ErrorKind::Environment,
                format!("cannot keep the flow's downloads: {why}"),
            )
        })?;
        let fail = |e: String| {
            StepError::new(
                ErrorKind::Environment,
                format!("cannot keep the flow's downloads in {}: {e}", dir.display()),
            )
        };
        self.cdp
            .save_downloads(&context.id, dir, CDP_TIMEOUT)
            .await
            .map_err(|e| fail(e.to_string()))?;
        Ok(crate::browser::driver::downloads::Downloads::new(
            self.cdp.clone(),
            at.clone(),
        ))
    }

    /// The flow's tabs, for its session.
    pub(crate) fn tabs(&self, context: &Context) -> crate::browser::driver::session::Tabs {
        crate::browser::driver::session::Tabs {
            cdp: self.cdp.clone(),
            context: context.id.clone(),
            order: vec![context.target.clone()],
            current: context.target.clone(),
        }
    }

    /// Applies a flow's device settings to its context (its own tab: settings made with
    /// agent-browser's `set` stay with that tab, and the next flow's tab starts from the
    /// browser's defaults), and has the tabs its pages open get them as they open (see
    /// `driver::new_tabs`).
    pub(crate) async fn set_up(
        &self,
        context: &Context,
        session: &mut Session,
        e: &Emulation,
    ) -> Result<(), StepError> {
        let fail = |e: String| {
            StepError::new(
                ErrorKind::CommandFailed,
                format!("cannot apply the flow's browser settings: {e}"),
            )
        };
        if e.geolocation.is_some() {
            self.cdp
                .grant(&context.id, &["geolocation"], CDP_TIMEOUT)
                .await
                .map_err(|e| fail(e.to_string()))?;
        }
        let commands = settings(e);
        if !commands.is_empty() {
            session
                .send_all(commands, Duration::from_secs(10))
                .await
                .map_err(|err| fail(err.message))?;
        }
        if let Some(state) = &e.state {
            self.load_state(context, state)
                .await
                .map_err(|e| match e.kind {
                    ErrorKind::Environment => e,
                    _ => fail(e.message),
                })?;
        }
        // The workers of the flow's first tab get the language over runner's session that
        // records the tab's requests (`driver::new_tabs`): a flow whose workers would run
        // under the browser's language does not start.
        let held = session.watched.as_ref().and_then(|w| w.requests.outcome());
        if e.locale.is_some()
            && let Some(Err(why)) = held
        {
            return Err(fail(format!(
                "the Web Workers of the flow's pages would not get its locale: {why}"
            )));
        }
        let mut user_agent = None;
        if e.locale.is_some() || e.timezone.is_some() {
            user_agent = self
                .cdp
                .emulate_locale(
                    &context.target,
                    e.locale.as_deref(),
                    e.timezone.as_deref(),
                    CDP_TIMEOUT,
                )
                .await
                .map_err(|e| fail(e.to_string()))?;
        }
        if e.device.is_some() {
            // A phone's or tablet's touch screen, which agent-browser's `set device` leaves out.
            self.cdp
                .call_on_tab(&context.target, touch(), CDP_TIMEOUT)
                .await
                .map_err(|e| fail(e.to_string()))?;
        }
        // The tabs the flow's pages open get the same settings as they open.
        let calls = new_tab_calls(e, user_agent.as_deref());
        if !calls.is_empty() {
            self.watch.new_tabs.set(&context.id, calls);
        }
        // And the dedicated workers its pages start (their requests are recorded: never none).
        let workers = worker_calls(e, user_agent.as_deref());
        self.watch.new_tabs.set_workers(&context.id, workers);
        Ok(())
    }

    /// Loads a saved state (`browser.state`: cookies and storage) into a flow's context; a file
    /// past [`MAX_STATE`] is refused unread.
    async fn load_state(&self, context: &Context, state: &Path) -> Result<(), StepError> {
        if !state.is_file() {
            return Err(StepError::new(
                ErrorKind::Environment,
                format!(
                    "no saved state at {} (`browser.state`): a flow with `state: {{ save }}` writes it (runner runs that flow first when both are in the run)",
                    state.display()
                ),
            ));
        }
        let bytes = crate::fs::read_regular(state, MAX_STATE).map_err(|e| {
            StepError::new(
                ErrorKind::Environment,
                format!("cannot read the saved state {}: {e}", state.display()),
            )
        })?;
        if bytes.len() as u64 > MAX_STATE {
            return Err(StepError::new(
                ErrorKind::Environment,
                format!(
                    "the saved state {} is larger than 64 MiB: not a state runner saved (`browser.state` names the file a `state: {{ save }}` step writes)",
                    state.display()
                ),
            ));
        }
        let saved: Value = serde_json::from_slice(&bytes).map_err(|_| {
            StepError::new(
                ErrorKind::Environment,
                format!("the saved state {} is not JSON", state.display()),
            )
        })?;
        self.cdp
            .load_state(&context.id, &context.target, &saved, CDP_TIMEOUT)
            .await
            .map_err(|e| {
                StepError::new(
                    ErrorKind::CommandFailed,
                    format!("loading {}: {e}", state.display()),
                )
            })
    }
}

/// The largest saved state a flow loads (`browser.state`), in bytes: its cookies and storage
/// (a browser keeps ~5 MiB of storage per origin).
const MAX_STATE: u64 = 64 * 1024 * 1024;
