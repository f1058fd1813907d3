//! Playwright's TodoMVC demo spec translated into one runner suite
//! (`tests/fixtures/todomvc-react/todomvc.yaml`), run on the React TodoMVC beside it and on three
//! mutants of the app (`?mutant=...`, see its app.js): the suite must give the verdicts
//! Playwright Test gives on each, test by test (`scripts/todomvc-spec` runs both sides; what
//! Playwright said is written down in `PLAYWRIGHT_FAILS` below).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::common::{Ran, fixture, flow_run};

/// What Playwright Test 1.65.1's run of `playwright/demo-todo-app.spec.ts` failed on each mutant
/// (scripts/todomvc-spec); on the app itself it passes all 24 tests.
const PLAYWRIGHT_FAILS: [(&str, &[&str]); 3] = [
    (
        "counter",
        &[
            "New Todo › should append new items to the bottom of the list",
            "Counter › should display the current number of todo items",
        ],
    ),
    (
        "class",
        &[
            "Mark all as completed › should allow me to mark all items as completed",
            "Item › should allow me to mark items as complete",
            "Item › should allow me to un-mark items as complete",
            "Persistence › should persist its data",
        ],
    ),
    // Storage written 500 ms late: the spec's waitForFunction polls until the write lands, so
    // nothing fails; a storage check read once would.
    ("storage", &[]),
];

/// The suite's run on the app (`mutant` "" ) or a mutant: flow name -> its runs' reports.
fn run_suite(mutant: &str, repeat: u32) -> BTreeMap<String, Vec<Value>> {
    let d = tempfile::tempdir().unwrap();
    let Ran { report, stderr, .. } = flow_run(d.path())
        .arg(fixture("todomvc-react/todomvc.yaml"))
        .args(["--var", &format!("mutant={mutant}")])
        .args(["--repeat-each", &repeat.to_string()])
        .run();
    let flows = report["flows"]
        .as_array()
        .unwrap_or_else(|| panic!("no report:\n{stderr}"));
    let mut by_name: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for f in flows {
        let name = f["name"].as_str().unwrap();
        let name = if repeat > 1 {
            name.rsplit_once(" [").map_or(name, |(n, _)| n)
        } else {
            name
        };
        by_name.entry(name.to_string()).or_default().push(f.clone());
    }
    assert_eq!(
        by_name.len(),
        24,
        "the spec's 24 tests: {:?}",
        by_name.keys()
    );
    assert!(by_name.values().all(|runs| runs.len() == repeat as usize));
    by_name
}

/// The names of the flows with a run that did not pass.
fn failed(runs: &BTreeMap<String, Vec<Value>>) -> BTreeSet<&str> {
    runs.iter()
        .filter(|(_, r)| r.iter().any(|f| f["status"] != "passed"))
        .map(|(n, _)| n.as_str())
        .collect()
}

/// What Playwright failed on the `i`th mutant.
fn playwright_fails(i: usize) -> BTreeSet<&'static str> {
    PLAYWRIGHT_FAILS[i].1.iter().copied().collect()
}

/// The error of each step that failed its run (a group's or a loop's is the error of the step
/// inside that failed).
fn errors(runs: &BTreeMap<String, Vec<Value>>) -> Vec<String> {
    runs.values()
        .flatten()
        .flat_map(|f| f["steps"].as_array().into_iter().flatten())
        .filter(|s| s["conclusion"] == "failed")
        .map(|s| {
            s["error"]["message"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect()
}

/// The longest `wait` step of the runs, in ms: how long a storage check polled.
fn longest_storage_wait(runs: &BTreeMap<String, Vec<Value>>) -> u64 {
    fn walk(steps: &Value, longest: &mut u64) {
        for s in steps.as_array().into_iter().flatten() {
            if s["action"] == "wait" {
                *longest = (*longest).max(s["duration_ms"].as_u64().unwrap_or(0));
            }
            walk(&s["steps"], longest);
        }
    }
    let mut longest = 0;
    for f in runs.values().flatten() {
        walk(&f["steps"], &mut longest);
    }
    longest
}

#[test]
fn the_translated_spec_passes_on_the_react_todomvc_twice_in_a_row() {
    let runs = run_suite("", 2);
    assert_eq!(failed(&runs), BTreeSet::new(), "{:?}", errors(&runs));
    // The app writes its storage at once: no storage check had to wait long.
    assert!(longest_storage_wait(&runs) < 2000);
}

#[test]
fn the_translated_spec_fails_where_playwright_fails_on_a_counter_off_by_one() {
    let runs = run_suite("counter", 1);
    assert_eq!(failed(&runs), playwright_fails(0));
    assert_eq!(errors(&runs).len(), 2, "{:?}", errors(&runs));
    // Each fails at the counter: its text is one too many.
    for e in errors(&runs) {
        assert!(
            e.contains("4 items left") || e.contains("2 items left"),
            "{e}"
        );
    }
}

#[test]
fn the_translated_spec_fails_where_playwright_fails_on_a_class_typo() {
    let runs = run_suite("class", 1);
    assert_eq!(failed(&runs), playwright_fails(1));
    assert_eq!(errors(&runs).len(), 4, "{:?}", errors(&runs));
    // Each fails at a class check that met the typo.
    for e in errors(&runs) {
        assert!(e.contains(r#""complete""#), "{e}");
    }
}

#[test]
fn the_translated_spec_waits_for_storage_written_late_as_playwright_does() {
    let runs = run_suite("storage", 1);
    assert_eq!(failed(&runs), playwright_fails(2), "{:?}", errors(&runs));
    // The storage checks passed by polling: some waited for a write 500 ms late.
    assert!(
        longest_storage_wait(&runs) >= 300,
        "{}",
        longest_storage_wait(&runs)
    );
}
