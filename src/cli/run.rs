//! `runner run`: load and validate every flow first, then run them and write the reports.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use serde_json::{Map, Value};

use super::args::RunArgs;
use super::error::CliError;
use super::exit::Outcome;
pub(super) use super::run_reports::{artifacts_dir, create_artifacts};
use super::select::{Filter, select, shard};
use super::{files, validate};
use crate::config::flows::{LoadedFlow, Loader, absolute};
use crate::config::profiles::Registry;
use crate::config::project::{self, ServersSpec};
use crate::config::trace_mode::TraceMode;
use crate::config::{overrides, var_file};
use crate::engine::{Ran, RunOptions, Runtime, RuntimeSettings, run_flows_closing};
use crate::report::{Console, Report, ReportTarget, Reporter, Summary};
use crate::source::Diagnostic;
use crate::step::ServerInfo;
use crate::step::{FlowResult, FlowStatus};

/// A run's settings: the command line's, else the project file's (see `config::project`),
/// else the defaults.
pub(crate) struct Settings {
    pub(crate) paths: Vec<PathBuf>,
    pub(crate) reports: Vec<String>,
    pub(crate) profiles: Vec<PathBuf>,
    pub(crate) jobs: usize,
    pub(crate) retries: u32,
    /// Which flows keep a trace.
    pub(crate) trace: TraceMode,
    pub(crate) headed: bool,
    pub(crate) cdp: Option<String>,
    /// Vars every flow has (a flow's own and `--var` win).
    pub(crate) vars: Map<String, Value>,
    /// The project file's step and browser timeouts (for flows that set none).
    pub(crate) timeouts: (Option<String>, Option<String>),
    /// The project file's `browser` settings (defaults of the flows' own).
    pub(crate) browser: Option<crate::config::project::ProjectBrowser>,
    /// The project file's run-level servers (`[[web_server]]`).
    pub(crate) servers: Option<crate::config::project::ServersSpec>,
    /// The project file's `[atlas] fingerprint`: how a new atlas tells states apart.
    pub(crate) fingerprint: Option<crate::config::project::Fingerprint>,
    /// The project file's `[atlas] secrets`: what the steps an atlas holds may read.
    pub(crate) atlas_secrets: Vec<String>,
    /// The project file used, if any (the run names it first).
    pub(crate) project_file: Option<PathBuf>,
    /// `--artifacts`: no flow is looked for under it.
    pub(crate) artifacts: Option<PathBuf>,
}

impl Settings {
    pub(crate) fn of(args: &RunArgs) -> Result<Settings, CliError> {
        let cwd = std::env::current_dir().map_err(|e| {
            CliError::Environment(format!("cannot read the current directory: {e}"))
        })?;
        let project = super::known::find_project(&cwd, &args.paths, args.browser_cdp.as_deref())
            .map_err(CliError::invalid)?;
        let f = project.as_ref().map(|p| &p.file);
        let resolve = |list: &[String]| -> Vec<PathBuf> {
            project
                .as_ref()
                .map(|p| list.iter().map(|x| p.resolve(x)).collect())
                .unwrap_or_default()
        };
        // `--watch PATHS` names flows to run too.
        let mut given = args.paths.clone();
        for p in args.watch.iter().flatten() {
            if !given.contains(p) {
                given.push(p.clone());
            }
        }
        let paths = if given.is_empty() {
            resolve(f.map_or(&[][..], |f| &f.flows))
        } else {
            given
        };
        if paths.is_empty() {
            return Err(CliError::Usage(
                "give the flow files or directories to run (or `flows` in runner.toml)".into(),
            ));
        }
        if let Some(a) = &args.artifacts {
            files::refuse_artifacts(a, &paths).map_err(CliError::Usage)?;
        }
        let reports = if args.reports.is_empty() {
            project.as_ref().map_or_else(Vec::new, |p| {
                p.file.reports.iter().map(|r| p.report(r)).collect()
            })
        } else {
            args.reports.clone()
        };
        let mut profiles = resolve(f.map_or(&[][..], |f| &f.profiles));
        profiles.extend(args.profiles.iter().cloned());
        let browser = f.and_then(|f| f.browser.as_ref());
        let cdp = args
            .browser_cdp
            .clone()
            .or_else(|| browser.and_then(|b| b.cdp.clone()));
        Ok(Settings {
            paths,
            reports,
            profiles,
            jobs: usize::from(args.jobs.or(f.and_then(|f| f.jobs)).unwrap_or(1)),
            retries: args.retries.or(f.and_then(|f| f.retries)).unwrap_or(0),
            trace: args.trace.or(f.and_then(|f| f.trace)).unwrap_or_default(),
            headed: args.headed || browser.and_then(|b| b.headed).unwrap_or(false),
            cdp: super::browser_cdp::remote_browser(cdp.as_deref())?,
            vars: f
                .map(|f| f.vars.clone().into_iter().collect())
                .unwrap_or_default(),
            timeouts: (
                f.and_then(|f| f.timeout.clone()),
                browser.and_then(|b| b.timeout.clone()),
            ),
            browser: browser.cloned(),
            servers: project.as_ref().and_then(project::Project::servers),
            fingerprint: f.and_then(|f| f.atlas.as_ref()).and_then(|a| a.fingerprint),
            atlas_secrets: f
                .and_then(|f| f.atlas.as_ref())
                .map(|a| a.secrets.clone())
                .unwrap_or_default(),
            project_file: project.as_ref().map(|p| p.path.clone()),
            artifacts: args.artifacts.clone(),
        })
    }
}

/// Runs `run`: loads and checks every flow, selects, runs, writes the reports; the outcome is
/// the results' (`outcome`), or an environment problem when a report could not be written.
/// (`run --watch` is `watch::run`, on the same parts.)
pub(crate) fn run(args: &RunArgs, reporter: &Reporter) -> Result<Outcome, CliError> {
    let s = Settings::of(args)?;
    if let Some(file) = &s.project_file {
        reporter.project_file(file);
    }
    let reports = ReportTarget::parse_all(&s.reports).map_err(CliError::Usage)?;
    let cut = shard(args)?;
    super::known::learn_secrets(&flow_files(&s)?.files);
    let overrides = parse_vars(&args.vars, &args.var_files).map_err(CliError::invalid)?;
    let registry = registry(args, &s)?;
    let flows = load(&s, &registry, &overrides, Some(reporter))?;
    let project_file = s.project_file.as_deref();
    super::run_reports::refuse_inputs(&reports, &flows, &args.var_files, project_file)?;
    let (vars, files) = (&args.vars, &args.var_files);
    overrides::type_overrides(&overrides, &flows, &s.vars, vars, files)
        .map_err(CliError::invalid)?;
    super::var_warnings::warn_about_vars(&overrides, &flows, reporter, &|k| {
        overrides::origin(k, vars, files)
    });
    super::secret_headers::warn_about_secret_headers(&flows, reporter);
    let filter = Filter::new(args)?;
    let total = flows.len() * args.repeat_each as usize;
    let tagged = select(flows.clone(), &filter, None);
    if let Some(note) = super::select::uneven(&tagged, cut) {
        reporter.warn(&note);
    }
    let root = super::run_reports::selection_root(project_file);
    let shard = super::run_reports::shard_of(args, &tagged, &root);
    let loaded = flows.clone();
    let flows = select(flows, &filter, cut);
    if args.list {
        return Ok(list(&flows, reporter));
    }
    let counts = (tagged.len(), total);
    if let Some(outcome) = nothing_to_run(&flows, counts, (args, &shard), &reports, reporter)? {
        return Ok(outcome);
    }
    let run_id = run_id();
    let artifacts = artifacts_dir(args, &run_id);
    let console = Arc::new(Console::new(*reporter, s.jobs));
    let rt = Arc::new(Runtime::new(runtime_settings(
        args, &s, registry, overrides, &run_id, &artifacts, &console,
    )));
    // Every flow loaded, not only those selected: a shard masks what the whole suite masks.
    let secrets = crate::engine::RunSecrets::declared(&rt.env, &loaded);
    if args.dry_run {
        dry_run(&rt, &flows, &secrets, reporter);
        return Ok(Outcome::Passed);
    }
    create_artifacts(&artifacts)?;
    let started = Instant::now();
    let count = flows.len() * args.repeat_each as usize;
    let (ran, interrupted, closing) = execute(rt, (flows, secrets), args, &s)?;
    let finished = Finished {
        results: ran.results,
        unstarted: ran.unstarted,
        web_servers: ran.web_servers,
        left_out: total - count,
        elapsed: started.elapsed(),
        interrupted,
    };
    let to = Conclusion {
        args,
        shard,
        reports: &reports,
        artifacts: &artifacts,
        run_id: &run_id,
        console: &console,
        reporter,
    };
    let outcome = conclude(finished, &to);
    // Nothing runner started outlives it: its browsers, and whatever lost its parent.
    closing.wait();
    crate::process::kill_all();
    Ok(outcome)
}

/// The run's browsers, still closing once its flows are done and its servers stopped (see
/// `run_flows_closing`), on the runtime that closes them.
struct Closing {
    runtime: tokio::runtime::Runtime,
    browsers: tokio::task::JoinHandle<()>,
}

impl Closing {
    /// Returns once the browsers are closed and their processes gone.
    fn wait(self) {
        let _ = self.runtime.block_on(self.browsers);
    }
}

/// What the runtime of a run is made of.
pub(super) fn runtime_settings(
    args: &RunArgs,
    s: &Settings,
    profiles: Registry,
    overrides: Map<String, Value>,
    run_id: &str,
    artifacts: &Path,
    console: &Arc<Console>,
) -> RuntimeSettings {
    RuntimeSettings {
        run_id: run_id.to_string(),
        artifacts: artifacts.to_path_buf(),
        listener: console.clone(),
        overrides,
        defaults: s.vars.clone(),
        headed: s.headed,
        trace: s.trace,
        browser_cdp: s.cdp.clone(),
        profiles,
        atlas: args.atlas.as_deref().map(absolute),
        fingerprint: s.fingerprint,
        agent_cache: args.agent_cache.mode(),
        default_agent: args.agent.clone(),
    }
}

/// What a run (or a pass of `run --watch`) did.
pub(super) struct Finished {
    pub(super) results: Vec<FlowResult>,
    /// The flows `--fail-fast` or an interrupt kept from starting.
    pub(super) unstarted: Vec<(String, PathBuf)>,
    pub(super) web_servers: Vec<ServerInfo>,
    /// The flows the filters and the shard left out.
    pub(super) left_out: usize,
    pub(super) elapsed: std::time::Duration,
    pub(super) interrupted: bool,
}

/// Where what a run did goes.
pub(super) struct Conclusion<'a> {
    pub(super) args: &'a RunArgs,
    /// Which shard the run is, and what it selected (`run_reports::shard_of`).
    pub(super) shard: Option<crate::report::Shard>,
    pub(super) reports: &'a [ReportTarget],
    pub(super) artifacts: &'a Path,
    pub(super) run_id: &'a str,
    pub(super) console: &'a Console,
    pub(super) reporter: &'a Reporter,
}

/// Writes the reports of what a run did, annotates it for GitHub and prints its summary;
/// returns its outcome (an environment problem when a report asked for was not written).
pub(super) fn conclude(f: Finished, to: &Conclusion<'_>) -> Outcome {
    let not_run = f.unstarted.len() + f.left_out;
    let summary = Summary::of(&f.results, not_run, f.elapsed, to.run_id);
    let why = if f.interrupted {
        "not run: the run was interrupted"
    } else {
        "not run: --fail-fast stopped the run after a failure"
    };
    let report = Report::of(&f.results, &summary).with_unstarted(&f.unstarted, why);
    super::servers::say_unkept_logs(&f.web_servers, to.reporter);
    let mut report = report.with_servers(f.web_servers);
    report.shard.clone_from(&to.shard);
    let mut outcome = outcome(&f.results, f.interrupted);
    if !super::run_reports::write_reports(to.reports, &report, to.artifacts, to.reporter)
        && outcome == Outcome::Passed
    {
        outcome = Outcome::EnvironmentBroken;
    }
    github(to.args, &report, to.reporter);
    to.console.summary(&f.results, &summary, to.artifacts);
    outcome
}

/// `--list`: the flows that would run, `file: name` a line.
fn list(flows: &[Arc<LoadedFlow>], reporter: &Reporter) -> Outcome {
    let mut text = String::new();
    for f in flows {
        text.push_str(&format!("{}: {}\n", f.doc.file.name(), f.flow.name));
    }
    reporter.out(&text);
    Outcome::Passed
}

/// The agent profiles (the project's `profiles/`, runner.toml's and `--profiles`), checked;
/// and `--agent` among them.
pub(super) fn registry(args: &RunArgs, s: &Settings) -> Result<Registry, CliError> {
    let (registry, diags) = validate::load_registry(&s.profiles);
    if !diags.is_empty() {
        return Err(CliError::invalid(diags));
    }
    if let Some(a) = &args.agent
        && registry.get_profile(a).is_none()
    {
        let labels: Vec<&str> = registry.labels().collect();
        return Err(CliError::Usage(format!(
            "--agent {a}: Profile config not found for {a} (known profiles: {})",
            labels.join(", ")
        )));
    }
    Ok(registry)
}

/// Every flow under the run's paths, loaded and checked: every problem in any of them is an
/// error, and nothing runs.
pub(super) fn load(
    s: &Settings,
    registry: &Registry,
    overrides: &Map<String, Value>,
    warn: Option<&Reporter>,
) -> Result<Vec<Arc<LoadedFlow>>, CliError> {
    let found = flow_files(s)?;
    if let Some(r) = warn {
        found.notes.iter().for_each(|n| r.warn(n));
    }
    let paths = found.files;
    let mut loader = Loader::new(registry)
        .with_vars(overrides.keys().chain(s.vars.keys()).cloned())
        .with_timeouts(s.timeouts.0.clone(), s.timeouts.1.clone())
        .with_browser(s.browser.clone())
        .with_servers(
            s.servers
                .as_ref()
                .map(ServersSpec::names)
                .unwrap_or_default(),
        );
    let flows: Vec<Arc<LoadedFlow>> = paths.iter().flat_map(|p| loader.load_tests(p)).collect();
    if !loader.diagnostics.is_empty() {
        let mut seen = std::collections::HashSet::new();
        let diagnostics: Vec<Diagnostic> = loader
            .diagnostics
            .into_iter()
            .filter(|d| seen.insert((d.file_name.clone(), d.span.clone(), d.message.clone())))
            .collect();
        let note = format!("{} problem(s) found; nothing was run", diagnostics.len());
        return Err(CliError::Invalid {
            diagnostics,
            note: Some(note),
        });
    }
    if let Some(r) = warn
        && let Some(w) = super::atlas_project::unnamed_atlas_secrets(&flows, &s.atlas_secrets)
    {
        r.warn(&w);
    }
    Ok(flows)
}

/// The flow files under the run's paths: files as given, and the flows under directories
/// (not their profiles or `_partial` sub-flows); with what the walk left out.
pub(super) fn flow_files(s: &Settings) -> Result<files::Collected, CliError> {
    let mut found = files::collect(&s.paths, s.artifacts.as_deref()).map_err(CliError::invalid)?;
    found.files.retain(|p| {
        s.paths.contains(p)
            || !(files::is_profile(p)
                || p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with('_')))
    });
    Ok(found)
}

/// When the selection is empty: a pass for a shard left empty (a CI matrix may have more
/// shards than flows) or with --pass-with-no-flows, else an error (a filter that matches
/// nothing is most likely a typo). `None` when there are flows to run.
fn nothing_to_run(
    flows: &[Arc<LoadedFlow>],
    (tagged, total): (usize, usize),
    (args, shard): (&RunArgs, &Option<crate::report::Shard>),
    reports: &[ReportTarget],
    reporter: &Reporter,
) -> Result<Option<Outcome>, CliError> {
    if !flows.is_empty() {
        return Ok(None);
    }
    if tagged > 0 {
        reporter.err("no flows in this shard\n");
        if args.dry_run {
            return Ok(Some(Outcome::Passed));
        }
        // Its report, all the same: the merge of the run's shards looks for it.
        let run_id = run_id();
        let artifacts = artifacts_dir(args, &run_id);
        create_artifacts(&artifacts)?;
        let at = (run_id.as_str(), artifacts.as_path());
        return Ok(Some(super::run_reports::empty_shard(
            shard.clone(),
            reports,
            total,
            at,
            reporter,
        )));
    }
    if args.pass_with_no_flows {
        reporter.err("no flow to run (--pass-with-no-flows)\n");
        return Ok(Some(Outcome::Passed));
    }
    Err(CliError::Usage(
        "no flow to run (check the paths, --tag, --exclude-tag, --grep, --grep-invert and --shard; --pass-with-no-flows makes this a pass)".into(),
    ))
}

/// `--dry-run`: each flow's plan, step by step.
fn dry_run(
    rt: &Runtime,
    flows: &[Arc<LoadedFlow>],
    secrets: &crate::engine::RunSecrets,
    reporter: &Reporter,
) {
    let mut s = String::new();
    for f in flows {
        s.push_str(&format!("{} ({})\n", f.flow.name, f.doc.file.name()));
        for line in crate::engine::plan(rt, f, secrets) {
            s.push_str(&format!("  {line}\n"));
        }
    }
    s.push_str(&format!("{} flow(s) would run\n", flows.len()));
    reporter.out(&s);
}

/// Runs the flows on the async runtime while watching for signals; waits for the browsers to
/// close. Returns what ran and whether a signal stopped the run.
fn execute(
    rt: Arc<Runtime>,
    (flows, secrets): (Vec<Arc<LoadedFlow>>, crate::engine::RunSecrets),
    args: &RunArgs,
    s: &Settings,
) -> Result<(Ran, bool, Closing), CliError> {
    let runtime = super::runtime::start()?;
    let cancel = rt.cancel.clone();
    let options = RunOptions {
        secrets,
        ..options(args, s)
    };
    let (ran, interrupted, browsers) = runtime.block_on(async {
        let watcher = tokio::spawn(super::signals::watch(cancel.clone()));
        // It returns once the servers have stopped, the browsers closing.
        let (ran, browsers) = run_flows_closing(rt, flows, options, s.servers.as_ref()).await;
        watcher.abort();
        (ran, cancel.is_cancelled(), browsers)
    });
    Ok((ran, interrupted, Closing { runtime, browsers }))
}

/// How the flows are scheduled.
pub(super) fn options(args: &RunArgs, s: &Settings) -> RunOptions {
    RunOptions {
        jobs: s.jobs,
        fail_fast: args.fail_fast,
        retries: s.retries,
        repeat_each: args.repeat_each,
        secrets: crate::engine::RunSecrets::default(),
    }
}

/// On GitHub Actions: failures annotated on their lines, and the job's summary.
fn github(args: &RunArgs, report: &Report, reporter: &Reporter) {
    let github = match args.format {
        Some(f) => f == super::args::RunFormat::Github,
        None => std::env::var("GITHUB_ACTIONS").as_deref() == Ok("true"),
    };
    if !github {
        return;
    }
    reporter.commands(&crate::report::github_annotations(report));
    if let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty()) {
        use std::io::Write;
        let appended = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|mut f| f.write_all(crate::report::github_step_summary(report).as_bytes()));
        if let Err(e) = appended {
            reporter.warn(&format!(
                "cannot write the job summary to {}: {e}",
                Path::new(&path).display()
            ));
        }
    }
}

/// Interrupted before an environment problem, before a failure, before a pass.
fn outcome(results: &[FlowResult], interrupted: bool) -> Outcome {
    if interrupted || results.iter().any(|r| r.status == FlowStatus::Interrupted) {
        Outcome::Interrupted
    } else if results.iter().any(|r| r.status == FlowStatus::Error) {
        Outcome::EnvironmentBroken
    } else if results.iter().any(|r| {
        r.error
            .as_ref()
            .is_some_and(|e| e.kind == crate::step::ErrorKind::Template)
    }) {
        // A template that cannot render outside any step (web server, vars, env) is invalid
        // input, as `validate` would say: exit 2.
        Outcome::ProblemsFound
    } else if results.iter().any(|r| r.status == FlowStatus::Failed) {
        Outcome::FlowsFailed
    } else {
        Outcome::Passed
    }
}

pub(super) fn parse_vars(
    vars: &[String],
    files: &[PathBuf],
) -> Result<Map<String, Value>, Vec<Diagnostic>> {
    let mut out = Map::new();
    for f in files {
        out.extend(var_file::read(f)?);
    }
    let mut errors = Vec::new();
    for v in vars {
        match v.split_once('=') {
            Some((k, val)) if !k.trim().is_empty() => {
                let k = k.trim();
                if let Some(problem) = var_file::name_problem(k) {
                    errors.push(
                        Diagnostic::file_error("--var", problem).with_help(var_file::NAME_HELP),
                    );
                } else if crate::template::is_template(val) {
                    // (Quoted as a name is: the value was typed, but may hold a line break.)
                    errors.push(
                        Diagnostic::file_error(
                            format!("--var `{k}`"),
                            format!(
                                "`{}` is used as written: a var given to runner takes no templates",
                                val.escape_debug()
                            ),
                        )
                        .with_help(var_file::TEMPLATE_HELP),
                    );
                } else {
                    out.insert(k.to_string(), Value::String(val.to_string()));
                }
            }
            _ => errors.push(
                Diagnostic::file_error("--var", format!("invalid --var `{v}`: expected KEY=VALUE"))
                    .with_help("for example --var base_url=http://localhost:8080"),
            ),
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// A run id: UTC time and pid, sortable and unique on one machine.
pub(super) fn run_id() -> String {
    let now = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    let compact: String = now
        .chars()
        .filter(|c| c.is_ascii_digit() || *c == 'T')
        .collect();
    format!("{compact}-{}", std::process::id())
}
