//! The watch loop. The first pass runs every selected flow; each save then loads and checks
//! every flow again (problems are shown and nothing runs, as `run` does) and runs the flows
//! that read a saved file, in the same browsers and servers ([`Warm`]): each flow of a pass
//! still gets a fresh browser context, and each pass writes its own artifacts
//! (`<artifacts>/pass-N`) and the reports asked for. An interrupt stops the pass under way,
//! closes the browsers, stops the servers and ends the watch.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Instant, SystemTime};

use serde_json::{Map, Value};

use super::affected::{affected, files_of};
use super::changes::{Batch, Changes};
use crate::cli::args::RunArgs;
use crate::cli::error::CliError;
use crate::cli::exit::Outcome;
use crate::cli::run::{
    Conclusion, Finished, Settings, artifacts_dir, conclude, create_artifacts, flow_files, load,
    options, parse_vars, registry, run_id, runtime_settings,
};
use crate::cli::select::{Filter, select, shard};
use crate::config::document::Format;
use crate::config::flows::{LoadedFlow, absolute};
use crate::config::profiles::Registry;
use crate::engine::{Runtime, Warm};
use crate::report::{Console, ReportTarget, Reporter, watch as say};

/// The flows, loaded and checked, and the vars of the var files.
type Loaded = Result<(Vec<Arc<LoadedFlow>>, Map<String, Value>), CliError>;

/// Runs `run --watch` until an interrupt (its outcome: `Interrupted`, exit 130). What is wrong
/// with the command line (a flag, a filter, the profiles) ends it at once, as `run`.
pub(crate) fn run(args: &RunArgs, reporter: &Reporter) -> Result<Outcome, CliError> {
    let s = Settings::of(args)?;
    if let Some(file) = &s.project_file {
        reporter.project_file(file);
    }
    let reports = ReportTarget::parse_all(&s.reports).map_err(CliError::Usage)?;
    let shard = shard(args)?;
    let filter = Filter::new(args)?;
    let registry = registry(args, &s)?;
    let run_id = run_id();
    let artifacts = artifacts_dir(args, &run_id);
    create_artifacts(&artifacts)?;
    let console = Arc::new(Console::new(*reporter, s.jobs));
    // Each pass reads the var files again (and shows their problems as a flow's).
    let overrides = parse_vars(&args.vars, &args.var_files).unwrap_or_default();
    let settings = runtime_settings(
        args,
        &s,
        registry.clone(),
        overrides,
        &run_id,
        &artifacts,
        &console,
    );
    let base = Arc::new(Runtime::new(settings));
    let changes = Changes::start().map_err(CliError::Environment)?;
    let runtime = crate::cli::runtime::start()?;
    let mut watch = Watch {
        args,
        s,
        filter,
        shard,
        selected: None,
        reports,
        registry,
        base,
        console,
        reporter,
        changes,
        known: BTreeSet::new(),
        pending: BTreeSet::new(),
        first: true,
        passes: 0,
    };
    let interrupted = runtime.block_on(watch.run());
    crate::process::kill_all();
    if interrupted {
        Ok(Outcome::Interrupted)
    } else {
        Err(CliError::Environment(
            "the file watcher stopped; the watch cannot go on".into(),
        ))
    }
}

/// A watch under way.
struct Watch<'a> {
    args: &'a RunArgs,
    s: Settings,
    filter: Filter<'a>,
    shard: Option<(usize, usize)>,
    /// The shard, as the last pass's reports record it (with what the watch selected).
    selected: Option<crate::report::Shard>,
    reports: Vec<ReportTarget>,
    registry: Registry,
    /// The runtime of the watch: its browsers, interrupt and artifacts directory, which every
    /// pass's runtime shares (see `Runtime::next_pass`).
    base: Arc<Runtime>,
    console: Arc<Console>,
    reporter: &'a Reporter,
    changes: Changes,
    /// The files the flows read (as of the last load without problems), the flow files under
    /// the paths and the var files: a save of one of them opens a pass.
    known: BTreeSet<PathBuf>,
    /// Files saved since the last pass: kept while the flows have problems, so the pass that
    /// runs once they are fixed runs the flows of every save.
    pending: BTreeSet<PathBuf>,
    /// No pass has run yet: the next one runs every selected flow.
    first: bool,
    passes: usize,
}

impl Watch<'_> {
    /// The first pass, then a pass for each save until an interrupt (true) or the end of the
    /// watcher (false); then the browsers close and the servers stop.
    async fn run(&mut self) -> bool {
        let cancel = self.base.cancel.clone();
        let signals = tokio::spawn(crate::cli::signals::watch(cancel.clone()));
        self.watch_paths();
        let loaded = self.load();
        let flows = loaded.as_ref().map_or(&[][..], |(f, _)| f.as_slice());
        let declared = crate::engine::RunSecrets::declared(&self.base.env, flows);
        let servers = self.s.servers.as_ref();
        let warm = Warm::start(&self.base, (flows, &declared), self.s.jobs, servers).await;
        self.handle(loaded, &warm).await;
        loop {
            let batch = tokio::select! {
                biased;
                () = cancel.cancelled() => break,
                b = self.changes.next() => b,
            };
            let Some(batch) = batch else { break };
            self.saved(batch, &warm).await;
        }
        warm.stop(&self.base).await;
        signals.abort();
        cancel.is_cancelled()
    }

    /// Saves: the flows are loaded again when one may matter; a save of a file they read, read
    /// before, or that is a flow under the paths opens a pass.
    async fn saved(&mut self, batch: Batch, warm: &Warm) {
        for why in &batch.problems {
            say::watch_problem(self.reporter, why);
        }
        let may_matter = |p: &PathBuf| self.known.contains(p) || Format::of(p).is_some();
        if !batch.paths.iter().any(may_matter) {
            return;
        }
        let before = self.known.clone();
        let loaded = self.load();
        let saved: Vec<PathBuf> = batch
            .paths
            .into_iter()
            .filter(|p| before.contains(p) || self.known.contains(p))
            .collect();
        if saved.is_empty() {
            return;
        }
        say::saved(self.reporter, SystemTime::now(), &saved);
        self.pending.extend(saved);
        self.handle(loaded, warm).await;
    }

    /// After a load: its problems, or a pass over the selected flows the saves concern (every
    /// one in the first pass).
    async fn handle(&mut self, loaded: Loaded, warm: &Warm) {
        let (flows, overrides) = match loaded {
            Ok(l) => l,
            Err(e) => {
                e.report(self.reporter);
                say::waiting(self.reporter);
                return;
            }
        };
        let all = select(flows.clone(), &self.filter, None);
        let root = crate::cli::run_reports::selection_root(self.s.project_file.as_deref());
        self.selected = crate::cli::run_reports::shard_of(self.args, &all, &root);
        let selected = select(flows.clone(), &self.filter, self.shard);
        let run: Vec<Arc<LoadedFlow>> = if self.first {
            let (vars, files) = (&self.args.vars, &self.args.var_files);
            let origin = |k: &str| crate::config::overrides::origin(k, vars, files);
            crate::cli::var_warnings::warn_about_vars(&overrides, &flows, self.reporter, &origin);
            crate::cli::secret_headers::warn_about_secret_headers(&flows, self.reporter);
            selected
        } else {
            let hit = affected(&flows, &self.pending, &self.var_files());
            selected
                .into_iter()
                .filter(|f| hit.iter().any(|h| Arc::ptr_eq(h, f)))
                .collect()
        };
        let first = std::mem::replace(&mut self.first, false);
        self.pending.clear();
        if run.is_empty() {
            say::nothing_to_run(self.reporter, first);
        } else {
            self.pass(run, overrides, warm).await;
        }
        // Not after a pass an interrupt cut short: the watch ends.
        if !self.base.cancel.is_cancelled() {
            say::waiting(self.reporter);
        }
    }

    /// Runs `flows` in the watch's browsers and servers, with their own artifacts directory;
    /// writes the reports and prints the summary.
    async fn pass(&mut self, flows: Vec<Arc<LoadedFlow>>, vars: Map<String, Value>, warm: &Warm) {
        self.passes += 1;
        let artifacts = self.base.artifacts.join(format!("pass-{}", self.passes));
        if let Err(e) = create_artifacts(&artifacts) {
            e.report(self.reporter);
            return;
        }
        let rt = Arc::new(self.base.next_pass(artifacts.clone(), vars));
        let started = Instant::now();
        let (results, unstarted) = warm.run(rt, flows, options(self.args, &self.s)).await;
        let finished = Finished {
            results,
            unstarted,
            web_servers: warm.servers(),
            left_out: 0,
            elapsed: started.elapsed(),
            interrupted: self.base.cancel.is_cancelled(),
        };
        let to = Conclusion {
            args: self.args,
            shard: self.selected.clone(),
            reports: &self.reports,
            artifacts: &artifacts,
            run_id: &self.base.run_id,
            console: &self.console,
            reporter: self.reporter,
        };
        conclude(finished, &to);
    }

    /// Loads and checks every flow, reads the var files; updates the files the watch knows and
    /// watches their directories.
    fn load(&mut self) -> Loaded {
        if let Ok(found) = flow_files(&self.s) {
            crate::cli::known::learn_secrets(&found.files);
        }
        let loaded = parse_vars(&self.args.vars, &self.args.var_files)
            .map_err(CliError::invalid)
            .and_then(|vars| {
                // What the walk leaves out is said at the first pass, not at each.
                let warn = self.first.then_some(self.reporter);
                let flows = load(&self.s, &self.registry, &vars, warn)?;
                let project_file = self.s.project_file.as_deref();
                let var_files = &self.args.var_files;
                crate::cli::run_reports::refuse_inputs(
                    &self.reports,
                    &flows,
                    var_files,
                    project_file,
                )?;
                let (given, files) = (&self.args.vars, &self.args.var_files);
                crate::config::overrides::type_overrides(&vars, &flows, &self.s.vars, given, files)
                    .map_err(CliError::invalid)?;
                Ok((flows, vars))
            });
        let mut known: BTreeSet<PathBuf> = flow_files(&self.s)
            .map(|f| f.files)
            .unwrap_or_default()
            .iter()
            .map(|f| absolute(f))
            .collect();
        known.extend(self.var_files());
        match &loaded {
            Ok((flows, _)) => flows.iter().for_each(|f| files_of(f, &mut known)),
            // What the flows read is known again once they load.
            Err(_) => known.extend(self.known.iter().cloned()),
        }
        for dir in known.iter().filter_map(|f| f.parent()) {
            self.watch_dir(dir, false);
        }
        self.known = known;
        loaded
    }

    /// Watches the run's paths: a directory with everything under it (a flow added there is
    /// run), a file through its directory; and the var files' directories.
    fn watch_paths(&mut self) {
        for p in self.s.paths.clone() {
            let p = absolute(&p);
            if p.is_dir() {
                self.watch_dir(&p, true);
            } else if let Some(dir) = p.parent() {
                self.watch_dir(dir, false);
            }
        }
        for v in self.var_files() {
            if let Some(dir) = v.parent() {
                self.watch_dir(dir, false);
            }
        }
    }

    /// Watches `dir`; a directory that exists and cannot be watched is said (one that does not
    /// exist is a missing file's, which the load reports).
    fn watch_dir(&mut self, dir: &Path, recursive: bool) {
        if let Err(why) = self.changes.watch(dir, recursive)
            && dir.is_dir()
        {
            say::watch_problem(self.reporter, &why);
        }
    }

    /// `--var-file` files (absolute).
    fn var_files(&self) -> Vec<PathBuf> {
        self.args.var_files.iter().map(|f| absolute(f)).collect()
    }
}
