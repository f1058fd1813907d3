//! The context a step runs in, at three levels: the run ([`Runtime`]), the flow ([`Frame`]) and
//! the step ([`StepCtx`]); and the seam between the engine's step logic and the families that
//! carry out actions ([`Dispatch`]).

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use indexmap::IndexMap;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::artifacts;
use super::context::Scope;
use crate::browser::{BrowserHost, FlowBrowser};
use crate::config::flows::LoadedFlow;
use crate::config::model::Step;
use crate::config::profiles::Registry;
use crate::step::{FlowInfo, Listener, Masker, StepError, StepResult};
use crate::template::Templates;

/// The run's shared state and settings.
pub(crate) struct Runtime {
    pub(crate) templates: Templates,
    pub(crate) env: Arc<Map<String, Value>>,
    pub(crate) run_id: String,
    /// The run's artifacts directory (absolute).
    pub(crate) artifacts: PathBuf,
    pub(crate) cancel: CancellationToken,
    pub(crate) listener: Arc<dyn Listener>,
    /// `--var` / `--var-file` values, applied to every flow of the run (sub-flows too, where
    /// the caller's `run_flow.vars` win).
    pub(crate) overrides: Map<String, Value>,
    /// The project file's vars: every flow has them (sub-flows too); its own vars and the
    /// overrides win.
    pub(crate) defaults: Map<String, Value>,
    /// Browser resources (adapter, sockets, background closes); the runtimes of the passes of
    /// `run --watch` share them, so its browsers stay up between passes.
    pub(crate) browser: Arc<BrowserHost>,
    /// Agent profiles.
    pub(crate) profiles: Registry,
    /// `--atlas DIR`.
    pub(crate) atlas: Option<PathBuf>,
    /// How a new atlas tells states apart (runner.toml's `[atlas] fingerprint`).
    pub(crate) fingerprint: Option<crate::config::project::Fingerprint>,
    /// `--agent-cache`: how agent skill answers are cached.
    pub(crate) agent_cache: crate::agent::CacheMode,
    /// `--trace`: which flows keep a trace.
    pub(crate) trace: crate::config::trace_mode::TraceMode,
    /// The kept traces still being finished (a pass waits for them).
    pub(crate) traces: super::finishing::Finishing,
    /// The files the pass's `state.save` steps wrote, and the paths they were saved from.
    pub(crate) saved_states: crate::browser::SavedStates,
    /// `--agent`.
    pub(crate) default_agent: Option<String>,
    /// The context settings of the atlas commands' replays (no flow of the user's gives them:
    /// the project's `[browser]`, see [`super::project_setup`]).
    pub(crate) replay_setup: crate::browser::ContextSetup,
    /// How long the atlas commands' browser has to answer (the project's `[browser] timeout`,
    /// as a flow's `browser.timeout` bounds a run's).
    pub(crate) replay_timeout: std::time::Duration,
    /// Who runs each step's action: the real families ([`super::FAMILIES`]), or a fake in
    /// the engine's own tests.
    pub(crate) dispatch: &'static dyn Dispatch,
}

/// A boxed step future (it keeps the engine's own futures small).
pub(crate) type StepFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Value, StepError>> + Send + 'a>>;

/// Runs one attempt of a step's action: renders its templates and hands it to its family.
/// The engine's step logic (conditions, attempts, timeouts, outputs) sits above this seam; the
/// engine's tests put a fake family here.
pub(crate) trait Dispatch: Send + Sync {
    /// One attempt; a `run_flow` puts its sub-steps' results in `children`.
    fn run<'a>(
        &'a self,
        cx: &'a StepCtx<'a>,
        scope: &'a mut Scope,
        children: &'a mut Vec<StepResult>,
    ) -> StepFuture<'a>;

    /// Takes a flow's browser context ahead of its first browser step (see `run_flow`).
    fn prepare_browser<'a>(
        &'a self,
        browser: &'a FlowBrowser,
        host: &'a BrowserHost,
    ) -> Pin<Box<dyn Future<Output = ()> + Send + 'a>>;
}

/// A flow being run (a sub-flow has its own frame, one level deeper).
pub(crate) struct Frame<'a> {
    pub(crate) info: &'a FlowInfo,
    pub(crate) depth: usize,
    pub(crate) loaded: &'a LoadedFlow,
    pub(crate) masker: Masker,
    /// `<artifacts>/<NNN-flow>` (a sub-flow's inside its parent's).
    pub(crate) dir: PathBuf,
    pub(crate) browser: &'a FlowBrowser,
    /// The flow has `link_state` steps: record the steps it runs for the atlas's edges.
    pub(crate) records_states: bool,
    /// The flow's `env`, rendered: what its exec and agent steps get.
    pub(crate) env: IndexMap<String, String>,
    /// What stops this flow's steps: the run's interrupt, or, for `finally` after an
    /// interrupt, the end of its grace period.
    pub(crate) cancel: CancellationToken,
    /// What the names of the steps' files start with: nothing for a flow's own steps; for the
    /// steps inside a `group` or an `each`, the name of the step that holds them (and the
    /// iteration): `003-each.2.`, so they never take the names of the flow's own steps' files.
    pub(crate) prefix: String,
    /// When the `timeout` of the `group` or `each` steps around these steps runs out: no step
    /// here may take longer (none when nothing around them has a `timeout`).
    pub(crate) deadline: Option<std::time::Instant>,
    /// The web servers the flow runs against: a step that fails once one has exited says so.
    pub(crate) servers: &'a dyn ServerWatch,
    /// The origins the page may be on between the steps (a replay of an atlas's steps: see
    /// `atlas::off_origin`); none: anywhere.
    pub(crate) origins: Option<&'a [String]>,
}

/// What a failed step asks of the web servers its flow runs against (`server::Watch`; named
/// here as a trait, as the server module reads the runtime and not the other way).
pub(crate) trait ServerWatch: Sync {
    /// `e`, starting with why a server is gone when one exited by itself (the step's own error
    /// after it); as it is otherwise.
    fn blame<'s>(
        &'s self,
        e: StepError,
        masker: &'s Masker,
    ) -> Pin<Box<dyn Future<Output = StepError> + Send + 's>>;
}

/// What one step's action needs.
pub(crate) struct StepCtx<'a> {
    pub(crate) rt: &'a Runtime,
    pub(crate) frame: &'a Frame<'a>,
    pub(crate) step: &'a Step,
    /// The step's JSON pointer in its file (`/steps/3`, `/finally/0`).
    pub(crate) ptr: &'a str,
    /// Its position in the flow (steps, then `finally`).
    pub(crate) index: usize,
    /// The timeout of one attempt.
    pub(crate) timeout: Duration,
    /// Whether it is a `finally` step (or inside one).
    pub(crate) finally: bool,
}

impl StepCtx<'_> {
    /// `<flow artifacts>/NNN-<id or fallback>`: the prefix of this step's files.
    pub(crate) fn artifact(&self, fallback: &str) -> PathBuf {
        self.frame.dir.join(artifacts::step_base(
            &self.frame.prefix,
            self.index,
            self.step,
            fallback,
        ))
    }
}
