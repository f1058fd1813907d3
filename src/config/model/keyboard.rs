//! `keyboard`: keys and text for whatever element has the focus, for the editors that take keys
//! only there (CodeMirror, Monaco, ProseMirror), as Playwright's `page.keyboard`.

use serde::Deserialize;

use super::value::OneOrMany;

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
