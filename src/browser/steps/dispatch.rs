//! The browser steps: each turns a typed action into agent-browser commands on the flow's
//! session and returns the step's outputs.

use std::time::Duration;

use serde_json::Value;
use tokio::time::Instant;

use crate::browser::driver::session::Session;
use crate::browser::page::element_action::element;
use crate::config::model::{Action, OneOrMany};

use super::files::StepFiles;
use super::history::Move;
use crate::step::{ErrorKind, StepError};

/// Runs one browser action (the page checks of an `expect` included). The one way errors of
/// the page layer leave the browser: runner's internal handles are scrubbed from them here.
pub(crate) async fn run_step(
    session: &mut Session,
    action: Action,
    timeout: Duration,
    files: &StepFiles,
) -> Result<Value, StepError> {
    // A browser found gone (stopped, out of reach, exited) fails every later step at once.
    if let Some(gone) = session.browser_gone() {
        return Err(gone);
    }
    // Every command of the step is bounded by what is left of it (see `Session::limit`).
    session.step_end = Some(Instant::now() + timeout);
    let r = run_action(session, action, timeout, files).await;
    session.step_end = None;
    // A step that did not finish in time, or failed on the connection, may have met a browser
    // that is gone: then that is what the step says.
    let r = match r {
        Err(e) => Err(session.why_failed(e).await),
        ok => ok,
    };
    r.map_err(|mut e| {
        e.message = crate::browser::page::selector::scrub(&e.message);
        e
    })
}

async fn run_action(
    session: &mut Session,
    action: Action,
    timeout: Duration,
    files: &StepFiles,
) -> Result<Value, StepError> {
    let deadline = Instant::now() + timeout;
    // A dialog the previous step left open gets the flow's answer first (an `expect` of the
    // dialog reads it as it is, and a `dialog` step answers it itself).
    let reads_dialog = matches!(&action, Action::Expect(e) if e.dialog.is_some());
    if !matches!(action, Action::Dialog(_)) && !reads_dialog {
        crate::browser::driver::dialog::settle(session, timeout).await?;
    }
    if acts_on_the_page(&action) {
        session.dialogs_spent = session.dialogs.len();
    }
    match action {
        Action::Open(o) => super::navigation::open(session, &o, timeout).await,
        Action::Back(_) => super::history::history(session, Move::Back, deadline).await,
        Action::Forward(_) => super::history::history(session, Move::Forward, deadline).await,
        Action::Reload(_) => super::history::history(session, Move::Reload, deadline).await,
        Action::Dispatch(d) => super::events::dispatch(session, &d, deadline).await,
        Action::Snapshot(t) => super::reads::snapshot(session, t, deadline, timeout).await,
        Action::Click(s) => element(session, "click", &s, &[], s.force, deadline).await,
        Action::Dblclick(s) => element(session, "dblclick", &s, &[], s.force, deadline).await,
        Action::Hover(s) => element(session, "hover", &s, &[], s.force, deadline).await,
        Action::Focus(s) => element(session, "focus", &s, &[], s.force, deadline).await,
        Action::Check(s) => element(session, "check", &s, &[], s.force, deadline).await,
        Action::Upload(u) => super::files::upload(session, &u, deadline).await,
        Action::Dialog(d) => super::tabs::dialog(session, &d, deadline).await,
        Action::Tab(t) => super::tabs::tab(session, &t, deadline).await,
        Action::Route(r) => super::network::route(session, &r, timeout).await,
        Action::State(s) => super::network::save_state(session, &s.save, files, timeout).await,
        Action::Download(d) => super::download::download(session, &d, files, deadline).await,
        Action::Uncheck(s) => element(session, "uncheck", &s, &[], s.force, deadline).await,
        Action::Fill(f) => super::keyboard::into_field(session, "fill", &f, deadline).await,
        Action::Type(f) => super::keyboard::into_field(session, "type", &f, deadline).await,
        Action::Select(f) => {
            let values = match f.value {
                OneOrMany::One(v) => vec![v],
                OneOrMany::Many(v) => v,
            };
            element(session, "select", &f.target, &values, false, deadline).await
        }
        Action::Press(p) => super::keyboard::press(session, &p, deadline).await,
        Action::Keyboard(k) => super::keyboard::keyboard(session, &k, deadline).await,
        Action::Scroll(s) => super::pointer::scroll(session, &s, deadline).await,
        Action::Wait(w) => super::navigation::wait(session, w, deadline).await,
        Action::Screenshot(t) => {
            super::files::screenshot(session, t, files, deadline, timeout).await
        }
        Action::Eval(js) => super::reads::eval(session, &js, timeout).await,
        Action::Inspect(i) => crate::browser::page::inspect::inspect(session, &i, deadline).await,
        Action::Expect(e) => super::expect::expect(session, &e, deadline).await,
        // Listed one by one, so a new action has to be placed in a family.
        other @ (Action::Agent(_)
        | Action::Act(_)
        | Action::StopAgent(_)
        | Action::LinkState(_)
        | Action::Exec(_)
        | Action::Request(_)
        | Action::Set(_)
        | Action::Log(_)
        | Action::RunFlow(_)
        | Action::Each(_)
        | Action::Group(_)) => Err(StepError::new(
            ErrorKind::Environment,
            format!("internal error: `{}` is not a browser step", other.key()),
        )),
    }
}

/// Whether a step acts on the page as a user would, so that a dialog answered before it began
/// (the settle above has taken those runner's watch answered) is not the dialog an
/// `expect: { dialog }` after it checks (attack 26, C7: a second "delete" that no longer asked
/// passed on the first one's confirm). Checks, waits, reads (`eval` among them), tabs, routes
/// and `dialog` steps do not: `click`, `expect: { text }`, `expect: { dialog }` checks the
/// click's dialog, and so does `click`, `dialog: accept`, `expect: { dialog }`.
fn acts_on_the_page(action: &Action) -> bool {
    !matches!(
        action,
        Action::Expect(_)
            | Action::Wait(_)
            | Action::Dialog(_)
            | Action::Snapshot(_)
            | Action::Screenshot(_)
            | Action::Inspect(_)
            | Action::Eval(_)
            | Action::Tab(_)
            | Action::Route(_)
            | Action::State(_)
    )
}
