//! What `runner atlas verify` and `runner atlas test` found, counted once: the lines they
//! print, the results their reports get, and the counts of their summaries.

use super::error::CliError;
use crate::atlas::{self, Atlas};
use crate::report::{Report, ReportTarget, Reporter, Summary};
use crate::step::{ErrorKind, FlowResult, FlowStatus, ServerInfo, StepError};

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
    /// The nodes `replayed`; when `broke` (an environment error) cut the verify short, an
    /// errored result for the nodes not verified follows, saying why.
    pub(super) fn of(
        replayed: Vec<atlas::Replayed>,
        atlas: &Atlas,
        broke: Option<&atlas::AtlasError>,
    ) -> Verified {
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
        let mut results: Vec<_> = replayed
            .into_iter()
            .map(|r| r.into_result(&labels))
            .collect();
        if let Some(e) = broke {
            // The atlas that cannot be read to count its nodes says so, not "0 not verified".
            let left = match atlas.node_ids() {
                Ok(ids) => format!("{} node(s)", ids.len().saturating_sub(results.len())),
                Err(_) => {
                    "the atlas's other nodes (it could not be read to count them)".to_string()
                }
            };
            // The browser or the disk failed: the environment's; else the project's
            // configuration (a secret `[atlas] secrets` does not name): errored either way.
            let kind = match e {
                atlas::AtlasError::Browser { .. } | atlas::AtlasError::Io { .. } => {
                    ErrorKind::Environment
                }
                _ => ErrorKind::CommandFailed,
            };
            results.push(FlowResult::not_run(
                format!("{left} not verified"),
                atlas.root.clone(),
                FlowStatus::Error,
                StepError::new(kind, e.to_string()),
            ));
        }
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

/// Writes the reports of a command's results, with the web servers it started (as a run's
/// reports list them, each with its log); what a report left out is a warning.
pub(super) fn write_reports(
    targets: &[ReportTarget],
    results: &[FlowResult],
    summary: &Summary,
    servers: Vec<ServerInfo>,
    reporter: &Reporter,
) -> Result<(), CliError> {
    let report = Report::of(results, summary).with_servers(servers);
    for t in targets {
        for note in t
            .write_report(&report)
            .map_err(|e| CliError::Environment(e.to_string()))?
        {
            reporter.warn(&note);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A verify cut short by a disk error on an atlas that can no longer be read said "0
    /// node(s) not verified" (read-through of session 24): it says why it cannot count.
    #[test]
    fn a_verify_cut_short_on_an_unreadable_atlas_does_not_say_none_were_left() {
        let d = tempfile::tempdir().unwrap();
        let atlas = Atlas {
            root: d.path().join("gone"),
            reach: atlas::Reach::default(),
        };
        let e = atlas::AtlasError::Io {
            path: "x".to_string(),
            message: "disk full".to_string(),
        };
        let v = Verified::of(Vec::new(), &atlas, Some(&e));
        let name = &v.results[0].name;
        assert!(!name.starts_with("0 "), "{name}");
        assert!(name.contains("could not be read"), "{name}");
        assert_eq!(v.failed, 1);
    }
}
