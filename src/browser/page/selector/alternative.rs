//! The selector model: a selector (a string, an object or a fallback list) as the alternatives
//! it tries in order, each as the user wrote it.

use crate::config::model::{Selector, SelectorItem, SelectorObject};

/// One alternative of a selector.
#[derive(Debug, Clone)]
pub(crate) enum Alt {
    Ref(String),
    /// CSS, and with `text` only its matches whose text contains it (Playwright's
    /// `locator(css, { hasText })`; equal to it with `exact`).
    Css {
        css: String,
        text: Option<String>,
        exact: bool,
        nth: Option<i64>,
        frame: Option<String>,
    },
    Role {
        role: String,
        name: Option<String>,
        exact: bool,
        nth: Option<i64>,
        frame: Option<String>,
    },
    Text {
        text: String,
        tag: Option<String>,
        exact: bool,
        nth: Option<i64>,
        frame: Option<String>,
    },
}

impl Alt {
    /// Whether it gives a text (or a role's name) that is empty once whitespace-normalised:
    /// such a text is contained in every element's, so it would match anything.
    pub(crate) fn has_empty_text(&self) -> bool {
        let text = match self {
            Alt::Css { text, .. } => text.as_deref(),
            Alt::Role { name, .. } => name.as_deref(),
            Alt::Text { text, .. } => Some(text.as_str()),
            Alt::Ref(_) => None,
        };
        text.is_some_and(|t| super::text::normalize(t).is_empty())
    }

    /// How the user wrote it (for reports).
    pub(crate) fn describe(&self) -> String {
        let mut out = self.describe_base();
        if let Some(n) = self.nth() {
            out.push_str(&format!(" (nth {n})"));
        }
        if let Some(f) = self.frame() {
            out.push_str(&format!(" in frame `{f}`"));
        }
        out
    }

    /// The iframe it looks inside (CSS in the page).
    pub(crate) fn frame(&self) -> Option<&str> {
        match self {
            Alt::Ref(_) => None,
            Alt::Css { frame, .. } | Alt::Role { frame, .. } | Alt::Text { frame, .. } => {
                frame.as_deref()
            }
        }
    }

    /// Which match the alternative means, when it says.
    pub(crate) fn nth(&self) -> Option<i64> {
        match self {
            Alt::Ref(_) => None,
            Alt::Css { nth, .. } | Alt::Role { nth, .. } | Alt::Text { nth, .. } => *nth,
        }
    }

    fn describe_base(&self) -> String {
        match self {
            Alt::Ref(r) => format!("@{r}"),
            Alt::Css {
                css: c,
                text: Some(t),
                ..
            } => format!("css `{c}` with text \"{t}\""),
            Alt::Css { css: c, .. } => format!("css `{c}`"),
            Alt::Role {
                role,
                name: Some(n),
                ..
            } => format!("{role} \"{n}\""),
            Alt::Role {
                role, name: None, ..
            } => role.clone(),
            Alt::Text {
                text, tag: Some(t), ..
            } => format!("<{t}> with text \"{text}\""),
            Alt::Text {
                text, tag: None, ..
            } => format!("text \"{text}\""),
        }
    }
}

fn from_object(o: &SelectorObject) -> Alt {
    let exact = o.exact.unwrap_or(false);
    let nth = o.nth;
    let frame = o.frame.clone();
    if let Some(r) = &o.reference {
        Alt::Ref(r.trim_start_matches('@').to_string())
    } else if let Some(c) = &o.css {
        Alt::Css {
            css: c.clone(),
            text: o.text.clone(),
            exact,
            nth,
            frame,
        }
    } else if let Some(role) = &o.role {
        Alt::Role {
            role: role.clone(),
            name: o.text.clone(),
            exact,
            nth,
            frame,
        }
    } else {
        Alt::Text {
            text: o.text.clone().unwrap_or_default(),
            tag: o.tag.clone(),
            exact,
            nth,
            frame,
        }
    }
}

fn from_string(s: &str) -> Alt {
    match s.strip_prefix('@') {
        Some(r) if !r.is_empty() && r.chars().all(|c| c.is_ascii_alphanumeric()) => {
            Alt::Ref(r.to_string())
        }
        _ => Alt::Css {
            css: s.to_string(),
            text: None,
            exact: false,
            nth: None,
            frame: None,
        },
    }
}

/// The alternatives of a selector, in order.
pub(crate) fn alternatives(sel: &Selector) -> Vec<Alt> {
    match sel {
        Selector::String(s) => vec![from_string(s)],
        Selector::Object(o) => vec![from_object(o)],
        Selector::List(items) => items
            .iter()
            .map(|i| match i {
                SelectorItem::String(s) => from_string(s),
                SelectorItem::Object(o) => from_object(o),
            })
            .collect(),
    }
}

/// A selector as the user reads it: its alternatives joined with ` | `.
pub(crate) fn describe_selector(sel: &Selector) -> String {
    alternatives(sel)
        .iter()
        .map(Alt::describe)
        .collect::<Vec<_>>()
        .join(" | ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_refs_or_css() {
        assert!(matches!(from_string("@e5"), Alt::Ref(r) if r == "e5"));
        assert!(matches!(from_string("#login > button"), Alt::Css { .. }));
        assert!(matches!(from_string("@media"), Alt::Ref(_)));
    }
}
