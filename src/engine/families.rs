//! The engine's side of each step family: what a browser, agent or state step needs from the
//! flow, handed to the family's entry point.

use std::sync::Arc;

use serde_json::Value;

use super::artifacts;
use super::context::Scope;
use super::runtime::StepCtx;
use crate::agent::AgentCtx;
use crate::atlas::RecordTarget;
use crate::browser::StepFiles;
use crate::config::model::Action;
use crate::step::{ErrorKind, StepError};

/// A browser action (an `expect`'s page checks too) on the flow's session.
pub(crate) async fn browser(cx: &StepCtx<'_>, action: Action) -> Result<Value, StepError> {
    let (rt, frame) = (cx.rt, cx.frame);
    let files = StepFiles {
        dir: frame.dir.clone(),
        base: artifacts::step_base(cx.index, cx.step, cx.step.action.key()),
    };
    let mut session = frame.browser.session(&rt.browser).await?;
    // Boxed: the browser steps' futures are large and the engine's must stay small.
    Box::pin(crate::browser::run_step(
        &mut session,
        action,
        cx.timeout,
        &files,
    ))
    .await
}

pub(crate) async fn agent(
    cx: &StepCtx<'_>,
    action: Action,
    scope: &Scope,
) -> Result<Value, StepError> {
    let (rt, frame) = (cx.rt, cx.frame);
    let session_of_step = scope.session_lookup();
    match action {
        Action::Agent(a) => {
            let listener = rt.listener.clone();
            let info = frame.info.clone();
            let depth = frame.depth;
            let ctx = AgentCtx {
                profiles: &rt.profiles,
                flow_dir: frame.loaded.dir.clone(),
                env: frame.env.clone(),
                masker: frame.masker.clone(),
                relay: Arc::new(move |line: &str| listener.message(&info, depth, line)),
                cancel: frame.cancel.clone(),
                log_path: cx.artifact("agent").with_extension("agent.log"),
                flow_key: frame.browser.name().to_string(),
                session_of_step: &session_of_step,
                timeout: cx.timeout,
            };
            Ok(crate::agent::run_step(a, ctx).await?)
        }
        Action::StopAgent(target) => Ok(crate::agent::stop_step(&target, &session_of_step).await?),
        other => Err(not_in_family(&other, "agent")),
    }
}

pub(crate) async fn state(
    cx: &StepCtx<'_>,
    action: Action,
    scope: &mut Scope,
) -> Result<Value, StepError> {
    let (rt, frame) = (cx.rt, cx.frame);
    let Action::LinkState(ls) = action else {
        return Err(not_in_family(&action, "state"));
    };
    // The flow's `atlas:` may be a template (the step's own was rendered with the step).
    let flow_atlas = match &frame.loaded.flow.atlas {
        Some(a) => Some(
            rt.templates
                .render_str(a, &scope.context())
                .map_err(|e| super::render::template_error(frame.loaded, "/atlas", e))?,
        ),
        None => None,
    };
    let atlas = crate::atlas::atlas_dir(
        &ls,
        rt.atlas.as_deref(),
        flow_atlas.as_deref(),
        &frame.loaded.dir,
    );
    let shot = frame.dir.join(format!("{:03}-state.png", cx.index + 1));
    let target = RecordTarget {
        atlas: &atlas,
        screenshot: &shot,
        run_id: &rt.run_id,
        masker: &frame.masker,
    };
    let mut session = frame.browser.session(&rt.browser).await?;
    crate::atlas::record_state(&mut session, &ls, &target, &mut scope.trail, cx.timeout).await
}

/// An action sent to a family it does not belong to: a bug in runner.
fn not_in_family(action: &Action, family: &str) -> StepError {
    StepError::new(
        ErrorKind::Internal,
        format!("internal error: `{}` is not a {family} step", action.key()),
    )
}
