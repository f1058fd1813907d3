//! The tabs of a flow's context, as its session numbers them.

use std::sync::Arc;
use std::time::Duration;

use crate::step::StepError;

/// The tabs of a flow's context: read over the browser's DevTools connection, numbered in the
/// order they were first seen (the flow's first tab is 0).
pub(crate) struct Tabs {
    pub(crate) cdp: Arc<crate::browser::driver::cdp::Cdp>,
    pub(crate) context: String,
    /// Target ids, in the order first seen.
    pub(crate) order: Vec<String>,
    /// The tab the session acts on.
    pub(crate) current: String,
}

impl Tabs {
    /// The context's open tabs in order: `(target id, url)`.
    pub(crate) async fn list(&mut self) -> Result<Vec<(String, String)>, StepError> {
        let open = self.cdp.tabs(&self.context, Duration::from_secs(5)).await?;
        for (id, _) in &open {
            if !self.order.contains(id) {
                self.order.push(id.clone());
            }
        }
        let mut out: Vec<(String, String)> = Vec::new();
        for id in &self.order {
            if let Some(t) = open.iter().find(|(o, _)| o == id) {
                out.push(t.clone());
            }
        }
        Ok(out)
    }
}
