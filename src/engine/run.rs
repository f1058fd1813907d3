//! Scheduling flows: `--jobs` in parallel, `--fail-fast`, cancellation.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::Semaphore;

use super::events::FlowInfo;
use super::flow::{Runtime, run_flow};
use super::{FlowResult, FlowStatus};
use crate::config::flows::LoadedFlow;

/// How to schedule a run.
#[derive(Debug, Clone, Copy)]
pub struct RunOptions {
    pub jobs: usize,
    pub fail_fast: bool,
}

/// Runs the flows; returns the results of those that ran, in the order given.
pub async fn run_flows(
    rt: Arc<Runtime>,
    flows: Vec<Arc<LoadedFlow>>,
    opts: RunOptions,
) -> Vec<FlowResult> {
    let permits = Arc::new(Semaphore::new(opts.jobs.max(1)));
    let stop = Arc::new(AtomicBool::new(false));
    let mut handles = Vec::new();
    // Each flow's browser is launched while the flow before it runs (SPEC §7): the launch is
    // the largest fixed cost of a browser flow.
    for (index, loaded) in flows.iter().enumerate().skip(1) {
        if super::flow::uses_browser(loaded) {
            let headed = super::flow::wants_headed(&rt, loaded);
            rt.browser
                .queue_prewarm(super::flow::session_name(index), headed, loaded.dir.clone());
        }
    }
    for (index, loaded) in flows.into_iter().enumerate() {
        let permit = tokio::select! {
            p = permits.clone().acquire_owned() => p.expect("the semaphore is never closed"),
            _ = rt.cancel.cancelled() => break,
        };
        if stop.load(Ordering::SeqCst) || rt.cancel.is_cancelled() {
            break;
        }
        rt.browser.unqueue(&super::flow::session_name(index));
        let rt = rt.clone();
        let stop = stop.clone();
        let info = FlowInfo {
            index,
            name: loaded.flow.name.clone(),
            file: loaded.doc.file.name().to_string(),
            steps: loaded.flow.steps.len() + loaded.flow.finally.len(),
        };
        handles.push(tokio::spawn(async move {
            let r = run_flow(&rt, loaded, info).await;
            if opts.fail_fast && r.status != FlowStatus::Passed {
                stop.store(true, Ordering::SeqCst);
            }
            drop(permit);
            r
        }));
    }
    let mut results = Vec::new();
    for h in handles {
        if let Ok(r) = h.await {
            results.push(r);
        }
    }
    results
}
