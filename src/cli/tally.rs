//! What `runner atlas test` found, counted once: the lines it prints, the results its reports
//! get, and the counts of its summary.

use crate::atlas::{self, Atlas};
use crate::step::{FlowResult, FlowStatus};

/// What `atlas test` found: a line per node that no longer arrives and per test, the results
/// for the reports, and the counts.
pub(super) struct Tally {
    pub(super) text: String,
    pub(super) results: Vec<FlowResult>,
    pub(super) nodes: usize,
    pub(super) nodes_failed: usize,
    pub(super) total: usize,
    pub(super) passed: usize,
}

impl Tally {
    pub(super) fn of(tested: atlas::Tested, atlas: &Atlas) -> Tally {
        let mut text = String::new();
        let mut results = Vec::new();
        let mut nodes_failed = 0;
        for r in tested.verified {
            if !r.arrival.ok() {
                nodes_failed += 1;
                text.push_str(&format!(
                    "FAIL reach {}: {}\n",
                    r.node_id,
                    r.arrival.describe(&r.node_id)
                ));
            }
            results.push(r.into_result(atlas));
        }
        let nodes = results.len();
        let mut passed = 0;
        for t in &tested.tests {
            let ok = t.status == FlowStatus::Passed;
            passed += usize::from(ok);
            text.push_str(&format!(
                "{} {}{}\n",
                if ok { "ok  " } else { "FAIL" },
                t.name,
                t.error
                    .as_ref()
                    .map(|e| format!(": {}", e.message))
                    .or_else(|| {
                        t.steps
                            .iter()
                            .find_map(|st| st.error.as_ref().map(|e| format!(": {}", e.message)))
                    })
                    .unwrap_or_default()
            ));
        }
        let total = tested.tests.len();
        results.extend(tested.tests);
        Tally {
            text,
            results,
            nodes,
            nodes_failed,
            total,
            passed,
        }
    }
}
