//! The command line: clap definitions, one file per subcommand, and the one place where a
//! subcommand's end becomes an exit code.

mod args;
mod atlas;
mod doctor;
mod error;
mod exit;
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

use crate::report::{DiagnosticFormat, Reporter};

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

/// Parses the command line and runs the subcommand; returns the exit code.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() {
                exit::INVALID_INPUT
            } else {
                exit::SUCCESS
            };
            let _ = e.print();
            return code;
        }
    };
    let reporter = Reporter::from_env();
    let result = match cli.command {
        Command::Run(a) => run::run(&a, &reporter),
        Command::Validate(a) => Ok(validate::run(&a, &reporter)),
        Command::Schema { which } => {
            reporter.out(schema::text(which));
            Ok(exit::SUCCESS)
        }
        Command::Doctor { paths, browser_cdp } => remote_browser(browser_cdp.as_deref())
            .map(|cdp| doctor::run(&reporter, &paths, cdp.as_deref())),
        Command::Guardian { pid } => Ok(crate::process::guardian::run(&|| {
            crate::browser::cleanup_run(pid);
        })),
        Command::Atlas {
            command,
            atlas: dir,
        } => atlas::run(&command, &dir, &reporter),
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
            &reporter,
        ),
        Command::Profiles { command, profiles } => profiles::run(command, &profiles, &reporter),
        Command::MergeReports { paths, report } => merge::run(&paths, &report, &reporter),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            match &e {
                CliError::Invalid { diagnostics, note } => {
                    reporter.diagnostics(diagnostics, DiagnosticFormat::Human);
                    if let Some(n) = note {
                        reporter.error(n);
                    }
                }
                other => reporter.error(&other.to_string()),
            }
            e.exit_code()
        }
    }
}
