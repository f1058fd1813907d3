//! The JUnit XML report: a test suite per run, a test case per flow; failures name the step,
//! flaky flows carry their failed attempts as `flakyFailure`. It opens with runner's mark
//! ([`super::ours::JUNIT_HEAD`]), by which runner knows it as its own to write over.

use quick_junit::{
    NonSuccessKind, Report as Junit, TestCase, TestCaseStatus, TestRerun, TestSuite,
};

use super::model::{Error, Flow, Report, Step};

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
    let text = report.to_string().unwrap_or_default();
    let body = text
        .strip_prefix(super::ours::XML_DECLARATION)
        .unwrap_or(&text);
    // Text from outside (a command's output, a page's, a failure quoting them) as the console
    // shows it: a CI page that renders the JUnit XML must not show it reordered by a
    // bidirectional override, nor receive an escape sequence.
    xml_chars(crate::step::shown::clean(&format!(
        "{}{body}",
        super::ours::JUNIT_HEAD
    )))
}

/// The text without the characters XML 1.0 does not allow anywhere (`U+FFFE`, `U+FFFF`, C0
/// controls but tab and line ends), which a command's output or a shard's names may carry: a
/// parser refuses the whole file for one of them, and CI loses the results.
fn xml_chars(text: String) -> String {
    let allowed = |c: char| matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..);
    if text.chars().all(allowed) {
        text
    } else {
        text.chars().filter(|c| allowed(*c)).collect()
    }
}

/// The earlier failures of a flow as reruns of `kind` (`flakyFailure` for a flow that passed in
/// the end, `rerunFailure` for one that failed): its earlier runs (`--retries`), then its steps'
/// failed attempts (`last_too: false` leaves out a step's last attempt, which is the flow's
/// failure itself), each with its own error.
fn reruns(s: &mut TestCaseStatus, kind: NonSuccessKind, r: &Flow, steps: &[&Step], last_too: bool) {
    let mut add = |message: String, e: &Error| {
        let mut rerun = TestRerun::new(kind);
        rerun.set_message(message).set_type(e.kind.clone());
        s.add_rerun(rerun);
    };
    for (i, e) in r.retry_errors.iter().enumerate() {
        add(
            format!("run {} of the flow failed: {}", i + 1, e.message),
            e,
        );
    }
    for step in steps {
        let n = if last_too {
            step.attempt_errors.len()
        } else {
            step.attempt_errors.len().saturating_sub(1)
        };
        for (i, e) in step.attempt_errors.iter().take(n).enumerate() {
            add(
                format!(
                    "step `{}` attempt {} of {} failed: {}",
                    step.name,
                    i + 1,
                    step.attempts,
                    e.message
                ),
                e,
            );
        }
    }
}

/// The steps among `steps` that `pick` picks, and inside the steps that hold steps (a group,
/// an each, an iteration) those it picks there instead: the steps whose attempts were theirs.
fn retried<'a>(steps: &'a [Step], out: &mut Vec<&'a Step>, pick: &dyn Fn(&Step) -> bool) {
    for s in steps.iter().filter(|s| pick(s)) {
        if matches!(s.action.as_str(), "group" | "each" | "iteration") {
            retried(&s.steps, out, pick);
        } else {
            out.push(s);
        }
    }
}

fn case(r: &Flow) -> TestCase {
    let status = match r.status.as_str() {
        // Never started (`--fail-fast`, an interrupt): listed, so the suite's count is the run's.
        "skipped" => {
            let mut s = TestCaseStatus::skipped();
            if let Some(e) = &r.error {
                s.set_message(e.message.clone());
            }
            s
        }
        "passed" => {
            let mut s = TestCaseStatus::success();
            let mut flaky = Vec::new();
            retried(&r.steps, &mut flaky, &|s| s.flaky);
            reruns(&mut s, NonSuccessKind::Failure, r, &flaky, true);
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
                            step.index.saturating_add(1),
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
            // Inside a group or an each, the step that failed is the one that was retried.
            let mut failed = Vec::new();
            retried(&r.steps, &mut failed, &|s| s.conclusion == "failed");
            failed.truncate(1);
            reruns(&mut s, kind, r, &failed, false);
            s
        }
    };
    let mut tc = TestCase::new(r.name.clone(), status);
    tc.set_classname(r.file.clone());
    tc.set_time(r.duration());
    // What the run left out of the flow's artifacts (a page's downloads past the flow's bound).
    if let Some(note) = &r.downloads_not_kept {
        tc.set_system_out(format!("note: {note}"));
    }
    tc
}

#[cfg(test)]
mod tests {
    /// A shard's report may say anything of a step's index: the step is still named, never a
    /// panic (the index is shown counting from 1).
    #[test]
    fn a_step_index_at_the_top_of_its_range_is_shown_not_overflowed() {
        let text = include_str!("../../tests/fixtures/golden-run/expected/report.json");
        // (The golden file's durations are placeholders.)
        let text = text.replace("\"<ms>\"", "0");
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let failed = v["flows"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find(|f| f["status"] == "failed")
            .unwrap();
        for s in failed["steps"].as_array_mut().unwrap() {
            s["index"] = serde_json::json!(usize::MAX);
        }
        let r: super::Report = serde_json::from_value(v).unwrap();
        let xml = super::report(&r);
        assert!(xml.contains(&format!("step {} ", usize::MAX)), "{xml}");
    }

    /// A command's output or a shard's names may hold characters XML does not allow: the file
    /// still parses, without them.
    #[test]
    fn characters_xml_does_not_allow_are_left_out() {
        let text = include_str!("../../tests/fixtures/golden-run/expected/report.json");
        let text = text.replace("\"<ms>\"", "0");
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        for f in v["flows"].as_array_mut().unwrap() {
            f["name"] = serde_json::json!("a\u{FFFE}b\u{FFFF}c\u{1}d");
            for s in f["steps"].as_array_mut().unwrap() {
                if let Some(e) = s["error"].as_object_mut() {
                    e.insert("message".into(), serde_json::json!("x\u{FFFF}y"));
                }
            }
        }
        let r: super::Report = serde_json::from_value(v).unwrap();
        let xml = super::report(&r);
        let doc = roxmltree::Document::parse(&xml).unwrap_or_else(|e| panic!("{e}: {xml}"));
        let names: Vec<&str> = doc
            .descendants()
            .filter(|n| n.has_tag_name("testcase"))
            .filter_map(|n| n.attribute("name"))
            .collect();
        assert!(names.contains(&"abcd"), "{names:?}");
        assert!(xml.contains("xy"), "{xml}");
    }
}
