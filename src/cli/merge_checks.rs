//! What `merge-reports` checks of a shard's report before it merges it, and the counts it
//! makes of the flows merged. A shard's report comes from outside: a status runner never
//! writes, or counts and times that contradict the flows listed, mean it is not what a run
//! wrote (edited, truncated, another tool's), and it is refused; the merged counts are made
//! from the flows, never taken from a shard.

use std::path::Path;

use super::error::CliError;
use crate::report::{Counts, Flow, Report, Selection, Step};
use crate::step::{ErrorKind, FlowStatus};

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

/// A flow's status is what its steps and errors make it, as a run decides it
/// (`engine::lifecycle::run_in`, `engine::job`): the first step that concluded `failed` (a
/// failure `continue_on_error` did not tolerate) is the flow's failure, and its error's kind
/// gives the status (`environment` and `internal`: `error`; `interrupted`; any other:
/// `failed`), unless the run was interrupted; a flow that failed or erred with no failed step
/// has an error of its own, a passed one none; `continue_on_error` tolerates no `environment`,
/// `internal` or `interrupted` error; and a flow is flaky when one of its steps is, or when it
/// passed after `--retries` ran it again. A shard that says otherwise (a flow `passed` whose
/// step failed) is refused, naming the flow.
pub(super) fn statuses_agree(path: &Path, r: &Report) -> Result<(), CliError> {
    for f in &r.flows {
        if let Some(why) = disagreement(f) {
            return Err(CliError::Usage(format!(
                "{}: flow {:?} {why}: not the report a run wrote",
                path.display(),
                f.name
            )));
        }
    }
    Ok(())
}

/// How `f`'s status, error or flakiness contradicts its steps, if it does.
fn disagreement(f: &Flow) -> Option<String> {
    let status = f.status.as_str();
    if let Some(why) = untolerable(&f.steps) {
        return Some(why);
    }
    let failed = f.steps.iter().find(|s| s.conclusion == "failed");
    if let Some(s) = failed {
        let kind = s.error.as_ref().map(|e| e.kind.as_str());
        let allowed: Vec<&str> = match kind.and_then(ErrorKind::named) {
            Some(k) => vec![FlowStatus::of(k).as_str(), "interrupted"],
            None => vec!["failed", "error", "interrupted"],
        };
        if !allowed.contains(&status) {
            return Some(format!(
                "is {status:?}, but its step {:?} concluded failed{} (no continue_on_error tolerated it): the flow is then {}",
                s.name,
                kind.map_or_else(String::new, |k| format!(" ({k})")),
                allowed.join(" or ")
            ));
        }
    }
    match status {
        "passed" if f.error.is_some() => {
            return Some("is \"passed\" but has an error".to_string());
        }
        "failed" | "error" if failed.is_none() && f.error.is_none() => {
            return Some(format!(
                "is {status:?}, but none of its steps failed and it has no error"
            ));
        }
        "skipped" if !f.steps.is_empty() => {
            return Some("is \"skipped\" but lists steps that ran".to_string());
        }
        _ => {}
    }
    let flaky = f.steps.iter().any(|s| s.flaky) || status == "passed" && !f.retry_errors.is_empty();
    (f.flaky != flaky).then(|| {
        format!(
            "says it is {}flaky, but {}",
            if f.flaky { "" } else { "not " },
            if flaky {
                "a step of it is flaky, or it passed after a retry"
            } else {
                "no step of it is flaky and it did not pass after a retry"
            }
        )
    })
}

/// The first step (at any depth) whose conclusion its outcome cannot have: a step that passed
/// or was skipped concludes so; one that failed concludes `failed`, or `passed` when
/// `continue_on_error` tolerated its error, which is never `environment`, `internal` or
/// `interrupted`.
fn untolerable(steps: &[Step]) -> Option<String> {
    steps.iter().find_map(|s| {
        let kind = s.error.as_ref().map_or("", |e| e.kind.as_str());
        let fits = match s.outcome.as_str() {
            "failed" => {
                s.conclusion == "failed"
                    || s.conclusion == "passed"
                        && !matches!(kind, "environment" | "internal" | "interrupted")
            }
            outcome => s.conclusion == outcome,
        };
        if fits {
            untolerable(&s.steps)
        } else {
            Some(format!(
                "has a step {:?} that {} ({kind}) but concludes {:?}",
                s.name, s.outcome, s.conclusion
            ))
        }
    })
}

/// The shards merged make one run's whole set: when a report says which shard it is (`run
/// --shard I/N` writes `shard: {index, total}`), every report is a shard of the same `N`, and
/// shards 1 to `N` are each there once. A set with a shard missing (its job died before it
/// uploaded its report) would merge green without that shard's flows; a shard given twice, or
/// a shard's report with an unsharded run's, is no one run either. Reports that say no shard
/// (runs without `--shard`) merge as they are.
pub(super) fn whole_set(reports: &[(std::path::PathBuf, Report)]) -> Result<(), CliError> {
    let refuse = |why: String| {
        Err(CliError::Usage(format!(
            "{why}: merge-reports merges the reports of every shard of one run, each once"
        )))
    };
    let Some((first, one)) = reports
        .iter()
        .find_map(|(p, r)| r.shard.as_ref().map(|s| (p, s)))
    else {
        return Ok(());
    };
    let n = one.total;
    let most = super::select::MAX_SHARDS as usize;
    let mut at: Vec<Option<&Path>> = vec![None; n.min(most)];
    for (path, r) in reports {
        let Some(s) = &r.shard else {
            return refuse(format!(
                "{} is no shard's report (its run had no --shard), but {} is shard {} of {n}",
                path.display(),
                first.display(),
                one.index
            ));
        };
        if s.total > most || s.index == 0 || s.index > s.total {
            return refuse(format!(
                "{} says it is shard {} of {}, which no run is (`--shard I/N`: 1 <= I <= N <= {most})",
                path.display(),
                s.index,
                s.total
            ));
        }
        if s.total != n {
            return refuse(format!(
                "{} is shard {} of {}, but {} is shard {} of {n}",
                path.display(),
                s.index,
                s.total,
                first.display(),
                one.index
            ));
        }
        if let Some(other) = at[s.index - 1] {
            return Err(CliError::Usage(format!(
                "shard {} of {n} is given twice ({} and {}): give each shard's report once",
                s.index,
                other.display(),
                path.display()
            )));
        }
        at[s.index - 1] = Some(path);
    }
    let missing: Vec<usize> = (1..=n).filter(|i| at[i - 1].is_none()).collect();
    match missing.as_slice() {
        [] => Ok(()),
        [one] => refuse(format!("shard {one} of {n} is missing")),
        _ => refuse(format!("shards {} of {n} are missing", listed(&missing))),
    }
}

/// `1, 2 and 3` (the first 20, then how many more).
fn listed(numbers: &[usize]) -> String {
    const SHOWN: usize = 20;
    let mut shown: Vec<String> = numbers.iter().take(SHOWN).map(usize::to_string).collect();
    if numbers.len() > SHOWN {
        shown.push(format!("{} more", numbers.len() - SHOWN));
    }
    let last = shown.pop().unwrap_or_default();
    if shown.is_empty() {
        last
    } else {
        format!("{} and {last}", shown.join(", "))
    }
}

/// The shards merged come from runs that selected the same flows: each records its run's
/// selection (the filters' flows before the shard was taken, see `run_reports::shard_of`) and
/// how many flows its run found (`summary.total`), and a shard whose run selected other flows
/// (another `--grep` or `--tag`, a flow added between the jobs, another commit) is refused, both
/// named: merged, the flows in neither selection would be silently missing. The selections are
/// compared by what they select (their fingerprint and count), not by how the filters were
/// written: `--tag a --tag b` and `--tag b --tag a`, or two filters that keep the same flows,
/// cut the same flows into the same shards. Returns the
/// selection and the flows found, or `None` when no report records a selection (unsharded
/// runs' reports); a shard that records none (an older runner's) among shards that do is
/// refused too.
pub(super) fn same_selection(
    reports: &[(std::path::PathBuf, Report)],
) -> Result<Option<(Selection, usize)>, CliError> {
    let refuse = |why: String| {
        Err(CliError::Usage(format!(
            "{why}: merge-reports merges the shards of one run, whose jobs select the same flows (the same filters, on the same commit)"
        )))
    };
    let of = |r: &Report| r.shard.as_ref().and_then(|s| s.selection.clone());
    let Some((first, one)) = reports
        .iter()
        .find_map(|(p, r)| of(r).map(|s| (p, (s, r.summary.total))))
    else {
        return Ok(None);
    };
    for (path, r) in reports {
        let Some(s) = of(r) else {
            return refuse(format!(
                "{} does not record the flows its run selected (a shard an older runner wrote), but {} does",
                path.display(),
                first.display()
            ));
        };
        if (&s.fingerprint, s.flows, r.summary.total) != (&one.0.fingerprint, one.0.flows, one.1) {
            let said = |s: &Selection, found: usize| format!("{}, of {found} found", s.described());
            return refuse(format!(
                "{} and {} are shards of different selections of flows ({}: {}; {}: {})",
                first.display(),
                path.display(),
                first.display(),
                said(&one.0, one.1),
                path.display(),
                said(&s, r.summary.total)
            ));
        }
    }
    Ok(Some(one))
}

/// The merged shards list as many flows as their runs selected (each once: a flow listed
/// twice is refused before): a shard's report with a flow taken out (by hand, or lost) is
/// refused, though its counts were made to agree. (Counted, not fingerprinted: a report names
/// a flow's file by its path on the shard's machine.)
pub(super) fn every_flow_selected(flows: &[Flow], selection: &Selection) -> Result<(), CliError> {
    if flows.len() == selection.flows {
        return Ok(());
    }
    Err(CliError::Usage(format!(
        "the shards list {} of the {} flows their runs selected ({}): a shard's report is missing a flow or was changed",
        flows.len(),
        selection.flows,
        selection.described()
    )))
}
