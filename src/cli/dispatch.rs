//! The command line's entry: parse it, run the subcommand, show its error, map its end to the
//! exit code.

use clap::Parser;

use super::args::{Cli, Command};
use super::error::CliError;
use super::exit::{self, Outcome};
use super::{atlas, browser_cdp, doctor, explore, merge, profiles, run, schema, validate, watch};
use crate::report::Reporter;

/// Parses the command line, runs the subcommand and shows its error if it ends with one;
/// returns the exit code (`exit::code`, the one map).
pub fn main() -> i32 {
    // A flow's command under runner's supervisor: before anything else (no parsing, no
    // guardian), as it runs once per command.
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    if args
        .first()
        .is_some_and(|a| a == crate::process::supervisor::ARG)
    {
        return crate::process::supervisor::run(&args[1..]);
    }
    // A program bound to die with runner (the Chromium runner launches): the same.
    if args
        .first()
        .is_some_and(|a| a == crate::process::bound::ARG)
    {
        return crate::process::bound::run(&args[1..]);
    }
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
        Command::Run(a) if a.watch.is_some() => watch::run(&a, reporter),
        Command::Run(a) => run::run(&a, reporter),
        Command::Validate(a) => Ok(validate::run(&a, reporter)),
        Command::Schema { which } => {
            reporter.out(schema::text(which));
            Ok(Outcome::Passed)
        }
        Command::Doctor {
            paths,
            browser_cdp: cdp,
        } => browser_cdp::remote_browser(cdp.as_deref())
            .map(|cdp| doctor::run(reporter, &paths, cdp.as_deref())),
        Command::Guardian { pid } => {
            crate::process::guardian::run(&|| crate::browser::cleanup_run(pid));
            Ok(Outcome::Passed)
        }
        Command::Atlas {
            command,
            atlas: dir,
            servers,
        } => atlas::run(&command, dir.as_deref(), &servers, reporter),
        Command::Explore {
            url,
            max_depth,
            max_nodes,
            allow_destructive,
            atlas: dir,
            fingerprint,
            agent,
            servers,
        } => explore::explore(
            &explore::ExploreArgs {
                url,
                max_depth,
                max_nodes,
                allow_destructive,
                dir,
                fingerprint,
                agent,
                servers,
            },
            reporter,
        ),
        Command::Profiles { command, profiles } => profiles::run(command, &profiles, reporter),
        Command::MergeReports { paths, report } => merge::run(&paths, &report, reporter),
    }
}
