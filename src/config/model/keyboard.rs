//! `keyboard`: keys and text for whatever element has the focus, for the editors that take keys
//! only there (CodeMirror, Monaco, ProseMirror), as Playwright's `page.keyboard`.

use serde::Deserialize;

use super::value::OneOrMany;
use crate::source::did_you_mean;

/// The keys a chord may hold besides one character, by Playwright's names: those agent-browser
/// 0.41.2 sends as the key they name (checked key by key against a page's `keydown`). Another
/// name — a typo (`Enterr`), Playwright's `Digit1`/`KeyA`/`ControlOrMeta`, a non-ASCII
/// character — reaches the page as a key event with no key, does nothing, and would pass.
const NAMED_KEYS: &[&str] = &[
    "Enter",
    "Tab",
    "Escape",
    "Backspace",
    "Delete",
    "Insert",
    "Space",
    "Home",
    "End",
    "PageUp",
    "PageDown",
    "ArrowUp",
    "ArrowDown",
    "ArrowLeft",
    "ArrowRight",
    "F1",
    "F2",
    "F3",
    "F4",
    "F5",
    "F6",
    "F7",
    "F8",
    "F9",
    "F10",
    "F11",
    "F12",
    "Shift",
    "Control",
    "Alt",
    "Meta",
    "CapsLock",
    "NumLock",
    "ScrollLock",
    "Pause",
    "PrintScreen",
    "ContextMenu",
    "AltGraph",
];

/// The keys held down in a chord (`Control+Shift+z`).
const MODIFIERS: &[&str] = &["Shift", "Control", "Alt", "Meta"];

/// Whether `key` is a key or chord runner can press (`Enter`, `a`, `Control+a`,
/// `Control+Shift+Z`): else what is wrong and what to write instead. A template is judged once
/// rendered.
pub(crate) fn check_key(key: &str) -> Result<(), (String, String)> {
    if key.contains("{{") {
        return Ok(());
    }
    let (mods, last) = match key.rsplit_once('+') {
        // `+` itself, alone or as a chord's key (`Shift++`).
        Some((m, "")) if m.is_empty() || m.ends_with('+') => (m.trim_end_matches('+'), "+"),
        Some((m, last)) => (m, last),
        None => ("", key),
    };
    for m in mods.split('+').filter(|_| !mods.is_empty()) {
        if !MODIFIERS.contains(&m) {
            let help = did_you_mean(m, MODIFIERS.iter().copied()).map_or_else(
                || "the modifiers are Shift, Control, Alt and Meta".to_string(),
                |s| format!("did you mean `{s}`?"),
            );
            return Err((format!("`{key}`: `{m}` is not a modifier"), help));
        }
    }
    let one_char = last.chars().count() == 1;
    if one_char && last.is_ascii() || NAMED_KEYS.contains(&last) {
        return Ok(());
    }
    let help = if one_char {
        format!(
            "a key is an ASCII character or a key's name: type `{last}` with `keyboard: {{ type: \"{last}\" }}`"
        )
    } else if let Some(c) = last
        .strip_prefix("Digit")
        .or(last.strip_prefix("Key"))
        .filter(|c| c.len() == 1)
    {
        format!("write the character, `{}`", c.to_lowercase())
    } else if last == "ControlOrMeta" {
        "write `Control` (or `Meta` for macOS shortcuts)".to_string()
    } else if let Some(s) = did_you_mean(last, NAMED_KEYS.iter().copied()) {
        format!("did you mean `{s}`?")
    } else {
        format!("a key is one character or one of {}", NAMED_KEYS.join(", "))
    };
    Err((format!("`{key}` is not a key runner can press"), help))
}

/// `keyboard`: exactly one of `type` (text as real key events), `insert_text` (text as one
/// input, as a paste or an input method gives it) and `press` (a key or chord, or several in
/// order), for whatever has the focus. It names no element: the targeted actions (`fill`,
/// `type`, `press: { target }`) never fall back to the focus, this one only ever uses it.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum KeyboardAction {
    Type(String),
    InsertText(String),
    Press(OneOrMany),
}

impl KeyboardAction {
    /// The keys of `press`, in order (empty for text).
    pub(crate) fn keys(&self) -> Vec<&str> {
        match self {
            KeyboardAction::Press(OneOrMany::One(k)) => vec![k.as_str()],
            KeyboardAction::Press(OneOrMany::Many(ks)) => ks.iter().map(String::as_str).collect(),
            KeyboardAction::Type(_) | KeyboardAction::InsertText(_) => Vec::new(),
        }
    }

    pub(crate) fn check(&self) -> Result<(), String> {
        match self {
            KeyboardAction::Type(t) if t.is_empty() => Err("`keyboard.type` needs text".into()),
            KeyboardAction::InsertText(t) if t.is_empty() => {
                Err("`keyboard.insert_text` needs text".into())
            }
            KeyboardAction::Press(_) if self.keys().is_empty() => {
                Err("`keyboard.press` needs a key".into())
            }
            KeyboardAction::Press(_) if self.keys().iter().any(|k| k.is_empty()) => {
                Err("`keyboard.press`: a key must not be empty".into())
            }
            KeyboardAction::Type(_) | KeyboardAction::InsertText(_) | KeyboardAction::Press(_) => {
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn keys_are_what_agent_browser_presses() {
        for ok in [
            "Enter",
            "a",
            "Z",
            "1",
            "/",
            "+",
            " ",
            "Control+a",
            "Control+Shift+Z",
            "Shift++",
            "Meta+ArrowLeft",
            "F12",
            "Shift",
            "{{ vars.key }}",
        ] {
            assert_eq!(check_key(ok), Ok(()), "{ok}");
        }
        for (bad, says) in [
            ("Enterr", "did you mean `Enter`?"),
            (
                "Cntrl+a",
                "`Cntrl` is not a modifier did you mean `Control`?",
            ),
            ("Digit1", "write the character, `1`"),
            ("KeyA", "write the character, `a`"),
            ("ControlOrMeta+a", "did you mean `Control`?"),
            ("ControlOrMeta", "write `Control`"),
            ("é", "keyboard: { type: \"é\" }"),
            ("", "a key is one character or one of Enter"),
            ("Control+", "a key is one character"),
        ] {
            let (what, help) = check_key(bad).unwrap_err();
            let e = format!("{what} {help}");
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    fn read(v: serde_json::Value) -> Result<KeyboardAction, String> {
        let k: KeyboardAction = serde_json::from_value(v).map_err(|e| e.to_string())?;
        k.check().map(|()| k)
    }

    #[test]
    fn one_of_type_insert_text_or_press() {
        assert!(
            matches!(read(json!({"type": "select 1"})), Ok(KeyboardAction::Type(t)) if t == "select 1")
        );
        assert!(matches!(
            read(json!({"insert_text": "é"})),
            Ok(KeyboardAction::InsertText(_))
        ));
        assert_eq!(
            read(json!({"press": "Control+a"})).unwrap().keys(),
            ["Control+a"]
        );
        assert_eq!(
            read(json!({"press": ["End", "Enter"]})).unwrap().keys(),
            ["End", "Enter"]
        );
        for bad in [
            json!({}),
            json!({"type": "a", "press": "Enter"}),
            json!({"typ": "a"}),
            json!({"type": ""}),
            json!({"press": []}),
            json!({"press": ["Enter", ""]}),
            json!({"press": "Enter", "target": "#a"}),
        ] {
            assert!(read(bad.clone()).is_err(), "{bad}");
        }
    }
}
