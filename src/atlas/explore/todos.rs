//! Explore's own todos of a state, when no agent gives them: its links, buttons, tabs and menu
//! items, what has a click handler or is a `<details>` summary, and its forms filled with
//! values of their fields' types.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::browser::driver::adapter::{RefInfo, ref_number};

/// Whether clicking an element of this role may lead somewhere (as Crawljax's candidates):
/// links and buttons, and what behaves as one — tabs, menu items, tree items. Form controls
/// that only hold a value (checkboxes, radios, selects and their options, text fields) are not:
/// toggling one is no new state of the app.
fn is_candidate(role: &str) -> bool {
    matches!(
        role,
        "link" | "button" | "tab" | "menuitem" | "menuitemcheckbox" | "menuitemradio" | "treeitem"
    )
}

/// The name a snapshot line gives (`- button "Save" [ref=e3]` -> `Save`), if any.
fn quoted_name(line: &str) -> Option<&str> {
    let rest = line.split_once('"')?.1;
    let name = rest.rsplit_once('"')?.0;
    (!name.trim().is_empty()).then_some(name)
}

/// What else a snapshot shows can be clicked, beyond the roles of `is_candidate`, as the
/// todos that click it by its text: an element with a click handler (`generic [ref=e1]
/// clickable [onclick]`, named by its own text or its first text inside) and a `<details>`
/// summary (`DisclosureTriangle "More"`, which has no ref). Checkboxes, radios and selects are
/// not candidates: their checked or selected value is part of a state's fingerprint, so every
/// toggle would be a node of its own; an agent proposes them where they matter (`check`,
/// `select`).
fn text_todos(snapshot: &str) -> Vec<Value> {
    let lines: Vec<&str> = snapshot.lines().collect();
    let indent = |l: &str| l.len() - l.trim_start().len();
    let mut out: Vec<(String, Option<&str>)> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let item = line.trim_start().trim_start_matches("- ");
        let role = item.split([' ', ':']).next().unwrap_or_default();
        if role == "DisclosureTriangle" {
            if let Some(name) = quoted_name(item) {
                out.push((name.to_string(), Some("summary")));
            }
            continue;
        }
        if !item.contains(" clickable [") || is_candidate(role) {
            continue;
        }
        let own = quoted_name(item.split(" clickable [").next().unwrap_or_default());
        let inner = || {
            lines[i + 1..]
                .iter()
                .take_while(|l| indent(l) > indent(line))
                .find_map(|l| {
                    let l = l.trim_start().trim_start_matches("- ");
                    l.starts_with("StaticText ")
                        .then(|| quoted_name(l))
                        .flatten()
                })
        };
        if let Some(name) = own.or_else(inner) {
            out.push((name.to_string(), None));
        }
    }
    let mut todos = Vec::new();
    for (i, (name, tag)) in out.iter().enumerate() {
        let mut sel = json!({ "text": name, "exact": true });
        if let Some(t) = tag {
            sel["tag"] = json!(t);
        }
        let same = |o: &(String, Option<&str>)| o.0 == *name && o.1 == *tag;
        if out.iter().filter(|o| same(o)).count() > 1 {
            sel["nth"] = json!(out[..i].iter().filter(|o| same(o)).count());
        }
        todos.push(json!({ "action": "click", "selector": sel }));
    }
    todos
}

/// The page's forms, for explore's own form todos: each form's visible fields with a name or an
/// id (name, id, type, required, min) and its submit button's text. A page script of no
/// arguments (see `crate::browser::driver::script`).
pub(super) const FORMS_JS: &str = include_str!("forms.js");

/// A value of the field's type that a form accepts, for explore's own form todos (an agent
/// proposes its own values).
fn typed_default(kind: &str, min: &str) -> String {
    match kind {
        "email" => "test@example.com".into(),
        // A `min` that is no number (a page's text: `{{ x }}`) is none.
        "number" | "range" => {
            if min.trim().parse::<f64>().is_ok_and(f64::is_finite) {
                min.trim().into()
            } else {
                "1".into()
            }
        }
        "date" => "2026-01-15".into(),
        "datetime-local" => "2026-01-15T10:30".into(),
        "time" => "10:30".into(),
        "month" => "2026-01".into(),
        "week" => "2026-W03".into(),
        "tel" => "+15550100".into(),
        "url" => "https://example.com".into(),
        "password" => "Example-passw0rd".into(),
        "color" => "#336699".into(),
        _ => "test".into(),
    }
}

/// Explore's own todos for a page's forms (`FORMS_JS`'s answer): fill every field with a value
/// of its type, then press the form's submit button (named by its text).
fn form_todos(forms: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    for f in forms.as_array().into_iter().flatten() {
        let submit = f["submit"].as_str().unwrap_or_default();
        let fields = f["fields"].as_array().cloned().unwrap_or_default();
        if submit.is_empty() || fields.is_empty() {
            continue;
        }
        let params: serde_json::Map<String, Value> = fields
            .iter()
            .filter_map(|x| {
                // By name, else by id (as CSS attribute selectors: any character is safe).
                let s = |k: &str| x[k].as_str().filter(|v| !v.is_empty());
                let (attr, v) = s("name")
                    .map(|n| ("name", n))
                    .or(s("id").map(|i| ("id", i)))?;
                let kind = x["type"].as_str().unwrap_or("text");
                let value = typed_default(kind, x["min"].as_str().unwrap_or_default());
                Some((
                    format!("[{attr}={}]", serde_json::to_string(v).ok()?),
                    json!(value),
                ))
            })
            .collect();
        out.push(json!({
            "action": "submit",
            "selector": { "role": "button", "text": submit, "exact": true },
            "parameters": params,
        }));
    }
    out
}

/// Explore's own todos of a state: its clickable elements with a name, in page order; elements
/// sharing a role and name are told apart by `nth`, every one of them (the click is strict:
/// without `nth`, the first of two would match both and never be clicked). Then what has a click
/// handler or is a `<details>` summary (see `text_todos`), and each form filled with values of
/// its fields' types and submitted (see `form_todos`).
pub(super) fn own_todos(
    refs: &BTreeMap<String, RefInfo>,
    snapshot: &str,
    forms: &Value,
) -> Vec<Value> {
    let mut clickable: Vec<(&String, &RefInfo)> = refs
        .iter()
        .filter(|(_, r)| is_candidate(&r.role) && !r.name.trim().is_empty())
        .collect();
    clickable.sort_by_key(|(k, _)| ref_number(k));
    let mut total: std::collections::HashMap<(&str, &str), i64> = std::collections::HashMap::new();
    for (_, r) in &clickable {
        *total.entry((r.role.as_str(), r.name.as_str())).or_insert(0) += 1;
    }
    let mut seen_names: std::collections::HashMap<(&str, &str), i64> =
        std::collections::HashMap::new();
    let mut todos: Vec<Value> = clickable
        .into_iter()
        .map(|(_, r)| {
            let key = (r.role.as_str(), r.name.as_str());
            let n = seen_names.entry(key).or_insert(0);
            *n += 1;
            if total.get(&key).copied().unwrap_or(1) == 1 {
                json!({ "role": r.role, "name": r.name })
            } else {
                json!({ "role": r.role, "name": r.name, "nth": *n - 1 })
            }
        })
        .collect();
    todos.extend(text_todos(snapshot));
    todos.extend(form_todos(forms));
    todos
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::atlas::explore::task::task_of;

    #[test]
    fn handlers_and_summaries_are_candidates_by_their_text() {
        let snap = r#"- generic [ref=e1] clickable [onclick]
  - StaticText "Open panel"
- generic "Named" [ref=e2] clickable [cursor:pointer, onclick]
- button "Save" [ref=e3] clickable [onclick]
- group
  - DisclosureTriangle "More info" [expanded=false]
    - StaticText "More info"
- generic [ref=e4] clickable [onclick]
  - StaticText "Open panel"
- checkbox "I agree" [checked=false, ref=e5]"#;
        assert_eq!(
            text_todos(snap),
            vec![
                json!({"action": "click", "selector": {"text": "Open panel", "exact": true, "nth": 0}}),
                json!({"action": "click", "selector": {"text": "Named", "exact": true}}),
                json!({"action": "click", "selector": {"text": "More info", "exact": true, "tag": "summary"}}),
                json!({"action": "click", "selector": {"text": "Open panel", "exact": true, "nth": 1}}),
            ]
        );
        let t = task_of(&text_todos(snap)[2]).unwrap();
        assert_eq!(t.name, "click text \"More info\"");
    }

    #[test]
    fn forms_are_filled_with_values_of_their_types() {
        let forms = json!([
            {"fields": [
                {"name": "email", "type": "email", "required": true, "min": ""},
                {"name": "qty", "type": "number", "required": false, "min": "2"},
                {"name": "odd", "type": "number", "required": false, "min": "{{ env.HOME }}"},
                {"name": "when", "type": "date", "required": false, "min": ""},
                {"name": "", "id": "nick", "type": "text", "required": true, "min": ""}],
             "submit": "Send"},
            {"fields": [], "submit": "Search"},
        ]);
        let todos = form_todos(&forms);
        assert_eq!(todos.len(), 1, "a form without fields is no form todo");
        let task = task_of(&todos[0]).unwrap();
        assert_eq!(task.name, "submit button Send");
        assert_eq!(
            task.steps,
            vec![
                json!({"fill": {"target": {"css": "[name=\"email\"]"}, "value": "test@example.com"}}),
                json!({"fill": {"target": {"css": "[name=\"qty\"]"}, "value": "2"}}),
                json!({"fill": {"target": {"css": "[name=\"odd\"]"}, "value": "1"}}),
                json!({"fill": {"target": {"css": "[name=\"when\"]"}, "value": "2026-01-15"}}),
                json!({"fill": {"target": {"css": "[id=\"nick\"]"}, "value": "test"}}),
                json!({"click": {"role": "button", "text": "Send", "exact": true}}),
            ]
        );
    }
}
