//! End-to-end tests: the real `runner` binary against files under `tests/fixtures/`.

// Counts and random bytes in tests are small: their casts cannot truncate.
#![allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap
)]

mod act;
mod actions;
mod agent_lines;
mod agents;
mod architecture;
mod atlas;
mod atlas_diff;
mod atlas_drift;
mod atlas_export;
mod atlas_identity;
mod atlas_masks;
mod atlas_secrets;
mod atlas_settle;
mod atlas_shown_secrets;
mod atlas_typed_secrets;
mod atlas_verify;
mod browser;
mod checks;
mod cli;
mod common;
mod config_fields;
mod confined;
mod contexts;
mod datasette;
mod dialogs;
mod exit_codes;
mod explore_answers;
mod filters;
mod gaps;
mod golden;
mod group_finally;
mod groups;
mod history;
mod http;
mod http_redirects;
mod inputs;
mod interrupts;
mod keyboard;
mod lists;
mod mistakes;
mod model;
mod orphans;
mod page_scripts;
mod planted;
mod project_file;
mod readme;
mod refs;
mod report_paths;
mod run;
mod secret_controls;
mod secret_cuts;
mod secret_data;
mod secret_explained;
mod secret_forms;
mod secret_forms_more;
mod secret_learned_more;
mod secret_learning;
mod secret_made;
mod secret_numbers;
mod secret_pixels;
mod secret_run_wide;
mod secret_search;
mod secret_shown;
mod secrets;
mod selectors;
mod server_checks;
mod server_commands;
mod server_ownership;
mod server_readiness;
mod servers;
mod shard_sets;
mod shards;
mod silent_browsers;
mod sub_flow_keys;
mod sub_flow_vars;
mod suites;
mod template_kinds;
mod template_strict;
mod todomvc_react;
mod trace;
mod trace_pictures;
mod trace_snapshots;
mod untrusted;
mod untrusted_atlas;
mod untrusted_steps;
mod untrusted_stores;
mod vars_before_run;
mod walks;
mod watch;
