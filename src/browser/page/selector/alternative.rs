//! The selector model: a selector (a string, an object or a fallback list) as the alternatives
//! it tries in order, each as the user wrote it: how it finds its elements, which of them it
//! means (`nth`), the iframe it looks in and the one element it looks inside (`within`).

use serde_json::{Value, json};

use crate::config::model::{Selector, SelectorItem, SelectorObject};

/// One alternative of a selector.
#[derive(Debug, Clone)]
pub(crate) struct Alt {
    pub(crate) find: Find,
    /// Which match, when several do: 0-based, negative from the end.
    pub(crate) nth: Option<i64>,
    /// The iframe (CSS in the page) it looks inside; a `within` has its outer selector's.
    pub(crate) frame: Option<String>,
    /// The one element it looks inside.
    pub(crate) within: Option<Box<Alt>>,
}

/// How an alternative finds its elements.
#[derive(Debug, Clone)]
pub(crate) enum Find {
    Ref(String),
    /// CSS, and with `text` only its matches whose text contains it (Playwright's
    /// `locator(css, { hasText })`; equal to it with `exact`).
    Css {
        css: String,
        text: Option<String>,
        exact: bool,
    },
    Role {
        role: String,
        name: Option<String>,
        exact: bool,
    },
    Text {
        text: String,
        tag: Option<String>,
        exact: bool,
    },
    /// `label`, `placeholder`, `testid`, `alt` or `title` (`key`), as Playwright's `getByLabel`,
    /// `getByPlaceholder`, ...: elements whose label or attribute has `value`.
    Attr {
        key: &'static str,
        value: String,
        exact: bool,
    },
}

impl Alt {
    /// Whether it (or a `within` of it) gives a text (or a role's name, a label, ...) that is
    /// empty once whitespace-normalised: such a text is contained in every element's, so it
    /// would match anything.
    pub(crate) fn has_empty_text(&self) -> bool {
        let text = match &self.find {
            Find::Css { text, .. } => text.as_deref(),
            Find::Role { name, .. } => name.as_deref(),
            Find::Text { text, .. } => Some(text.as_str()),
            Find::Attr { value, .. } => Some(value.as_str()),
            Find::Ref(_) => None,
        };
        text.is_some_and(|t| super::normalize(t).is_empty())
            || self.within.as_ref().is_some_and(|w| w.has_empty_text())
    }

    /// How the user wrote it (for reports).
    pub(crate) fn describe(&self) -> String {
        let mut out = self.describe_level();
        if let Some(w) = &self.within {
            out.push_str(&format!(" within {}", w.describe_chain()));
        }
        if let Some(f) = self.frame() {
            out.push_str(&format!(" in frame `{f}`"));
        }
        out
    }

    /// This level alone: how it finds and `nth`.
    pub(crate) fn describe_level(&self) -> String {
        let mut out = self.find.describe();
        if let Some(n) = self.nth {
            out.push_str(&format!(" (nth {n})"));
        }
        out
    }

    /// This level and its `within`s, without the frame.
    fn describe_chain(&self) -> String {
        match &self.within {
            Some(w) => format!("{} within {}", self.describe_level(), w.describe_chain()),
            None => self.describe_level(),
        }
    }

    /// The iframe it looks inside (CSS in the page).
    pub(crate) fn frame(&self) -> Option<&str> {
        self.frame.as_deref()
    }

    /// Which match the alternative means, when it says.
    pub(crate) fn nth(&self) -> Option<i64> {
        self.nth
    }

    /// Its levels, the outermost `within` first and itself last.
    pub(crate) fn levels(&self) -> Vec<&Alt> {
        let mut out = vec![self];
        let mut at = self;
        while let Some(w) = &at.within {
            out.push(w);
            at = w;
        }
        out.reverse();
        out
    }

    /// Whether this level is found in the page's DOM (not through the accessibility snapshot).
    pub(crate) fn in_dom(&self) -> bool {
        !matches!(self.find, Find::Ref(_) | Find::Role { .. })
    }

    /// This level as the page scripts take it (`elements.js`): `None` for a ref or a role,
    /// which the accessibility snapshot answers. `testid` is the test-id attribute.
    pub(crate) fn level_json(&self, testid: &str) -> Option<Value> {
        let nth = self.nth;
        Some(match &self.find {
            Find::Css { css, text, exact } => {
                json!({ "kind": "css", "css": css, "text": text, "exact": exact, "nth": nth })
            }
            Find::Text { text, tag, exact } => {
                json!({ "kind": "text", "text": text, "tag": tag, "exact": exact, "nth": nth })
            }
            Find::Attr {
                key: "label",
                value,
                exact,
            } => json!({ "kind": "label", "value": value, "exact": exact, "nth": nth }),
            Find::Attr { key, value, exact } => {
                let (name, exact) = match *key {
                    "testid" => (testid, true),
                    other => (other, *exact),
                };
                json!({ "kind": "attr", "name": name, "value": value, "exact": exact, "nth": nth })
            }
            Find::Ref(_) | Find::Role { .. } => return None,
        })
    }
}

impl Find {
    fn describe(&self) -> String {
        match self {
            Find::Ref(r) => format!("@{r}"),
            Find::Css {
                css: c,
                text: Some(t),
                ..
            } => format!("css `{c}` with text \"{t}\""),
            Find::Css { css: c, .. } => format!("css `{c}`"),
            Find::Role {
                role,
                name: Some(n),
                ..
            } => format!("{role} \"{n}\""),
            Find::Role {
                role, name: None, ..
            } => role.clone(),
            Find::Text {
                text, tag: Some(t), ..
            } => format!("<{t}> with text \"{text}\""),
            Find::Text {
                text, tag: None, ..
            } => format!("text \"{text}\""),
            Find::Attr { key, value, .. } => format!("{key} \"{value}\""),
        }
    }
}

/// An object as an alternative; `frame`: the frame of the selector it is a `within` of.
fn from_object(o: &SelectorObject, frame: Option<&String>) -> Alt {
    let exact = o.exact.unwrap_or(false);
    let frame = o.frame.as_ref().or(frame).cloned();
    let find = if let Some(r) = &o.reference {
        Find::Ref(r.trim_start_matches('@').to_string())
    } else if let Some(c) = &o.css {
        Find::Css {
            css: c.clone(),
            text: o.text.clone(),
            exact,
        }
    } else if let Some(role) = &o.role {
        Find::Role {
            role: role.clone(),
            name: o.text.clone(),
            exact,
        }
    } else if let Some((key, value)) = o.finds_by() {
        Find::Attr {
            key,
            value: value.to_string(),
            exact,
        }
    } else {
        Find::Text {
            text: o.text.clone().unwrap_or_default(),
            tag: o.tag.clone(),
            exact,
        }
    };
    let within = o
        .within
        .as_deref()
        .map(|w| Box::new(from_item(w, frame.as_ref())));
    // A ref is one element, in whatever frame: it takes no `nth` and no `frame`.
    let is_ref = o.reference.is_some();
    Alt {
        find,
        nth: o.nth.filter(|_| !is_ref),
        frame: frame.filter(|_| !is_ref),
        within,
    }
}

fn from_item(i: &SelectorItem, frame: Option<&String>) -> Alt {
    match i {
        SelectorItem::String(s) => {
            let mut alt = from_string(s);
            if !matches!(alt.find, Find::Ref(_)) {
                alt.frame = frame.cloned();
            }
            alt
        }
        SelectorItem::Object(o) => from_object(o, frame),
    }
}

fn from_string(s: &str) -> Alt {
    let find = match s.strip_prefix('@') {
        Some(r) if !r.is_empty() && r.chars().all(|c| c.is_ascii_alphanumeric()) => {
            Find::Ref(r.to_string())
        }
        _ => Find::Css {
            css: s.to_string(),
            text: None,
            exact: false,
        },
    };
    Alt {
        find,
        nth: None,
        frame: None,
        within: None,
    }
}

/// The alternatives of a selector, in order.
pub(crate) fn alternatives(sel: &Selector) -> Vec<Alt> {
    match sel {
        Selector::String(s) => vec![from_string(s)],
        Selector::Object(o) => vec![from_object(o, None)],
        Selector::List(items) => items.iter().map(|i| from_item(i, None)).collect(),
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
        assert!(matches!(from_string("@e5").find, Find::Ref(r) if r == "e5"));
        assert!(matches!(
            from_string("#login > button").find,
            Find::Css { .. }
        ));
        assert!(matches!(from_string("@media").find, Find::Ref(_)));
    }

    /// A `within` reads as the user wrote it, outermost last, and takes its outer selector's
    /// frame; its levels come outermost first.
    #[test]
    fn a_within_chain_reads_as_written_and_shares_the_frame() {
        let sel: Selector = serde_json::from_value(json!({
            "css": ".toggle", "frame": "#f",
            "within": { "css": "li", "nth": 1, "within": ".todo-list" }
        }))
        .unwrap();
        let alt = &alternatives(&sel)[0];
        assert_eq!(
            alt.describe(),
            "css `.toggle` within css `li` (nth 1) within css `.todo-list` in frame `#f`"
        );
        let levels = alt.levels();
        assert_eq!(levels.len(), 3);
        assert_eq!(levels[0].describe_level(), "css `.todo-list`");
        assert!(levels.iter().all(|l| l.frame() == Some("#f")));
        let label: Selector =
            serde_json::from_value(json!({ "label": "Email", "exact": true })).unwrap();
        let alt = &alternatives(&label)[0];
        assert_eq!(alt.describe(), "label \"Email\"");
        assert_eq!(alt.level_json("data-test").unwrap()["kind"], json!("label"));
        let testid: Selector = serde_json::from_value(json!({ "testid": "go" })).unwrap();
        let level = alternatives(&testid)[0].level_json("data-test").unwrap();
        assert_eq!(
            (level["name"].clone(), level["exact"].clone()),
            (json!("data-test"), json!(true))
        );
    }
}
