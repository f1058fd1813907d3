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
    for (index, loaded) in flows.into_iter().enumerate() {
        let permit = tokio::select! {
            p = permits.clone().acquire_owned() => p.expect("the semaphore is never closed"),
            () = rt.cancel.cancelled() => break,
        };
        if stop.load(Ordering::SeqCst) || rt.cancel.is_cancelled() {
            break;
        }
        let rt = rt.clone();
        let stop = stop.clone();
        let info = FlowInfo {
            index,
            name: loaded.flow.name.clone(),
            file: loaded.doc.file.name().to_string(),
            steps: loaded.flow.steps.len() + loaded.flow.finally.len(),
        };
        let identity = (loaded.flow.name.clone(), loaded.path.clone());
        let handle = tokio::spawn(async move {
            let r = run_flow(&rt, loaded, info).await;
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
    }
}
