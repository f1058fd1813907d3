//! The `expect` checks of every match of a selector (`texts`, `classes`), of one element's
//! class (`class`), and the page predicate `js` (also `wait: { js }`), with the rules of the
//! schema their types do not carry.

use serde::Deserialize;
use serde_json::Value;

use super::selector::Selector;

/// A list of strings as written, or a template that renders to one (`"{{ vars.items }}"`).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum Strings {
    List(Vec<String>),
    Template(String),
}

impl Strings {
    /// The list; a template that rendered to something else than a list is an error naming
    /// `what` (a template left as text renders to a string, not a list).
    pub(crate) fn list(&self, what: &str) -> Result<&[String], String> {
        match self {
            Strings::List(l) => Ok(l),
            Strings::Template(s) => Err(format!(
                "`{what}` must be a list of texts, but it is the text \"{s}\" (a template must render to a list: `\"{{{{ vars.items }}}}\"`)"
            )),
        }
    }
}

/// `texts: { target, equals | contains }`: the texts of every element the target matches, in
/// document order (Playwright's `toHaveText([...])` / `toContainText([...])`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TextsMatcher {
    pub(crate) target: Selector,
    /// As many elements, each text equal to the item at its place.
    pub(crate) equals: Option<Strings>,
    /// As many elements, each text containing the item at its place.
    pub(crate) contains: Option<Strings>,
}

/// `class: { target, has | equals | matches }`: one element's class attribute (none is `""`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ClassMatcher {
    pub(crate) target: Selector,
    /// Class names (one, or several separated by spaces) that are all among its classes.
    pub(crate) has: Option<String>,
    /// The whole attribute, whitespace-normalised.
    pub(crate) equals: Option<String>,
    /// A regular expression the (normalised) attribute matches.
    pub(crate) matches: Option<String>,
}

/// `classes: { target, equals | has }`: the class attributes of every element the target
/// matches, in document order (Playwright's `toHaveClass([...])` / `toContainClass([...])`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ClassesMatcher {
    pub(crate) target: Selector,
    /// As many elements, each class attribute equal to the item at its place (`""`: none).
    pub(crate) equals: Option<Strings>,
    /// As many elements, each having the class names of the item at its place.
    pub(crate) has: Option<Strings>,
}

/// `js`: a JavaScript expression evaluated in the page, with `args` (any JSON) in scope as
/// `args`; the check holds once it is truthy (a promise is awaited).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum JsCheck {
    Expr(String),
    Full(JsOptions),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct JsOptions {
    pub(crate) expr: String,
    #[serde(default)]
    pub(crate) args: Option<Value>,
}

impl JsCheck {
    pub(crate) fn expr(&self) -> &str {
        match self {
            JsCheck::Expr(e) => e,
            JsCheck::Full(o) => &o.expr,
        }
    }

    /// The arguments (`null` when none are given).
    pub(crate) fn args(&self) -> Value {
        match self {
            JsCheck::Expr(_) => Value::Null,
            JsCheck::Full(o) => o.args.clone().unwrap_or(Value::Null),
        }
    }

    pub(crate) fn check(&self) -> Result<(), String> {
        if self.expr().trim().is_empty() {
            return Err("`js` needs an expression".into());
        }
        Ok(())
    }
}

impl Strings {
    /// A text here must be a template (a list of one text is written `[text]`).
    fn check(&self, key: &str) -> Result<(), String> {
        match self {
            Strings::Template(s) if !s.contains("{{") => Err(format!(
                "`{key}` is a list of texts (`[\"{s}\"]`), or a template that renders to one"
            )),
            _ => Ok(()),
        }
    }
}

impl TextsMatcher {
    pub(crate) fn check(&self) -> Result<(), String> {
        one_of(
            "texts",
            "equals",
            self.equals.is_some(),
            "contains",
            self.contains.is_some(),
        )?;
        for (key, l) in [
            ("texts.equals", &self.equals),
            ("texts.contains", &self.contains),
        ] {
            l.as_ref().map_or(Ok(()), |l| l.check(key))?;
        }
        Ok(())
    }
}

impl ClassesMatcher {
    pub(crate) fn check(&self) -> Result<(), String> {
        one_of(
            "classes",
            "equals",
            self.equals.is_some(),
            "has",
            self.has.is_some(),
        )?;
        for (key, l) in [("classes.equals", &self.equals), ("classes.has", &self.has)] {
            l.as_ref().map_or(Ok(()), |l| l.check(key))?;
        }
        if let Some(Strings::List(l)) = &self.has
            && l.iter().any(|c| c.trim().is_empty())
        {
            return Err("`classes.has`: each item names at least one class".into());
        }
        Ok(())
    }
}

impl ClassMatcher {
    pub(crate) fn check(&self) -> Result<(), String> {
        if self.has.is_none() && self.equals.is_none() && self.matches.is_none() {
            return Err("`class` needs `has`, `equals` or `matches`".into());
        }
        if self.has.as_deref().is_some_and(|h| h.trim().is_empty()) {
            return Err("`class.has` names at least one class".into());
        }
        Ok(())
    }
}

/// Exactly one of two keys.
fn one_of(check: &str, a: &str, has_a: bool, b: &str, has_b: bool) -> Result<(), String> {
    match (has_a, has_b) {
        (true, false) | (false, true) => Ok(()),
        _ => Err(format!("`{check}` takes one of `{a}` and `{b}`")),
    }
}
