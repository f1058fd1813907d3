//! The run's browser resources: the adapter (found once), the private socket directory, the
//! pool of launched browsers (one per worker and launch settings, see `pool`), and the
//! browsers closing in the background.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use tokio::task::JoinHandle;

use super::worker::{BrowserSpec, Worker};
use crate::browser::driver::adapter::AgentBrowser;
use crate::step::{ErrorKind, StepError};

/// A browser being launched, and the settings it is launched with.
type Launch = (BrowserSpec, JoinHandle<Result<Worker, StepError>>);

/// Browser resources shared by the flows of a run.
pub(crate) struct BrowserHost {
    /// The run's socket directory, once made (with the adapter): its RAM-disk directory when
    /// there is a RAM disk with room, else `/tmp/rnr-<uid>/<pid>` (see `profiles`).
    socket_dir: OnceLock<PathBuf>,
    pub(crate) headed: bool,
    /// A running browser every flow connects to instead of launching one (`--browser-cdp`,
    /// `RUNNER_BROWSER_CDP`), unless its own `browser.cdp` names another.
    pub(crate) cdp: Option<String>,
    adapter: OnceLock<Result<Arc<AgentBrowser>, String>>,
    /// Launched browsers no flow is using.
    idle: Mutex<Vec<Worker>>,
    /// Browsers launched ahead of the flows that will use them.
    launching: Mutex<Vec<Launch>>,
    /// Browsers launched so far (names their sessions).
    launched: AtomicUsize,
    /// Closes under way; each says whether its browser answered.
    closers: Mutex<Vec<JoinHandle<bool>>>,
    /// Browsers that could not be had (a launch or a connection that failed) or a running
    /// browser found gone (stopped, out of reach, exited), and why: every later flow that needs
    /// one of these fails at once with that error, instead of waiting for it again.
    broken: Mutex<Vec<(BrowserSpec, StepError)>>,
    /// A launch failed or was given up (an interrupt): its daemon may be stuck connecting to a
    /// browser that does not answer, and such a daemon does not end on SIGTERM, so the run's
    /// processes get no grace at its end (see `end_processes`).
    unanswered: AtomicBool,
    /// The flow runs of the run that have not ended, when `run` counts them (0: not counted;
    /// `run --watch` keeps its browsers for its next pass): the last one need not hand its
    /// browser over to a next flow (see `only_flow_left`).
    flows_left: AtomicUsize,
}

/// A launch awaited by a flow: ended if the flow stops waiting for it (an interrupt), so no
/// launch goes on unowned.
struct AbortOnDrop<T>(JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Set when dropped before `done` is called with a success: a launch that failed or was given
/// up (see `BrowserHost::unanswered`).
struct Unfinished<'a>(&'a AtomicBool, bool);

impl Unfinished<'_> {
    fn done(mut self, ok: bool) {
        self.1 = ok;
    }
}

impl Drop for Unfinished<'_> {
    fn drop(&mut self) {
        if !self.1 {
            self.0.store(true, Ordering::SeqCst);
        }
    }
}

/// The parent of every run's socket directory: short, so socket paths stay under 104 bytes.
fn sockets_root() -> PathBuf {
    PathBuf::from(format!("/tmp/rnr-{}", nix::unistd::getuid()))
}

impl BrowserHost {
    /// Resources for this process's run; stale daemons of dead runs are reaped first.
    pub(crate) fn new(headed: bool, cdp: Option<String>) -> BrowserHost {
        reap_stale();
        BrowserHost {
            socket_dir: OnceLock::new(),
            headed,
            cdp,
            adapter: OnceLock::new(),
            idle: Mutex::new(Vec::new()),
            launching: Mutex::new(Vec::new()),
            launched: AtomicUsize::new(0),
            closers: Mutex::new(Vec::new()),
            broken: Mutex::new(Vec::new()),
            unanswered: AtomicBool::new(false),
            flows_left: AtomicUsize::new(0),
        }
    }

    /// The adapter, or the environment error saying how to install agent-browser.
    pub(crate) fn adapter(&self) -> Result<Arc<AgentBrowser>, StepError> {
        let r = self.adapter.get_or_init(|| {
            if self.headed
                && std::env::var_os("DISPLAY").is_none()
                && std::env::var_os("WAYLAND_DISPLAY").is_none()
                && !crate::process::on_path("Xvfb")
            {
                return Err("headed mode needs a display: set DISPLAY, install xvfb, or drop --headed / browser.headed".into());
            }
            let dir = self.socket_dir.get_or_init(socket_dir);
            if !dir.is_dir() {
                private_dir(&sockets_root()).map_err(|e| e.to_string())?;
                std::fs::create_dir_all(dir)
                    .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            }
            AgentBrowser::new(dir.clone()).map(Arc::new).map_err(|e| e.to_string())
        });
        r.clone()
            .map_err(|m| StepError::new(ErrorKind::Environment, m))
    }

    /// A session name for the next browser: `r<pid>-w<n>`.
    fn next_name(&self) -> String {
        let n = self.launched.fetch_add(1, Ordering::SeqCst) + 1;
        format!("r{}-w{n}", std::process::id())
    }

    /// Starts launching a browser with these settings for a flow that will run soon (at the
    /// start of a run, one per worker), so the flow's first step does not wait for it. A launch
    /// that fails is reported by the first flow that takes it.
    pub(crate) fn prelaunch(&self, spec: BrowserSpec, cwd: PathBuf) {
        let Ok(adapter) = self.adapter() else { return };
        let name = self.next_name();
        let h = tokio::spawn(Worker::launch(adapter, name, spec.clone(), cwd));
        if let Ok(mut l) = self.launching.lock() {
            l.push((spec, h));
        }
    }

    /// The spec of a flow's browser: a running one to connect to (the flow's `browser.cdp`,
    /// else the run's) within `timeout` (the flow's `browser.timeout`), else one launched here,
    /// headed when asked.
    pub(crate) fn spec(
        &self,
        headed: bool,
        cdp: Option<&str>,
        timeout: std::time::Duration,
    ) -> BrowserSpec {
        match cdp.map(str::to_string).or_else(|| self.cdp.clone()) {
            Some(url) => BrowserSpec {
                headed: false,
                cdp: Some(url),
                timeout,
            },
            None => BrowserSpec {
                headed: self.headed || headed,
                cdp: None,
                timeout,
            },
        }
    }

    /// A browser with these settings for a flow: an idle one, else one being launched, else a
    /// new one; or, when a browser with these settings could not be had or was found gone
    /// earlier in the run, that error at once. A launch that fails for the environment's
    /// reasons is remembered so.
    pub(crate) async fn acquire(
        &self,
        spec: &BrowserSpec,
        cwd: PathBuf,
    ) -> Result<Worker, StepError> {
        if let Some(e) = self.broken(spec) {
            return Err(e);
        }
        let pending = Unfinished(&self.unanswered, false);
        let launched = self.take(spec, cwd).await;
        pending.done(launched.is_ok());
        if let Err(e) = &launched
            && e.kind == ErrorKind::Environment
        {
            self.remember(spec, e);
        }
        launched
    }

    /// Why browsers with these settings cannot be had, when an earlier flow found so.
    fn broken(&self, spec: &BrowserSpec) -> Option<StepError> {
        let broken = self.broken.lock().ok()?;
        let (_, e) = broken.iter().find(|(s, _)| s == spec)?;
        let mut e = e.clone();
        e.message = format!(
            "{} (found by an earlier flow of this run: not waited for again)",
            e.message
        );
        Some(e)
    }

    /// Remembers why browsers with these settings cannot be had (the first reason stays).
    fn remember(&self, spec: &BrowserSpec, e: &StepError) {
        if let Ok(mut broken) = self.broken.lock()
            && !broken.iter().any(|(s, _)| s == spec)
        {
            broken.push((spec.clone(), e.clone()));
        }
    }

    /// An idle browser with these settings, else one being launched, else a new one.
    async fn take(&self, spec: &BrowserSpec, cwd: PathBuf) -> Result<Worker, StepError> {
        let idle = self.idle.lock().ok().and_then(|mut idle| {
            let i = idle.iter().position(|w| w.spec == *spec)?;
            Some(idle.swap_remove(i))
        });
        if let Some(w) = idle {
            return Ok(w);
        }
        let launch = self.launching.lock().ok().and_then(|mut l| {
            let i = l.iter().position(|(s, _)| s == spec)?;
            Some(l.swap_remove(i).1)
        });
        if let Some(h) = launch {
            let mut h = AbortOnDrop(h);
            return (&mut h.0).await.map_err(|e| {
                StepError::new(
                    ErrorKind::Internal,
                    format!("internal error: a browser launch did not finish: {e}"),
                )
            })?;
        }
        Box::pin(Worker::launch(
            self.adapter()?,
            self.next_name(),
            spec.clone(),
            cwd,
        ))
        .await
    }

    /// A flow is done with its browser: kept for the next flow, or (it did not answer)
    /// closed. A running browser elsewhere (`cdp`) found gone is not connected to again in this
    /// run (a browser runner launches is replaced by a fresh one).
    pub(crate) fn release(&self, worker: Worker, healthy: bool) {
        if worker.spec.cdp.is_some()
            && let Some(e) = worker.gone_error()
        {
            self.remember(&worker.spec, &e);
        }
        if healthy && let Ok(mut idle) = self.idle.lock() {
            idle.push(worker);
            return;
        }
        self.close_later(worker);
    }

    /// Counts the `n` flow runs of a run (see `flows_left`).
    pub(crate) fn count_flows(&self, n: usize) {
        self.flows_left.store(n, Ordering::SeqCst);
    }

    /// A flow run has ended, after its retries (uncounted runs are not counted down).
    pub(crate) fn flow_ended(&self) {
        let _ = self
            .flows_left
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1));
    }

    /// Whether the flow asking is the only one of the run left, so that no flow takes a browser
    /// after it (unless it is retried): false when the runs are not counted.
    pub(crate) fn only_flow_left(&self) -> bool {
        self.flows_left.load(Ordering::SeqCst) == 1
    }

    /// Closes a browser off the critical path.
    pub(crate) fn close_later(&self, worker: Worker) {
        let h = tokio::spawn(worker.close());
        if let Ok(mut c) = self.closers.lock() {
            c.push(h);
        }
    }

    /// Closes every browser (idle, being launched, closing) and waits until their processes are
    /// gone, then removes the socket directory.
    pub(crate) async fn wait_closed(&self) {
        let idle: Vec<Worker> = self
            .idle
            .lock()
            .map(|mut i| i.drain(..).collect())
            .unwrap_or_default();
        for w in idle {
            self.close_later(w);
        }
        let launching: Vec<Launch> = self
            .launching
            .lock()
            .map(|mut l| l.drain(..).collect())
            .unwrap_or_default();
        for (_, h) in launching {
            // A launch still under way is not waited for (the run may be ending on an
            // interrupt): its processes are ended below with the others of this run.
            if !h.is_finished() {
                h.abort();
                self.unanswered.store(true, Ordering::SeqCst);
            } else if let Ok(Ok(w)) = h.await {
                self.close_later(w);
            }
        }
        let mut answered = true;
        let handles: Vec<JoinHandle<bool>> = self
            .closers
            .lock()
            .map(|mut c| c.drain(..).collect())
            .unwrap_or_default();
        for h in handles {
            answered &= h.await.unwrap_or(false);
        }
        let answered = answered && !self.unanswered.load(Ordering::SeqCst);
        // (No socket directory: no browser was asked for, and nothing was started.)
        if let Some(dir) = self.socket_dir.get() {
            end_processes(dir, answered).await;
            let _ = std::fs::remove_dir_all(dir);
            super::profiles::remove(dir);
        }
    }
}

/// This run's socket directory (not made yet): its RAM-disk directory (made) when there is a
/// RAM disk with room, else `/tmp/rnr-<uid>/<pid>`.
fn socket_dir() -> PathBuf {
    let name = std::process::id().to_string();
    super::profiles::run_dir(&name).unwrap_or_else(|| sockets_root().join(name))
}

/// Ends every process started for the browsers of socket directory `dir` once they were asked
/// to close (`answered`: every browser answered): the daemons are sent SIGTERM, and runner does
/// not go on before they and their browsers have exited. Every one of them carries `dir` in its
/// environment. A browser that did not answer `close` is wedged: it gets no grace.
async fn end_processes(dir: &std::path::Path, answered: bool) {
    kill_daemons(dir);
    let grace = if answered { 3000 } else { 200 };
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_millis(grace);
    loop {
        let left = processes_of(dir);
        if left.is_empty() {
            return;
        }
        if tokio::time::Instant::now() >= deadline {
            for pid in left {
                let _ = nix::sys::signal::kill(
                    nix::unistd::Pid::from_raw(pid),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
            return;
        }
        // Those found are looked at until they are gone (a look at each costs little; a scan
        // of every process's environment, several ms on a busy machine), then the scan runs
        // again for any others.
        while left.iter().any(|p| crate::process::is_live(*p))
            && tokio::time::Instant::now() < deadline
        {
            tokio::time::sleep(std::time::Duration::from_millis(2)).await;
        }
    }
}

/// Starts a headless browser the way a run does (see `pool`), or connects to the running one
/// `cdp` names, and closes it (a connected one only disconnects): `runner doctor`'s browser
/// check. Returns how long the start took.
pub(crate) async fn launch_check(
    adapter: AgentBrowser,
    cdp: Option<String>,
    timeout: std::time::Duration,
) -> Result<std::time::Duration, StepError> {
    let started = std::time::Instant::now();
    let name = format!("doctor{}", std::process::id());
    let spec = BrowserSpec {
        headed: false,
        cdp,
        timeout,
    };
    let dir = adapter.socket_dir().to_path_buf();
    let launched = Worker::launch(Arc::new(adapter), name, spec, std::env::temp_dir()).await;
    let took = started.elapsed();
    // Whatever the launch started (a daemon, a browser), closed or not, ends here: `close`
    // gives up on a daemon that does not answer in time, and a failed launch may have left one.
    let (answered, result) = match launched {
        Ok(worker) => (worker.close().await, Ok(took)),
        Err(e) => (false, Err(e)),
    };
    end_processes(&dir, answered).await;
    super::profiles::remove(&dir);
    result
}

/// Makes sure `dir` is this user's alone (created 0700 if missing): the browsers' sockets live
/// there, and another local user must not be able to plant or reach them.
fn private_dir(dir: &std::path::Path) -> Result<(), PrivateDirError> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    let path = dir.to_path_buf();
    if !dir.exists() {
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(dir)
            .or_else(|e| if dir.is_dir() { Ok(()) } else { Err(e) })
            .map_err(|source| PrivateDirError::Create {
                path: path.clone(),
                source,
            })?;
    }
    let meta = std::fs::symlink_metadata(dir).map_err(|source| PrivateDirError::Read {
        path: path.clone(),
        source,
    })?;
    let uid = nix::unistd::getuid().as_raw();
    if !meta.is_dir() || meta.uid() != uid || meta.mode() & 0o022 != 0 {
        return Err(PrivateDirError::NotPrivate {
            path,
            owner: meta.uid(),
            mode: meta.mode() & 0o777,
        });
    }
    Ok(())
}

/// Why the directory of the browsers' sockets cannot be used.
#[derive(Debug, thiserror::Error)]
enum PrivateDirError {
    #[error("cannot create {}: {source}", path.display())]
    Create {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error("{} is not a private directory of this user (owner {owner}, mode {mode:o}): remove it, or run as its owner", path.display())]
    NotPrivate {
        path: std::path::PathBuf,
        owner: u32,
        mode: u32,
    },
}

/// Ends what the run of runner `pid` left of its browsers (the guardian calls it once that
/// runner is gone): its daemons, every process carrying its socket directory (either place it
/// may be: see `socket_dir`), the directory.
pub(crate) fn cleanup_run(pid: u32) {
    // A run's, and `doctor`'s browser check's (see `cli::doctor::launch_check`).
    let dirs = [pid.to_string(), format!("doctor-{pid}")].map(|d| sockets_root().join(d));
    for dir in dirs
        .iter()
        .flat_map(|d| std::iter::once(d.clone()).chain(super::profiles::ram_dir(d)))
    {
        kill_daemons(&dir);
        for p in processes_of(&dir) {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(p),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Live processes (not zombies) whose environment names `socket_dir` as their socket directory.
fn processes_of(socket_dir: &std::path::Path) -> Vec<i32> {
    let needle = format!("AGENT_BROWSER_SOCKET_DIR={}", socket_dir.display());
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            crate::process::is_live(*pid)
                && std::fs::read(format!("/proc/{pid}/environ"))
                    .is_ok_and(|env| env.split(|b| *b == 0).any(|kv| kv == needle.as_bytes()))
        })
        .collect()
}

/// SIGTERMs the agent-browser daemons whose pid files are in `dir` (their browsers go with them).
fn kill_daemons(dir: &std::path::Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "pid") {
            crate::browser::driver::daemon::terminate(&p);
        }
    }
}

/// Socket directories (and RAM-disk directories) of runs whose runner is gone: their daemons are
/// ended, the directory removed.
fn reap_stale() {
    for dir in super::profiles::stale() {
        kill_daemons(&dir);
        let _ = std::fs::remove_dir_all(dir);
    }
    let Ok(entries) = std::fs::read_dir(sockets_root()) else {
        return;
    };
    for e in entries.flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        if u32::try_from(pid).is_ok_and(|p| p == std::process::id())
            || std::path::Path::new(&format!("/proc/{pid}")).exists()
        {
            continue;
        }
        kill_daemons(&e.path());
        let _ = std::fs::remove_dir_all(e.path());
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_socket_root_others_can_write_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        let mine = d.path().join("mine");
        super::private_dir(&mine).unwrap();
        assert_eq!(
            std::fs::metadata(&mine).unwrap().permissions().mode() & 0o777,
            0o700
        );
        let open = d.path().join("open");
        std::fs::create_dir(&open).unwrap();
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
        let err = super::private_dir(&open).unwrap_err().to_string();
        assert!(err.contains("is not a private directory"), "{err}");
    }
}
