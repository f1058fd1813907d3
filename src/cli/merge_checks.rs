//! What `merge-reports` checks of a shard's report before it merges it, and the counts it
//! makes of the flows merged. A shard's report comes from outside: a status runner never
//! writes, or counts and times that contradict the flows listed, mean it is not what a run
//! wrote (edited, truncated, another tool's), and it is refused; the merged counts are made
//! from the flows, never taken from a shard.

use std::path::Path;

use super::error::CliError;
use crate::report::{Counts, Flow, Report, Step};

/// The counts of `flows` (every one listed: a shard's counts of flows it does not list, those
/// its filters left out, are not the merged run's); the duration is the caller's.
pub(super) fn counts(flows: &[Flow]) -> Counts {
    let count = |s: &str| flows.iter().filter(|f| f.status == s).count();
    Counts {
        total: flows.len(),
        passed: count("passed"),
        failed: count("failed"),
        errors: count("error"),
        interrupted: count("interrupted"),
        flaky: flows.iter().filter(|f| f.flaky).count(),
        skipped: count("skipped"),
        duration_ms: 0,
    }
}

/// A flow status (or a step outcome) runner never writes would be counted under none of the
/// summary's counts and reach the reports as it is, so it is refused.
pub(super) fn known_statuses(path: &Path, r: &Report) -> Result<(), CliError> {
    const FLOW: &[&str] = &["passed", "failed", "error", "interrupted", "skipped"];
    const STEP: &[&str] = &["passed", "failed", "skipped"];
    fn steps(s: &[Step]) -> Option<&str> {
        s.iter().find_map(|s| {
            [s.outcome.as_str(), s.conclusion.as_str()]
                .into_iter()
                .find(|v| !STEP.contains(v))
                .or_else(|| steps(&s.steps))
        })
    }
    for f in &r.flows {
        let bad = (!FLOW.contains(&f.status.as_str()))
            .then_some(f.status.as_str())
            .or_else(|| steps(&f.steps));
        if let Some(bad) = bad {
            return Err(CliError::Usage(format!(
                "{}: flow {:?} has {bad:?}, not a status runner writes (a flow is {}; a step {}): is this a runner JSON report?",
                path.display(),
                f.name,
                FLOW.join(", "),
                STEP.join(", ")
            )));
        }
    }
    Ok(())
}

/// A shard's summary counts what its flows are, as a run counts them (its skipped flows may
/// be more than it lists: those its filters and its shard left out); its times hold as a run's
/// do: none past 7 days, a flow within the run, its setup and each step within the flow, a step
/// within its parent, and steps one after another within them together.
pub(super) fn consistent(path: &Path, r: &Report) -> Result<(), CliError> {
    let refuse = |why: String| {
        Err(CliError::Usage(format!(
            "{}: {why}: not the report a run wrote",
            path.display()
        )))
    };
    let listed = counts(&r.flows);
    let said = &r.summary;
    for (what, s, l) in [
        ("passed", said.passed, listed.passed),
        ("failed", said.failed, listed.failed),
        ("errors", said.errors, listed.errors),
        ("interrupted", said.interrupted, listed.interrupted),
        ("flaky", said.flaky, listed.flaky),
    ] {
        if s != l {
            return refuse(format!("its summary counts {s} {what}; its flows, {l}"));
        }
    }
    let ran = listed.total - listed.skipped;
    if said.skipped < listed.skipped || said.total.checked_sub(said.skipped) != Some(ran) {
        return refuse(format!(
            "its summary counts {} flows, {} of them skipped; it lists {ran} run and {} skipped",
            said.total, said.skipped, listed.skipped
        ));
    }
    if let Some(why) = past_the_longest(r) {
        return refuse(why);
    }
    for f in &r.flows {
        if f.duration_ms > said.duration_ms {
            return refuse(format!(
                "flow {:?} took {} ms, longer than the whole run ({} ms)",
                f.name, f.duration_ms, said.duration_ms
            ));
        }
        if f.setup_ms > f.duration_ms {
            return refuse(format!(
                "flow {:?} took {} ms, less than its setup ({} ms)",
                f.name, f.duration_ms, f.setup_ms
            ));
        }
        if let Some(why) = steps_within(&f.steps, f.duration_ms, &f.name, false) {
            return refuse(why);
        }
    }
    Ok(())
}

/// The most a run, a flow or a step of a report may take: the longest duration runner takes
/// anywhere (7 days). Past it, a shard's time is no run's (`u64::MAX` ms shows as
/// 18446744073709552 s).
const LONGEST_MS: u64 = 7 * 24 * 3600 * 1000;

/// The first time of `r` past [`LONGEST_MS`], said so.
fn past_the_longest(r: &Report) -> Option<String> {
    fn steps(s: &[Step], flow: &str) -> Option<String> {
        s.iter().find_map(|s| {
            if s.duration_ms > LONGEST_MS {
                Some(format!(
                    "a step of flow {flow:?} took {} ms, more than 7 days",
                    s.duration_ms
                ))
            } else {
                steps(&s.steps, flow)
            }
        })
    }
    if r.summary.duration_ms > LONGEST_MS {
        return Some(format!(
            "its run took {} ms, more than 7 days",
            r.summary.duration_ms
        ));
    }
    r.flows.iter().find_map(|f| {
        if f.duration_ms > LONGEST_MS || f.setup_ms > LONGEST_MS {
            Some(format!(
                "flow {:?} took {} ms (its setup {} ms), more than 7 days",
                f.name, f.duration_ms, f.setup_ms
            ))
        } else {
            steps(&f.steps, &f.name)
        }
    })
}

/// The first of `steps` of flow `flow` (or of their sub-steps) that took longer than
/// `limit_ms`, what they ran within (the flow, else a step), or steps that together did (they
/// run one after another), said so.
fn steps_within(steps: &[Step], limit_ms: u64, flow: &str, nested: bool) -> Option<String> {
    let (one, all) = if nested {
        ("the step it is in", "the step they are in")
    } else {
        ("the flow", "the flow")
    };
    if let Some(s) = steps.iter().find(|s| s.duration_ms > limit_ms) {
        return Some(format!(
            "a step of flow {flow:?} took {} ms, longer than {one} ({limit_ms} ms)",
            s.duration_ms
        ));
    }
    let together = steps
        .iter()
        .fold(0u64, |t, s| t.saturating_add(s.duration_ms));
    if together > limit_ms {
        return Some(format!(
            "the {} steps of flow {flow:?} took {together} ms together, one after another, longer than {all} ({limit_ms} ms)",
            steps.len()
        ));
    }
    steps
        .iter()
        .find_map(|s| steps_within(&s.steps, s.duration_ms, flow, true))
}
