//! What `runner atlas verify` and `runner atlas test` found, counted once: the lines they
//! print, the results their reports get, and the counts of their summaries.

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
        let labels = atlas::Labels::of(atlas);
        let mut text = String::new();
        let mut results = Vec::new();
        let mut nodes_failed = 0;
        for r in tested.verified {
            if !r.arrival.ok() {
                nodes_failed += 1;
                text.push_str(&format!("FAIL reach {}: {}\n", r.node_id, r.describe()));
            }
            results.push(r.into_result(&labels));
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

/// What `atlas verify` found: a line per node (what differs indented below it), the results
/// for the reports, and how many nodes no longer arrive.
pub(super) struct Verified {
    pub(super) text: String,
    pub(super) results: Vec<FlowResult>,
    pub(super) failed: usize,
}

impl Verified {
    pub(super) fn of(replayed: Vec<atlas::Replayed>, atlas: &Atlas) -> Verified {
        let mut text = String::new();
        let mut drifted = 0;
        let labels = atlas::Labels::of(atlas);
        for r in &replayed {
            // A node that arrived with other data: reported, not failed.
            drifted += usize::from(r.arrival.ok() && r.diff.is_some());
            text.push_str(&format!(
                "{} {} {}: {}\n",
                if r.arrival.ok() { "ok  " } else { "FAIL" },
                r.node_id,
                labels.get(&r.node_id),
                r.describe()
            ));
        }
        let results: Vec<_> = replayed
            .into_iter()
            .map(|r| r.into_result(&labels))
            .collect();
        let failed = results
            .iter()
            .filter(|r| r.status != FlowStatus::Passed)
            .count();
        text.push_str(&format!(
            "\nnodes: {} verified, {failed} no longer arrive, {drifted} with data drift\n",
            results.len() - failed
        ));
        Verified {
            text,
            results,
            failed,
        }
    }
}
