//! The only code that writes to the terminal: diagnostics, live progress (indicatif bars in a
//! terminal, plain lines in CI), summaries; and the report files (JSON, JUnit, HTML).

mod atlas_diff;
mod atlas_diff_html;
mod console;
mod diagnostics;
mod files;
mod github;
mod html;
mod json;
mod junit;
mod model;
mod ours;
mod reads;
mod reporter;
mod silent;
mod status;
mod summary;
pub(crate) mod watch;

pub(crate) use atlas_diff::atlas_diff_text;
pub(crate) use atlas_diff_html::atlas_diff_html;
pub(crate) use console::Console;
pub(crate) use diagnostics::human as human_diagnostic;
pub(crate) use files::{ReportTarget, write_json};
pub(crate) use github::{annotations as github_annotations, step_summary as github_step_summary};
pub(crate) use model::{Counts, Flow, Report, Selection, Shard, Step};
pub(crate) use ours::{
    Kind as OwnKind, is_runner_report, refusal as own_refusal, stamp as stamp_export,
};
pub(crate) use reads::Reads;
pub(crate) use reporter::{DiagnosticFormat, Known, Reporter, known_secrets};
pub(crate) use silent::Silent;
pub(crate) use status::Status;
pub(crate) use summary::Summary;
