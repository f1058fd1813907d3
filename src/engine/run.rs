//! Scheduling flows: `--jobs` in parallel, `--fail-fast`, cancellation, a browser per worker.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::Semaphore;

use super::lifecycle::{browser_spec, run_flow};
use super::runtime::Runtime;
use crate::config::flows::LoadedFlow;
use crate::step::{ErrorKind, FlowInfo, FlowResult, FlowStatus, StepError};

/// How to schedule a run.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RunOptions {
    pub(crate) jobs: usize,
    pub(crate) fail_fast: bool,
    /// A flow that fails is run again up to this many times (`--retries`); one that then passes
    /// is flaky.
    pub(crate) retries: u32,
    /// Each flow runs this many times (`--repeat-each`), each run its own result
    /// (`name [k/n]`).
    pub(crate) repeat_each: u32,
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

/// Runs the flows; returns the results of those that ran, in the order given. A flow whose task
/// panicked is an `internal` error result, never dropped.
pub(crate) async fn run_flows(
    rt: Arc<Runtime>,
    flows: Vec<Arc<LoadedFlow>>,
    opts: RunOptions,
) -> Vec<FlowResult> {
    let permits = Arc::new(Semaphore::new(opts.jobs.max(1)));
    let stop = Arc::new(AtomicBool::new(false));
    let mut handles = Vec::new();
    // One browser per worker, launched at once, while the first flows load and start their
    // web servers (SPEC §7): every flow after that gets a fresh context in an idle browser.
    for loaded in flows
        .iter()
        .filter(|l| l.flow.uses_browser())
        .take(opts.jobs.max(1))
    {
        rt.browser
            .prelaunch(browser_spec(&rt, loaded), loaded.dir.clone());
    }
    let n = opts.repeat_each.max(1) as usize;
    let runs = flows
        .into_iter()
        .flat_map(|l| (1..=n).map(move |k| (l.clone(), k)));
    for (index, (loaded, k)) in runs.enumerate() {
        let permit = tokio::select! {
            p = permits.clone().acquire_owned() => p.expect("the semaphore is never closed"),
            () = rt.cancel.cancelled() => break,
        };
        if stop.load(Ordering::SeqCst) || rt.cancel.is_cancelled() {
            break;
        }
        let rt = rt.clone();
        let stop = stop.clone();
        // Repeated runs are told apart by their names, in every report.
        let name = if n > 1 {
            format!("{} [{k}/{n}]", loaded.flow.name)
        } else {
            loaded.flow.name.clone()
        };
        let info = FlowInfo {
            index,
            name: name.clone(),
            file: loaded.doc.file.name().to_string(),
            steps: loaded.flow.steps.len() + loaded.flow.finally.len(),
        };
        let identity = (name.clone(), loaded.path.clone());
        let handle = tokio::spawn(async move {
            let mut failures = Vec::new();
            let mut r = loop {
                let r = run_flow(&rt, loaded.clone(), info.clone()).await;
                // Only a flow's own failure is retried: not the environment's, not an interrupt.
                if r.status == FlowStatus::Failed
                    && failures.len() < opts.retries as usize
                    && !rt.cancel.is_cancelled()
                {
                    failures.push(failure_of(&r));
                    continue;
                }
                break r;
            };
            r.name = name;
            if !failures.is_empty() && r.status == FlowStatus::Passed {
                r.flaky = true;
            }
            r.retry_errors = failures;
            if opts.fail_fast && r.status != FlowStatus::Passed {
                stop.store(true, Ordering::SeqCst);
            }
            drop(permit);
            r
        });
        handles.push((identity, handle));
    }
    let mut results = Vec::new();
    for ((name, file), h) in handles {
        results.push(match h.await {
            Ok(r) => r,
            Err(e) => {
                // The permit went with the task; a panic must not pass as success.
                if opts.fail_fast {
                    stop.store(true, Ordering::SeqCst);
                }
                panicked(name, file, &e)
            }
        });
    }
    results
}

/// The result of a flow whose task panicked (or was cancelled).
fn panicked(name: String, file: std::path::PathBuf, e: &tokio::task::JoinError) -> FlowResult {
    let why = if e.is_panic() {
        "panicked"
    } else {
        "was cancelled"
    };
    FlowResult {
        name,
        file,
        status: FlowStatus::Error,
        duration: std::time::Duration::ZERO,
        steps: Vec::new(),
        error: Some(StepError::new(
            ErrorKind::Internal,
            format!("internal error: the flow's task {why}; this is a bug in runner"),
        )),
        flaky: false,
        retry_errors: Vec::new(),
    }
}
