//! The command line: clap definitions, one file per subcommand, exit codes.

pub mod args;
pub mod atlas;
pub mod doctor;
pub mod exit;
pub mod files;
pub mod run;
pub mod schema;
pub mod validate;

use clap::Parser;

use args::{Cli, Command, ProfilesCommand};
use report::Reporter;

use crate::report;

/// The async runtime of a command (2 workers: the machines runner targets have 2 cores); a
/// failure to build it is reported as an environment problem.
pub fn runtime(reporter: &Reporter) -> Result<tokio::runtime::Runtime, i32> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| {
            reporter.error(&format!("cannot start the async runtime: {e}"));
            exit::ENVIRONMENT
        })
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
    match cli.command {
        Command::Run(a) => run::run(&a, &reporter),
        Command::Validate(a) => validate::run(&a, &reporter),
        Command::Schema { which } => {
            reporter.out(schema::text(which));
            exit::SUCCESS
        }
        Command::Doctor { paths } => doctor::run(&reporter, &paths),
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
        } => atlas::explore(
            &url,
            max_depth,
            max_nodes,
            allow_destructive,
            &dir,
            &reporter,
        ),
        Command::Profiles { command, profiles } => {
            let (registry, diags) = validate::load_registry(&profiles);
            if !diags.is_empty() {
                reporter.diagnostics(&diags, args::DiagnosticFormat::Human);
                return exit::INVALID_INPUT;
            }
            match command.unwrap_or(ProfilesCommand::List) {
                ProfilesCommand::List => {
                    let mut s = String::new();
                    for p in registry.iter() {
                        let variants: Vec<&str> =
                            p.variants.iter().map(|v| v.label.as_str()).collect();
                        s.push_str(&format!(
                            "{:<14} {:<9} variants: {:<12} {}\n",
                            p.label,
                            format!("{:?}", p.kind).to_lowercase(),
                            if variants.is_empty() {
                                "-".to_string()
                            } else {
                                variants.join(",")
                            },
                            p.origin
                        ));
                    }
                    reporter.out(&s);
                    exit::SUCCESS
                }
                ProfilesCommand::Show { name } => {
                    let (label, variant) = match name.split_once('/') {
                        Some((l, v)) => (l, Some(v)),
                        None => (name.as_str(), None),
                    };
                    let Some(p) = registry.get_profile(label) else {
                        reporter.error(&format!("Profile config not found for {label}"));
                        return exit::INVALID_INPUT;
                    };
                    let cmd = match variant {
                        None => &p.command,
                        Some(v) => match p.get_variant(v) {
                            Some(var) => var.command.as_ref().unwrap_or(&p.command),
                            None => {
                                reporter
                                    .error(&format!("unknown variant `{v}` of profile `{label}`"));
                                return exit::INVALID_INPUT;
                            }
                        },
                    };
                    let mut s = format!("{} {}\n", cmd.binary, shell_words::join(&cmd.args));
                    for (k, v) in &cmd.env {
                        s.push_str(&format!("env {k}={v}\n"));
                    }
                    reporter.out(&s);
                    exit::SUCCESS
                }
            }
        }
    }
}
