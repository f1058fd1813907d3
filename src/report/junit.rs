//! The JUnit XML report: a test suite per run, a test case per flow; failures name the step,
//! flaky flows carry their failed attempts as `flakyFailure`.

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestRerun, TestSuite};

use super::Summary;
use crate::step::{FlowResult, FlowStatus, Outcome, StepResult};

/// The report as XML text.
pub(crate) fn report(results: &[FlowResult], summary: &Summary) -> String {
    let elapsed = summary.elapsed;
    let mut report = Report::new("runner");
    let mut suite = TestSuite::new("runner");
    for r in results {
        suite.add_test_case(case(r));
    }
    suite.set_time(elapsed);
    report.add_test_suite(suite);
    report.set_time(elapsed);
    report.to_string().unwrap_or_default()
}

fn case(r: &FlowResult) -> TestCase {
    let failed_step = find_failed(&r.steps);
    let status = match r.status {
        FlowStatus::Passed => {
            let mut s = TestCaseStatus::success();
            for step in flaky_steps(&r.steps) {
                let mut rerun = TestRerun::new(NonSuccessKind::Failure);
                rerun.set_message(format!(
                    "step `{}` passed after {} attempts",
                    step.name, step.attempts
                ));
                s.add_rerun(rerun);
            }
            s
        }
        status => {
            let kind = if status == FlowStatus::Failed {
                NonSuccessKind::Failure
            } else {
                NonSuccessKind::Error
            };
            let mut s = TestCaseStatus::non_success(kind);
            let (message, ty, desc) = match (failed_step, &r.error) {
                (Some(step), _) => {
                    let e = step.error.as_ref();
                    (
                        format!(
                            "step `{}` failed: {}",
                            step.name,
                            e.map_or("", |e| e.message.as_str())
                        ),
                        e.map_or("failed", |e| e.kind.as_str()),
                        format!(
                            "step {} `{}` at {}\n{}",
                            step.index + 1,
                            step.name,
                            e.and_then(|e| e.location.as_ref())
                                .unwrap_or(&step.location),
                            e.map_or("", |e| e.message.as_str())
                        ),
                    )
                }
                (None, Some(e)) => (e.message.clone(), e.kind.as_str(), e.message.clone()),
                (None, None) => (status.as_str().to_string(), status.as_str(), String::new()),
            };
            s.set_message(message).set_type(ty).set_description(desc);
            s
        }
    };
    let mut tc = TestCase::new(r.name.clone(), status);
    tc.set_classname(r.file.display().to_string());
    tc.set_time(r.duration);
    tc
}

fn find_failed(steps: &[StepResult]) -> Option<&StepResult> {
    steps.iter().find(|s| s.conclusion == Outcome::Failed)
}

fn flaky_steps(steps: &[StepResult]) -> impl Iterator<Item = &StepResult> {
    steps.iter().filter(|s| s.flaky)
}
