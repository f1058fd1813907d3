//! `atlas replay` and `atlas verify`: replay the path to a node in a fresh browser and check
//! that the state it arrives at has the node's fingerprint (origins aside, so a replay may run
//! against another server), saying what differs: in its structure (a failure), or only in its
//! data (drift, reported).

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::time::Duration;

use tokio::sync::MappedMutexGuard;

use super::export::{export_flow, export_last_link};
use super::fingerprint::{Fingerprint, fingerprint, without_origin};
use super::identity::{self, StateDiff};
use super::label::Labels;
use super::record::arrived_state;
use super::secrets::{atlas_masker, secret_value};
use super::store::{Atlas, AtlasError};
use crate::browser::Session;
use crate::step::{ErrorKind, FlowResult, FlowStatus, Masker, Outcome, StepError};

type Boxed<'a, T> = Pin<Box<dyn Future<Output = Result<T, StepError>> + Send + 'a>>;

/// Runs recorded steps in a browser. The engine provides the implementation, so recorded steps
/// run exactly as a flow's steps do; the atlas does not depend on the engine.
pub(crate) trait Driver: Send {
    /// Runs a flow document in the current browser session, as `bounds` says.
    fn run<'a>(
        &'a mut self,
        flow: &'a serde_json::Value,
        bounds: &'a Bounds,
    ) -> Boxed<'a, FlowResult>;
    /// Checks a flow document as `run` would load it, without running it: every problem, in
    /// the error.
    fn check(&mut self, flow: &serde_json::Value) -> Result<(), StepError>;
    /// The current browser session (opened on first use).
    fn session(&mut self) -> Boxed<'_, MappedMutexGuard<'_, Session>>;
    /// Closes the current browser: the next run starts in a fresh one.
    fn reset(&mut self) -> Boxed<'_, ()>;
}

/// How a flow read from an atlas runs.
#[derive(Debug, Clone, Default)]
pub(crate) struct Bounds {
    /// Masks from the flow's first step: the atlas's secrets ([`atlas_masker`]); the flow's
    /// own are added to it as it starts.
    pub(crate) masker: Masker,
    /// What the flow's steps may take, all together (none: only each step is bounded).
    pub(crate) budget: Option<Duration>,
    /// The origins the page may be on between the steps and when it is read: the atlas's and
    /// `[atlas] origins` (see [`Atlas::allowed_origins`]); none: anywhere (a flow not read
    /// from an atlas).
    pub(crate) origins: Option<Vec<String>>,
}

impl Bounds {
    /// A replay's: the atlas's secrets masked, and `timeout` for each of the `states` on the
    /// path the flow runs (the root's entry, each link) and one more (so that no step of a
    /// path that keeps to its bound has its own cut short): an atlas may hold an edge of any
    /// number of steps, each within its own bound, and a path must still end.
    pub(crate) fn replay(
        atlas: &Atlas,
        timeout: Duration,
        states: usize,
    ) -> Result<Bounds, AtlasError> {
        let states = u32::try_from(states.saturating_add(1)).unwrap_or(u32::MAX);
        Ok(Bounds {
            masker: atlas_masker(atlas)?,
            budget: Some(timeout.saturating_mul(states)),
            origins: None,
        })
    }

    /// `message`, with why the flow failed when its budget ran out by `elapsed`.
    fn explain(&self, message: String, elapsed: Duration, timeout: Duration) -> String {
        match self.budget {
            Some(b) if elapsed >= b => format!(
                "{message} (the path took longer than the replay allows: {}, `--timeout` {} for each state on it and one more)",
                humantime::format_duration(b),
                humantime::format_duration(timeout)
            ),
            _ => message,
        }
    }
}

/// Where a replay ended up.
#[derive(Debug, Clone)]
pub(crate) enum Arrival {
    /// At the node.
    Arrived,
    /// All steps ran, but the state differs (the page changed).
    Elsewhere { node_id: String },
    /// A step failed, or the browser could not be driven.
    Failed { message: String },
}

impl Arrival {
    /// Whether the replay reached its node.
    pub(crate) fn ok(&self) -> bool {
        matches!(self, Arrival::Arrived)
    }

    /// A line saying what happened.
    pub(crate) fn describe(&self, node: &str) -> String {
        match self {
            Arrival::Arrived => format!("arrived at {node}"),
            Arrival::Elsewhere { node_id } => {
                format!("arrived at {node_id}, not {node} (the page changed)")
            }
            Arrival::Failed { message } => message.clone(),
        }
    }
}

/// The result of replaying the path to one node: the flow run, where it arrived, and how the
/// state found differs from the one recorded (when the replay got to read it and something
/// differs: the structure, or only data).
pub(crate) struct Replayed {
    pub(crate) node_id: String,
    pub(crate) flow: FlowResult,
    pub(crate) arrival: Arrival,
    pub(crate) diff: Option<StateDiff>,
}

impl Replayed {
    /// What happened, then what differs, a line each (indented).
    pub(crate) fn describe(&self) -> String {
        let mut s = self.arrival.describe(&self.node_id);
        for l in self.diff.iter().flat_map(StateDiff::lines) {
            s.push_str("\n  ");
            s.push_str(&l);
        }
        s
    }

    /// The flow's result, named after the node (`<id> <label>`), with the arrival check
    /// folded in: a replay that ran but arrived elsewhere is a failed flow, whose error says
    /// what differs; the differences go into the result (`state`) either way.
    pub(crate) fn into_result(mut self, labels: &Labels) -> FlowResult {
        self.flow.name = format!("{} {}", self.node_id, labels.get(&self.node_id));
        if let Arrival::Elsewhere { .. } = &self.arrival {
            self.flow.status = FlowStatus::Failed;
            self.flow.error = Some(StepError::new(ErrorKind::Assertion, self.describe()));
        }
        self.flow.state = self.diff.and_then(|d| serde_json::to_value(d).ok());
        self.flow
    }
}

/// The state a replay must arrive at: the node as recorded, and how the atlas tells states
/// apart.
struct Expected {
    mode: Fingerprint,
    url: String,
    /// The recorded snapshot (none in an atlas that lost it: then only its fingerprint counts).
    snapshot: Option<String>,
    fingerprint: String,
    data: Vec<String>,
}

impl Expected {
    /// Node `node` as recorded, masked with `masker` (the replay's) as the page found is: a
    /// node recorded before the atlas named a secret the page shows holds it as shown (the
    /// atlas names grow with each recording run); masked, it is neither shown nor drift.
    fn of(atlas: &Atlas, node: &str, masker: &Masker) -> Result<Expected, AtlasError> {
        let mut meta = atlas.meta(node)?;
        meta.url = masker.mask(&meta.url);
        let mode = atlas.fingerprint()?;
        let snapshot = atlas.snapshot(node)?.map(|s| masker.mask(&s));
        // Made again from the recording, so it is what this runner makes of that page.
        let fingerprint = without_origin(&match &snapshot {
            Some(s) => fingerprint(mode, &meta.url, s).0,
            None => masker.mask(&meta.fingerprint),
        });
        let data = snapshot
            .as_deref()
            .map(|s| identity::data(&meta.url, s))
            .unwrap_or_default();
        Ok(Expected {
            mode,
            url: meta.url,
            snapshot,
            fingerprint,
            data,
        })
    }

    /// Whether a page is the node, and shows the data it was recorded with: then a replay is
    /// done at once; a page with other data is read until it settles, so the drift reported is
    /// the page's and not a half-loaded one's.
    fn shown(&self, url: &str, text: &str) -> bool {
        self.is(url, text)
            && (self.mode == Fingerprint::Text || identity::data(url, text) == self.data)
    }

    fn is(&self, url: &str, text: &str) -> bool {
        without_origin(&fingerprint(self.mode, url, text).0) == self.fingerprint
    }

    /// How the state found differs from this one; `None` when it does not.
    fn diff(&self, url: &str, text: &str) -> Option<StateDiff> {
        let recorded = self.snapshot.as_deref()?;
        let d = identity::diff(
            self.mode,
            identity::Recorded {
                url: &self.url,
                snapshot: recorded,
            },
            identity::Recorded {
                url,
                snapshot: text,
            },
        );
        (!d.lines().is_empty()).then_some(d)
    }
}

/// Where a replay starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Start {
    /// In a fresh browser: the whole path to the node is replayed.
    Fresh,
    /// Where the driver's browser is: at the state before the node on its path, reached by a
    /// replay of that state's own path from a fresh browser (and nothing since but the read
    /// that checked it). Only the last link's steps are run: the node's path is its parent's
    /// and that link, so this is the node's own replay.
    Parent,
}

/// Replays the path to `node` (from `start`) and checks the state it arrives at; each step of
/// the path and the check on arrival take at most `timeout`, and the path's steps all together
/// at most `timeout` for each state on it and one more (see [`Bounds::replay`]).
pub(crate) async fn replay(
    driver: &mut dyn Driver,
    atlas: &Atlas,
    node: &str,
    start: Start,
    base_url: Option<&str>,
    timeout: Duration,
) -> Result<Replayed, AtlasError> {
    let flow = match start {
        Start::Fresh => export_flow(atlas, node, base_url),
        Start::Parent => export_last_link(atlas, node, base_url),
    };
    // A path holding a step runner does not run fails its node, as a step that fails does.
    let mut flow = match flow {
        Err(AtlasError::Refused(message)) => {
            let arrival = Arrival::Failed { message };
            return Ok(Replayed {
                node_id: node.to_string(),
                flow: not_reached(atlas, node, &arrival),
                arrival,
                diff: None,
            });
        }
        other => other?,
    };
    bound_steps(&mut flow, timeout);
    let states = match start {
        Start::Fresh => atlas.path_to_node(node)?.len(),
        Start::Parent => 1,
    };
    let mut bounds = Bounds::replay(atlas, timeout, states)?;
    bounds.origins = Some(atlas.allowed_origins(node, base_url)?);
    add_secrets_of(&flow, &bounds.masker);
    let expected = Expected::of(atlas, node, &bounds.masker)?;
    if start == Start::Fresh {
        driver.reset().await.ok();
    }
    let started = std::time::Instant::now();
    // A browser that failed the replay (it exited, or does not answer) is no verdict on the
    // app: it stops the command, the node counted neither way (see `AtlasError::Browser`).
    let browser = |message: String| AtlasError::Browser {
        node: format!("{node} ({})", Labels::one(atlas, node)),
        message,
    };
    let (flow, arrival, diff) = match driver.run(&flow, &bounds).await {
        Err(e) if e.kind == ErrorKind::Environment => return Err(browser(e.message)),
        Err(e) => (None, Arrival::Failed { message: e.message }, None),
        Ok(r) if r.status != FlowStatus::Passed => {
            // Not blamed on the path's length either: the budget ran out waiting on it.
            if environment(&r) {
                return Err(browser(failure(&r)));
            }
            let message = bounds.explain(failure(&r), started.elapsed(), timeout);
            (Some(r), Arrival::Failed { message }, None)
        }
        Ok(r) => {
            let (arrival, diff) = arrive(driver, &expected, &bounds, timeout)
                .await
                .map_err(|e| browser(e.message))?;
            (Some(r), arrival, diff)
        }
    };
    let flow = flow.unwrap_or_else(|| not_reached(atlas, node, &arrival));
    Ok(Replayed {
        node_id: node.to_string(),
        flow,
        arrival,
        diff,
    })
}

/// The result of a replay whose flow did not run: failed, saying why.
fn not_reached(atlas: &Atlas, node: &str, arrival: &Arrival) -> FlowResult {
    not_run(
        format!("reach {node}"),
        atlas.root.clone(),
        StepError::new(ErrorKind::CommandFailed, arrival.describe(node)),
    )
}

/// Gives every step of `flow` at most `timeout` (a step from outside has no `timeout` of its
/// own: see `config::stored`): the flow's `defaults.timeout` (in the schema's form), or the
/// flow's own when it is shorter (a saved test's `defaults.timeout: 100h` does not lift it).
pub(crate) fn bound_steps(flow: &mut serde_json::Value, timeout: Duration) {
    let Some(flow) = flow.as_object_mut() else {
        return;
    };
    let defaults = flow
        .entry("defaults")
        .or_insert_with(|| serde_json::json!({}));
    if let Some(d) = defaults.as_object_mut() {
        let own = d
            .get("timeout")
            .and_then(serde_json::Value::as_str)
            .and_then(|t| crate::config::duration::parse_duration(t).ok());
        if own.is_none_or(|own| own > timeout) {
            d.insert(
                "timeout".into(),
                format!("{}ms", timeout.as_millis()).into(),
            );
        }
    }
}

/// Adds to `masker` the secrets the replayed flow declares (read from the environment, as the
/// engine reads them): the state found goes into reports, where a secret must not.
fn add_secrets_of(flow: &serde_json::Value, masker: &Masker) {
    for name in flow["secrets"].as_array().into_iter().flatten() {
        if let Some(v) = name.as_str().and_then(secret_value) {
            masker.add(&v);
        }
    }
}

/// Reads the state the replay arrived at (done as soon as the page shows the node, else once
/// it has settled elsewhere, within `timeout`), its secrets masked as the recording's were,
/// and judges it. The error: the browser's failure (an error of kind `Environment`: it exited,
/// or does not answer), which is not the app's.
async fn arrive(
    driver: &mut dyn Driver,
    expected: &Expected,
    bounds: &Bounds,
    timeout: Duration,
) -> Result<(Arrival, Option<StateDiff>), StepError> {
    let masker = &bounds.masker;
    let awaited = |url: &str, text: &str| expected.shown(url, text);
    let seen = match driver.session().await {
        // A read that failed may have met a browser that is gone: then that is the error.
        Ok(mut s) => match arrived_state(&mut s, masker, timeout, &awaited).await {
            Err(e) => Err(s.why_failed(e).await),
            seen => seen,
        },
        Err(e) => Err(e),
    };
    Ok(match seen {
        // A page another origin shows is not read: nothing of it is shown as drift.
        Ok(st) if let Some(why) = super::store::off_origin(&st.url, bounds.origins.as_deref()) => {
            (Arrival::Failed { message: why }, None)
        }
        Ok(st) => {
            let diff = expected.diff(&st.url, &st.text);
            let arrival = if expected.is(&st.url, &st.text) {
                Arrival::Arrived
            } else {
                Arrival::Elsewhere {
                    node_id: fingerprint(expected.mode, &st.url, &st.text).1,
                }
            };
            (arrival, diff)
        }
        Err(e) if e.kind == ErrorKind::Environment => return Err(e),
        Err(e) => (Arrival::Failed { message: e.message }, None),
    })
}

/// Waits, up to `within`, for the page to be node `node` (as a replay's arrival check reads it,
/// masked with `masker` as it was recorded): a path whose last step started a navigation the
/// browser began late (a loaded machine) has not arrived yet when its steps are done, and the
/// page it was leaving is still shown, settled. `Ok(None)` once it is the node, or once the
/// page has stayed at the node's address for `SAME_ADDRESS` (the state shows other content when
/// replayed — server-side state, a first-visit banner gone — and its todos are done from the
/// page the path reached, as recorded, rather than dropped); else the URL the page settled at
/// instead.
pub(crate) async fn await_arrival(
    session: &mut Session,
    atlas: &Atlas,
    node: &str,
    masker: &Masker,
    within: Duration,
) -> Result<Option<String>, StepError> {
    let expected = Expected::of(atlas, node, masker)?;
    let awaited = |url: &str, text: &str| expected.is(url, text);
    let deadline = tokio::time::Instant::now() + within;
    let mut at_address_since = None;
    loop {
        let seen = arrived_state(session, masker, within, &awaited).await?;
        if expected.is(&seen.url, &seen.text) {
            return Ok(None);
        }
        let now = tokio::time::Instant::now();
        if without_origin(&seen.url) == without_origin(&expected.url) {
            if now - *at_address_since.get_or_insert(now) >= SAME_ADDRESS {
                return Ok(None);
            }
        } else {
            at_address_since = None;
        }
        if now >= deadline {
            return Ok(Some(seen.url));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// How long a replayed path's page stays at its state's address, showing other content, before
/// it is taken as arrived (see `await_arrival`).
const SAME_ADDRESS: Duration = Duration::from_secs(1);

/// Whether a flow that did not pass was ended by its browser (or what else it needed): an
/// error of kind `Environment`, the flow's own or its failed step's, which `runner run` exits 3
/// for.
pub(crate) fn environment(r: &FlowResult) -> bool {
    let of = |e: &Option<StepError>| e.as_ref().is_some_and(|e| e.kind == ErrorKind::Environment);
    of(&r.error)
        || r.steps
            .iter()
            .any(|s| s.conclusion == Outcome::Failed && of(&s.error))
}

/// What failed in a replay's flow.
pub(crate) fn failure(r: &FlowResult) -> String {
    let step = r.steps.iter().find(|s| s.conclusion == Outcome::Failed);
    match (step, &r.error) {
        (Some(s), _) => format!(
            "step `{}` failed: {}",
            s.name,
            s.error.as_ref().map_or("", |e| e.message.as_str())
        ),
        (None, Some(e)) => e.message.clone(),
        (None, None) => format!("the replay {}", r.status.as_str()),
    }
}

/// A flow that did not get to run: failed, saying why.
pub(crate) fn not_run(name: String, file: PathBuf, error: StepError) -> FlowResult {
    FlowResult::not_run(name, file, FlowStatus::Failed, error)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn a_stored_default_timeout_never_lifts_the_replays_bound() {
        let five = std::time::Duration::from_secs(5);
        for (given, kept) in [
            (json!({"steps": []}), "5000ms"),
            (
                json!({"defaults": {"timeout": "100h"}, "steps": []}),
                "5000ms",
            ),
            (
                json!({"defaults": {"timeout": "nonsense"}, "steps": []}),
                "5000ms",
            ),
            (json!({"defaults": {"timeout": "2s"}, "steps": []}), "2s"),
        ] {
            let mut flow = given.clone();
            super::bound_steps(&mut flow, five);
            assert_eq!(flow["defaults"]["timeout"], kept, "{given}");
        }
    }
}
