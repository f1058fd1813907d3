//! The JUnit XML report: a test suite per run, a test case per flow; failures name the step,
//! flaky flows carry their failed attempts as `flakyFailure`.

use quick_junit::{
    NonSuccessKind, Report as Junit, TestCase, TestCaseStatus, TestRerun, TestSuite,
};

use super::model::{Flow, Report};

/// The report as XML text.
pub(crate) fn report(r: &Report) -> String {
    let elapsed = r.duration();
    let mut report = Junit::new("runner");
    let mut suite = TestSuite::new("runner");
    for f in &r.flows {
        suite.add_test_case(case(f));
    }
    suite.set_time(elapsed);
    report.add_test_suite(suite);
    report.set_time(elapsed);
    report.to_string().unwrap_or_default()
}

fn case(r: &Flow) -> TestCase {
    let status = match r.status.as_str() {
        "passed" => {
            let mut s = TestCaseStatus::success();
            // A flaky flow's failed runs (`--retries`) and steps' failed attempts, each with its
            // own error (`flakyFailure`).
            for (i, e) in r.retry_errors.iter().enumerate() {
                let mut rerun = TestRerun::new(NonSuccessKind::Failure);
                rerun
                    .set_message(format!("run {} of the flow failed: {}", i + 1, e.message))
                    .set_type(e.kind.clone());
                s.add_rerun(rerun);
            }
            for step in r.steps.iter().filter(|s| s.flaky) {
                for (i, e) in step.attempt_errors.iter().enumerate() {
                    let mut rerun = TestRerun::new(NonSuccessKind::Failure);
                    rerun
                        .set_message(format!(
                            "step `{}` attempt {} of {} failed: {}",
                            step.name,
                            i + 1,
                            step.attempts,
                            e.message
                        ))
                        .set_type(e.kind.clone());
                    s.add_rerun(rerun);
                }
            }
            s
        }
        status => {
            let kind = if status == "failed" {
                NonSuccessKind::Failure
            } else {
                NonSuccessKind::Error
            };
            let mut s = TestCaseStatus::non_success(kind);
            let (message, ty, desc) = match (r.failed_step(), &r.error) {
                (Some(step), _) => {
                    let e = step.error.as_ref();
                    let message = e.map_or("", |e| e.message.as_str());
                    (
                        format!("step `{}` failed: {message}", step.name),
                        e.map_or("failed", |e| e.kind.as_str()).to_string(),
                        format!(
                            "step {} `{}` at {}\n{message}",
                            step.index + 1,
                            step.name,
                            e.and_then(|e| e.location.as_deref())
                                .unwrap_or(&step.location),
                        ),
                    )
                }
                (None, Some(e)) => (e.message.clone(), e.kind.clone(), e.message.clone()),
                (None, None) => (status.to_string(), status.to_string(), String::new()),
            };
            s.set_message(message).set_type(ty).set_description(desc);
            // The flow's earlier runs (`--retries`) and the failing step's earlier attempts
            // (`rerunFailure`), each with its own error.
            for (i, e) in r.retry_errors.iter().enumerate() {
                let mut rerun = TestRerun::new(kind);
                rerun
                    .set_message(format!("run {} of the flow failed: {}", i + 1, e.message))
                    .set_type(e.kind.clone());
                s.add_rerun(rerun);
            }
            if let Some(step) = r.failed_step() {
                let earlier = step.attempt_errors.len().saturating_sub(1);
                for (i, e) in step.attempt_errors.iter().take(earlier).enumerate() {
                    let mut rerun = TestRerun::new(kind);
                    rerun
                        .set_message(format!(
                            "step `{}` attempt {} of {} failed: {}",
                            step.name,
                            i + 1,
                            step.attempts,
                            e.message
                        ))
                        .set_type(e.kind.clone());
                    s.add_rerun(rerun);
                }
            }
            s
        }
    };
    let mut tc = TestCase::new(r.name.clone(), status);
    tc.set_classname(r.file.clone());
    tc.set_time(r.duration());
    tc
}
