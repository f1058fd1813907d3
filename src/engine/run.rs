//! Scheduling flows: `--jobs` in parallel, `--fail-fast`, cancellation, a browser per worker.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::{Semaphore, watch};
use tokio::task::JoinHandle;

use super::browser_settings::browser_spec;
use super::job::Job;
use super::runtime::Runtime;
use super::server::{RunContext, RunServers};
use super::start::RunSecrets;
use crate::config::flows::LoadedFlow;
use crate::config::model::Action;
use crate::config::project::ServersSpec;
use crate::step::{ErrorKind, FlowInfo, FlowResult, FlowStatus, Masker, ServerInfo, StepError};

/// How to schedule a run.
#[derive(Debug, Clone)]
pub(crate) struct RunOptions {
    pub(crate) jobs: usize,
    pub(crate) fail_fast: bool,
    /// A flow that fails is run again up to this many times (`--retries`); one that then passes
    /// is flaky.
    pub(crate) retries: u32,
    /// Each flow runs this many times (`--repeat-each`), each run its own result
    /// (`name [k/n]`).
    pub(crate) repeat_each: u32,
    /// The secrets every flow loaded declares, also those the filters and the shard left out
    /// (`--grep`, `--tag`, `--shard`): a shard masks what the whole suite masks. The run's
    /// servers mask these; each pass adds its flows' own (see `Warm::run`).
    pub(crate) secrets: RunSecrets,
}

/// The saved states (absolute paths) a flow writes with literal `state: { save }` steps, and
/// the one its `browser.state` loads.
fn state_files(l: &LoadedFlow) -> (Vec<PathBuf>, Option<PathBuf>) {
    let saves = l
        .flow
        .all_steps()
        .filter_map(|s| match &s.action {
            Action::State(st) if !st.save.contains("{{") => Some(l.dir.join(&st.save)),
            _ => None,
        })
        .collect();
    let loads = l
        .flow
        .browser
        .as_ref()
        .and_then(|b| b.state.as_ref())
        .map(|s| l.dir.join(s));
    (saves, loads)
}

/// The flows in the order to run them — a flow whose `browser.state` another flow of the run
/// saves comes after that flow, the others keep their order — and, for each (by its new
/// position), the positions of the flows whose state it waits for.
fn order_by_state(flows: Vec<Arc<LoadedFlow>>) -> (Vec<Arc<LoadedFlow>>, Vec<Vec<usize>>) {
    let files: Vec<_> = flows.iter().map(|l| state_files(l)).collect();
    let deps: Vec<Vec<usize>> = files
        .iter()
        .enumerate()
        .map(|(i, (_, loads))| {
            let Some(p) = loads else { return Vec::new() };
            (0..flows.len())
                .filter(|&j| j != i && files[j].0.contains(p))
                .collect()
        })
        .collect();
    // Stable: the first flow (in the given order) whose savers are all placed goes next; a
    // cycle keeps its flows in the given order (their loads then fail with a clear error).
    let mut placed: Vec<usize> = Vec::with_capacity(flows.len());
    while placed.len() < flows.len() {
        let next = (0..flows.len())
            .filter(|i| !placed.contains(i))
            .find(|i| deps[*i].iter().all(|d| placed.contains(d)))
            .or_else(|| (0..flows.len()).find(|i| !placed.contains(i)));
        placed.extend(next);
    }
    let at = |old: usize| placed.iter().position(|&p| p == old).unwrap_or(0);
    let waits = placed
        .iter()
        .map(|&old| {
            deps[old]
                .iter()
                .map(|&d| at(d))
                .filter(|&d| d < at(old))
                .collect()
        })
        .collect();
    let ordered = placed.iter().map(|&i| flows[i].clone()).collect();
    (ordered, waits)
}

/// For each of `flows`, the position of the first flow of its group: flows joined by a saved
/// state (one saves with a literal `state: { save }` the file another's `browser.state` loads),
/// at any remove. `--shard` keeps a group in one shard, so a flow that loads a state runs
/// after the flow that saves it, never in another shard (or on a stale file).
pub(crate) fn state_groups(flows: &[Arc<LoadedFlow>]) -> Vec<usize> {
    fn first(group: &[usize], mut i: usize) -> usize {
        while group[i] != i {
            i = group[i];
        }
        i
    }
    let files: Vec<_> = flows.iter().map(|l| state_files(l)).collect();
    let mut group: Vec<usize> = (0..flows.len()).collect();
    for (i, (_, loads)) in files.iter().enumerate() {
        let Some(p) = loads else { continue };
        for j in (0..flows.len()).filter(|&j| files[j].0.contains(p)) {
            let (a, b) = (first(&group, i), first(&group, j));
            group[a.max(b)] = a.min(b);
        }
    }
    (0..flows.len()).map(|i| first(&group, i)).collect()
}

/// What a run did: the results of the flows that ran, and the flows it never started.
pub(crate) struct Ran {
    pub(crate) results: Vec<FlowResult>,
    /// The flows `--fail-fast` (after a failure) or an interrupt kept from starting: name
    /// (as reports show it) and file.
    pub(crate) unstarted: Vec<(String, std::path::PathBuf)>,
    /// The run's servers (runner.toml's `[[web_server]]`), as reports show them.
    pub(crate) web_servers: Vec<ServerInfo>,
}

/// Runs the flows; returns the results of those that ran, in the order given (flows that load
/// a state another flow saves come after it, see `order_by_state`), and those never started,
/// once the run's servers have stopped and its browsers are closed. A flow whose task panicked
/// is an `internal` error result, never dropped.
#[cfg(test)]
pub(crate) async fn run_flows(
    rt: Arc<Runtime>,
    flows: Vec<Arc<LoadedFlow>>,
    opts: RunOptions,
    servers: Option<&ServersSpec>,
) -> Ran {
    let (ran, closing) = run_flows_closing(rt, flows, opts, servers).await;
    let _ = closing.await;
    ran
}

/// As [`run_flows`], but returns once the run's servers have stopped, with its browsers still
/// closing (`closing`, a task): a browser runner started takes tens of ms to exit after its
/// SIGKILL (the kernel tearing down its memory), time the caller spends writing its reports.
/// The caller awaits `closing` before it goes on (nothing runner started outlives it).
pub(crate) async fn run_flows_closing(
    rt: Arc<Runtime>,
    flows: Vec<Arc<LoadedFlow>>,
    opts: RunOptions,
    servers: Option<&ServersSpec>,
) -> (Ran, JoinHandle<()>) {
    let warm = Warm::start(&rt, (&flows, &opts.secrets), opts.jobs, servers).await;
    // The last flow's browser is not handed over to a next flow (see `FlowBrowser::close`).
    rt.browser
        .count_flows(flows.len() * opts.repeat_each.max(1) as usize);
    let (results, unstarted) = warm.run(rt.clone(), flows, opts).await;
    let closing = tokio::spawn({
        let rt = rt.clone();
        async move { rt.browser.wait_closed().await }
    });
    let web_servers = warm.stop_servers().await;
    let ran = Ran {
        results,
        unstarted,
        web_servers,
    };
    (ran, closing)
}

/// What a run keeps up from its first flow to its last: its servers (runner.toml's
/// `[[web_server]]`) and its browsers (the runtime's [`BrowserHost`](crate::browser::BrowserHost)).
/// `run` runs its flows once in it; `run --watch` runs every pass in the same one, so a pass
/// finds its browsers launched and its servers up.
pub(crate) struct Warm {
    servers: Arc<RunServers>,
    /// The secrets the flows it started with declare (a pass adds its flows' own).
    secrets: RunSecrets,
    /// The run's one masker: its servers' logs and every flow mask with it, so what one flow's
    /// templates make of a secret is masked in the shared servers' logs and in every later
    /// flow's output too (GitHub Actions' `add-mask` is the job's, not a step's).
    masker: Masker,
}

/// What one pass over the flows did: the results of the flows that ran, and the flows never
/// started (name, file).
pub(super) type Pass = (Vec<FlowResult>, Vec<(String, PathBuf)>);

impl Warm {
    /// Starts the run's servers, while a browser per worker launches for the first flows.
    pub(crate) async fn start(
        rt: &Runtime,
        (flows, declared): (&[Arc<LoadedFlow>], &RunSecrets),
        jobs: usize,
        servers: Option<&ServersSpec>,
    ) -> Warm {
        // The browsers launch while the run's servers start.
        prelaunch(rt, &order_by_state(flows.to_vec()).0, jobs);
        // The run's servers get runner's environment, so what they print may hold any of them.
        let masker = declared.masker();
        let servers =
            RunServers::start(servers, &run_context(rt, &rt.artifacts, masker.clone())).await;
        Warm {
            servers: Arc::new(servers),
            secrets: declared.clone(),
            masker,
        }
    }

    /// The run's servers, as reports show them while they run.
    pub(crate) fn servers(&self) -> Vec<ServerInfo> {
        self.servers.info()
    }

    /// Runs the flows, each in a fresh context of a browser of the run; returns when every
    /// flow has ended, leaving the servers and browsers up.
    pub(crate) async fn run(
        &self,
        rt: Arc<Runtime>,
        flows: Vec<Arc<LoadedFlow>>,
        opts: RunOptions,
    ) -> Pass {
        let secrets = self.secrets.with(&RunSecrets::declared(&rt.env, &flows));
        secrets.add_to(&self.masker);
        let (flows, waits) = order_by_state(flows);
        // Each flow's outcome, for the flows that wait for the state it saves.
        let done: Vec<_> = flows.iter().map(|_| watch::channel(None)).collect();
        let permits = Arc::new(Semaphore::new(opts.jobs.max(1)));
        let stop = Arc::new(AtomicBool::new(false));
        let n = opts.repeat_each.max(1) as usize;
        let mut runs = flows
            .into_iter()
            .enumerate()
            .flat_map(|(at, l)| (1..=n).map(move |k| (at, l.clone(), k)));
        // Repeated runs are told apart by their names, in every report.
        let name_of = |loaded: &LoadedFlow, k: usize| {
            if n > 1 {
                format!("{} [{k}/{n}]", loaded.flow.name)
            } else {
                loaded.flow.name.clone()
            }
        };
        let mut unstarted = Vec::new();
        let mut handles = Vec::new();
        for (index, (at, loaded, k)) in runs.by_ref().enumerate() {
            let permit = tokio::select! {
                p = permits.clone().acquire_owned() => Some(p.expect("the semaphore is never closed")),
                () = rt.cancel.cancelled() => None,
            };
            let Some(permit) =
                permit.filter(|_| !stop.load(Ordering::SeqCst) && !rt.cancel.is_cancelled())
            else {
                unstarted.push((name_of(&loaded, k), loaded.path.clone()));
                break;
            };
            let name = name_of(&loaded, k);
            let job = Job {
                rt: rt.clone(),
                info: FlowInfo {
                    index,
                    name: name.clone(),
                    file: loaded.doc.file.name().to_string(),
                    steps: loaded.flow.steps.len() + loaded.flow.finally.len(),
                },
                loaded: loaded.clone(),
                retries: opts.retries,
                fail_fast: opts.fail_fast,
                signal: done[at].0.clone(),
                savers: waits[at].iter().map(|&d| done[d].1.clone()).collect(),
                stop: stop.clone(),
                servers: self.servers.clone(),
                masker: self.masker.clone(),
            };
            handles.push(((name, loaded.path.clone()), tokio::spawn(job.run(permit))));
        }
        // What the loop left: the flows after the one it stopped at.
        unstarted.extend(runs.map(|(_, l, k)| (name_of(&l, k), l.path.clone())));
        let mut results = results(handles, opts.fail_fast, &stop).await;
        // The last flows' traces may still be being finished.
        rt.traces.done(&mut results).await;
        (results, unstarted)
    }

    /// Stops the servers and closes the browsers (of `rt`, or of any runtime of a later pass:
    /// they share them); returns the servers as reports show them. Every job has ended and
    /// dropped its handle on the servers: they stop while the browsers close (runner does not
    /// go on before both are gone).
    pub(crate) async fn stop(self, rt: &Runtime) -> Vec<ServerInfo> {
        tokio::join!(self.stop_servers(), rt.browser.wait_closed()).0
    }

    /// Stops the servers (every job has ended and dropped its handle on them); returns them as
    /// reports show them. The browsers are the caller's to close.
    async fn stop_servers(self) -> Vec<ServerInfo> {
        match Arc::into_inner(self.servers) {
            Some(mut s) => s.stop().await,
            None => Vec::new(),
        }
    }
}

/// What the run's servers' templates and logs read from the run; their logs go under
/// `artifacts` (`web_server/<name>.log`), masked with `masker`.
fn run_context<'a>(
    rt: &'a Runtime,
    artifacts: &'a std::path::Path,
    masker: Masker,
) -> RunContext<'a> {
    RunContext {
        masker,
        templates: &rt.templates,
        env: &rt.env,
        run: serde_json::json!({"id": rt.run_id, "artifacts": rt.artifacts.display().to_string()}),
        artifacts,
        cancel: &rt.cancel,
    }
}

/// Starts `spec`'s servers for a command that is not `run` (`explore`, `atlas verify`), the
/// way `run` starts them, their logs under `logs`, masked with `masker` (explore's: the
/// secrets of its atlas); stop them with [`RunServers::stop`].
pub(crate) async fn start_servers(
    rt: &Runtime,
    spec: Option<&ServersSpec>,
    logs: &std::path::Path,
    masker: Masker,
) -> RunServers {
    RunServers::start(spec, &run_context(rt, logs, masker)).await
}

/// One browser per worker, launched at once, while the first flows load and start their web
/// servers: every flow after that gets a fresh context in an idle browser.
fn prelaunch(rt: &Runtime, flows: &[Arc<LoadedFlow>], jobs: usize) {
    for loaded in flows
        .iter()
        .filter(|l| l.flow.uses_browser())
        .take(jobs.max(1))
    {
        rt.browser
            .prelaunch(browser_spec(rt, loaded), loaded.dir.clone());
    }
}

/// The flows' results, in the order they were started; a task that panicked is an error result.
async fn results(
    handles: Vec<((String, PathBuf), JoinHandle<FlowResult>)>,
    fail_fast: bool,
    stop: &AtomicBool,
) -> Vec<FlowResult> {
    let mut results = Vec::new();
    for ((name, file), h) in handles {
        results.push(match h.await {
            Ok(r) => r,
            Err(e) => {
                // The permit went with the task; a panic must not pass as success.
                if fail_fast {
                    stop.store(true, Ordering::SeqCst);
                }
                panicked(name, file, &e)
            }
        });
    }
    results
}

/// The result of a flow whose task panicked (or was cancelled).
fn panicked(name: String, file: std::path::PathBuf, e: &tokio::task::JoinError) -> FlowResult {
    let why = if e.is_panic() {
        "panicked"
    } else {
        "was cancelled"
    };
    FlowResult::not_run(
        name,
        file,
        FlowStatus::Error,
        StepError::new(
            ErrorKind::Internal,
            format!("internal error: the flow's task {why}; this is a bug in runner"),
        ),
    )
}
