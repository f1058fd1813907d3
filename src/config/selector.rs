//! Static checks of selectors: a bare string is CSS, so Playwright's own selector syntax
//! (`text=`, `>>`, `:has-text(`, XPath) is refused with the runner form to write instead, and
//! CSS that cannot parse is refused before anything runs.

use super::model::{Action, Selector, SelectorItem, SelectorObject, Toggle, WaitAction};

/// The runner form of a selector written in Playwright's syntax, when it is one.
pub(crate) fn selector_hint(css: &str) -> Option<String> {
    let s = css.trim();
    let unquote = |v: &str| v.trim().trim_matches(|c| c == '"' || c == '\'').to_string();
    if let Some(t) = s.strip_prefix("text=") {
        return Some(format!(
            "`text=` is Playwright's syntax; write {{ text: \"{}\" }}",
            unquote(t)
        ));
    }
    if let Some(r) = s.strip_prefix("role=") {
        let (role, name) = match r.split_once("[name=") {
            Some((role, rest)) => (role, Some(unquote(rest.trim_end_matches(']')))),
            None => (r, None),
        };
        return Some(match name {
            Some(n) => {
                format!("`role=` is Playwright's syntax; write {{ role: {role}, text: \"{n}\" }}")
            }
            None => format!("`role=` is Playwright's syntax; write {{ role: {role} }}"),
        });
    }
    if s.starts_with("xpath=") || s.starts_with("//") || s.starts_with("(//") {
        return Some(
            "XPath is not supported; use CSS, { role, text } or { text, tag }".to_string(),
        );
    }
    if let Some(c) = s.strip_prefix("css=") {
        return Some(format!("drop the `css=` prefix: `{}`", c.trim()));
    }
    if let Some(id) = s.strip_prefix("id=") {
        return Some(format!(
            "`id=` is Playwright's syntax; write `#{}`",
            unquote(id)
        ));
    }
    if let Some(v) = s.strip_prefix("data-testid=") {
        return Some(format!(
            "`data-testid=` is Playwright's syntax; write `[data-testid=\"{}\"]`",
            unquote(v)
        ));
    }
    if s.contains(">>") {
        return Some(
            "`>>` chains are Playwright's syntax; write one CSS selector (`form button` for a descendant), or a list of fallbacks; inside an iframe: `{ css: \"#card\", frame: \"iframe#pay\" }`"
                .to_string(),
        );
    }
    for (pseudo, instead) in [
        (
            ":has-text(",
            "{ text: \"…\", tag: … } (visible text, optionally of one tag)",
        ),
        (":text(", "{ text: \"…\" }"),
        (":text-is(", "{ text: \"…\", exact: true }"),
        (
            ":visible",
            "a selector without `:visible` (actions wait for visible elements)",
        ),
        (":nth-match(", "{ css: \"…\", nth: N }"),
    ] {
        if s.contains(pseudo) {
            return Some(format!(
                "`{}` is Playwright's syntax; write {instead}",
                pseudo.trim_end_matches('(')
            ));
        }
    }
    None
}

/// What is wrong with a CSS selector, as far as can be told without a browser: Playwright
/// syntax, unbalanced quotes or brackets, a dangling combinator.
pub(crate) fn css_problem(css: &str) -> Option<String> {
    if let Some(hint) = selector_hint(css) {
        return Some(format!("`{css}` is not CSS: {hint}"));
    }
    let s = css.trim();
    let mut stack = Vec::new();
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in s.chars() {
        if escaped {
            escaped = false;
            continue;
        }
        match (quote, c) {
            (_, '\\') => escaped = true,
            (Some(q), c) if c == q => quote = None,
            (None, '"' | '\'') => quote = Some(c),
            (None, '(' | '[') => stack.push(c),
            (None, ')') if stack.pop() != Some('(') => {
                return Some(format!("unbalanced `)` in CSS `{css}`"));
            }
            (None, ']') if stack.pop() != Some('[') => {
                return Some(format!("unbalanced `]` in CSS `{css}`"));
            }
            _ => {}
        }
    }
    if quote.is_some() {
        return Some(format!("unclosed quote in CSS `{css}`"));
    }
    if let Some(open) = stack.last() {
        return Some(format!("unclosed `{open}` in CSS `{css}`"));
    }
    let dangling = |c: char| matches!(c, '>' | '+' | '~' | ',');
    if s.ends_with(dangling) || s.starts_with(['+', '~', ',']) {
        return Some(format!(
            "CSS `{css}` has a combinator with nothing on one side"
        ));
    }
    pseudo_element(s).map(|(p, at)| {
        let of = match s[..at].trim() {
            "" => String::new(),
            base => format!(" (`{base}`)"),
        };
        format!(
            "CSS `{css}` selects no element: `{p}` is a pseudo-element, which is not an element (`hidden` and `count: 0` on it always hold); check the element it belongs to{of}"
        )
    })
}

/// The first pseudo-element of CSS `s` (`::before`, `::part(`, the CSS 2 `:before`), outside
/// quotes and attribute values, and where it starts: no element matches a selector with one
/// (attack 31, G20).
fn pseudo_element(s: &str) -> Option<(String, usize)> {
    const LEGACY: [&str; 4] = ["before", "after", "first-line", "first-letter"];
    let (mut quote, mut brackets, mut escaped) = (None, 0usize, false);
    for (i, c) in s.char_indices() {
        match (escaped, quote, c) {
            (true, ..) => escaped = false,
            (_, _, '\\') => escaped = true,
            (_, Some(q), c) if c == q => quote = None,
            (_, None, '"' | '\'') => quote = Some(c),
            (_, None, '[') => brackets += 1,
            (_, None, ']') => brackets = brackets.saturating_sub(1),
            (_, None, ':') if brackets == 0 && !s[..i].ends_with(':') => {
                let rest = &s[i + 1..];
                let double = rest.strip_prefix(':');
                let name: String = double
                    .unwrap_or(rest)
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '-' || *c == '_')
                    .collect();
                let legacy = LEGACY.contains(&name.to_ascii_lowercase().as_str());
                if double.is_some() || legacy {
                    let colons = if double.is_some() { "::" } else { ":" };
                    return Some((format!("{colons}{name}"), i));
                }
            }
            _ => {}
        }
    }
    None
}

/// Every selector of an action, with its JSON pointer below the action's value.
pub(crate) fn selectors(action: &Action) -> Vec<(String, &Selector)> {
    if let Action::Expect(e) = action {
        return e.selectors();
    }
    let found: Vec<(&'static str, Option<&Selector>)> = match action {
        Action::Fill(_)
        | Action::Type(_)
        | Action::Select(_)
        | Action::Inspect(_)
        | Action::Dispatch(_) => {
            vec![("/target", action.target())]
        }
        Action::Snapshot(Toggle::Options(o)) => vec![("/scope", o.scope.as_ref())],
        Action::Screenshot(Toggle::Options(o)) => vec![("/target", o.target.as_ref())],
        Action::Wait(WaitAction::For(w)) => vec![("/for", w.target.as_ref())],
        other => vec![("", other.target())],
    };
    found
        .into_iter()
        .filter_map(|(p, s)| s.map(|s| (p.to_string(), s)))
        .collect()
}

/// Every object of a selector, its `within`s included (as deep as they go), with its pointer
/// below the selector and whether it is a `within`.
fn objects(sel: &Selector) -> Vec<(String, &SelectorObject, bool)> {
    fn walk<'a>(
        ptr: String,
        o: &'a SelectorObject,
        nested: bool,
        out: &mut Vec<(String, &'a SelectorObject, bool)>,
    ) {
        if let Some(SelectorItem::Object(inner)) = o.within.as_deref() {
            walk(format!("{ptr}/within"), inner, true, out);
        }
        out.push((ptr, o, nested));
    }
    let mut out = Vec::new();
    match sel {
        Selector::Object(o) => walk(String::new(), o, false, &mut out),
        Selector::List(items) => {
            for (i, item) in items.iter().enumerate() {
                if let SelectorItem::Object(o) = item {
                    walk(format!("/{i}"), o, false, &mut out);
                }
            }
        }
        Selector::String(_) => {}
    }
    out
}

/// The `nth` and `frame` keys of a selector's objects that also name a ref (a ref is one
/// element, in whatever frame: they would be ignored), with their pointers below it.
pub(crate) fn refs_with_nth(sel: &Selector) -> Vec<String> {
    let mut out = Vec::new();
    for (ptr, o, _) in objects(sel) {
        if o.reference.is_none() {
            continue;
        }
        if o.nth.is_some() {
            out.push(format!("{ptr}/nth"));
        }
        if o.frame.is_some() {
            out.push(format!("{ptr}/frame"));
        }
    }
    out
}

/// The objects of a selector whose keys mean nothing together, with their pointers below it
/// and why (`SelectorObject::meaningless`).
pub(crate) fn meaningless_objects(sel: &Selector) -> Vec<(String, String)> {
    objects(sel)
        .into_iter()
        .filter_map(|(ptr, o, nested)| o.meaningless(nested).map(|why| (ptr, why)))
        .collect()
}

/// The CSS strings of a selector, its `within`s' included, with their pointers below it (refs
/// are not CSS).
pub(crate) fn css_strings(sel: &Selector) -> Vec<(String, &str)> {
    let is_ref = |s: &str| s.starts_with('@');
    let mut out = Vec::new();
    match sel {
        Selector::String(s) if !is_ref(s) => out.push((String::new(), s.as_str())),
        Selector::List(items) => {
            for (i, item) in items.iter().enumerate() {
                if let SelectorItem::String(s) = item
                    && !is_ref(s)
                {
                    out.push((format!("/{i}"), s.as_str()));
                }
            }
        }
        _ => {}
    }
    for (ptr, o, _) in objects(sel) {
        if let Some(c) = &o.css {
            out.push((format!("{ptr}/css"), c.as_str()));
        }
        if let Some(SelectorItem::String(s)) = o.within.as_deref()
            && !is_ref(s)
        {
            out.push((format!("{ptr}/within"), s.as_str()));
        }
        // The iframe's CSS, found as element CSS is (attack 31, G7).
        if let Some(f) = &o.frame {
            out.push((format!("{ptr}/frame"), f.as_str()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn playwright_syntax_gets_the_runner_form() {
        assert!(
            selector_hint("text=Email")
                .unwrap()
                .contains("{ text: \"Email\" }")
        );
        assert!(
            selector_hint("role=button[name=\"Go\"]")
                .unwrap()
                .contains("{ role: button, text: \"Go\" }")
        );
        assert!(
            selector_hint("iframe >> #card")
                .unwrap()
                .contains("frame: ")
        );
        assert!(
            selector_hint("button:has-text(\"Go\")")
                .unwrap()
                .contains("{ text:")
        );
        assert!(selector_hint("//div[@id='x']").unwrap().contains("XPath"));
        assert!(selector_hint("#login > button").is_none());
        for (css, p) in [
            (".msg::before", "::before"),
            ("x-toast::part(msg)", "::part"),
            ("p:after", ":after"),
            ("a[x=']'] ::slotted(b)", "::slotted"),
        ] {
            assert_eq!(
                pseudo_element(css).map(|p| p.0).as_deref(),
                Some(p),
                "{css}"
            );
        }
        for css in [
            "[title='a::b']",
            "[x=\"p:after\"]",
            "a\\:\\:b",
            "li:first-child",
            "a:hover",
        ] {
            assert_eq!(pseudo_element(css), None, "{css}");
        }
    }

    #[test]
    fn broken_css_is_found_without_a_browser() {
        assert!(css_problem("a[href").is_some());
        assert!(css_problem("div > ").is_some());
        assert!(css_problem("p:not(.x").is_some());
        assert!(css_problem("input[name='a]']").is_none());
        assert!(css_problem("ul > li:nth-child(2) a[href^=\"/x\"]").is_none());
    }
}
