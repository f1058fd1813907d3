//! The command line: clap definitions, one file per subcommand, and (`exit`) the one place
//! where a subcommand's end becomes an exit code.

mod args;
mod atlas;
mod doctor;
mod error;
pub mod exit;
mod files;
mod merge;
mod profiles;
mod run;
mod schema;
mod signals;
mod validate;

use clap::Parser;

use args::{Cli, Command};
use error::CliError;
use exit::Outcome;

use crate::report::Reporter;

/// The async runtime of a command (2 workers: the machines runner targets have 2 cores).
fn runtime() -> Result<tokio::runtime::Runtime, CliError> {
    // Whatever runner starts from here on is ended by the guardian if runner dies.
    crate::process::guardian::start();
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| CliError::Environment(format!("cannot start the async runtime: {e}")))
}

/// A running browser's DevTools endpoint (`--browser-cdp`, `RUNNER_BROWSER_CDP`): empty is none;
/// anything but an `http(s)://` or `ws(s)://` URL is refused, not tried.
pub(crate) fn remote_browser(url: Option<&str>) -> Result<Option<String>, CliError> {
    let Some(url) = url.map(str::trim).filter(|u| !u.is_empty()) else {
        return Ok(None);
    };
    let ok = ["http://", "https://", "ws://", "wss://"]
        .iter()
        .any(|s| url.starts_with(s) && url.len() > s.len());
    if !ok {
        return Err(CliError::Usage(format!(
            "--browser-cdp / RUNNER_BROWSER_CDP: `{url}` is not a DevTools endpoint: give http://host:port or a ws:// URL"
        )));
    }
    Ok(Some(url.to_string()))
}

/// Parses the command line, runs the subcommand and shows its error if it ends with one;
/// returns the exit code (`exit::code`, the one map).
pub fn main() -> i32 {
    let reporter = Reporter::from_env();
    let end = match Cli::try_parse() {
        Ok(cli) => dispatch(cli.command, &reporter),
        // `--help` and `--version` come back as clap errors that print to stdout.
        Err(e) if !e.use_stderr() => {
            let _ = e.print();
            Ok(Outcome::Passed)
        }
        Err(e) => Err(CliError::Arguments(e)),
    };
    if let Err(e) = &end {
        e.report(&reporter);
    }
    exit::code(&end)
}

/// Runs one subcommand.
fn dispatch(command: Command, reporter: &Reporter) -> Result<Outcome, CliError> {
    match command {
        Command::Run(a) => run::run(&a, reporter),
        Command::Validate(a) => Ok(validate::run(&a, reporter)),
        Command::Schema { which } => {
            reporter.out(schema::text(which));
            Ok(Outcome::Passed)
        }
        Command::Doctor { paths, browser_cdp } => remote_browser(browser_cdp.as_deref())
            .map(|cdp| doctor::run(reporter, &paths, cdp.as_deref())),
        Command::Guardian { pid } => {
            crate::process::guardian::run(&|| crate::browser::cleanup_run(pid));
            Ok(Outcome::Passed)
        }
        Command::Atlas {
            command,
            atlas: dir,
        } => atlas::run(&command, &dir, reporter),
        Command::Explore {
            url,
            max_depth,
            max_nodes,
            allow_destructive,
            atlas: dir,
            agent,
        } => atlas::explore(
            &atlas::ExploreArgs {
                url,
                max_depth,
                max_nodes,
                allow_destructive,
                dir,
                agent,
            },
            reporter,
        ),
        Command::Profiles { command, profiles } => profiles::run(command, &profiles, reporter),
        Command::MergeReports { paths, report } => merge::run(&paths, &report, reporter),
    }
}
