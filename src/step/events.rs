//! The progress interface between the engine and the reporting layer.

use super::{FlowResult, StepError, StepResult};

/// Identifies a running flow in events.
#[derive(Debug, Clone)]
pub(crate) struct FlowInfo {
    /// Position of the flow in the run (0-based).
    pub(crate) index: usize,
    pub(crate) name: String,
    pub(crate) file: String,
    pub(crate) steps: usize,
}

/// Receives progress. Implementations must not block for long.
pub(crate) trait Listener: Send + Sync {
    /// A flow starts.
    fn flow_started(&self, flow: &FlowInfo);
    /// A step starts (`depth` > 0 inside a sub-flow).
    fn step_started(&self, flow: &FlowInfo, depth: usize, name: &str);
    /// A step that holds steps (a `group`, an `each`, one iteration of an `each`) starts: the
    /// steps inside follow, one level deeper, and then its own `step_finished`.
    fn group_started(&self, flow: &FlowInfo, depth: usize, name: &str);
    /// An attempt failed; `retry_in` is set when another attempt follows.
    fn attempt_failed(
        &self,
        flow: &FlowInfo,
        depth: usize,
        name: &str,
        attempt: u32,
        error: &StepError,
        retry_in: Option<std::time::Duration>,
    );
    /// A step finished.
    fn step_finished(&self, flow: &FlowInfo, depth: usize, result: &StepResult);
    /// A line of output meant for the user (`log` steps, relayed agent output).
    fn message(&self, flow: &FlowInfo, depth: usize, text: &str);
    /// A flow finished.
    fn flow_finished(&self, flow: &FlowInfo, result: &FlowResult);
}
