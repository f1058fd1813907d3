//! An element selector (SPEC §3.2): CSS as a string, an object (`ref`, `role`, `text`, `css`,
//! `nth`, `frame`), or a list of fallbacks.

use serde::Deserialize;

/// An ElementSelector (SPEC §3.2).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum Selector {
    String(String),
    Object(SelectorObject),
    List(Vec<SelectorItem>),
}

/// One entry of a fallback list.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum SelectorItem {
    String(String),
    Object(SelectorObject),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SelectorObject {
    #[serde(rename = "ref")]
    pub(crate) reference: Option<String>,
    pub(crate) role: Option<String>,
    pub(crate) text: Option<String>,
    pub(crate) exact: Option<bool>,
    pub(crate) css: Option<String>,
    pub(crate) tag: Option<String>,
    /// Which match, when several do: 0-based, negative counts from the end.
    pub(crate) nth: Option<i64>,
    /// The iframe (CSS in the page) to look inside.
    pub(crate) frame: Option<String>,
}

impl Selector {
    pub(crate) fn check(&self) -> Result<(), String> {
        let obj = |o: &SelectorObject| {
            let any =
                o.reference.is_some() || o.role.is_some() || o.css.is_some() || o.text.is_some();
            if !any {
                Err("a selector needs `ref`, `role`, `css` or `text`".to_string())
            } else if o.frame.as_deref() == Some("") {
                Err("empty `frame`".to_string())
            } else {
                // Keys that mean nothing together are refused on their line by
                // `config::check` (`SelectorObject::meaningless`).
                Ok(())
            }
        };
        let string = |s: &str| {
            if s.is_empty() {
                Err("empty selector".to_string())
            } else {
                Ok(())
            }
        };
        match self {
            Selector::String(s) => string(s),
            Selector::Object(o) => obj(o),
            Selector::List(l) if l.is_empty() => Err("empty selector list".into()),
            Selector::List(l) => l.iter().try_for_each(|i| match i {
                SelectorItem::String(s) => string(s),
                SelectorItem::Object(o) => obj(o),
            }),
        }
    }
}

impl Selector {
    /// Scopes the selector to iframe `frame` unless it names a frame itself; a ref stays as it is
    /// (a ref names one element, in whatever frame), and a CSS string becomes `{ css, frame }`.
    pub(crate) fn scope_to_frame(&mut self, frame: &str) {
        match self {
            Selector::String(s) if s.starts_with('@') => {}
            Selector::String(s) => *self = Selector::Object(SelectorObject::css_in(s, frame)),
            Selector::Object(o) => o.scope_to_frame(frame),
            Selector::List(items) => {
                for i in items {
                    match i {
                        SelectorItem::String(s) if s.starts_with('@') => {}
                        SelectorItem::String(s) => {
                            *i = SelectorItem::Object(SelectorObject::css_in(s, frame));
                        }
                        SelectorItem::Object(o) => o.scope_to_frame(frame),
                    }
                }
            }
        }
    }
}

impl SelectorObject {
    /// Why its keys together mean nothing, when they do not (docs/steps.md, "Selectors", has
    /// the table): a ref is one element and takes no other key; `role` and `css` are two ways
    /// of saying the same thing; `tag` narrows a bare `text` (with CSS, write the tag in the
    /// CSS; a role has no tag); `exact` is about `text`.
    pub(crate) fn meaningless(&self) -> Option<String> {
        let given = |k: &str| match k {
            "role" => self.role.is_some(),
            "text" => self.text.is_some(),
            "exact" => self.exact.is_some(),
            "css" => self.css.is_some(),
            "tag" => self.tag.is_some(),
            "nth" => self.nth.is_some(),
            _ => self.frame.is_some(),
        };
        // (`nth` and `frame` with a ref are refused on their own lines: `refs_with_nth`.)
        let keys = ["role", "text", "exact", "css", "tag"];
        if self.reference.is_some() {
            let extra: Vec<&str> = keys.into_iter().filter(|k| given(k)).collect();
            return (!extra.is_empty()).then(|| {
                format!(
                    "a `ref` names one element and takes no other key (not `{}`): drop the ref, or the other keys",
                    extra.join("`, `")
                )
            });
        }
        if given("css") && given("role") {
            return Some("`css` and `role` together mean nothing: use one (`{ role, text }` finds by role and name, `{ css, text }` the CSS matches with that text)".into());
        }
        if given("tag") && given("css") {
            return Some(
                "`tag` with `css` means nothing: write the tag in the CSS (`li.item`)".into(),
            );
        }
        if given("tag") && given("role") {
            return Some("`tag` with `role` means nothing: a role is matched in the accessibility tree, which has no tags; use `{ text, tag }` or CSS".into());
        }
        // A template is checked once rendered (the look-up refuses an empty text too).
        if let Some(t) = self.text.as_deref().filter(|t| !t.contains("{{")) {
            let visible = t.chars().filter(|c| !matches!(c, '\u{200b}' | '\u{ad}'));
            if visible.clone().all(char::is_whitespace) {
                return Some("an empty `text` is in every element's text, so it would match anything: give the text to look for, or drop `text`".into());
            }
        }
        if given("exact") && !given("text") {
            return Some("`exact` is about `text`: give a `text`, or drop `exact`".into());
        }
        None
    }

    /// `{ css, frame }`.
    fn css_in(css: &str, frame: &str) -> SelectorObject {
        SelectorObject {
            reference: None,
            role: None,
            text: None,
            exact: None,
            css: Some(css.to_string()),
            tag: None,
            nth: None,
            frame: Some(frame.to_string()),
        }
    }

    fn scope_to_frame(&mut self, frame: &str) {
        if self.reference.is_none() && self.frame.is_none() {
            self.frame = Some(frame.to_string());
        }
    }
}

/// The target of a pointer action (`click`, `dblclick`, `hover`, `check`, `uncheck`; `focus`
/// shares the type, its schema takes only a selector): a selector, or `{ target, force }`.
/// `force: true` skips the actionability checks (visible, stable, enabled, gets the event) on
/// purpose, and the step's label says so.
#[derive(Debug, Clone, Deserialize)]
#[serde(from = "PointerRepr")]
pub(crate) struct PointerTarget {
    pub(crate) target: Selector,
    pub(crate) force: bool,
}

/// How a pointer target is written.
#[derive(Deserialize)]
#[serde(untagged)]
enum PointerRepr {
    Options(PointerOptions),
    Plain(Selector),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PointerOptions {
    target: Selector,
    #[serde(default)]
    force: bool,
}

impl From<PointerRepr> for PointerTarget {
    fn from(r: PointerRepr) -> PointerTarget {
        match r {
            PointerRepr::Options(o) => PointerTarget {
                target: o.target,
                force: o.force,
            },
            PointerRepr::Plain(target) => target.into(),
        }
    }
}

impl From<Selector> for PointerTarget {
    fn from(target: Selector) -> PointerTarget {
        PointerTarget {
            target,
            force: false,
        }
    }
}

impl std::ops::Deref for PointerTarget {
    type Target = Selector;
    fn deref(&self) -> &Selector {
        &self.target
    }
}

impl std::ops::DerefMut for PointerTarget {
    fn deref_mut(&mut self) -> &mut Selector {
        &mut self.target
    }
}

#[cfg(test)]
mod tests {
    use super::{PointerTarget, Selector};

    /// A pointer action's target: a selector as before, or `{ target, force }`.
    #[test]
    fn a_pointer_target_is_a_selector_or_target_and_force() {
        let plain: PointerTarget = serde_json::from_str(r##""#go""##).unwrap();
        assert!(!plain.force && matches!(plain.target, Selector::String(ref s) if s == "#go"));
        let obj: PointerTarget = serde_json::from_str(r#"{"role":"button","text":"Go"}"#).unwrap();
        assert!(!obj.force && matches!(obj.target, Selector::Object(_)));
        let forced: PointerTarget =
            serde_json::from_str(r##"{"target":"#go","force":true}"##).unwrap();
        assert!(forced.force && matches!(forced.target, Selector::String(_)));
        let listed: PointerTarget = serde_json::from_str(r##"["#a",{"css":"#b"}]"##).unwrap();
        assert!(matches!(listed.target, Selector::List(ref l) if l.len() == 2));
    }
}
