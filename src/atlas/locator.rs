//! A runner selector as a Playwright for Python locator that selects the same element: each
//! key as Playwright's own (docs/playwright.md), `exact` as `exact=True`, `nth` as `.nth(n)`,
//! `within` as a chain and `frame` as a `frame_locator`. A snapshot ref has no meaning outside
//! runner: none.

use super::arrival::escape;
use super::checks::py;
use crate::config::model::{Selector, SelectorItem, SelectorObject};

/// The locator of a selector's first alternative, on `page`; `None` for a snapshot ref.
pub(super) fn locator(sel: &Selector) -> Option<String> {
    match sel {
        Selector::String(s) => string(s, "page"),
        Selector::Object(o) => object(o, "page"),
        Selector::List(items) => items.first().and_then(|i| item(i, "page")),
    }
}

fn item(i: &SelectorItem, base: &str) -> Option<String> {
    match i {
        SelectorItem::String(s) => string(s, base),
        SelectorItem::Object(o) => object(o, base),
    }
}

/// A CSS string (a ref, `@e5`, has no locator).
fn string(s: &str, base: &str) -> Option<String> {
    (!s.starts_with('@')).then(|| format!("{base}.locator({})", py(s)))
}

/// `, exact=True` when `exact` is set.
fn exact(o: &SelectorObject) -> &'static str {
    if o.exact == Some(true) {
        ", exact=True"
    } else {
        ""
    }
}

/// An object selector: looked for inside its `frame` or its `within`, then its one kind, then
/// its `nth`.
fn object(o: &SelectorObject, base: &str) -> Option<String> {
    if o.reference.is_some() {
        return None;
    }
    let mut base = base.to_string();
    if let Some(f) = &o.frame {
        base = format!("{base}.frame_locator({})", py(f));
    }
    if let Some(w) = &o.within {
        base = item(w, &base)?;
    }
    let by = |method: &str, text: &str| format!("{base}.{method}({}{})", py(text), exact(o));
    let mut l = if let Some(css) = &o.css {
        match (&o.text, o.exact == Some(true)) {
            (Some(t), true) => format!(
                "{base}.locator({}).filter(has_text=re.compile({}))",
                py(css),
                py(&format!("^{}$", escape(t)))
            ),
            (Some(t), false) => format!("{base}.locator({}, has_text={})", py(css), py(t)),
            (None, _) => format!("{base}.locator({})", py(css)),
        }
    } else if let Some(role) = &o.role {
        match &o.text {
            Some(t) => format!(
                "{base}.get_by_role({}, name={}{})",
                py(role),
                py(t),
                exact(o)
            ),
            None => format!("{base}.get_by_role({})", py(role)),
        }
    } else if let Some(t) = &o.label {
        by("get_by_label", t)
    } else if let Some(t) = &o.placeholder {
        by("get_by_placeholder", t)
    } else if let Some(t) = &o.alt {
        by("get_by_alt_text", t)
    } else if let Some(t) = &o.title {
        by("get_by_title", t)
    } else if let Some(id) = &o.testid {
        format!("{base}.get_by_test_id({})", py(id))
    } else if let (Some(tag), Some(t)) = (&o.tag, &o.text) {
        format!(
            "{base}.locator({}).get_by_text({}{})",
            py(tag),
            py(t),
            exact(o)
        )
    } else {
        by("get_by_text", o.text.as_deref()?)
    };
    if let Some(n) = o.nth {
        l.push_str(&format!(".nth({n})"));
    }
    Some(l)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(json: &str) -> Option<String> {
        locator(&serde_json::from_str::<Selector>(json).unwrap())
    }

    #[test]
    fn each_selector_is_the_locator_of_the_same_element() {
        for (sel, want) in [
            (
                r#"{"role": "link", "text": "Details", "exact": true, "nth": 1}"#,
                r#"page.get_by_role("link", name="Details", exact=True).nth(1)"#,
            ),
            (
                r#"{"role": "button", "text": "Save"}"#,
                r#"page.get_by_role("button", name="Save")"#,
            ),
            (r#"{"role": "main"}"#, r#"page.get_by_role("main")"#),
            (r##""#cart""##, r##"page.locator("#cart")"##),
            (
                r#"{"css": "li", "text": "two"}"#,
                r#"page.locator("li", has_text="two")"#,
            ),
            (
                r#"{"css": "li", "text": "a.b", "exact": true}"#,
                r#"page.locator("li").filter(has_text=re.compile("^a\\.b$"))"#,
            ),
            (
                r#"{"text": "Welcome", "exact": true, "nth": -1}"#,
                r#"page.get_by_text("Welcome", exact=True).nth(-1)"#,
            ),
            (
                r#"{"tag": "h1", "text": "Shop"}"#,
                r#"page.locator("h1").get_by_text("Shop")"#,
            ),
            (
                r#"{"label": "Email", "exact": true}"#,
                r#"page.get_by_label("Email", exact=True)"#,
            ),
            (
                r#"{"placeholder": "you@example.com"}"#,
                r#"page.get_by_placeholder("you@example.com")"#,
            ),
            (
                r#"{"testid": "todo-item"}"#,
                r#"page.get_by_test_id("todo-item")"#,
            ),
            (r#"{"alt": "Logo"}"#, r#"page.get_by_alt_text("Logo")"#),
            (r#"{"title": "Close"}"#, r#"page.get_by_title("Close")"#),
            (
                r#"{"role": "button", "text": "Remove", "within": {"testid": "todo-item", "nth": 1}}"#,
                r#"page.get_by_test_id("todo-item").nth(1).get_by_role("button", name="Remove")"#,
            ),
            (
                r##"{"css": "button", "frame": "#pay"}"##,
                r##"page.frame_locator("#pay").locator("button")"##,
            ),
            (
                r##"[{"role": "link", "text": "Cart", "exact": true}, "#cart"]"##,
                r#"page.get_by_role("link", name="Cart", exact=True)"#,
            ),
        ] {
            assert_eq!(of(sel).as_deref(), Some(want), "{sel}");
        }
        assert_eq!(of(r#""@e5""#), None);
        assert_eq!(of(r#"{"ref": "e5"}"#), None);
        assert_eq!(of(r#"{"role": "button", "within": "@e2"}"#), None);
    }
}
