//! Running recorded atlas paths in process, for `atlas replay|verify` and `explore`: the engine's
//! side of [`crate::atlas::Driver`]. Recorded steps run as any flow's steps do, through the same
//! loader checks and dispatch, once `config::stored` has admitted them: they come from outside
//! the user's own files, so they may only act on the page.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;
use tokio::sync::MappedMutexGuard;

use super::lifecycle::run_in;
use super::runtime::Runtime;
use crate::atlas::{Bounds, Driver};
use crate::browser::{BrowserSpec, FlowBrowser, Session};
use crate::config::flows::{LoadedFlow, Loader};
use crate::step::{ErrorKind, FlowInfo, FlowResult, Masker, StepError};

/// Runs flows one after another in one browser session (until [`Driver::reset`]).
pub(crate) struct InProcess {
    rt: Arc<Runtime>,
    browser: FlowBrowser,
    counts: Arc<Counts>,
    /// The driver's number in its pool, which names its flows' artifacts folder
    /// (`NNN-<flow name>`): one for all its flows of a name, as nothing is kept of the run's
    /// scratch folder, and a folder per flow would only cost its removal at the end.
    slot: usize,
}

/// Drivers, flows run and browser sessions opened so far by the drivers of one pool: they name
/// the flows' files and artifacts and the sessions, which must not collide between drivers
/// that work at the same time.
#[derive(Default)]
struct Counts {
    drivers: AtomicUsize,
    runs: AtomicUsize,
    browsers: AtomicUsize,
}

impl InProcess {
    /// A driver for `rt`'s run; its first browser opens on first use.
    pub(crate) fn new(rt: Arc<Runtime>) -> InProcess {
        InProcess::with(rt, Arc::new(Counts::default()))
    }

    /// `n` drivers for `rt`'s run that may work at the same time (each its own browser
    /// context, in the run's browsers: at most `n` of them).
    pub(crate) fn pool(rt: &Arc<Runtime>, n: usize) -> Vec<InProcess> {
        let counts = Arc::new(Counts::default());
        (0..n.max(1))
            .map(|_| InProcess::with(rt.clone(), counts.clone()))
            .collect()
    }

    fn with(rt: Arc<Runtime>, counts: Arc<Counts>) -> InProcess {
        let browser = InProcess::fresh(&rt, &counts);
        let slot = counts.drivers.fetch_add(1, Ordering::Relaxed);
        InProcess {
            rt,
            browser,
            counts,
            slot,
        }
    }

    /// A browser session of its own, opened on first use.
    fn fresh(rt: &Runtime, counts: &Counts) -> FlowBrowser {
        FlowBrowser::new(
            counts.browsers.fetch_add(1, Ordering::Relaxed),
            InProcess::spec(rt),
            // The project's `[browser]` (headers, locale, viewport...), as a run's flows take it.
            rt.replay_setup.clone(),
            rt.artifacts.clone(),
        )
    }

    /// The settings of a replay's browser.
    fn spec(rt: &Runtime) -> BrowserSpec {
        rt.browser.spec(false, None, rt.replay_timeout)
    }

    /// Starts launching the driver's browser now, as a run launches its first flows' browsers
    /// at its start: what the command does before its first replay (reading the atlas, loading
    /// the first flow) is not waited for before the launch. A launch that fails is the first
    /// replay's to report; one no replay took is ended with the others (`close_all`).
    pub(crate) fn launch_ahead(&self) {
        self.rt
            .browser
            .prelaunch(InProcess::spec(&self.rt), self.rt.artifacts.clone());
    }

    /// Closes the browser and waits until its processes are gone.
    pub(crate) async fn close(self) {
        InProcess::close_all(vec![self]).await;
    }

    /// Closes the browsers of a pool's drivers, then waits until their processes are gone
    /// (only once every driver let go of its browser: the wait ends the run's browsers).
    pub(crate) async fn close_all(pool: Vec<InProcess>) {
        let Some(rt) = pool.first().map(|d| d.rt.clone()) else {
            return;
        };
        for d in pool {
            // A replay's browser saves no downloads (`ContextSetup::default`): nothing to name.
            // No flow comes after (`last`): a browser runner started is ended at once, with no
            // hand-over of its context to a next flow.
            d.browser.close(&rt.browser, &Masker::default(), true).await;
        }
        rt.browser.wait_closed().await;
    }
}

impl InProcess {
    /// Loads a flow document as `runner run` loads a file (through a file, so it is checked
    /// like any other and failures point at it); the error lists every problem. The file of a
    /// flow that loaded is removed at once (the flow is held loaded, its name kept as the
    /// flow's file): removed moments after it was written, it never reaches the disk, where one
    /// left for the scratch folder's removal at the end costs a few ms on some disks.
    fn load(&mut self, flow: &Value) -> Result<Arc<LoadedFlow>, StepError> {
        let rt = &self.rt;
        let index = self.counts.runs.fetch_add(1, Ordering::Relaxed);
        let path = rt.artifacts.join(super::artifacts::replay_file(index));
        // Whatever the atlas hands over was read from outside the user's files (an atlas, an
        // agent's answer, the agent cache, a page): it runs only if it acts on the page.
        crate::config::stored::admit_flow(flow, &path.display().to_string())
            .map_err(|m| StepError::new(ErrorKind::CommandFailed, m))?;
        let text = serde_json::to_string_pretty(flow).map_err(|e| {
            StepError::new(ErrorKind::Internal, format!("cannot write a flow: {e}"))
        })?;
        // Inside the artifacts: no symlink in its place is written through.
        crate::fs::create_artifact(&rt.artifacts, &path)
            .and_then(|mut f| {
                std::io::Write::write_all(&mut f, text.as_bytes())
                    .map_err(|e| format!("cannot write {}: {e}", path.display()))
            })
            .map_err(|why| StepError::new(ErrorKind::Environment, why))?;
        let mut loader = Loader::new(&rt.profiles);
        let loaded = loader.load(&path).ok_or_else(|| {
            let why: Vec<String> = loader
                .diagnostics
                .iter()
                .map(|d| format!("{}: {}", d.location(), d.message))
                .collect();
            StepError::new(
                ErrorKind::CommandFailed,
                format!("the steps are not a valid flow: {}", why.join("; ")),
            )
        })?;
        let _ = std::fs::remove_file(&path);
        Ok(loaded)
    }
}

type Boxed<'a, T> = Pin<Box<dyn Future<Output = Result<T, StepError>> + Send + 'a>>;

impl Driver for InProcess {
    fn run<'a>(&'a mut self, flow: &'a Value, bounds: &'a Bounds) -> Boxed<'a, FlowResult> {
        Box::pin(async move {
            let rt = self.rt.clone();
            let loaded = self.load(flow)?;
            let info = FlowInfo {
                index: self.slot,
                name: loaded.flow.name.clone(),
                file: loaded.doc.file.name().to_string(),
                steps: loaded.flow.steps.len() + loaded.flow.finally.len(),
            };
            let servers = super::server::RunServers::default();
            // The flow's steps end by the budget's deadline, counted from its first step, and
            // stop where the page leaves the bounds' origins.
            let ran = run_in(
                &rt,
                &loaded,
                &info,
                &self.browser,
                &servers,
                &bounds.masker,
                Some(bounds),
            );
            let mut result = [ran.await];
            // Its trace, when one is kept, is finished beside nothing here.
            rt.traces.done(&mut result).await;
            let [result] = result;
            Ok(result)
        })
    }

    fn check(&mut self, flow: &Value) -> Result<(), StepError> {
        self.load(flow).map(|_| ())
    }

    fn session(&mut self) -> Boxed<'_, MappedMutexGuard<'_, Session>> {
        Box::pin(async move { self.browser.session(&self.rt.browser).await })
    }

    fn reset(&mut self) -> Boxed<'_, ()> {
        Box::pin(async move {
            let fresh = InProcess::fresh(&self.rt, &self.counts);
            let old = std::mem::replace(&mut self.browser, fresh);
            old.close(&self.rt.browser, &Masker::default(), false).await;
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::profiles::Registry;
    use crate::engine::RuntimeSettings;

    /// A driver's flow that does not load is kept in the scratch folder, for its errors to
    /// point at (the flows that load leave no file: that takes a browser, as every step a replay
    /// may hold acts on the page, and is left to the atlas tests).
    #[test]
    fn a_drivers_flow_that_does_not_load_is_kept_for_its_errors() {
        let dir = tempfile::tempdir().unwrap();
        let artifacts = dir.path().join("scratch");
        std::fs::create_dir(&artifacts).unwrap();
        let rt = Arc::new(Runtime::new(RuntimeSettings {
            run_id: "t".into(),
            artifacts: artifacts.clone(),
            listener: Arc::new(crate::report::Silent),
            overrides: serde_json::Map::new(),
            headed: false,
            browser_cdp: None,
            trace: crate::config::trace_mode::TraceMode::Off,
            defaults: serde_json::Map::new(),
            profiles: Registry::default(),
            atlas: None,
            fingerprint: None,
            agent_cache: crate::agent::CacheMode::default(),
            default_agent: None,
        }));
        let mut pool = InProcess::pool(&rt, 1);
        // A flow that does not load is kept, for its errors to point at.
        // (A step runner cannot read is refused before: see `config::stored`.)
        let bad = serde_json::json!({"name": 5, "steps": [{"wait": "1ms"}]});
        let e = pool[0].check(&bad).unwrap_err();
        assert!(e.message.contains("001-replay.yaml"), "{}", e.message);
        assert!(artifacts.join("001-replay.yaml").is_file());
    }
}
