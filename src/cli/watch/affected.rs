//! Which flows a save runs again: those that read a saved file (their own, a sub-flow's at any
//! depth), and every flow when a var file (which every flow gets) was saved.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;

use crate::config::flows::LoadedFlow;

/// The files `flow` reads: its own and its sub-flows' (`run_flow` with a literal path), at
/// every depth.
pub(super) fn files_of(flow: &LoadedFlow, out: &mut BTreeSet<PathBuf>) {
    out.insert(flow.path.clone());
    for sub in flow.subflows.values() {
        // Sub-flows form no cycle (the loader refuses one), but several may share a file.
        if !out.contains(&sub.path) {
            files_of(sub, out);
        }
    }
}

/// The flows to run again after `saved` (in their order): every one when a var file is among
/// them, else those that read a saved file.
pub(super) fn affected(
    flows: &[Arc<LoadedFlow>],
    saved: &BTreeSet<PathBuf>,
    var_files: &[PathBuf],
) -> Vec<Arc<LoadedFlow>> {
    if var_files.iter().any(|v| saved.contains(v)) {
        return flows.to_vec();
    }
    flows
        .iter()
        .filter(|f| {
            let mut read = BTreeSet::new();
            files_of(f, &mut read);
            !read.is_disjoint(saved)
        })
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::flows::{Loader, absolute};
    use crate::config::profiles::Registry;

    /// `a.yaml` runs `_shared.yaml`, which runs `_deep.yaml`; `b.yaml` runs nothing.
    fn flows(dir: &std::path::Path) -> Vec<Arc<LoadedFlow>> {
        let w = |name: &str, text: &str| std::fs::write(dir.join(name), text).unwrap();
        w("a.yaml", "name: a\nsteps:\n  - run_flow: _shared.yaml\n");
        w("b.yaml", "name: b\nsteps:\n  - log: b\n");
        w(
            "_shared.yaml",
            "name: shared\nsteps:\n  - run_flow: _deep.yaml\n",
        );
        w("_deep.yaml", "name: deep\nsteps:\n  - log: deep\n");
        let registry = Registry::default();
        let mut loader = Loader::new(&registry);
        let out: Vec<_> = ["a.yaml", "b.yaml"]
            .iter()
            .flat_map(|n| loader.load_tests(&dir.join(n)))
            .collect();
        assert!(loader.diagnostics.is_empty(), "{:?}", loader.diagnostics);
        out
    }

    fn names(flows: &[Arc<LoadedFlow>]) -> Vec<&str> {
        flows.iter().map(|f| f.flow.name.as_str()).collect()
    }

    #[test]
    fn a_save_runs_the_flows_that_read_the_file_at_any_depth() {
        let d = tempfile::tempdir().unwrap();
        let dir = absolute(d.path());
        let all = flows(&dir);
        let saved = |n: &str| BTreeSet::from([dir.join(n)]);
        assert_eq!(names(&affected(&all, &saved("_deep.yaml"), &[])), ["a"]);
        assert_eq!(names(&affected(&all, &saved("b.yaml"), &[])), ["b"]);
        assert!(affected(&all, &saved("other.yaml"), &[]).is_empty());
    }

    #[test]
    fn a_saved_var_file_runs_every_flow() {
        let d = tempfile::tempdir().unwrap();
        let dir = absolute(d.path());
        let all = flows(&dir);
        let vars = dir.join("vars.env");
        let run = affected(&all, &BTreeSet::from([vars.clone()]), &[vars]);
        assert_eq!(names(&run), ["a", "b"]);
    }
}
