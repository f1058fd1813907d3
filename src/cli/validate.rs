//! `runner validate`: check flows and profiles (and `.env` var files named to it), print every
//! problem, exit 2 if any.

use std::path::PathBuf;

use super::args::ValidateArgs;
use super::exit::Outcome;
use super::files;
use crate::config::flows::Loader;
use crate::config::profiles::{self, Registry};
use crate::config::var_file;
use crate::report::Reporter;
use crate::source::Diagnostic;

/// Validates; prints every problem in the format asked for. Problems found are the outcome,
/// not an error: they are already shown.
pub(crate) fn run(args: &ValidateArgs, reporter: &Reporter) -> Outcome {
    // The project file: checked itself, and its flows, profiles and vars used.
    let project = match std::env::current_dir()
        .map_err(|_| Vec::new())
        .and_then(|cwd| super::known::find_project(&cwd, &args.paths, None))
    {
        Ok(p) => p,
        Err(d) => {
            reporter.diagnostics(&d, args.format);
            reporter.validate_summary(1, d.len(), args.format);
            return Outcome::ProblemsFound;
        }
    };
    let paths = match (&project, args.paths.is_empty()) {
        (_, false) => args.paths.clone(),
        (Some(p), true) if !p.file.flows.is_empty() => {
            p.file.flows.iter().map(|f| p.resolve(f)).collect()
        }
        _ => vec![PathBuf::from(".")],
    };
    let vars: Vec<String> = project
        .as_ref()
        .map(|p| p.file.vars.keys().cloned().collect())
        .unwrap_or_default();
    let mut profile_dirs: Vec<PathBuf> = project
        .as_ref()
        .map(|p| p.file.profiles.iter().map(|d| p.resolve(d)).collect())
        .unwrap_or_default();
    profile_dirs.extend(args.profiles.iter().cloned());
    let files = match files::collect(&paths, None) {
        Ok(f) => {
            f.notes.iter().for_each(|n| reporter.warn(n));
            f.files
        }
        Err(d) => {
            reporter.diagnostics(&d, args.format);
            return Outcome::ProblemsFound;
        }
    };
    super::known::learn_secrets(&files);
    let (registry, mut diags) = load_registry(&profile_dirs);
    let servers = project
        .as_ref()
        .and_then(crate::config::project::Project::servers)
        .map(|s| s.names())
        .unwrap_or_default();
    diags.extend(check_files(&files, &registry, &vars, &servers));
    reporter.diagnostics(&diags, args.format);
    if files.is_empty() && diags.is_empty() {
        // Nothing checked is no pass (as `run` finding no flow): a path that holds no flow file.
        reporter.error("no flow file found to validate (check the paths given)");
        return Outcome::ProblemsFound;
    }
    reporter.validate_summary(files.len(), diags.len(), args.format);
    // The problems were printed in the format asked for; the code says whether there were any.
    if diags.is_empty() {
        Outcome::Passed
    } else {
        Outcome::ProblemsFound
    }
}

/// Profiles: built-in, then `./profiles` (when it is the user's own, or the working
/// directory's owner's: [`Registry::load_found`]), then each `--profiles DIR`.
pub(crate) fn load_registry(extra: &[PathBuf]) -> (Registry, Vec<Diagnostic>) {
    use std::os::unix::fs::MetadataExt;
    let also = std::fs::metadata(".").ok().map(|m| m.uid());
    Registry::load_found(Some((std::path::Path::new("profiles"), also)), extra)
}

/// Validates files in parallel (one chunk per core) and returns every problem, in file order.
pub(crate) fn check_files(
    files: &[PathBuf],
    registry: &Registry,
    vars: &[String],
    servers: &[String],
) -> Vec<Diagnostic> {
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .min(files.len().max(1));
    let chunk = files.len().div_ceil(threads).max(1);
    let mut results: Vec<Vec<Diagnostic>> = Vec::new();
    std::thread::scope(|s| {
        let handles: Vec<_> = files
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    let mut out = Vec::new();
                    for f in part {
                        out.extend(check_file(f, registry, vars, servers));
                    }
                    out
                })
            })
            .collect();
        for h in handles {
            results.push(h.join().unwrap_or_default());
        }
    });
    results.into_iter().flatten().collect()
}

fn check_file(
    path: &std::path::Path,
    registry: &Registry,
    vars: &[String],
    servers: &[String],
) -> Vec<Diagnostic> {
    if files::is_profile(path) {
        return profiles::load_file(path).err().unwrap_or_default();
    }
    // A `.env` file named on the command line: checked as `run --var-file` reads it.
    if var_file::is_env_file(path) {
        return var_file::read(path).err().unwrap_or_default();
    }
    let mut loader = Loader::new(registry)
        .with_vars(vars.iter().cloned())
        .with_servers(servers.iter().cloned());
    loader.load_tests(path);
    // Sub-flows' own problems are reported when those files are validated themselves, or here
    // when they are not part of the set.
    let mut seen = std::collections::HashSet::new();
    loader
        .diagnostics
        .into_iter()
        .filter(|d| seen.insert((d.file_name.clone(), d.span.clone(), d.message.clone())))
        .collect()
}
