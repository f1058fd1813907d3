//! A listener that shows nothing: replays are judged by where they arrive, not narrated.

use std::time::Duration;

use crate::step::{FlowInfo, FlowResult, Listener, StepError, StepResult};

/// Ignores every event.
pub(crate) struct Silent;

impl Listener for Silent {
    fn flow_started(&self, _: &FlowInfo) {}
    fn step_started(&self, _: &FlowInfo, _: usize, _: &str) {}
    fn group_started(&self, _: &FlowInfo, _: usize, _: &str) {}
    fn attempt_failed(
        &self,
        _: &FlowInfo,
        _: usize,
        _: &str,
        _: u32,
        _: &StepError,
        _: Option<Duration>,
    ) {
    }
    fn step_finished(&self, _: &FlowInfo, _: usize, _: &StepResult) {}
    fn message(&self, _: &FlowInfo, _: usize, _: &str) {}
    fn flow_finished(&self, _: &FlowInfo, _: &FlowResult) {}
}
