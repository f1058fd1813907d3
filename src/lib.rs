//! `runner`: a declarative workflow runner. Flows written in YAML or TOML are loaded, validated
//! against JSON Schemas with positions, and interpreted step by step.
//!
//! The modules depend on each other in one direction (a test checks there is no cycle):
//! `cli` -> `engine` -> the step families (`browser`, `agent`, `atlas`, `http`) -> `step`, `process`,
//! `config` -> `template` -> `source`; `report` sits beside the engine and only prints; `fs`
//! (atomic writes) is used by the atlas and the reports.

mod agent;
mod atlas;
mod browser;
pub mod cli;
mod config;
mod engine;
mod fs;
mod http;
mod process;
mod report;
mod source;
mod step;
mod template;

/// Loads and checks a flow held in memory, then renders every problem: the fuzz target's entry
/// point (it must reach the code `validate` runs). Returns the number of problems.
#[doc(hidden)]
pub fn fuzz_check(path: &std::path::Path, bytes: Vec<u8>) -> usize {
    let diags = config::flows::check_bytes(path, bytes);
    for d in &diags {
        let _ = report::human_diagnostic(d, false);
    }
    diags.len()
}
