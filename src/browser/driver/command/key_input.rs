//! How `keyboard` gives agent-browser its text.

use serde::Serialize;

/// How `keyboard` gives its text: key by key, or inserted at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub(crate) enum KeyboardInput {
    /// `keydown`, `keypress`/`input` and `keyup` for each character.
    #[serde(rename = "type")]
    Type,
    /// One `input` of the whole text, no key events.
    #[serde(rename = "insertText")]
    InsertText,
}

impl KeyboardInput {
    /// The CLI's word for it (`keyboard type|inserttext`).
    pub(super) fn word(self) -> &'static str {
        match self {
            KeyboardInput::Type => "type",
            KeyboardInput::InsertText => "inserttext",
        }
    }
}
