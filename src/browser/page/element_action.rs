//! An action on one element (`click`, `fill`, `check`, ...): the selector resolved to exactly
//! one element (strict), the element of the kind the action needs (`fits`) and able to take it
//! now (`actionable`: visible, not inert, enabled, editable, focused — Playwright's
//! actionability checks), the action, and what it did read back (a checkbox's state, a field's
//! value). agent-browser does not check all of this itself; without it an action reports
//! success after doing nothing, or after typing into another field.

use serde_json::{Value, json};
use tokio::time::Instant;

use super::element_kind::value_hint;
use super::fits::fits;
use super::label::control_of;
use super::pointer_action::{POINTER, pointer};
use super::scripts;
use super::selector::{Poll, Resolved, element_args, element_eval, left, on_element, resolve_one};
use crate::browser::driver::command::Command;
use crate::browser::driver::reply::is_answer;
use crate::browser::driver::script::{bind, call};
use crate::browser::driver::session::Session;
use crate::config::model::Selector;
use crate::step::{ErrorKind, StepError};

/// An action on one element: the selector is resolved to exactly one element first (strict,
/// as Playwright's locators: more than one match fails unless `nth` says which), the element
/// must be of the kind the action needs and able to take it, and what the action did is read
/// back (`check`/`uncheck`: the state changed; `fill`: the field holds the text). Never a
/// fallback to whatever element has the focus.
pub(crate) async fn element(
    session: &mut Session,
    command: &str,
    sel: &Selector,
    extra: &[String],
    force: bool,
    deadline: Instant,
) -> Result<Value, StepError> {
    if POINTER.contains(&command) {
        let (r, read) = pointer(session, command, sel, force, deadline).await?;
        state_changed(command, &r, &read)?;
        return Ok(json!({ "matched": r.matched, "matched_index": r.index }));
    }
    let r = resolve_one(session, sel, deadline).await?;
    let r = control_of(session, command, r).await?;
    fits(command, &r)?;
    let text = extra.first().map_or("", String::as_str);
    let done = json!({ "matched": r.matched, "matched_index": r.index });
    if command == "fill" {
        if r.kind.takes_value() {
            actionable(session, command, &r, deadline).await?;
            return set_value(session, &r, &r.kind.input_type, text)
                .await
                .map(|()| done);
        }
        // Checked before anything is cleared (as Playwright does); the browser then takes
        // every number `is_number` lets through.
        if (r.kind.input_type == "number" || r.kind.role == "spinbutton") && !is_number(text) {
            return Err(not_a_number(&r, text));
        }
    }
    // agent-browser selects each value in turn: a single-choice <select> would keep the last.
    if command == "select"
        && extra.len() > 1
        && element_eval(session, &r, scripts::MULTIPLE, &[]).await? != Some(Value::Bool(true))
    {
        return Err(StepError::new(
            ErrorKind::CommandFailed,
            format!(
                "`select` got {} values, but {} is a single-choice <select>: give one value (or make it `multiple`)",
                extra.len(),
                r.matched
            ),
        ));
    }
    let read = act(session, command, &r, extra, deadline).await?;
    match read.first() {
        // What the field holds was read in the same call (see `act`): the page may have
        // refused part of it (maxlength, a mask, a formatter).
        Some(d) if command == "fill" && !r.target.starts_with('@') => {
            let got = d.get("result").and_then(Value::as_str).unwrap_or("");
            field_took(&r, text, got)?;
        }
        // A combobox in the snapshot may be a <select>, which agent-browser "fills" without
        // changing it.
        Some(d) if command == "fill" || command == "type" => {
            let got = d.get("value").and_then(Value::as_str).unwrap_or("");
            combobox_took(&r, command, text, got)?;
        }
        _ => {}
    }
    Ok(done)
}

/// `check`/`uncheck` must have changed the state (`read`: the state read after it).
fn state_changed(command: &str, r: &Resolved, read: &[Value]) -> Result<(), StepError> {
    if command != "check" && command != "uncheck" {
        return Ok(());
    }
    let want = command == "check";
    if read.first().is_none_or(|d| is_answer(d, "checked") != want) {
        return Err(StepError::new(
            ErrorKind::CommandFailed,
            format!(
                "{command} did not change {}: it is still {}",
                r.matched,
                if want { "unchecked" } else { "checked" }
            ),
        ));
    }
    Ok(())
}

/// A field must hold what `fill` typed: a page that takes less (`maxlength`) or changes it (a
/// mask, a formatter) fails the step, saying what the field holds.
fn field_took(r: &Resolved, want: &str, got: &str) -> Result<(), StepError> {
    if holds(r, want, got) {
        return Ok(());
    }
    Err(StepError::new(
        ErrorKind::CommandFailed,
        format!(
            "`fill` typed `{want}` into {}, but the page made it `{got}` (a maxlength, a mask or a formatter changes what it takes)",
            r.matched
        ),
    ))
}

/// Runs `command` on the resolved element, in one call with runner's check that the element
/// can take it (for an element with runner's CSS handle; one found through the snapshot, `@e5`,
/// is checked first) and with what is read back after it: a field's text, a snapshot
/// combobox's value. Returns those reads. An element that cannot take the action
/// yet is waited for (up to `deadline`), then the call is made again.
async fn act(
    session: &mut Session,
    command: &str,
    r: &Resolved,
    extra: &[String],
    deadline: Instant,
) -> Result<Vec<Value>, StepError> {
    // (Pointer actions go through `pointer_action`, with their hit checks.)
    let guard = Guard::of(command);
    let by_ref = r.target.starts_with('@');
    if guard.is_some() && by_ref {
        actionable(session, command, r, deadline).await?;
    }
    let check = guard
        .filter(|_| !by_ref)
        .map(|g| Command::eval(g.throwing(session, &r.target)));
    let selector = r.target.clone();
    let on = |script: &str, args: &[Value]| {
        Command::eval(call(
            &on_element(script),
            &element_args(session, &r.target, args),
        ))
    };
    let reads: Vec<Command> = match command {
        "fill" if !by_ref => vec![on(scripts::FIELD_TEXT, &[])],
        "fill" | "type" if by_ref && r.kind.role == "combobox" => {
            vec![Command::GetValue { selector }]
        }
        _ => Vec::new(),
    };
    // agent-browser's fill of a contenteditable element puts the text before what it holds:
    // runner replaces it through the editing commands, as typing would.
    let editable = command == "fill"
        && !by_ref
        && r.kind.editable
        && !matches!(r.kind.tag.as_str(), "input" | "textarea");
    let action = if editable {
        Some(on(scripts::FILL_EDITABLE, &[json!(extra.first())]))
    } else {
        Command::on_element(command, r.target.clone(), extra)
    };
    let action = action.ok_or_else(|| {
        let why = format!("internal error: `{command}` is not known to runner's daemon link");
        StepError::new(ErrorKind::CommandFailed, why)
    })?;
    let read_back = reads.len();
    let batch: Vec<Command> = check.into_iter().chain([action]).chain(reads).collect();
    loop {
        match session.send_all(batch.clone(), left(deadline)).await {
            Err(e) if e.message.contains(NOT_ACTIONABLE) => {
                if Instant::now() >= deadline {
                    let why = e.message.split(NOT_ACTIONABLE).nth(1).unwrap_or_default();
                    let why = why.lines().next().unwrap_or_default();
                    return Err(not_actionable(command, r, why));
                }
                actionable(session, command, r, deadline).await?;
            }
            done => {
                // agent-browser names the element by runner's handle: say it as the user did.
                let mut done = done.map_err(|mut e| {
                    e.message = e.message.replace(&format!("'{}'", r.target), &r.matched);
                    e
                })?;
                return Ok(done.split_off(done.len().saturating_sub(read_back)));
            }
        }
    }
}

/// A combobox in the snapshot may be a text field or a `<select>`: agent-browser "fills" a
/// `<select>` without changing it, so its value is read back.
fn combobox_took(r: &Resolved, command: &str, want: &str, got: &str) -> Result<(), StepError> {
    let took = if command == "fill" {
        got == want
    } else {
        got.ends_with(want)
    };
    if took {
        return Ok(());
    }
    Err(StepError::new(
        ErrorKind::CommandFailed,
        format!(
            "`{command}` did not set {} to `{want}`: its value is now `{got}` (a <select> takes `select`)",
            r.matched
        ),
    ))
}

/// Sets the value of an `<input>` that takes one rather than typed text (a date, a colour, a
/// range) as Playwright's `fill` does: the value, then `input` and `change`; a value the browser
/// refuses (it would read back differently) leaves the field as it was and fails the step.
async fn set_value(
    session: &mut Session,
    r: &Resolved,
    input_type: &str,
    text: &str,
) -> Result<(), StepError> {
    let value = if input_type == "color" {
        text.trim().to_ascii_lowercase()
    } else {
        text.trim().to_string()
    };
    match element_eval(session, r, scripts::SET_VALUE, &[json!(value)]).await? {
        Some(Value::Bool(true)) => Ok(()),
        Some(_) => Err(StepError::new(
            ErrorKind::CommandFailed,
            format!(
                "`fill` cannot set {} (an <input type={input_type}>) to `{text}`: the browser refuses that value ({})",
                r.matched,
                value_hint(input_type).unwrap_or("")
            ),
        )),
        None => Err(StepError::new(
            ErrorKind::NotFound,
            format!("{} is gone from the page", r.matched),
        )),
    }
}

/// Whether a field holding `got` holds `want` as the browser stores what a user types: a
/// number field the number (`+3` is `3`), a one-line input the text without line breaks (an
/// email or URL field trimmed too), a textarea with `\n` line ends, a contenteditable element
/// the text with its runs of white space as one.
fn holds(r: &Resolved, want: &str, got: &str) -> bool {
    let k = &r.kind;
    match k.tag.as_str() {
        "input" if k.input_type == "number" => {
            want.trim().parse::<f64>().ok() == got.parse::<f64>().ok()
        }
        "input" => {
            let one_line: String = want.chars().filter(|c| !matches!(c, '\r' | '\n')).collect();
            match k.input_type.as_str() {
                "email" | "url" => one_line.trim() == got,
                _ => one_line == got,
            }
        }
        "textarea" => want.replace("\r\n", "\n").replace('\r', "\n") == got,
        _ => {
            let norm = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
            norm(want) == norm(got)
        }
    }
}

/// Whether `fill` text is a number an `<input type=number>` takes (as JavaScript's `Number`
/// reads it, without the words `Infinity` and `NaN`).
fn is_number(text: &str) -> bool {
    let t = text.trim();
    !t.is_empty()
        && t.chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '+' | '-' | '.' | 'e' | 'E'))
        && t.parse::<f64>().is_ok_and(f64::is_finite)
}

fn not_a_number(r: &Resolved, text: &str) -> StepError {
    StepError::new(
        ErrorKind::CommandFailed,
        format!(
            "`fill` cannot type `{text}` into {}: an <input type=number> takes a number",
            r.matched
        ),
    )
}

/// What an error says when runner's check in an action's call found the element unable to
/// take it.
const NOT_ACTIONABLE: &str = "runner: not actionable: ";

/// What an action needs of its element now (see `scripts::ACTIONABLE`).
/// (Every action here needs an enabled element: the pointer actions, where `hover` does not,
/// have checks of their own.)
struct Guard {
    typing: bool,
    focus: bool,
    /// What the action needs, for its error.
    needs: &'static str,
}

impl Guard {
    /// The checks of `command`; `None` for the actions that need none.
    fn of(command: &str) -> Option<Guard> {
        let (typing, focus, needs) = match command {
            "fill" | "type" => (true, true, "an element it can type into"),
            "select" => (false, false, "a visible, enabled element"),
            "focus" => (false, true, "an element that can take the focus"),
            _ => return None,
        };
        Some(Guard {
            typing,
            focus,
            needs,
        })
    }

    /// The check, a function of the element and `args()`: `true`, or why not. The
    /// element-state checks it uses are the ones `expect` uses.
    fn script() -> String {
        scripts::actionable()
    }

    /// What the check is asked.
    fn args(&self) -> [Value; 3] {
        [json!(true), json!(self.typing), json!(self.focus)]
    }

    /// The check as a script that throws (failing the call it is part of) when the element
    /// with runner's CSS handle `handle` cannot take the action.
    fn throwing(&self, session: &Session, handle: &str) -> String {
        let check = on_element(&Self::script());
        let mut args = vec![json!(NOT_ACTIONABLE)];
        args.extend(element_args(session, handle, &self.args()));
        call(&bind(scripts::THROWING, &[&check]), &args)
    }
}

/// Waits until an action's element can take it (Playwright's actionability checks).
/// agent-browser does not check all of it: it clears a disabled or hidden field, inserts the
/// text into whatever element has the focus, changes a disabled `<select>`, checks a hidden
/// checkbox, hovers a hidden element and clicks through an inert one, and reports success.
/// (It refuses a click on a covered or disabled element itself, and `check`/`uncheck` read the
/// state back.)
async fn actionable(
    session: &mut Session,
    command: &str,
    r: &Resolved,
    deadline: Instant,
) -> Result<(), StepError> {
    let Some(guard) = Guard::of(command) else {
        return Ok(());
    };
    let (js, args) = (Guard::script(), guard.args());
    let mut poll = Poll::new();
    let mut why = String::new();
    loop {
        match poll.settle(element_eval(session, r, &js, &args).await)? {
            Some(Some(Value::Bool(true))) => return Ok(()),
            Some(Some(Value::String(w))) => why = w,
            Some(_) => why = "it is gone from the page".to_string(),
            None => {}
        }
        if !poll.wait(deadline).await {
            return Err(not_actionable(command, r, &why));
        }
    }
}

/// An action's element that still cannot take it at the step's timeout, and `why`.
fn not_actionable(command: &str, r: &Resolved, why: &str) -> StepError {
    let needs = Guard::of(command).map_or("an element that takes it", |g| g.needs);
    StepError::new(
        ErrorKind::CommandFailed,
        format!(
            "`{command}` needs {needs}, but {} is not one by the step's timeout: {why}",
            r.matched
        ),
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{Guard, is_number};
    use crate::browser::driver::script::node_run;

    /// What an `<input type=number>` takes, as JavaScript's `Number` reads it.
    #[test]
    fn numbers_a_number_field_takes() {
        for ok in ["42", " 42 ", "-1.5", "+3", "1e3", ".5"] {
            assert!(is_number(ok), "{ok}");
        }
        for bad in [
            "", "forty", "1,000", "Infinity", "NaN", "inf", "0x10", "1e999",
        ] {
            assert!(!is_number(bad), "{bad}");
        }
    }

    /// Typing needs an editable field with the focus; a select an enabled element.
    #[test]
    fn each_action_checks_what_it_needs() {
        let fill = Guard::of("fill").unwrap();
        assert!(fill.typing && fill.focus);
        // Pointer actions have checks of their own (`pointer_action`).
        assert!(Guard::of("click").is_none());
        assert!(Guard::of("select").is_some_and(|g| !g.typing && !g.focus));
        assert!(Guard::of("upload").is_none());
        assert_eq!(fill.args(), [json!(true), json!(true), json!(true)]);
    }

    /// A stand-in page for node: one element, `#a`, visible, enabled, focusable.
    fn page(read_only: bool) -> String {
        format!(
            "const el = {{ isConnected: true, readOnly: {read_only}, matches: () => false,
  closest: () => null, getAttribute: () => null, contains: () => false,
  getBoundingClientRect: () => ({{ width: 10, height: 10 }}),
  focus() {{ this.ownerDocument.activeElement = this; }}, ownerDocument: {{ activeElement: null }} }};
globalThis.document = {{ querySelector: (s) => (s === '#a' ? el : null) }};
globalThis.getComputedStyle = () => ({{ visibility: 'visible' }});"
        )
    }

    /// The check an action's call carries, as composed from its script files (the element
    /// by its handle, the actionability check with the shared element-state checks, the throw),
    /// run in node.
    #[tokio::test]
    async fn the_check_in_an_actions_call_runs_as_composed() {
        let dir = tempfile::tempdir().unwrap();
        let session =
            crate::browser::driver::session::on_fake_daemon(dir.path(), |_, _| Ok(json!({})));
        let fill = Guard::of("fill").unwrap();
        let run = |read_only, handle| node_run(&page(read_only), &fill.throwing(&session, handle));
        assert_eq!(run(false, "#a"), Ok("true".to_string()));
        let refused = run(true, "#a").unwrap_err();
        assert!(
            refused.contains("runner: not actionable: it is read-only"),
            "{refused}"
        );
        let gone = run(false, "#b").unwrap_err();
        assert!(
            gone.contains("runner: not actionable: it is gone from the page"),
            "{gone}"
        );
    }
}
