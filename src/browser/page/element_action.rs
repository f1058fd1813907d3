//! An action on one element (`click`, `fill`, `check`, ...): the selector resolved to exactly
//! one element (strict), the element of the kind the action needs (`fits`) and able to take it
//! now (`actionable`: visible, not inert, enabled, editable, focused — Playwright's
//! actionability checks), the action, and what it did read back (a checkbox's state, a field's
//! value). agent-browser does not check all of this itself; without it an action reports
//! success after doing nothing, or after typing into another field.

use serde_json::{Value, json};
use tokio::time::Instant;

use super::element_kind::{ElementKind, value_hint};
use super::fits::fits;
use super::label::control_of;
use super::pointer_action::{POINTER, pointer};
use super::read_back;
use super::scripts;
use super::selector::{
    Poll, Resolved, element_args, element_eval, left, mark, on_element, resolve_one,
};
use crate::browser::driver::command::Command;
use crate::browser::driver::reply::is_answer;
use crate::browser::driver::script::{bind, call};
use crate::browser::driver::session::Session;
use crate::config::model::Selector;
use crate::step::{ErrorKind, StepError};

/// An action on one element: the selector is resolved to exactly one element first (strict,
/// as Playwright's locators: more than one match fails unless `nth` says which), the element
/// must be of the kind the action needs and able to take it, and what the action did is read
/// back (`check`/`uncheck`: the state changed; `fill`/`type`: the field holds the text;
/// `select`: the select holds the options chosen, each of them enabled; `upload`: the input
/// holds the files). Never a fallback to whatever element has the focus. An element that
/// cannot take the action yet is waited for: the user's selector is resolved again on every
/// check (a re-render that replaces a disabled element with an enabled one is followed), up to
/// `deadline`, then the step fails saying why.
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
    let mut poll = Poll::new();
    let mut last: Option<(Resolved, String)> = None;
    loop {
        let checked = async {
            let r = target(session, command, sel, deadline).await?;
            before(session, command, &r, extra).await?;
            let done = act(session, command, &r, extra, deadline).await?;
            Ok::<_, StepError>((r, done))
        };
        let (r, why) = match checked.await {
            Ok((r, Ok(done))) => {
                let secret = extra.iter().any(|t| session.masker.holds_secret(t));
                let took = took(command, &r, extra, &done, secret);
                if secret && took.is_err() {
                    // What a field kept of a secret (a `maxlength` cut it) the page shows: a
                    // piece of the secret, masked from now on (the snapshot, the screenshot).
                    let read = done
                        .iter()
                        .map(|d| read_back::field_read(d.get("result")).0);
                    let read = read.filter(|t| !t.is_empty()).map(str::to_string);
                    session.masker.add_pieces(read);
                }
                return took;
            }
            Ok((r, Err(why))) => (r, why),
            // The step's time ran out during a check (a slow machine): what the checks before
            // it found is the answer, not the cut-off command.
            Err(e) if e.kind == ErrorKind::Timeout => match last {
                Some((r, why)) => return Err(not_actionable(command, &r, &why)),
                None => return Err(e),
            },
            Err(e) => return Err(e),
        };
        if !poll.wait(deadline).await {
            return Err(not_actionable(command, &r, &why));
        }
        last = Some((r, why));
    }
}

/// The element `sel` names for `command` now (a label's control for the actions on one), of
/// the kind the action needs. One found through the snapshot (`@e5`, a role) is marked with
/// runner's handle and its kind read from the page, so the action, its check and its read-back
/// reach it as they reach an element found by CSS; one with no box keeps its ref, and `act`
/// waits for it.
async fn target(
    session: &mut Session,
    command: &str,
    sel: &Selector,
    deadline: Instant,
) -> Result<Resolved, StepError> {
    let r = resolve_one(session, sel, deadline).await?;
    let r = control_of(session, command, r).await?;
    let r = if r.target.starts_with('@') {
        pin(session, r, deadline).await?
    } else {
        r
    };
    fits(command, &r)?;
    Ok(r)
}

/// A snapshot element marked with runner's handle, its kind read from the page (its role kept,
/// as the snapshot says it); as it was when it has no box.
async fn pin(session: &mut Session, r: Resolved, deadline: Instant) -> Result<Resolved, StepError> {
    let Some(handle) = mark(session, &r.target, r.frame.as_deref(), left(deadline)).await? else {
        return Ok(r);
    };
    let pinned = Resolved {
        target: handle,
        ..r.clone()
    };
    let script = bind(scripts::KIND_OF, &[&scripts::mark_picked()]);
    let Some(kind) = element_eval(session, &pinned, &script, &[]).await? else {
        return Ok(r);
    };
    let mut kind = ElementKind::from_page(&kind);
    kind.role.clone_from(&r.kind.role);
    Ok(Resolved { kind, ..pinned })
}

/// What is refused before anything is done: text for a number field (as Playwright checks it
/// before it clears the field; the browser then takes every number `is_number` lets through),
/// several values for a single-choice `<select>` (agent-browser selects each value in turn: it
/// would keep the last).
async fn before(
    session: &mut Session,
    command: &str,
    r: &Resolved,
    extra: &[String],
) -> Result<(), StepError> {
    let text = extra.first().map_or("", String::as_str);
    let number = r.kind.input_type == "number" || r.kind.role == "spinbutton";
    if command == "fill" && !r.kind.takes_value() && number && !is_number(text) {
        return Err(not_a_number(r, text));
    }
    if command == "select"
        && extra.len() > 1
        && element_eval(session, r, scripts::MULTIPLE, &[]).await? != Some(Value::Bool(true))
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
    Ok(())
}

/// What the action did, read back in its call (see `act`): `done` holds the action's answer,
/// then the reads. The page may have refused part of a fill (maxlength, a mask, a formatter),
/// a value input a value, a file input all but one file.
/// `secret`: what was typed reads a secret (then what the field holds is not quoted).
fn took(
    command: &str,
    r: &Resolved,
    extra: &[String],
    done: &[Value],
    secret: bool,
) -> Result<Value, StepError> {
    let text = extra.first().map_or("", String::as_str);
    let mut out = json!({ "matched": r.matched, "matched_index": r.index });
    // A `type` into a field: what the field held before comes first (see `act`).
    let (before, done) = match done.split_first() {
        Some((b, rest)) if command == "type" && !r.kind.takes_value() => {
            (read_back::field_read(b.get("result")).0, rest)
        }
        _ => ("", done),
    };
    let action = done.first().and_then(|d| d.get("result"));
    let read = done.get(1).and_then(|d| d.get("result"));
    match command {
        "fill" if r.kind.takes_value() && action != Some(&Value::Bool(true)) => {
            return Err(refused_value(r, text));
        }
        "fill" if r.kind.takes_value() => {}
        "fill" => read_back::field_took(r, text, read_back::field_read(read), secret)?,
        "type" if !r.kind.takes_value() => {
            read_back::typed(r, text, before, read_back::field_read(read), secret)?;
        }
        "select" => {
            let same = done.get(2).and_then(|d| d.get("result"));
            read_back::kept(r, extra, read, same != Some(&Value::Bool(false)))?;
        }
        "upload" => {
            let n = read.and_then(Value::as_u64).unwrap_or(0);
            if usize::try_from(n).ok() != Some(extra.len()) {
                return Err(StepError::new(
                    ErrorKind::CommandFailed,
                    format!(
                        "{} holds {n} of the {} file(s) uploaded (an input without `multiple` takes one)",
                        r.matched,
                        extra.len()
                    ),
                ));
            }
            out["uploaded"] = json!(n);
        }
        _ => {}
    }
    Ok(out)
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

/// The command that does `command` to the element (`on`: a page script run on it).
fn action_of(
    command: &str,
    r: &Resolved,
    extra: &[String],
    on: &dyn Fn(&str, &[Value]) -> Command,
) -> Result<Command, StepError> {
    let text = extra.first().map_or("", String::as_str);
    // agent-browser's fill of a contenteditable element puts the text before what it holds:
    // runner replaces it through the editing commands, as typing would. A date, a colour, a
    // range takes its value as Playwright's fill sets it.
    let editable = r.kind.editable && !matches!(r.kind.tag.as_str(), "input" | "textarea");
    let action = match command {
        "fill" if r.kind.takes_value() => Some(on(scripts::SET_VALUE, &[json!(value_of(r, text))])),
        "fill" if editable => Some(on(scripts::FILL_EDITABLE, &[json!(text)])),
        // agent-browser's select prefers an option labelled with a value to an earlier option
        // with that value: the options are chosen as Playwright's selectOption chooses them.
        "select" => Some(on(scripts::SELECT_SET, &[json!(extra)])),
        _ => Command::on_element(command, r.target.clone(), extra),
    };
    action.ok_or_else(|| {
        let why = format!("internal error: `{command}` is not known to runner's daemon link");
        StepError::new(ErrorKind::CommandFailed, why)
    })
}

/// runner's checks before `command` on the element, in its call: that the element can take it,
/// and (`select`) that each option asked for is there and enabled.
fn checks(session: &Session, command: &str, r: &Resolved, extra: &[String]) -> Vec<Command> {
    let mut check: Vec<Command> = Guard::of(command)
        .map(|g| Command::eval(g.throwing(session, &r.target)))
        .into_iter()
        .collect();
    if command == "select" {
        check.push(read_back::options_check(
            session,
            &r.target,
            extra,
            NOT_ACTIONABLE,
        ));
    }
    // The files the input's events carry, for the read-back (see `scripts::FILE_COUNT`).
    if command == "upload" {
        check.push(Command::eval(call(
            &on_element(session, &r.target, scripts::FILE_WATCH),
            &element_args(session, &r.target, &[]),
        )));
    }
    check
}

/// Runs `command` on the resolved element in one call with runner's check that the element
/// can take it and with what is read back after it (a field's text, a file input's count).
/// Returns the action's answer and the reads; `Ok(Err(why))` when the element cannot take the
/// action now, or is gone (nothing was done to it: resolve again and retry).
async fn act(
    session: &mut Session,
    command: &str,
    r: &Resolved,
    extra: &[String],
    deadline: Instant,
) -> Result<Result<Vec<Value>, String>, StepError> {
    if r.target.starts_with('@') {
        return Ok(Err("it has no box on the page".to_string()));
    }
    let text = extra.first().map_or("", String::as_str);
    if command == "fill"
        && let Some(g) = Guard::of(command)
    {
        let check = (scripts::actionable(), g.args());
        let plain = (check.0.as_str(), check.1.as_slice());
        if let Some(done) = super::plain_fill::fill(session, r, text, plain, deadline).await? {
            return Ok(done);
        }
    }
    let mut check = checks(session, command, r, extra);
    // What a field `type` adds to held before (see `read_back::typed`), read in the same call.
    let before = command == "type" && !r.kind.takes_value();
    let on = |script: &str, args: &[Value]| {
        Command::eval(call(
            &on_element(session, &r.target, script),
            &element_args(session, &r.target, args),
        ))
    };
    let action = action_of(command, r, extra, &on)?;
    if before {
        check.push(on(&scripts::field_text(), &[]));
    }
    // A select whose change loads another document is gone after it (see `read_back::kept`).
    let (mark, same) = document_marks(command);
    check.extend(mark);
    let read = match command {
        "fill" | "type" if !r.kind.takes_value() => Some(on(&scripts::field_text(), &[])),
        "select" => Some(on(scripts::SELECTED, &[])),
        "upload" => Some(on(scripts::FILE_COUNT, &[])),
        _ => None,
    };
    let checked = check.len();
    let batch: Vec<Command> = check
        .into_iter()
        .chain([action])
        .chain(read)
        .chain(same)
        .collect();
    let sent = session.send_all(batch, left(deadline)).await;
    if let Err(e) = &sent
        && let Some(why) = e.message.split(NOT_ACTIONABLE).nth(1)
    {
        return Ok(Err(why.lines().next().unwrap_or_default().to_string()));
    }
    // An element replaced or removed since it was resolved (a re-render): resolve again.
    let Some(mut done) = Poll::new().settle(sent.map_err(|mut e| {
        // agent-browser names the element by runner's handle: say it as the user did.
        e.message = e.message.replace(&format!("'{}'", r.target), &r.matched);
        e
    }))?
    else {
        return Ok(Err("it is gone from the page".to_string()));
    };
    // The guards' answers go; the field's text before a `type` stays, first.
    let kept = if before { checked - 1 } else { checked };
    Ok(Ok(done.split_off(kept.min(done.len()))))
}

/// The value a value input (a date, a colour, a range) is set to.
fn value_of(r: &Resolved, text: &str) -> String {
    if r.kind.input_type == "color" {
        text.trim().to_ascii_lowercase()
    } else {
        text.trim().to_string()
    }
}

/// A value the browser refuses for a value input (it would read back differently): the field
/// is left as it was.
fn refused_value(r: &Resolved, text: &str) -> StepError {
    let input_type = &r.kind.input_type;
    StepError::new(
        ErrorKind::CommandFailed,
        format!(
            "`fill` cannot set {} (an <input type={input_type}>) to `{text}`: the browser refuses that value ({})",
            r.matched,
            value_hint(input_type).unwrap_or("")
        ),
    )
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

/// What an action needs of its element now (see `scripts::ACTIONABLE`). agent-browser does
/// not check all of it: it clears a disabled or hidden field, inserts the text into whatever
/// element has the focus, changes a disabled or covered `<select>`, attaches files to a
/// disabled input, and reports success. (Every action here needs an enabled element: the
/// pointer actions, where `hover` does not, have checks of their own.)
// The flags are the check's arguments (`args`), one per question it asks of the element.
#[allow(clippy::struct_excessive_bools)]
struct Guard {
    typing: bool,
    focus: bool,
    /// The element must get events at its centre (a `<select>` under a veil is not chosen
    /// from).
    hit: bool,
    /// The element must be visible (a file input takes files while the page hides it behind a
    /// styled label, as Playwright's `setInputFiles` does).
    visible: bool,
    /// What the action needs, for its error.
    needs: &'static str,
}

impl Guard {
    /// The checks of `command`; `None` for the actions that need none.
    fn of(command: &str) -> Option<Guard> {
        let (typing, focus, hit, visible, needs) = match command {
            "fill" | "type" => (true, true, false, true, "an element it can type into"),
            "select" => (
                false,
                false,
                true,
                true,
                "a visible, enabled element that gets events, with the options chosen enabled",
            ),
            "focus" => (
                false,
                true,
                false,
                true,
                "an element that can take the focus",
            ),
            "upload" => (false, false, false, false, "an enabled file input"),
            _ => return None,
        };
        Some(Guard {
            typing,
            focus,
            hit,
            visible,
            needs,
        })
    }

    /// What the check is asked (see `scripts::actionable`).
    fn args(&self) -> [Value; 5] {
        [
            json!(true),
            json!(self.typing),
            json!(self.focus),
            json!(self.hit),
            json!(self.visible),
        ]
    }

    /// The check as a script that throws (failing the call it is part of) when the element
    /// with runner's CSS handle `handle` cannot take the action. The element-state checks it
    /// uses are the ones `expect` uses.
    fn throwing(&self, session: &Session, handle: &str) -> String {
        let check = on_element(session, handle, &scripts::actionable());
        let mut args = vec![json!(NOT_ACTIONABLE)];
        args.extend(element_args(session, handle, &self.args()));
        call(&bind(scripts::THROWING, &[&check]), &args)
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

/// For a `select`: the commands that mark its document before the action and tell after the
/// read whether the page is still in it (a language switch loads another: the choice was taken).
fn document_marks(command: &str) -> (Option<Command>, Option<Command>) {
    if command != "select" {
        return (None, None);
    }
    (
        Some(Command::eval(call(scripts::MARK_DOCUMENT, &[]))),
        Some(Command::eval(call(scripts::SAME_DOCUMENT, &[]))),
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
        assert!(Guard::of("select").is_some_and(|g| g.hit && g.visible));
        assert!(Guard::of("upload").is_some_and(|g| !g.visible && !g.hit));
        assert_eq!(
            fill.args(),
            [
                json!(true),
                json!(true),
                json!(true),
                json!(false),
                json!(true)
            ]
        );
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
