//! The one place that sends a step's action to the family that carries it out, and the
//! runtime that uses it.

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::context::Scope;
use super::render::render_action;
use super::runtime::{Dispatch, Runtime, StepCtx, StepFuture};
use super::{builtins, families};
use std::future::Future;
use std::pin::Pin;

use crate::agent::CacheMode;
use crate::browser::{BrowserHost, FlowBrowser};
use crate::config::action::Family;
use crate::config::model::Action;
use crate::config::profiles::Registry;
use crate::config::trace_mode::TraceMode;
use crate::step::{Listener, StepError, StepResult};
use crate::template::Templates;

/// What a command decides about a run.
pub(crate) struct RuntimeSettings {
    pub(crate) run_id: String,
    /// The artifacts directory (absolute).
    pub(crate) artifacts: PathBuf,
    pub(crate) listener: Arc<dyn Listener>,
    pub(crate) overrides: Map<String, Value>,
    pub(crate) headed: bool,
    /// Which flows keep a trace.
    pub(crate) trace: TraceMode,
    /// A running browser to connect to instead of launching one (`--browser-cdp`).
    pub(crate) browser_cdp: Option<String>,
    /// Vars every flow has (the project file's); a flow's own and the overrides win.
    pub(crate) defaults: Map<String, Value>,
    pub(crate) profiles: Registry,
    pub(crate) atlas: Option<PathBuf>,
    /// How a new atlas tells states apart (runner.toml's `[atlas] fingerprint`).
    pub(crate) fingerprint: Option<crate::config::project::Fingerprint>,
    /// `--agent-cache`.
    pub(crate) agent_cache: CacheMode,
    /// `--agent`: the profile `act` steps ask when neither they nor their flow name one.
    pub(crate) default_agent: Option<String>,
}

impl Runtime {
    /// A runtime with the real step families, the process environment, and a fresh
    /// cancellation token.
    pub(crate) fn new(s: RuntimeSettings) -> Runtime {
        Runtime {
            templates: Templates::new(),
            env: Arc::new(process_env()),
            run_id: s.run_id,
            artifacts: s.artifacts,
            cancel: CancellationToken::new(),
            listener: s.listener,
            overrides: s.overrides,
            defaults: s.defaults,
            browser: Arc::new(BrowserHost::new(s.headed, s.browser_cdp.clone())),
            profiles: s.profiles,
            atlas: s.atlas,
            fingerprint: s.fingerprint,
            agent_cache: s.agent_cache,
            trace: s.trace,
            traces: super::finishing::Finishing::default(),
            saved_states: crate::browser::SavedStates::default(),
            default_agent: s.default_agent,
            replay_setup: crate::browser::ContextSetup::default(),
            replay_timeout: super::attempts::BROWSER_TIMEOUT,
            dispatch: &FAMILIES,
        }
    }

    /// The runtime of another pass over the flows (`run --watch`): its own artifacts
    /// directory and `--var-file` values (read again), the rest of this one's, with the same
    /// browsers and the same interrupt.
    pub(crate) fn next_pass(&self, artifacts: PathBuf, overrides: Map<String, Value>) -> Runtime {
        Runtime {
            templates: Templates::new(),
            env: self.env.clone(),
            run_id: self.run_id.clone(),
            artifacts,
            cancel: self.cancel.clone(),
            listener: self.listener.clone(),
            overrides,
            defaults: self.defaults.clone(),
            browser: self.browser.clone(),
            profiles: self.profiles.clone(),
            atlas: self.atlas.clone(),
            fingerprint: self.fingerprint,
            agent_cache: self.agent_cache,
            trace: self.trace,
            traces: super::finishing::Finishing::default(),
            saved_states: crate::browser::SavedStates::default(),
            default_agent: self.default_agent.clone(),
            replay_setup: self.replay_setup.clone(),
            replay_timeout: self.replay_timeout,
            dispatch: self.dispatch,
        }
    }
}

/// The real families.
pub(crate) struct Families;

/// The dispatcher every run uses.
pub(crate) static FAMILIES: Families = Families;

impl Dispatch for Families {
    fn run<'a>(
        &'a self,
        cx: &'a StepCtx<'a>,
        scope: &'a mut Scope,
        children: &'a mut Vec<StepResult>,
    ) -> StepFuture<'a> {
        Box::pin(async move {
            // A step that holds steps renders its own parts when it needs them.
            if cx.step.action.family() == Family::Control {
                return super::control::run(cx, scope, children).await;
            }
            let action = render_action(cx, &scope.context())?;
            run_family(cx, action, scope, children).await
        })
    }

    fn prepare_browser<'a>(
        &'a self,
        browser: &'a FlowBrowser,
        host: &'a BrowserHost,
    ) -> Pin<Box<dyn Future<Output = ()> + Send + 'a>> {
        Box::pin(browser.prepare(host))
    }
}

/// Runs a rendered action in its family.
pub(crate) async fn run_family(
    cx: &StepCtx<'_>,
    action: Action,
    scope: &mut Scope,
    children: &mut Vec<StepResult>,
) -> Result<Value, StepError> {
    match action.family() {
        Family::Browser => families::browser(cx, action).await,
        Family::Agent => families::agent(cx, action, scope).await,
        Family::Act => families::act(cx, action, scope).await,
        Family::State => families::state(cx, action, scope).await,
        Family::Http => families::http(cx, action).await,
        Family::Core => builtins::run(cx, action, scope, children).await,
        // Run before rendering (see `Families::run`): never rendered as a whole.
        Family::Control => Err(StepError::new(
            crate::step::ErrorKind::Internal,
            format!(
                "internal error: `{}` holds steps and is not dispatched",
                action.key()
            ),
        )),
    }
}

/// The process environment as a JSON map.
fn process_env() -> Map<String, Value> {
    std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, Value::String(v.into_string().ok()?))))
        .collect()
}
