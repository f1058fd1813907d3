//! `atlas replay` and `atlas verify`: replay the path to a node in a fresh browser and check
//! that the state it arrives at has the node's fingerprint (origins aside, so a replay may run
//! against another server).

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use tokio::sync::MappedMutexGuard;

use super::export::export_flow;
use super::fingerprint::{fingerprint, without_origin};
use super::record::arrived_state;
use super::store::{Atlas, AtlasError};
use crate::browser::Session;
use crate::step::{ErrorKind, FlowResult, FlowStatus, Masker, Outcome, StepError};

type Boxed<'a, T> = Pin<Box<dyn Future<Output = Result<T, StepError>> + Send + 'a>>;

/// Runs recorded steps in a browser. The engine provides the implementation, so recorded steps
/// run exactly as a flow's steps do; the atlas does not depend on the engine.
pub(crate) trait Driver: Send {
    /// Runs a flow document in the current browser session.
    fn run<'a>(&'a mut self, flow: &'a serde_json::Value) -> Boxed<'a, FlowResult>;
    /// Checks a flow document as `run` would load it, without running it: every problem, in
    /// the error.
    fn check(&mut self, flow: &serde_json::Value) -> Result<(), StepError>;
    /// The current browser session (opened on first use).
    fn session(&mut self) -> Boxed<'_, MappedMutexGuard<'_, Session>>;
    /// Closes the current browser: the next run starts in a fresh one.
    fn reset(&mut self) -> Boxed<'_, ()>;
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

/// The result of replaying the path to one node: the flow run, and where it arrived.
pub(crate) struct Replayed {
    pub(crate) node_id: String,
    pub(crate) flow: FlowResult,
    pub(crate) arrival: Arrival,
}

impl Replayed {
    /// The flow's result, named after the node (`<id> <title> <path>`), with the arrival check
    /// folded in: a replay that ran but arrived elsewhere is a failed flow.
    pub(crate) fn into_result(mut self, atlas: &Atlas) -> FlowResult {
        self.flow.name = format!(
            "{} {}",
            self.node_id,
            super::view::label(atlas, &self.node_id)
        );
        if let Arrival::Elsewhere { .. } = &self.arrival {
            self.flow.status = FlowStatus::Failed;
            self.flow.error = Some(StepError::new(
                ErrorKind::Assertion,
                self.arrival.describe(&self.node_id),
            ));
        }
        self.flow
    }
}

/// Replays the path to `node` in a fresh browser and checks the state it arrives at.
pub(crate) async fn replay(
    driver: &mut dyn Driver,
    atlas: &Atlas,
    node: &str,
    base_url: Option<&str>,
) -> Result<Replayed, AtlasError> {
    let flow = export_flow(atlas, node, base_url)?;
    let expected = without_origin(&atlas.meta(node)?.fingerprint);
    driver.reset().await.ok();
    let arrival = match driver.run(&flow).await {
        Err(e) => (None, Arrival::Failed { message: e.message }),
        Ok(r) if r.status != FlowStatus::Passed => {
            let message = failure(&r);
            (Some(r), Arrival::Failed { message })
        }
        Ok(r) => {
            // Done as soon as the page shows the node (else once it has settled elsewhere).
            let at_node =
                |url: &str, text: &str| without_origin(&fingerprint(url, text).0) == expected;
            let seen = match driver.session().await {
                Ok(mut s) => arrived_state(
                    &mut s,
                    &Masker::default(),
                    Duration::from_secs(15),
                    &at_node,
                )
                .await
                .map(|st| fingerprint(&st.url, &st.text)),
                Err(e) => Err(e),
            };
            let arrival = match seen {
                Ok((fp, _)) if without_origin(&fp) == expected => Arrival::Arrived,
                Ok((_, id)) => Arrival::Elsewhere { node_id: id },
                Err(e) => Arrival::Failed { message: e.message },
            };
            (Some(r), arrival)
        }
    };
    let (flow, arrival) = arrival;
    let flow = flow.unwrap_or_else(|| FlowResult {
        name: format!("reach {node}"),
        file: atlas.root.clone(),
        status: FlowStatus::Failed,
        duration: Duration::ZERO,
        steps: Vec::new(),
        error: Some(StepError::new(
            ErrorKind::CommandFailed,
            arrival.describe(node),
        )),
        flaky: false,
        retry_errors: Vec::new(),
        setup: std::time::Duration::ZERO,
        server_log: None,
        trace: None,
    });
    Ok(Replayed {
        node_id: node.to_string(),
        flow,
        arrival,
    })
}

/// Replays the path to every node.
pub(crate) async fn verify(
    driver: &mut dyn Driver,
    atlas: &Atlas,
    base_url: Option<&str>,
) -> Result<Vec<Replayed>, AtlasError> {
    let mut out = Vec::new();
    for id in atlas.node_ids()? {
        out.push(replay(driver, atlas, &id, base_url).await?);
    }
    Ok(out)
}

/// What failed in a replay's flow.
fn failure(r: &FlowResult) -> String {
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
