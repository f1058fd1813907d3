//! What runner says, before a run, about the vars given to it (`--var`, `--var-file`): one no
//! flow declares or reads (a typo, most likely), one that does not change a matrix value, and
//! one a caller's `run_flow.vars` gives the sub-flow instead (the caller's value wins there).

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::config::flows::LoadedFlow;
use crate::config::model::{Action, RunFlow};
use crate::config::overrides::every_flow;
use crate::config::reads::vars_read;
use crate::report::Reporter;

/// Says what is wrong with the run's `overrides` (the run goes on); `origin` names where one
/// comes from (`--var K` or the var file). No value is shown: a var may hold a secret.
pub(super) fn warn_about_vars(
    overrides: &Map<String, Value>,
    flows: &[Arc<LoadedFlow>],
    reporter: &Reporter,
    origin: &dyn Fn(&str) -> String,
) {
    if overrides.is_empty() {
        return;
    }
    let all = every_flow(flows);
    let t = crate::template::Templates::new();
    let reads: Vec<Vec<String>> = all
        .iter()
        .map(|f| vars_read(&t, f).into_iter().map(|(k, _)| k).collect())
        .collect();
    for k in overrides.keys() {
        // A matrix value is in its test's name: `--var` leaves it as it is.
        if let Some(f) = flows.iter().find(|f| f.matrix.contains_key(k)) {
            reporter.warn(&format!(
                "--var {k} does not change the matrix value of `{}` (and the other tests of its matrix); pick a combination with --grep \"{k}=\"",
                f.flow.name
            ));
        }
        // Sub-flows at any depth: the run's vars reach them too.
        let used = all
            .iter()
            .zip(&reads)
            // (`*`: a template reads `vars` as a whole, `vars[name]`: any var may be read.)
            .any(|(f, r)| f.flow.vars.contains_key(k) || r.iter().any(|x| x == k || x == "*"));
        if !used {
            reporter.warn(&format!(
                "{} is not used by any flow (no `vars.{k}` and no `{k}` under `vars:`)",
                origin(k)
            ));
        }
    }
    warn_given_by_callers(overrides, &all, reporter, origin);
}

/// A caller's `run_flow.vars` entry is its argument to the sub-flow and wins over the run's
/// override of the same var for that call: say so, once per var and call site, at the entry.
fn warn_given_by_callers(
    overrides: &Map<String, Value>,
    all: &[&LoadedFlow],
    reporter: &Reporter,
    origin: &dyn Fn(&str) -> String,
) {
    let mut said: Vec<String> = Vec::new();
    for f in all {
        for (ptr, step) in f.flow.pointed_steps() {
            let Action::RunFlow(RunFlow::Full(o)) = &step.action else {
                continue;
            };
            let Some(sub) = f.subflows.get(o.path.as_str()) else {
                continue;
            };
            let given = o
                .vars
                .keys()
                .filter(|k| overrides.contains_key(*k) && sub.flow.vars.contains_key(*k));
            for k in given {
                let entry = format!("{ptr}/run_flow/vars/{}", crate::source::pointer_escape(k));
                let message = format!(
                    "{} is not applied to {} at {}: that `run_flow` gives `{k}` its own value, which wins for that call",
                    origin(k),
                    o.path,
                    place(f, &entry)
                );
                if !said.contains(&message) {
                    reporter.warn(&message);
                    said.push(message);
                }
            }
        }
    }
}

/// `file:line:col` of the node at `ptr` in `f`'s file (its key, when it has one).
fn place(f: &LoadedFlow, ptr: &str) -> String {
    let offset = f
        .doc
        .spans
        .nearest(ptr)
        .map_or(0, |s| s.key.as_ref().unwrap_or(&s.value).start);
    let (line, col) = f.doc.file.line_col(offset);
    format!("{}:{line}:{col}", f.doc.file.name())
}
