//! What `select` and `type` check beyond the element's actionability, and read back after the
//! action, as `fill` and `check` do: a `select` chooses only options a user could choose (as
//! Playwright's `selectOption`: each value names an option by its value or its label, and that
//! option is enabled — not disabled, not in a disabled `<optgroup>`, not aria-disabled; the step
//! waits for it), and the select
//! must hold the choice after the page's change handlers ran; a field `type` typed into must
//! hold the text typed and have grown by it (a `maxlength`, a mask or a formatter that changes
//! it, or an editor that refuses input, fails the step).

use serde_json::{Value, json};

use super::scripts;
use super::selector::{Resolved, element_args, on_element};
use crate::browser::driver::command::Command;
use crate::browser::driver::script::{bind, call};
use crate::browser::driver::session::Session;
use crate::step::{ErrorKind, StepError};

/// The check a `select`'s call carries before the action: a script that throws with `prefix`
/// and why (an option missing, or disabled) when the options `values` name cannot be chosen.
pub(super) fn options_check(
    session: &Session,
    handle: &str,
    values: &[String],
    prefix: &str,
) -> Command {
    let check = on_element(session, handle, &scripts::select_options());
    let mut args = vec![json!(prefix)];
    args.extend(element_args(session, handle, &[json!(values)]));
    Command::eval(call(&bind(scripts::THROWING, &[&check]), &args))
}

/// A `select` must leave every value asked for chosen (by its value or its label) once the
/// page's change handlers ran; `read` is what the select held then (`[{ value, label }]`, null
/// when it is gone). A select gone because its change loaded another document (`same_document`
/// false: a language switch) took the choice: the page went where it leads.
pub(super) fn kept(
    r: &Resolved,
    values: &[String],
    read: Option<&Value>,
    same_document: bool,
) -> Result<(), StepError> {
    if !same_document && read.is_none_or(Value::is_null) {
        return Ok(());
    }
    let Some(selected) = read.and_then(Value::as_array) else {
        return Err(StepError::new(
            ErrorKind::CommandFailed,
            format!(
                "`select` chose {} in {}, but the select is gone from the page after it: runner cannot read back what it holds",
                quoted(values),
                r.matched
            ),
        ));
    };
    let field = |o: &Value, k: &str| o.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let chosen = |v: &String| {
        selected
            .iter()
            .any(|o| field(o, "value") == *v || norm(&field(o, "label")) == norm(v))
    };
    if values.iter().all(chosen) {
        return Ok(());
    }
    let holds: Vec<String> = selected.iter().map(|o| field(o, "label")).collect();
    Err(StepError::new(
        ErrorKind::CommandFailed,
        format!(
            "`select` chose {} in {}, but the page made it {} (a change handler put back or changed the choice)",
            quoted(values),
            r.matched,
            if holds.is_empty() {
                "hold no option".to_string()
            } else {
                quoted(&holds)
            }
        ),
    ))
}

/// A field must hold what `fill` typed: a page that takes less (`maxlength`) or changes it (a
/// mask, a formatter) fails the step, saying what the field holds; not when what was typed
/// reads a secret (`secret`): then only how many characters it holds
/// ([`read_back::changed`]). The input of a code editor that keeps its text elsewhere
/// (CodeMirror 5's hidden textarea) is read back through the editor: `got` is the editor's text
/// then, and it must be the text filled, nothing before or after it.
pub(super) fn field_took(
    r: &Resolved,
    want: &str,
    (got, editor): (&str, Option<&str>),
    secret: bool,
) -> Result<(), StepError> {
    let ok = match editor {
        Some(_) => want.replace("\r\n", "\n") == got.replace("\r\n", "\n"),
        None => holds(r, want, got),
    };
    if ok {
        return Ok(());
    }
    Err(changed("fill", r, want, (got, editor), secret))
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

/// A field `type` typed `want` into must hold it (before what it held, or around it): as
/// `fill`, a page that takes less (`maxlength`) or changes it (a mask, a formatter) fails the
/// step, saying what the field holds (not when what was typed reads a secret: `secret`, see
/// [`changed`]). `before` and `got` are the field's text before and after
/// typing: the field must also have grown by the text typed (an input that held `abc`, or
/// `10`, holds `abc`, or `1`, whether or not it took the keys; so does an editor that refuses
/// input and already shows the text). A contenteditable's text is counted with its runs of
/// white space as one, as it is compared.
pub(super) fn typed(
    r: &Resolved,
    want: &str,
    before: &str,
    (got, editor): (&str, Option<&str>),
    secret: bool,
) -> Result<(), StepError> {
    let k = &r.kind;
    let grew = |typed: &str| got.chars().count() >= before.chars().count() + typed.chars().count();
    let count = |s: &str| norm(s).chars().count();
    let holds = match k.tag.as_str() {
        "input" => {
            let one_line: String = want.chars().filter(|c| !matches!(c, '\r' | '\n')).collect();
            match k.input_type.as_str() {
                "email" | "url" => got.contains(one_line.trim()) && grew(one_line.trim()),
                _ => got.contains(&one_line) && grew(&one_line),
            }
        }
        "textarea" => {
            let lines = want.replace("\r\n", "\n").replace('\r', "\n");
            got.contains(&lines) && grew(&lines)
        }
        _ => norm(got).contains(&norm(want)) && count(got) >= count(before) + count(want),
    };
    if holds {
        return Ok(());
    }
    Err(changed("type", r, want, (got, editor), secret))
}

/// A field's read-back (`scripts::field_text`'s answer): its text, and the code editor it was
/// read from when the field is the input of one that keeps its text elsewhere.
pub(super) fn field_read(v: Option<&Value>) -> (&str, Option<&str>) {
    match v {
        Some(Value::Object(o)) => (
            o.get("text").and_then(Value::as_str).unwrap_or(""),
            o.get("editor").and_then(Value::as_str),
        ),
        v => (v.and_then(Value::as_str).unwrap_or(""), None),
    }
}

/// The error of `command` (`fill`, `type`) that typed `want` into a field that then held
/// `got` (the text of the code editor `editor`, when the field is its input). What the field
/// holds is quoted, unless what was typed reads a secret (`secret`):
/// a page that cuts it (`maxlength`, also on a password field) keeps most of it, and one that
/// formats it (`4929 1736 5021 8342`) shows it in a form that may not be masked; then only how
/// many characters the field holds is said.
pub(super) fn changed(
    command: &str,
    r: &Resolved,
    want: &str,
    (got, editor): (&str, Option<&str>),
    secret: bool,
) -> StepError {
    if let Some(editor) = editor {
        return in_editor(command, r, want, got, editor, secret);
    }
    let message = if secret {
        format!(
            "`{command}` typed a secret into {}, but the field holds {} characters, not the {} typed: the page cut or changed them (a maxlength, a mask or a formatter; what it holds is not shown, as it is made of a secret)",
            r.matched,
            got.chars().count(),
            want.chars().count()
        )
    } else {
        format!(
            "`{command}` typed `{want}` into {}, but the page made it `{got}` (a maxlength, a mask or a formatter changes what it takes)",
            r.matched
        )
    };
    StepError::new(ErrorKind::CommandFailed, message)
}

/// [`changed`] for the input of a code editor: what the editor holds is said (it is what the
/// user sees; the input itself holds nothing of it).
fn in_editor(
    command: &str,
    r: &Resolved,
    want: &str,
    got: &str,
    editor: &str,
    secret: bool,
) -> StepError {
    let m = &r.matched;
    let message = if secret {
        format!(
            "`{command}` typed a secret into {m}, the input of a {editor} editor, but the editor holds {} characters, not the {} typed (what it holds is not shown, as it is made of a secret)",
            got.chars().count(),
            want.chars().count()
        )
    } else {
        format!(
            "`{command}` typed `{want}` into {m}, the input of a {editor} editor, but the editor holds `{got}`: it changed what it took, or kept text around it"
        )
    };
    StepError::new(ErrorKind::CommandFailed, message)
}

/// Text with its runs of white space as one space, trimmed (how an option's label is matched).
fn norm(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `a`, `b` as an error says them.
fn quoted(values: &[String]) -> String {
    values
        .iter()
        .map(|v| format!("`{v}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{kept, typed};
    use crate::browser::driver::script::node_run;
    use crate::browser::page::element_kind::ElementKind;
    use crate::browser::page::scripts;
    use crate::browser::page::selector::Resolved;

    fn select(tag: &str) -> Resolved {
        Resolved {
            target: "#s".to_string(),
            matched: "css `#s`".to_string(),
            index: 0,
            count: 1,
            has_nth: false,
            matches: Vec::new(),
            kind: ElementKind {
                tag: tag.to_string(),
                ..ElementKind::default()
            },
            frame: None,
            read: None,
        }
    }

    /// A choice is kept when a selected option has the value or the label asked for; one the
    /// page put back fails, saying what the select holds.
    #[test]
    fn a_select_keeps_the_choice_or_fails_saying_what_it_holds() {
        let r = select("select");
        let held = json!([{ "value": "l", "label": "Large" }]);
        assert!(kept(&r, &["l".into()], Some(&held), true).is_ok());
        assert!(kept(&r, &[" Large ".into()], Some(&held), true).is_ok());
        let back = json!([{ "value": "black", "label": "black" }]);
        let e = kept(&r, &["gold".into()], Some(&back), true).unwrap_err();
        assert!(
            e.message.contains("`gold`") && e.message.contains("made it `black`"),
            "{}",
            e.message
        );
        let gone = kept(&r, &["gold".into()], None, true).unwrap_err();
        // Gone with the document its change replaced: the choice was taken.
        assert!(kept(&r, &["gold".into()], None, false).is_ok());
        assert!(
            gone.message.contains("gone from the page"),
            "{}",
            gone.message
        );
    }

    /// `type` must leave its text in the field; a maxlength that cut it fails.
    #[test]
    fn a_typed_text_must_be_in_the_field() {
        let r = select("input");
        assert!(typed(&r, "def", "abc", ("abcdef", None), false).is_ok());
        let e = typed(&r, "abcdef", "", ("abc", None), false).unwrap_err();
        assert!(e.message.contains("made it `abc`"), "{}", e.message);
        assert!(typed(&select("div"), "a  b", "x", ("x a b", None), false).is_ok());
        // A field that already held the text, and took none of the keys (a maxlength full).
        assert!(typed(&r, "abc", "abc", ("abc", None), false).is_err());
        assert!(typed(&r, "1", "10", ("10", None), false).is_err());
        assert!(typed(&select("textarea"), "b", "ab", ("ab", None), false).is_err());
        // An editor that refuses input, already showing the text; one that took it.
        let editor = select("div");
        let draft = "Hi team, deploy done";
        assert!(typed(&editor, "deploy done", draft, (draft, None), false).is_err());
        assert!(typed(&editor, "Re: ", "Hi  team", ("Re: Hi team", None), false).is_ok());
        // Typed from a secret: what the field holds is not quoted, only how much.
        let e = typed(&r, "Kx7Wq2Rn8Lp5Vb3M", "", ("Kx7Wq2Rn8Lp5", None), true).unwrap_err();
        assert!(!e.message.contains("Kx7W"), "{}", e.message);
        assert!(
            e.message.contains("holds 12 characters, not the 16 typed"),
            "{}",
            e.message
        );
    }

    /// The code editors `EDITOR_OF` reads, run in node on stand-ins: CodeMirror 5's input (its
    /// text through its API; a textarea in the editor that is not its input is no editor's),
    /// Ace's through `env.editor`, Monaco's without its API through the rendered lines in the
    /// order they are shown (top to bottom, no-break spaces as spaces); any other field, none.
    #[test]
    fn the_editor_read_back_reads_the_editors_text() {
        let page = "const el = (o) => Object.assign({ matches: () => false, closest: () => null }, o);
const input = el({}); const other = el({});
const cm = { CodeMirror: { getInputField: () => input, getValue: (sep) => 'select 1' + sep + 'from t' } };
input.closest = (s) => (s === '.CodeMirror' ? cm : null); other.closest = input.closest;
const line = (text, top) => ({ textContent: text, style: { top: top + 'px' } });
const monacoRoot = { querySelectorAll: () => [line('b\\u00a0c', 19), line('a', 0)] };
const monaco = el({ matches: (s) => s.includes('inputarea'), closest: (s) => (s === '.monaco-editor' ? monacoRoot : null) });
const aceRoot = { env: { editor: { getValue: () => 'ace text' } } };
const ace = el({ matches: (s) => s.includes('ace_text-input'), closest: (s) => (s === '.ace_editor' ? aceRoot : null) });
const window = {};";
        let run = |e: &str| {
            let script = format!(
                "(() => {{ const r = ({})({e}); return r && [r.name, r.text()]; }})()",
                scripts::EDITOR_OF
            );
            node_run(page, &script)
                .map(|out| serde_json::from_str::<serde_json::Value>(&out).unwrap())
        };
        assert_eq!(run("input"), Ok(json!(["CodeMirror", "select 1\nfrom t"])));
        assert_eq!(run("other"), Ok(json!(null)));
        assert_eq!(run("monaco"), Ok(json!(["Monaco", "a\nb c"])));
        assert_eq!(run("ace"), Ok(json!(["Ace", "ace text"])));
        assert_eq!(run("el({})"), Ok(json!(null)));
    }

    /// The options check, run in node on a stand-in select: a disabled option (itself, in a
    /// disabled group, aria-disabled) and a missing one are refused; an option is found by its
    /// value or its label.
    #[test]
    fn the_options_check_refuses_what_a_user_cannot_choose() {
        // An <option>: `disabled` itself, in an <optgroup disabled>, or `aria-disabled`.
        let page = "const opt = (value, label, disabled, group, aria) => ({ value, label,
  tagName: 'OPTION', isContentEditable: false, parentElement: null, matches: () => false,
  closest: (s) => (group && s === 'optgroup[disabled]' ? {} : null),
  hasAttribute: (a) => a === 'disabled' && disabled,
  getAttribute: (a) => (aria && a === 'aria-disabled' ? 'TRUE' : null) });
const el = { options: [opt('M', 'M', false), opt('XL', 'XL (sold out)', true),
  opt('K4', 'K4', false, true), opt('l', 'Large', false), opt('S', 'S', false, false, true)] };";
        let run = |v: &str| {
            let script = format!("({})(el, [{}])", scripts::select_options(), json!(v));
            node_run(page, &script)
                .map(|out| serde_json::from_str::<serde_json::Value>(&out).unwrap())
        };
        assert_eq!(run("Large"), Ok(json!(true)));
        assert_eq!(run("l"), Ok(json!(true)));
        assert_eq!(
            run("XL (sold out)"),
            Ok(json!("its option `XL (sold out)` is disabled"))
        );
        assert_eq!(run("K4"), Ok(json!("its option `K4` is disabled")));
        assert_eq!(run("S"), Ok(json!("its option `S` is disabled")));
        assert_eq!(run("XXL"), Ok(json!("it has no option `XXL`")));
    }
}
