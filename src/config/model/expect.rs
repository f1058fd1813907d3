//! `expect`: the page checks (URL, title, element states, text, counts, attributes, lists and
//! classes, a page predicate), the last dialog, open tabs, requests made, a template condition
//! (`that`), and `not` of page checks.

use serde::Deserialize;
use serde_json::Value;

use super::checks::{ClassMatcher, ClassesMatcher, JsCheck, TextsMatcher};
use super::selector::Selector;
use super::value::IntOrTemplate;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExpectAction {
    pub(crate) url: Option<Matcher>,
    pub(crate) title: Option<Matcher>,
    pub(crate) visible: Option<Selector>,
    pub(crate) hidden: Option<Selector>,
    pub(crate) text: Option<TargetMatcher>,
    pub(crate) value: Option<TargetMatcher>,
    pub(crate) count: Option<CountMatcher>,
    pub(crate) checked: Option<Selector>,
    pub(crate) unchecked: Option<Selector>,
    pub(crate) enabled: Option<Selector>,
    pub(crate) disabled: Option<Selector>,
    pub(crate) editable: Option<Selector>,
    pub(crate) focused: Option<Selector>,
    pub(crate) attribute: Option<AttributeMatcher>,
    /// The texts of every match, in order.
    pub(crate) texts: Option<TextsMatcher>,
    /// One element's class attribute.
    pub(crate) class: Option<ClassMatcher>,
    /// The class attributes of every match, in order.
    pub(crate) classes: Option<ClassesMatcher>,
    /// A JavaScript expression, re-evaluated in the page until it is truthy.
    pub(crate) js: Option<JsCheck>,
    /// Page checks of which each must NOT hold (re-checked until none does).
    pub(crate) not: Option<Box<ExpectAction>>,
    /// The last dialog of the flow (answered, or open now).
    pub(crate) dialog: Option<DialogMatcher>,
    /// How many tabs the flow has open.
    pub(crate) tabs: Option<TabsMatcher>,
    /// Requests the flow's pages made.
    pub(crate) request: Option<RequestMatcher>,
    pub(crate) that: Option<Value>,
}

impl ExpectAction {
    /// The rules of the schema the types do not carry: something to check, `not` of page checks
    /// only, and the names and URLs that must not be empty.
    pub(crate) fn check(&self) -> Result<(), String> {
        if !(self.has_browser_checks() || self.that.is_some()) {
            return Err("empty `expect`".into());
        }
        if let Some(n) = &self.not {
            if n.that.is_some()
                || n.not.is_some()
                || n.dialog.is_some()
                || n.tabs.is_some()
                || n.request.is_some()
            {
                return Err(
                    "`not` takes page checks only (no `that`, `not`, `dialog`, `tabs` or `request`)"
                        .into(),
                );
            }
            if !n.has_browser_checks() {
                return Err("empty `not`".into());
            }
        }
        if let Some(a) = &self.attribute
            && a.name.is_empty()
        {
            return Err("`attribute` needs a `name`".into());
        }
        if let Some(r) = &self.request
            && r.url.is_empty()
        {
            return Err("`request` needs a `url`".into());
        }
        self.new_checks()?;
        if let Some(n) = &self.not {
            n.new_checks()?;
        }
        self.selectors().iter().try_for_each(|(_, s)| s.check())
    }

    /// The rules of the list, class and `js` checks.
    fn new_checks(&self) -> Result<(), String> {
        self.texts.as_ref().map_or(Ok(()), TextsMatcher::check)?;
        self.class.as_ref().map_or(Ok(()), ClassMatcher::check)?;
        self.classes
            .as_ref()
            .map_or(Ok(()), ClassesMatcher::check)?;
        self.js.as_ref().map_or(Ok(()), JsCheck::check)
    }

    /// Whether it asserts anything about the page (everything but `that`).
    pub(crate) fn has_browser_checks(&self) -> bool {
        !self.selectors().is_empty()
            || self.url.is_some()
            || self.title.is_some()
            || self.dialog.is_some()
            || self.tabs.is_some()
            || self.request.is_some()
            || self.js.is_some()
            || self.not.as_ref().is_some_and(|n| n.has_browser_checks())
    }

    /// Scopes every selector it checks, `not`'s included, to iframe `frame` (see
    /// [`Selector::scope_to_frame`]).
    pub(crate) fn scope_to_frame(&mut self, frame: &str) {
        let sels = [
            &mut self.visible,
            &mut self.hidden,
            &mut self.checked,
            &mut self.unchecked,
            &mut self.enabled,
            &mut self.disabled,
            &mut self.editable,
            &mut self.focused,
        ];
        for s in sels.into_iter().flatten() {
            s.scope_to_frame(frame);
        }
        for t in [&mut self.text, &mut self.value].into_iter().flatten() {
            t.target.scope_to_frame(frame);
        }
        if let Some(c) = &mut self.count {
            c.target.scope_to_frame(frame);
        }
        if let Some(a) = &mut self.attribute {
            a.target.scope_to_frame(frame);
        }
        if let Some(t) = &mut self.texts {
            t.target.scope_to_frame(frame);
        }
        if let Some(c) = &mut self.class {
            c.target.scope_to_frame(frame);
        }
        if let Some(c) = &mut self.classes {
            c.target.scope_to_frame(frame);
        }
        if let Some(n) = &mut self.not {
            n.scope_to_frame(frame);
        }
    }

    /// Every selector it checks, with its JSON pointer below the `expect` value.
    pub(crate) fn selectors(&self) -> Vec<(String, &Selector)> {
        let mut out: Vec<(String, &Selector)> = [
            ("/visible", self.visible.as_ref()),
            ("/hidden", self.hidden.as_ref()),
            ("/checked", self.checked.as_ref()),
            ("/unchecked", self.unchecked.as_ref()),
            ("/enabled", self.enabled.as_ref()),
            ("/disabled", self.disabled.as_ref()),
            ("/editable", self.editable.as_ref()),
            ("/focused", self.focused.as_ref()),
            ("/text/target", self.text.as_ref().map(|t| &t.target)),
            ("/value/target", self.value.as_ref().map(|t| &t.target)),
            ("/count/target", self.count.as_ref().map(|t| &t.target)),
            (
                "/attribute/target",
                self.attribute.as_ref().map(|t| &t.target),
            ),
            ("/texts/target", self.texts.as_ref().map(|t| &t.target)),
            ("/class/target", self.class.as_ref().map(|t| &t.target)),
            ("/classes/target", self.classes.as_ref().map(|t| &t.target)),
        ]
        .into_iter()
        .filter_map(|(p, s)| s.map(|s| (p.to_string(), s)))
        .collect();
        if let Some(n) = &self.not {
            out.extend(
                n.selectors()
                    .into_iter()
                    .map(|(p, s)| (format!("/not{p}"), s)),
            );
        }
        out
    }
}

/// `expect: { request: { url, method, count } }`: requests the flow's pages made whose URL
/// matches `url` (a glob as `route`'s, or a part of the URL when it has no `*`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RequestMatcher {
    pub(crate) url: String,
    pub(crate) method: Option<String>,
    /// Exactly this many (default: at least one).
    pub(crate) count: Option<IntOrTemplate>,
}

/// `expect: { tabs: { count } }`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TabsMatcher {
    pub(crate) count: IntOrTemplate,
}

/// `expect: { dialog }`: what the last dialog was.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DialogMatcher {
    #[serde(rename = "type")]
    pub(crate) kind: Option<DialogKind>,
    pub(crate) message: Option<Matcher>,
    pub(crate) accepted: Option<bool>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum DialogKind {
    Alert,
    Confirm,
    Prompt,
    Beforeunload,
}

impl DialogKind {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            DialogKind::Alert => "alert",
            DialogKind::Confirm => "confirm",
            DialogKind::Prompt => "prompt",
            DialogKind::Beforeunload => "beforeunload",
        }
    }
}

/// `attribute`: an element's attribute is present (no matcher) or its value matches.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AttributeMatcher {
    pub(crate) target: Selector,
    pub(crate) name: String,
    pub(crate) equals: Option<String>,
    pub(crate) contains: Option<String>,
    pub(crate) matches: Option<String>,
}

/// A plain string (equals) or one of `equals` / `contains` / `matches`.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum Matcher {
    Equals(String),
    Full(MatcherOptions),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct MatcherOptions {
    pub(crate) equals: Option<String>,
    pub(crate) contains: Option<String>,
    pub(crate) matches: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TargetMatcher {
    pub(crate) target: Selector,
    pub(crate) equals: Option<String>,
    pub(crate) contains: Option<String>,
    pub(crate) matches: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CountMatcher {
    pub(crate) target: Selector,
    pub(crate) equals: Option<IntOrTemplate>,
    pub(crate) min: Option<IntOrTemplate>,
    pub(crate) max: Option<IntOrTemplate>,
}
