//! The command line: clap definitions, one file per subcommand, and (`exit`) the one place
//! where a subcommand's end becomes an exit code.

mod args;
mod atlas;
mod atlas_diff;
mod atlas_project;
mod browser_cdp;
mod dispatch;
mod doctor;
mod error;
pub mod exit;
mod explore;
mod files;
mod known;
mod merge;
mod merge_checks;
mod profiles;
mod run;
mod run_reports;
mod runtime;
mod schema;
mod secret_headers;
mod select;
mod servers;
mod signals;
mod skills;
mod tally;
mod validate;
mod var_warnings;
mod watch;

pub use dispatch::main;
