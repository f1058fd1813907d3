//! The kept traces of a pass being finished beside the flows after theirs (see `trace::end`).

use std::collections::HashSet;
use std::sync::Mutex;

use tokio::task::JoinHandle;

use crate::step::FlowResult;

/// The kept traces still being finished beside the flows after theirs: their last pictures
/// come a few frames after their last step (see `trace::end`). Each task gives the trace's
/// path and whether it was written (kept until the pass takes it, finished or not).
#[derive(Default)]
pub(crate) struct Finishing(Mutex<Vec<JoinHandle<(String, bool)>>>);

impl Finishing {
    /// A trace's task, as `trace::end` spawns it.
    pub(crate) fn push(&self, task: JoinHandle<(String, bool)>) {
        if let Ok(mut t) = self.0.lock() {
            t.push(task);
        }
    }

    /// Waits until every trace being finished is written, then takes the name of each that
    /// could not be out of `results` (the flows named their traces at their end).
    pub(crate) async fn done(&self, results: &mut [FlowResult]) {
        let tasks = self.0.lock().map(|mut t| std::mem::take(&mut *t));
        // In the order the flows ended: a flow run again writes its trace where it was.
        let mut unwritten = HashSet::new();
        for t in tasks.unwrap_or_default() {
            match t.await {
                Ok((path, true)) => unwritten.remove(&path),
                Ok((path, false)) => unwritten.insert(path),
                Err(_) => false,
            };
        }
        for r in results {
            if r.trace.as_ref().is_some_and(|t| unwritten.contains(t)) {
                r.trace = None;
            }
        }
    }
}
