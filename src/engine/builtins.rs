//! The steps the engine runs itself: `log`, `set`, `exec`, `expect` (its page checks go to the
//! browser family, its `that` is a template condition) and `run_flow`.

use serde_json::{Value, json};

use super::context::Scope;
use super::families;
use super::render::{learn_secrets, location, raw_action, template_error};
use super::runtime::StepCtx;
use super::{exec, subflow};
use crate::config::model::{Action, ExpectAction};
use crate::step::{ErrorKind, StepError, StepResult};

/// Runs a core action.
pub(crate) async fn run(
    cx: &StepCtx<'_>,
    action: Action,
    scope: &mut Scope,
    children: &mut Vec<StepResult>,
) -> Result<Value, StepError> {
    match action {
        Action::Log(msg) => Ok(log(cx, &msg, scope)),
        Action::Set(map) => {
            // Each var is made from the cut outputs its own template read (all read first: the
            // values were rendered before any was set).
            let raw = raw_action(cx.frame.loaded, cx.ptr, "set");
            let raws: Vec<&Value> = map
                .keys()
                .map(|k| raw.and_then(|r| r.get(k)).unwrap_or(&Value::Null))
                .collect();
            let reads = scope.cut_reads_each(&cx.rt.templates, &raws, false);
            let from = reads.iter().map(super::cut::made_from);
            // A value holding an integer wider than 64 bits is kept exact for templates.
            let ctx = scope.context();
            let exact: Vec<_> = raws
                .iter()
                .map(|r| r.as_str().and_then(|s| cx.rt.templates.wide_value(s, &ctx)))
                .collect();
            for (((k, v), from), exact) in map.into_iter().zip(from).zip(exact) {
                scope.set_exact_var(k, v, exact, from);
            }
            Ok(json!({}))
        }
        Action::Exec(e) => exec::step(cx, e).await,
        Action::Expect(e) => expect(cx, e, scope).await,
        Action::RunFlow(rf) => {
            let (outputs, cut) = subflow::step(cx, &rf, scope, children).await?;
            // Each output is made from what its own template read in the sub-flow.
            scope.cut.pending = Some(super::cut::StepCut::Outputs(cut));
            Ok(outputs)
        }
        // Listed one by one, so a new action has to be placed in a family.
        other @ (Action::Open(_)
        | Action::Snapshot(_)
        | Action::Back(_)
        | Action::Forward(_)
        | Action::Reload(_)
        | Action::Dispatch(_)
        | Action::Click(_)
        | Action::Dblclick(_)
        | Action::Hover(_)
        | Action::Focus(_)
        | Action::Check(_)
        | Action::Uncheck(_)
        | Action::Fill(_)
        | Action::Type(_)
        | Action::Press(_)
        | Action::Keyboard(_)
        | Action::Scroll(_)
        | Action::Select(_)
        | Action::Upload(_)
        | Action::Dialog(_)
        | Action::Tab(_)
        | Action::Route(_)
        | Action::Download(_)
        | Action::State(_)
        | Action::Wait(_)
        | Action::Screenshot(_)
        | Action::Eval(_)
        | Action::Inspect(_)
        | Action::Act(_)
        | Action::Agent(_)
        | Action::StopAgent(_)
        | Action::LinkState(_)
        | Action::Request(_)
        | Action::Each(_)
        | Action::Group(_)) => Err(StepError::new(
            ErrorKind::Internal,
            format!("internal error: `{}` is not a core step", other.key()),
        )),
    }
}

/// `log`: shows the text, and keeps it for the reports (the label says `log`, the message is
/// in its outputs). A text made from a cut output is shown saying it is a part (attack 28, E7:
/// every other step that reads one fails before it runs; a `log` decides nothing).
fn log(cx: &StepCtx<'_>, msg: &Value, scope: &Scope) -> Value {
    let mut text = log_text(msg);
    let raw = raw_action(cx.frame.loaded, cx.ptr, "log").unwrap_or(&Value::Null);
    let cut = scope.cut_reads(&cx.rt.templates, raw, false);
    if !cut.is_empty() {
        text = format!("{text}\n{}", super::cut::log_note(&cut));
    }
    let text = cx.frame.masker.mask(&text);
    cx.rt.listener.message(cx.frame.info, cx.frame.depth, &text);
    json!({ "message": text })
}

/// A message as printed: text as it is, anything else (a list, a map) as JSON.
fn log_text(msg: &Value) -> String {
    match msg {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `expect`: the page checks (web-first, in the browser family), then `that`.
async fn expect(
    cx: &StepCtx<'_>,
    e: Box<ExpectAction>,
    scope: &mut Scope,
) -> Result<Value, StepError> {
    let that = e.that.clone();
    if e.has_browser_checks() {
        families::browser(cx, Action::Expect(e)).await?;
    }
    let Some(rendered) = that else {
        return Ok(json!({}));
    };
    let loaded = cx.frame.loaded;
    let ctx = scope.context();
    // The condition as written, read as `if` reads one: what its template renders is a value,
    // never code read again (`that: "{{ vars.s }}"` with `s: x` was the undefined name `x`).
    let raw = raw_action(loaded, cx.ptr, "expect").and_then(|v| v.get("that"));
    let cond = raw.unwrap_or(&rendered);
    let holds = cx.rt.templates.condition(cond, &ctx).map_err(|err| {
        let err = super::render::quoting_no_secret(&ctx, cond, &cx.frame.masker, err);
        template_error(loaded, &format!("{}/expect/that", cx.ptr), err)
    })?;
    if let Some(why) = raw.and_then(|raw| reads_cut_output(cx, raw, scope)) {
        return Err(StepError::new(ErrorKind::Assertion, why)
            .located(&location(loaded, &format!("{}/expect/that", cx.ptr))));
    }
    if holds {
        return Ok(json!({}));
    }
    let src = raw_action(loaded, cx.ptr, "expect")
        .and_then(|v| v.get("that"))
        .map_or_else(String::new, |v| {
            v.as_str().map_or_else(|| v.to_string(), str::to_string)
        });
    // Show why: the values of the operands, each masked with what its code makes of a secret
    // learned first (`(steps.login.stdout | upper)`, a slice of a token).
    let mask = |operand: &str, s: &str| {
        let code = Value::String(format!("{{{{ {operand} }}}}"));
        learn_secrets(&cx.rt.templates, &ctx, &code, &cx.frame.masker);
        cx.frame.masker.mask(s)
    };
    let why = crate::template::explain(&cx.rt.templates, &src, &ctx, &mask).map_or_else(
        || "it is false".to_string(),
        |w| format!("it is false: {w}"),
    );
    Err(StepError::new(
        ErrorKind::Assertion,
        format!("expected `{}` to be true, but {why}", src.trim()),
    )
    .located(&location(loaded, &format!("{}/expect/that", cx.ptr))))
}

/// Why `that` (`cond`) is no check when it reads an output runner cut, or a value made from
/// one (`engine::cut`): it is evaluated again, as written (`cond`: the step's `that` before it
/// was rendered), in a context that records such reads. Whatever such a check finds, true or
/// false, is about a part.
fn reads_cut_output(cx: &StepCtx<'_>, cond: &Value, scope: &Scope) -> Option<String> {
    let reads = scope.cut_reads(&cx.rt.templates, cond, true);
    (!reads.is_empty()).then(|| super::cut::message(&reads))
}
