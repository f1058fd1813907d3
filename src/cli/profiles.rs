//! `runner profiles list|show`.

use std::path::PathBuf;

use super::args::ProfilesCommand;
use super::error::CliError;
use super::exit::Outcome;
use super::validate;
use crate::report::Reporter;

/// Runs `profiles`.
pub(crate) fn run(
    command: Option<ProfilesCommand>,
    dirs: &[PathBuf],
    reporter: &Reporter,
) -> Result<Outcome, CliError> {
    let (registry, diags) = validate::load_registry(dirs);
    if !diags.is_empty() {
        return Err(CliError::invalid(diags));
    }
    match command.unwrap_or(ProfilesCommand::List) {
        ProfilesCommand::List => {
            let mut s = String::new();
            for p in registry.iter() {
                let variants: Vec<&str> = p.variants.iter().map(|v| v.label.as_str()).collect();
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
        }
        ProfilesCommand::Show { name } => {
            let (label, variant) = match name.split_once('/') {
                Some((l, v)) => (l, Some(v)),
                None => (name.as_str(), None),
            };
            let p = registry
                .get_profile(label)
                .ok_or_else(|| CliError::Usage(format!("Profile config not found for {label}")))?;
            let cmd = p.command_of(variant).ok_or_else(|| {
                CliError::Usage(format!(
                    "unknown variant `{}` of profile `{label}`",
                    variant.unwrap_or_default()
                ))
            })?;
            let mut s = format!("{} {}\n", cmd.binary, shell_words::join(&cmd.args));
            for (k, v) in &cmd.env {
                s.push_str(&format!("env {k}={v}\n"));
            }
            reporter.out(&s);
        }
    }
    Ok(Outcome::Passed)
}
