//! The browser session of one flow run (sub-flows share it): opened on first use (or taken from
//! the sessions launched ahead), closed in the background when the flow ends.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::{Map, Value};
use tokio::sync::{MappedMutexGuard, Mutex, MutexGuard};

use super::host::BrowserHost;
use super::session::Session;
use crate::step::{Masker, StepError};

/// The browser session name of the flow at `index` in this run.
pub(crate) fn session_name(index: usize) -> String {
    format!("r{}-{}", std::process::id(), index + 1)
}

/// A flow run's browser.
pub(crate) struct FlowBrowser {
    session: Mutex<Option<Session>>,
    /// Set once this flow's browser is up and the next flow's launch has been started.
    warmed_next: AtomicBool,
    name: String,
    headed: bool,
    cwd: PathBuf,
}

impl FlowBrowser {
    /// A browser for the flow at `index`, launched on its first use.
    pub(crate) fn new(index: usize, headed: bool, cwd: PathBuf) -> FlowBrowser {
        FlowBrowser {
            session: Mutex::new(None),
            warmed_next: AtomicBool::new(false),
            name: session_name(index),
            headed,
            cwd,
        }
    }

    /// The session's name (also the key of the flow's background agents).
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// The session, opened on first use.
    pub(crate) async fn session(
        &self,
        host: &BrowserHost,
    ) -> Result<MappedMutexGuard<'_, Session>, StepError> {
        let mut guard = self.session.lock().await;
        if guard.is_none()
            && let Some(warm) = host.take_prewarmed(&self.name).await
        {
            *guard = Some(warm);
        }
        if guard.is_none() {
            let adapter = host.adapter()?;
            *guard = Some(Session::new(
                adapter,
                self.name.clone(),
                self.headed,
                self.cwd.clone(),
            ));
        }
        Ok(MutexGuard::map(guard, |s| {
            s.as_mut().expect("a session was put in place above")
        }))
    }

    /// Called after a browser step: once this flow's browser is up, the next flow's launch
    /// starts (one launch at a time, so launches never compete for the CPU).
    pub(crate) fn launched(&self, session: &Session, host: &BrowserHost) {
        if session.is_open() && !self.warmed_next.swap(true, Ordering::SeqCst) {
            host.start_next_prewarm();
        }
    }

    /// After a browser step failed: a screenshot and a snapshot of the page, for the report.
    pub(crate) async fn failure_artifacts(&self, dir: &Path, base: &str, masker: &Masker) -> Value {
        let mut guard = self.session.lock().await;
        let Some(s) = guard.as_mut().filter(|s| s.is_open()) else {
            return Value::Null;
        };
        // At most 3 s in all on top of the failed step: a wedged page must not stretch a
        // failure by the artifacts' own timeouts.
        let t = Duration::from_millis(1500);
        let png = dir.join(format!("{base}-failure.png"));
        let txt = dir.join(format!("{base}-failure.snapshot.txt"));
        let mut out = Map::new();
        if s.cmd("screenshot", &[png.display().to_string()], t)
            .await
            .is_ok()
        {
            out.insert(
                "screenshot".into(),
                Value::String(png.display().to_string()),
            );
        }
        if let Ok(data) = s.cmd("snapshot", &[], t).await {
            let text = masker.mask(data.get("snapshot").and_then(Value::as_str).unwrap_or(""));
            if std::fs::write(&txt, text).is_ok() {
                out.insert("snapshot".into(), Value::String(txt.display().to_string()));
            }
        }
        Value::Object(out)
    }

    /// Ends the flow's browser off the critical path: its session, and one launched ahead for
    /// it that it never used (it failed before its first browser step).
    pub(crate) async fn close(&self, host: &BrowserHost) {
        if let Some(session) = self.session.lock().await.take() {
            host.close_later(session);
        }
        if let Some(session) = host.take_prewarmed(&self.name).await {
            host.close_later(session);
        }
    }
}
