//! An element selector (SPEC §3.2): CSS as a string, an object (`ref`, `role`, `text`, `css`,
//! `label`, `placeholder`, `testid`, `alt`, `title`, with `nth`, `frame` and `within`), or a list
//! of fallbacks.

use serde::Deserialize;

/// An ElementSelector (SPEC §3.2).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum Selector {
    String(String),
    Object(Box<SelectorObject>),
    List(Vec<SelectorItem>),
}

/// One entry of a fallback list.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum SelectorItem {
    String(String),
    Object(Box<SelectorObject>),
}

#[derive(Debug, Clone, Default, Deserialize)]
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
    /// The control a label names (`<label for>`, a wrapping label, `aria-labelledby`,
    /// `aria-label`), as Playwright's `getByLabel`.
    pub(crate) label: Option<String>,
    pub(crate) placeholder: Option<String>,
    /// The value of the test-id attribute (`data-testid`, or `browser.testid_attribute`).
    pub(crate) testid: Option<String>,
    pub(crate) alt: Option<String>,
    pub(crate) title: Option<String>,
    /// The one element to look inside (strict: one match, or its `nth` says which).
    pub(crate) within: Option<Box<SelectorItem>>,
}

impl Selector {
    pub(crate) fn check(&self) -> Result<(), String> {
        let string = |s: &str| {
            if s.is_empty() {
                Err("empty selector".to_string())
            } else {
                Ok(())
            }
        };
        match self {
            Selector::String(s) => string(s),
            Selector::Object(o) => o.check(),
            Selector::List(l) if l.is_empty() => Err("empty selector list".into()),
            Selector::List(l) => l.iter().try_for_each(SelectorItem::check),
        }
    }
}

impl SelectorItem {
    fn check(&self) -> Result<(), String> {
        match self {
            SelectorItem::String(s) if s.is_empty() => Err("empty selector".to_string()),
            SelectorItem::String(_) => Ok(()),
            SelectorItem::Object(o) => o.check(),
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

/// The keys that say how to find an element, one to an object (`text` also narrows `css` and
/// names a `role`); the last five are found by `finds_by`.
pub(crate) const FINDING_KEYS: [&str; 9] = [
    "ref",
    "role",
    "css",
    "text",
    "label",
    "placeholder",
    "testid",
    "alt",
    "title",
];

impl SelectorObject {
    fn check(&self) -> Result<(), String> {
        if FINDING_KEYS.iter().all(|k| self.key(k).is_none()) {
            return Err(
                "a selector needs `ref`, `role`, `css`, `text`, `label`, `placeholder`, `testid`, `alt` or `title`"
                    .to_string(),
            );
        }
        if self.frame.as_deref() == Some("") {
            return Err("empty `frame`".to_string());
        }
        // Keys that mean nothing together are refused on their line by `config::check`
        // (`SelectorObject::meaningless`).
        self.within.as_deref().map_or(Ok(()), SelectorItem::check)
    }

    /// The value of a finding key (`FINDING_KEYS`), when given.
    fn key(&self, k: &str) -> Option<&str> {
        match k {
            "ref" => self.reference.as_deref(),
            "role" => self.role.as_deref(),
            "css" => self.css.as_deref(),
            "text" => self.text.as_deref(),
            "label" => self.label.as_deref(),
            "placeholder" => self.placeholder.as_deref(),
            "testid" => self.testid.as_deref(),
            "alt" => self.alt.as_deref(),
            _ => self.title.as_deref(),
        }
    }

    /// The attribute-like key it finds by (`label`, `placeholder`, `testid`, `alt`, `title`)
    /// and its value, when it finds by one.
    pub(crate) fn finds_by(&self) -> Option<(&'static str, &str)> {
        FINDING_KEYS[4..]
            .iter()
            .find_map(|k| self.key(k).map(|v| (*k, v)))
    }

    /// Why its keys together mean nothing, when they do not (docs/steps.md, "Selectors", has
    /// the table): a ref is one element and takes no other key; one object finds by one key
    /// (`role`, `css`, `label`, ... are each a way of saying which elements); `text` narrows
    /// `css`, names a `role` or stands alone; `tag` narrows a bare `text`; `exact` is about a
    /// text to compare; a test id is compared whole; `frame` goes on the outermost object
    /// (`nested`: this one is a `within`).
    pub(crate) fn meaningless(&self, nested: bool) -> Option<String> {
        let given = |k: &str| match k {
            "exact" => self.exact.is_some(),
            "tag" => self.tag.is_some(),
            "nth" => self.nth.is_some(),
            "frame" => self.frame.is_some(),
            "within" => self.within.is_some(),
            k => self.key(k).is_some(),
        };
        // (`nth` and `frame` with a ref are refused on their own lines: `refs_with_nth`.)
        if self.reference.is_some() {
            let extra: Vec<&str> = FINDING_KEYS[1..]
                .iter()
                .chain(&["exact", "tag", "within"])
                .copied()
                .filter(|k| given(k))
                .collect();
            return (!extra.is_empty()).then(|| {
                format!(
                    "a `ref` names one element and takes no other key (not `{}`): drop the ref, or the other keys",
                    extra.join("`, `")
                )
            });
        }
        if nested && given("frame") {
            return Some("`frame` goes on the outermost selector: a `within` looks in the frame of the selector it scopes".into());
        }
        if let Some(why) = self.role.as_deref().and_then(super::aria_roles::unknown) {
            return Some(why);
        }
        if given("css") && given("role") {
            return Some("`css` and `role` together mean nothing: use one (`{ role, text }` finds by role and name, `{ css, text }` the CSS matches with that text)".into());
        }
        let ways: Vec<&str> = [
            "role",
            "css",
            "label",
            "placeholder",
            "testid",
            "alt",
            "title",
        ]
        .into_iter()
        .filter(|k| given(k))
        .collect();
        if let [a, b, ..] = ways.as_slice() {
            return Some(format!(
                "`{a}` and `{b}` together mean nothing: an object finds by one of them; to look inside one element for another, use `within`"
            ));
        }
        if let (Some((key, _)), true) = (self.finds_by(), given("text")) {
            return Some(format!(
                "`text` with `{key}` means nothing: `{key}` gives the text to look for; to narrow by an element around it, use `within`"
            ));
        }
        self.meaningless_narrowing(&ways)
    }

    /// `tag`, `exact` and empty texts (see `meaningless`); `ways`: the finding keys given
    /// besides `text`.
    fn meaningless_narrowing(&self, ways: &[&str]) -> Option<String> {
        if self.tag.is_some()
            && let Some(way) = ways.first()
        {
            return Some(match *way {
                "css" => "`tag` with `css` means nothing: write the tag in the CSS (`li.item`)".into(),
                "role" => "`tag` with `role` means nothing: a role is matched in the accessibility tree, which has no tags; use `{ text, tag }` or CSS".into(),
                other => format!("`tag` with `{other}` means nothing: `tag` narrows a bare `text`; to narrow by an element around it, use `within`"),
            });
        }
        // A template is checked once rendered (the look-up refuses an empty text too).
        let blank = |t: &str| {
            !t.contains("{{")
                && t.chars()
                    .filter(|c| !matches!(c, '\u{200b}' | '\u{ad}'))
                    .all(char::is_whitespace)
        };
        if self.text.as_deref().is_some_and(blank) {
            return Some("an empty `text` is in every element's text, so it would match anything: give the text to look for, or drop `text`".into());
        }
        if let Some((key, v)) = self.finds_by()
            && blank(v)
        {
            return Some(format!(
                "an empty `{key}` would match every element that has one: give the text to look for"
            ));
        }
        match (self.exact.is_some(), self.finds_by()) {
            (true, Some(("testid", _))) => Some("a test id is compared whole and exactly (as Playwright's getByTestId): drop `exact`".into()),
            (true, None) if self.text.is_none() => Some("`exact` is about the text to look for (`text`, `label`, `placeholder`, `alt`, `title`): give one, or drop `exact`".into()),
            _ => None,
        }
    }

    /// `{ css, frame }`, boxed as a selector holds it.
    fn css_in(css: &str, frame: &str) -> Box<SelectorObject> {
        Box::new(SelectorObject {
            css: Some(css.to_string()),
            frame: Some(frame.to_string()),
            ..SelectorObject::default()
        })
    }

    /// A `within` stays in the frame of the selector it scopes, so only the outermost object
    /// takes the step's frame.
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
