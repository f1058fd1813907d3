//! Whether an element is of the kind an action needs (`fill` a text field, `check` a checkbox),
//! so an action refuses the wrong element instead of reporting success after doing nothing.

use super::selector::Resolved;
use crate::step::{ErrorKind, StepError};

/// Refuses an action on an element it cannot act on (`fill` on a checkbox, `select` on a text
/// field, `uncheck` on a radio button), instead of reporting success and doing nothing.
pub(crate) fn fits(command: &str, r: &Resolved) -> Result<(), StepError> {
    let k = &r.kind;
    let needs = match command {
        // A `<select>` the snapshot calls a combobox: agent-browser would "fill" it without
        // changing it.
        "fill" | "type" if k.tag == "select" => {
            Some("a text field (a <select> takes `select`)".to_string())
        }
        // `fill` also sets a date, a colour, a range (`set_value`).
        "fill" | "type" if !(k.is_text_field() || command == "fill" && k.takes_value()) => {
            Some(if k.input_type == "file" {
                "a text field (a file input takes files: `upload: { target, files }`)".to_string()
            } else {
                "a text field".to_string()
            })
        }
        "upload" if !(k.tag == "input" && k.input_type == "file") => {
            Some("a file input (`<input type=file>`)".to_string())
        }
        "select" if !k.is_select() => Some("a <select> (a combobox or listbox)".to_string()),
        "check" if !(k.is_checkbox() || k.is_radio()) => {
            Some("a checkbox or a radio button".to_string())
        }
        "uncheck" if k.is_radio() => Some(
            "a checkbox (a radio button cannot be unchecked: check another option)".to_string(),
        ),
        "uncheck" if !k.is_checkbox() => Some("a checkbox".to_string()),
        _ => None,
    };
    match needs {
        None => Ok(()),
        Some(what) => Err(StepError::new(
            ErrorKind::CommandFailed,
            format!(
                "`{command}` needs {what}, but {} is {}",
                r.matched,
                k.describe()
            ),
        )),
    }
}
