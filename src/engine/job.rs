//! One scheduled run of a flow: it waits for the flows whose saved state it loads, runs (again,
//! up to `--retries` times, while it fails by itself), and tells the flows waiting for it how it
//! ended.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::OwnedSemaphorePermit;
use tokio::sync::watch;

use super::lifecycle::run_flow;
use super::runtime::Runtime;
use super::server::RunServers;
use crate::config::flows::LoadedFlow;
use crate::step::{ErrorKind, FlowInfo, FlowResult, FlowStatus, Masker, StepError};

/// A flow's outcome as the flows waiting for it see it: its name and whether it passed.
pub(super) type Outcome = Option<(String, bool)>;

/// A flow to run, and what it shares with the rest of the run.
pub(super) struct Job {
    pub(super) rt: Arc<Runtime>,
    pub(super) loaded: Arc<LoadedFlow>,
    pub(super) info: FlowInfo,
    /// How many times a failed run is tried again (`--retries`).
    pub(super) retries: u32,
    /// `--fail-fast`: a flow that does not pass stops the run.
    pub(super) fail_fast: bool,
    /// Where its outcome goes, for the flows that load the state it saves.
    pub(super) signal: watch::Sender<Outcome>,
    /// The outcomes of the flows whose saved state it loads.
    pub(super) savers: Vec<watch::Receiver<Outcome>>,
    /// Set to keep the flows not started yet from starting.
    pub(super) stop: Arc<AtomicBool>,
    /// The run's servers.
    pub(super) servers: Arc<RunServers>,
    /// The run's masker (every secret of the run, and what any flow made of one): the flow
    /// masks with it and adds what its templates make of a secret to it.
    pub(super) masker: Masker,
}

impl Job {
    /// Runs the flow, holding `permit` (its worker) until it has ended.
    pub(super) async fn run(mut self, permit: OwnedSemaphorePermit) -> FlowResult {
        // A flow that loads a saved state waits for the flows that save it; if one of them
        // did not pass, it does not run (its state would be missing or stale).
        if let Some(saver) = self.blocked_by().await {
            let r = not_run(&self.info, &self.loaded, &saver);
            let _ = self.signal.send(Some((self.info.name.clone(), false)));
            self.rt.browser.flow_ended();
            drop(permit);
            return r;
        }
        let r = self.with_retries().await;
        if self.fail_fast && r.status != FlowStatus::Passed {
            self.stop.store(true, Ordering::SeqCst);
        }
        let _ = self
            .signal
            .send(Some((r.name.clone(), r.status == FlowStatus::Passed)));
        self.rt.browser.flow_ended();
        drop(permit);
        r
    }

    /// The first flow it waits for that did not pass, if any (none once the run is
    /// interrupted).
    async fn blocked_by(&mut self) -> Option<String> {
        for rx in &mut self.savers {
            let outcome = tokio::select! {
                v = rx.wait_for(Option::is_some) => v.ok().and_then(|v| v.clone()),
                () = self.rt.cancel.cancelled() => None,
            };
            match outcome {
                Some((_, true)) => {}
                Some((saver, false)) => return Some(saver),
                None => return None,
            }
        }
        None
    }

    /// Runs the flow, and again while it fails by itself and retries are left; a flow that
    /// passes after failing is flaky.
    async fn with_retries(&self) -> FlowResult {
        let mut failures = Vec::new();
        // The trace a failed attempt kept (`retain-on-failure`): the flow's, when the attempt
        // that passed keeps none, as Playwright's report shows a flaky test's failed attempt.
        let mut failed_trace = None;
        let mut r = loop {
            let r = run_flow(
                &self.rt,
                self.loaded.clone(),
                self.info.clone(),
                &self.servers,
                &self.masker,
            )
            .await;
            // Only a flow's own failure is retried: not the environment's, not an interrupt.
            if r.status == FlowStatus::Failed
                && failures.len() < self.retries as usize
                && !self.rt.cancel.is_cancelled()
            {
                failures.push(failure_of(&r));
                // Its run's number (1 the first), for the reports to say whose trace it is.
                let run = u32::try_from(failures.len()).unwrap_or(u32::MAX);
                failed_trace = r.trace.map(|t| (t, run)).or(failed_trace);
                continue;
            }
            break r;
        };
        r.name.clone_from(&self.info.name);
        if !failures.is_empty() && r.status == FlowStatus::Passed {
            r.flaky = true;
        }
        r.retry_errors = failures;
        if r.trace.is_none()
            && let Some((trace, run)) = failed_trace
        {
            r.trace = Some(trace);
            r.trace_attempt = Some(run);
        }
        r
    }
}

/// Why a flow's run failed, for the record of a retried flow.
fn failure_of(r: &FlowResult) -> StepError {
    r.error.clone().unwrap_or_else(|| {
        let step = r
            .steps
            .iter()
            .find(|s| s.conclusion == crate::step::Outcome::Failed);
        match step.and_then(|s| s.error.as_ref().map(|e| (s, e))) {
            Some((s, e)) => StepError {
                message: format!("step `{}` failed: {}", s.name, e.message),
                ..e.clone()
            },
            None => StepError::new(
                ErrorKind::CommandFailed,
                format!("the flow {}", r.status.as_str()),
            ),
        }
    })
}

/// The result of a flow not run because a flow whose saved state it loads did not pass.
fn not_run(info: &FlowInfo, loaded: &LoadedFlow, saver: &str) -> FlowResult {
    FlowResult::not_run(
        info.name.clone(),
        loaded.path.clone(),
        FlowStatus::Failed,
        StepError::new(
            ErrorKind::CommandFailed,
            format!(
                "not run: its `browser.state` is saved by the flow `{saver}`, which did not pass"
            ),
        ),
    )
}
