//! Skill answers read: the one JSON object in an agent's text, and the seed's forms in it
//! made runner's. The web-explorer seed declares a
//! selector and an action as free strings; runner acts on ElementSelector objects and its own
//! verbs. A selector string becomes the object it means (docs/agents.md, "Selectors in
//! answers", lists the forms); a string or object runner cannot use is refused with the reason,
//! so the caller can drop the item it belongs to and say why.

use serde_json::{Map, Value, json};

use crate::config::css_problem;
use crate::config::model::{Selector, SelectorObject};
use crate::step::Masker;

/// The ElementSelector object an agent's selector means: one of the string forms, or an object
/// as in flows. A snapshot ref comes back as `{ "ref": "e5" }` (the caller knows the snapshot).
pub(crate) fn selector(given: &Value) -> Result<Value, String> {
    let sel = match given {
        Value::String(s) => from_string(s.trim())?,
        Value::Object(_) => given.clone(),
        other => return Err(format!("a selector is a string or an object, not {other}")),
    };
    check_object(&sel)?;
    Ok(sel)
}

/// A selector string: a snapshot ref (`@e5`, `e5`, `ref=e5`, `[ref=e5]`), Playwright's
/// `role=`, `text=`, `css=`, `id=` and `data-testid=` forms, CSS ending in
/// `:has-text("...")`, or CSS.
fn from_string(s: &str) -> Result<Value, String> {
    if s.is_empty() {
        return Err("the selector is empty".into());
    }
    if let Some(r) = snapshot_ref(s) {
        return Ok(json!({ "ref": r }));
    }
    if let Some(r) = s.strip_prefix("role=") {
        return role(r);
    }
    if let Some(t) = s.strip_prefix("text=") {
        return text(t.trim());
    }
    if let Some(c) = s.strip_prefix("css=") {
        return css(c.trim());
    }
    if let Some(id) = s.strip_prefix("id=") {
        return css(&format!("[id={}]", quoted(&unquote(id))));
    }
    if let Some(v) = s.strip_prefix("data-testid=") {
        return css(&format!("[data-testid={}]", quoted(&unquote(v))));
    }
    if let Some((base, name)) = has_text(s) {
        let mut sel = if base.is_empty() {
            json!({})
        } else {
            css(base)?
        };
        sel["text"] = json!(name);
        return Ok(sel);
    }
    css(s)
}

/// `e5`, `@e5`, `ref=e5`, `[ref=e5]`: the ref's name.
fn snapshot_ref(s: &str) -> Option<String> {
    let s = s
        .strip_prefix('[')
        .and_then(|x| x.strip_suffix(']'))
        .unwrap_or(s);
    let s = s.strip_prefix("ref=").unwrap_or(s);
    let s = s.strip_prefix('@').unwrap_or(s);
    let digits = s.strip_prefix('e')?;
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())).then(|| s.to_string())
}

/// `role=button`, `role=button[name="Save"]` (a part of the name, as `{ role, text }`), with
/// `s` after the quote for the exact name (Playwright's case-sensitive flag).
fn role(r: &str) -> Result<Value, String> {
    let (role, rest) = r.split_once('[').unwrap_or((r, ""));
    let role = role.trim();
    if role.is_empty() || !role.bytes().all(|b| b.is_ascii_alphabetic()) {
        return Err(format!("`role={r}` names no role"));
    }
    let mut sel = json!({ "role": role });
    if rest.is_empty() {
        return Ok(sel);
    }
    let Some(attr) = rest.strip_suffix(']') else {
        return Err(format!("`role={r}` has an unclosed `[`"));
    };
    let Some(value) = attr.trim().strip_prefix("name") else {
        return Err(format!(
            "`role={r}`: runner finds an element by its role and name only, not by `[{attr}]`"
        ));
    };
    let value = value.trim_start();
    let value = value
        .strip_prefix('=')
        .ok_or_else(|| format!("`role={r}`: write the name as `[name=\"...\"]`"))?;
    let value = value.trim();
    let (value, exact) = match value.strip_suffix('s') {
        Some(v) if is_quoted(v.trim_end()) => (v.trim_end(), true),
        _ => (
            value
                .strip_suffix('i')
                .filter(|v| is_quoted(v.trim_end()))
                .unwrap_or(value),
            false,
        ),
    };
    let name = unquote(value);
    if name.is_empty() {
        return Err(format!("`role={r}` has an empty name"));
    }
    sel["text"] = json!(name);
    if exact {
        sel["exact"] = json!(true);
    }
    Ok(sel)
}

/// `text=Save` (a part of the visible text) or `text="Save"` (the whole text).
fn text(t: &str) -> Result<Value, String> {
    if t.starts_with('/') {
        return Err(format!(
            "`text={t}` is a regular expression; runner compares text, write the words"
        ));
    }
    let name = unquote(t);
    if name.is_empty() {
        return Err("`text=` names no text".into());
    }
    Ok(if is_quoted(t) {
        json!({ "text": name, "exact": true })
    } else {
        json!({ "text": name })
    })
}

/// CSS that runner can hand to the page.
fn css(c: &str) -> Result<Value, String> {
    match css_problem(c) {
        Some(problem) => Err(problem),
        None if c.is_empty() => Err("the CSS selector is empty".into()),
        None => Ok(json!({ "css": c })),
    }
}

/// `button:has-text("Save")` at the end of a selector: the CSS before it and the text.
fn has_text(s: &str) -> Option<(&str, String)> {
    let (base, rest) = s.rsplit_once(":has-text(")?;
    let inner = rest.strip_suffix(')')?;
    is_quoted(inner.trim()).then(|| (base.trim(), unquote(inner)))
}

fn is_quoted(v: &str) -> bool {
    v.len() >= 2
        && ((v.starts_with('"') && v.ends_with('"')) || (v.starts_with('\'') && v.ends_with('\'')))
}

fn unquote(v: &str) -> String {
    let v = v.trim();
    if is_quoted(v) {
        v[1..v.len() - 1].to_string()
    } else {
        v.to_string()
    }
}

/// A CSS string literal.
fn quoted(v: &str) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// An object runner's flows would take: its keys known, meaningful together, its CSS readable.
fn check_object(sel: &Value) -> Result<(), String> {
    let mut sel = sel.clone();
    // A ref as the seed writes it (`@e5`) is the same ref.
    if let Some(r) = sel.get("ref").and_then(Value::as_str) {
        sel["ref"] = json!(r.trim_start_matches('@'));
    }
    let obj: SelectorObject = serde_json::from_value(sel.clone())
        .map_err(|e| format!("{sel} is not an ElementSelector: {e}"))?;
    if let Some(why) = obj.meaningless(false) {
        return Err(why);
    }
    if let Some(c) = &obj.css
        && let Some(problem) = css_problem(c)
    {
        return Err(problem);
    }
    Selector::Object(Box::new(obj)).check()
}

/// The runner verb an action word means: lower case, `_` between words, synonyms made one
/// (`double click` -> `dblclick`, `select_option` -> `select`, `navigate` -> `open`, ...). A
/// word it does not know comes back normalised; the caller says whether it can do it.
pub(crate) fn verb(word: &str) -> String {
    let w: String = word
        .trim()
        .to_lowercase()
        .chars()
        .map(|c| if c == ' ' || c == '-' { '_' } else { c })
        .collect();
    match w.as_str() {
        "tap" | "left_click" => "click",
        "double_click" | "doubleclick" | "dbl_click" => "dblclick",
        "fill_in" | "input" | "enter" | "enter_text" | "type_text" => "fill",
        "select_option" | "choose" => "select",
        "goto" | "go_to" | "navigate" | "visit" => "open",
        "mouse_over" | "mouseover" => "hover",
        other => return other.to_string(),
    }
    .to_string()
}

/// The one JSON object in an answer: a ```json fence's, else the whole text's, else the first
/// `{`…last `}` span's.
pub(crate) fn extract_json(text: &str) -> Option<Value> {
    let fenced = text
        .split("```json")
        .nth(1)
        .and_then(|rest| rest.split("```").next());
    let candidates = [
        fenced.map(str::trim),
        Some(text.trim()),
        text.find('{')
            .zip(text.rfind('}'))
            .filter(|(a, b)| a < b)
            .map(|(a, b)| &text[a..=b]),
    ];
    candidates.into_iter().flatten().find_map(|c| {
        serde_json::from_str::<Value>(c)
            .ok()
            .filter(Value::is_object)
    })
}

/// The runner steps an `intent` answer may name.
const INTENT_STEPS: [&str; 11] = [
    "click", "dblclick", "hover", "focus", "fill", "type", "check", "uncheck", "select", "press",
    "open",
];

/// An `intent` answer in runner's form: its action a runner step, its selector an object (a
/// snapshot ref stays a ref: the caller knows the snapshot), its value a string, its
/// confidence within 0 and 1. Err: why runner cannot act on it.
pub(crate) fn intent(answer: &mut Value) -> Result<(), String> {
    let given = answer
        .get("action_type")
        .and_then(Value::as_str)
        .ok_or("/action_type: the answer names no action_type")?;
    let step = verb(given);
    if !INTENT_STEPS.contains(&step.as_str()) {
        return Err(format!(
            "/action_type: runner has no step `{given}` (it does {})",
            INTENT_STEPS.join(", ")
        ));
    }
    answer["action_type"] = json!(step);
    if let Some(sel) = answer.get("selector").filter(|s| !s.is_null()) {
        answer["selector"] = selector(sel).map_err(|why| format!("/selector: {why}"))?;
    }
    if let Some(n) = answer.get("value").filter(|v| v.is_number()) {
        answer["value"] = json!(n.to_string());
    }
    if let Some(c) = answer.get("confidence").and_then(Value::as_f64) {
        answer["confidence"] = json!(c.clamp(0.0, 1.0));
    }
    Ok(())
}

/// The words of an item an answer's warning names it by: a test idea's name, a task's action
/// and selector as the agent gave them, else the item itself (masked, then shortened: an
/// agent may repeat a secret it read).
pub(crate) fn describe(item: &Value, masker: &Masker) -> String {
    if let Some(name) = item.get("name").and_then(Value::as_str) {
        return format!("\"{}\"", masker.mask(name));
    }
    let short = |v: &Value| {
        let s = match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        masker.mask_cut(&s, 80)
    };
    match (item.get("action"), item.get("selector")) {
        (Some(a), Some(s)) => format!("{} {}", short(a), short(s)),
        _ => short(&Value::Object(
            item.as_object().cloned().unwrap_or_else(Map::new),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sel(s: &str) -> Result<Value, String> {
        selector(&json!(s))
    }

    #[test]
    fn the_seeds_string_forms_become_element_selectors() {
        assert_eq!(sel("@e5").unwrap(), json!({"ref": "e5"}));
        assert_eq!(sel("e12").unwrap(), json!({"ref": "e12"}));
        assert_eq!(sel("[ref=e3]").unwrap(), json!({"ref": "e3"}));
        assert_eq!(
            sel("role=button[name=\"Save\"]").unwrap(),
            json!({"role": "button", "text": "Save"})
        );
        assert_eq!(
            sel("role=link[name='About us' s]").unwrap(),
            json!({"role": "link", "text": "About us", "exact": true})
        );
        assert_eq!(
            sel("role=button[name=Save]").unwrap(),
            json!({"role": "button", "text": "Save"})
        );
        assert_eq!(sel("role=tab").unwrap(), json!({"role": "tab"}));
        assert_eq!(sel("text=Sign in").unwrap(), json!({"text": "Sign in"}));
        assert_eq!(
            sel("text=\"Sign in\"").unwrap(),
            json!({"text": "Sign in", "exact": true})
        );
        assert_eq!(sel("css=#a > b").unwrap(), json!({"css": "#a > b"}));
        assert_eq!(sel("id=main").unwrap(), json!({"css": "[id=\"main\"]"}));
        assert_eq!(
            sel("button:has-text(\"Go\")").unwrap(),
            json!({"css": "button", "text": "Go"})
        );
        assert_eq!(
            sel("a[href=\"cart.html\"]").unwrap(),
            json!({"css": "a[href=\"cart.html\"]"})
        );
        // Today's object form, as it was.
        assert_eq!(
            selector(&json!({"role": "button", "text": "Go"})).unwrap(),
            json!({"role": "button", "text": "Go"})
        );
    }

    #[test]
    fn what_runner_cannot_use_is_refused_with_the_reason() {
        assert!(sel("//div[@id='x']").unwrap_err().contains("XPath"));
        assert!(sel("xpath=//div").unwrap_err().contains("XPath"));
        assert!(
            sel("text=/sign in/i")
                .unwrap_err()
                .contains("regular expression")
        );
        assert!(sel("#a >> #b").unwrap_err().contains(">>"));
        assert!(
            sel("role=checkbox[checked]")
                .unwrap_err()
                .contains("[checked]")
        );
        assert!(sel("div[").unwrap_err().contains("unclosed"));
        assert!(sel("  ").unwrap_err().contains("empty"));
        assert!(selector(&json!(5)).is_err());
        assert!(selector(&json!({"css": "a", "role": "link"})).is_err());
        assert!(selector(&json!({"nth": 1})).is_err());
        assert!(selector(&json!({"xpath": "//a"})).is_err());
    }

    #[test]
    fn action_words_become_runner_verbs() {
        assert_eq!(verb("Click"), "click");
        assert_eq!(verb(" double click "), "dblclick");
        assert_eq!(verb("select_option"), "select");
        assert_eq!(verb("Navigate"), "open");
        assert_eq!(verb("drag"), "drag");
    }

    #[test]
    fn an_intent_answer_in_the_seeds_words_becomes_a_runner_step() {
        let mut a = json!({"action_type": "Double Click", "selector": "text=Go", "value": 5, "confidence": 3});
        intent(&mut a).unwrap();
        assert_eq!(
            a,
            json!({"action_type": "dblclick", "selector": {"text": "Go"}, "value": "5", "confidence": 1.0})
        );
        let mut a = json!({"action_type": "explode", "confidence": 0.5});
        assert!(intent(&mut a).unwrap_err().starts_with("/action_type"));
        let mut a = json!({"action_type": "click", "selector": "//a", "confidence": 0.5});
        assert!(intent(&mut a).unwrap_err().contains("XPath"));
    }

    #[test]
    fn the_answer_is_found_bare_fenced_or_inside_prose() {
        let want = json!({"action_type": "click", "confidence": 0.5});
        assert_eq!(
            extract_json(r#"{"action_type":"click","confidence":0.5}"#),
            Some(want.clone())
        );
        assert_eq!(
            extract_json(
                "Here you go:\n```json\n{\"action_type\":\"click\",\"confidence\":0.5}\n```\nDone."
            ),
            Some(want.clone())
        );
        assert_eq!(
            extract_json("I would click it: {\"action_type\":\"click\",\"confidence\":0.5} ok"),
            Some(want)
        );
        assert_eq!(extract_json("no json here"), None);
        assert_eq!(extract_json("[1, 2]"), None);
    }

    #[test]
    fn items_are_named_by_what_the_agent_wrote() {
        assert_eq!(
            describe(&json!({"name": "smoke", "type": "x"}), &Masker::default()),
            "\"smoke\""
        );
        assert_eq!(
            describe(
                &json!({"action": "drag", "selector": "text=Add to cart"}),
                &Masker::default()
            ),
            "drag text=Add to cart"
        );
        assert_eq!(
            describe(&json!({"why": 1}), &Masker::default()),
            "{\"why\":1}"
        );
    }
}
