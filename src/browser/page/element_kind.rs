//! What kind of element an action's target is, so an action refuses an element it cannot act
//! on (`fill` on a checkbox, `select` on a text field) instead of reporting success.

/// What kind of element a target is: its tag and input type, or its ARIA role.
#[derive(Debug, Clone, Default)]
pub(crate) struct ElementKind {
    pub(crate) tag: String,
    /// `type` of an `<input>`.
    pub(crate) input_type: String,
    pub(crate) editable: bool,
    /// The role, when the element was found through the accessibility snapshot.
    pub(crate) role: String,
}

impl ElementKind {
    /// What a page script says of an element (`{ tag, input_type, editable, role }`, the
    /// look-up's `kind`); missing fields are empty.
    pub(crate) fn from_page(kind: &serde_json::Value) -> ElementKind {
        let field = |k: &str| {
            kind.get(k)
                .and_then(serde_json::Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        ElementKind {
            tag: field("tag"),
            input_type: field("input_type"),
            editable: kind
                .get("editable")
                .and_then(serde_json::Value::as_bool)
                .unwrap_or(false),
            role: field("role"),
        }
    }

    /// How the user would name the element in a message.
    pub(crate) fn describe(&self) -> String {
        if !self.role.is_empty() {
            return self.role.clone();
        }
        if self.tag == "input" && !self.input_type.is_empty() {
            return format!("<input type={}>", self.input_type);
        }
        format!("<{}>", self.tag)
    }

    /// A field that takes typed text.
    pub(crate) fn is_text_field(&self) -> bool {
        if !self.role.is_empty() {
            return matches!(
                self.role.as_str(),
                "textbox" | "searchbox" | "combobox" | "spinbutton"
            );
        }
        match self.tag.as_str() {
            "textarea" => true,
            "input" => !matches!(
                self.input_type.as_str(),
                "checkbox"
                    | "radio"
                    | "file"
                    | "submit"
                    | "button"
                    | "reset"
                    | "image"
                    | "range"
                    | "color"
                    | "hidden"
            ),
            _ => self.editable,
        }
    }

    /// An `<input>` whose value is set rather than typed (a date, a time, a colour, a range):
    /// `fill` sets it as Playwright does.
    pub(crate) fn takes_value(&self) -> bool {
        self.tag == "input" && value_hint(&self.input_type).is_some()
    }

    /// An element with a value (`expect: { value }`): a form field, or a widget whose role
    /// has one.
    pub(crate) fn has_value(&self) -> bool {
        if !self.role.is_empty() {
            return matches!(
                self.role.as_str(),
                "textbox" | "searchbox" | "combobox" | "spinbutton" | "slider" | "listbox"
            );
        }
        matches!(self.tag.as_str(), "input" | "textarea" | "select")
    }

    /// A `<select>` (a combobox or listbox in the snapshot).
    pub(crate) fn is_select(&self) -> bool {
        if self.role.is_empty() {
            self.tag == "select"
        } else {
            matches!(self.role.as_str(), "combobox" | "listbox")
        }
    }

    /// A checkbox (or switch).
    pub(crate) fn is_checkbox(&self) -> bool {
        if self.role.is_empty() {
            self.tag == "input" && self.input_type == "checkbox"
        } else {
            matches!(
                self.role.as_str(),
                "checkbox" | "switch" | "menuitemcheckbox"
            )
        }
    }

    /// A radio button.
    pub(crate) fn is_radio(&self) -> bool {
        if self.role.is_empty() {
            self.tag == "input" && self.input_type == "radio"
        } else {
            matches!(self.role.as_str(), "radio" | "menuitemradio")
        }
    }
}

/// How a value is written for an `<input type=…>` that `fill` sets rather than types into;
/// `None` for the other types.
pub(crate) fn value_hint(input_type: &str) -> Option<&'static str> {
    Some(match input_type {
        "date" => "dates are written yyyy-mm-dd",
        "time" => "times are written hh:mm or hh:mm:ss",
        "datetime-local" => "dates and times are written yyyy-mm-ddThh:mm",
        "month" => "months are written yyyy-mm",
        "week" => "weeks are written yyyy-Www",
        "color" => "colours are written #rrggbb",
        "range" => "a range takes a number between its min and max, on its step",
        _ => return None,
    })
}
