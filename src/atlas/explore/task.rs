//! What a todo does: the steps of explore's own todos and of an agent's, their names in the
//! atlas, and the guard against actions that look destructive.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::agent::{answer_selector, answer_verb};
use crate::browser::driver::adapter::RefInfo;
use crate::browser::page::intent::stable_selector;
use crate::template::literal_value;

/// Words that make an action look destructive.
const DESTRUCTIVE: &[&str] = &[
    "delete",
    "remove",
    "logout",
    "log out",
    "sign out",
    "signout",
    "pay",
    "purchase",
    "buy",
    "unsubscribe",
    "destroy",
    "erase",
    "deactivate",
    "close account",
    "reset",
    "drop",
];

/// Whether an element's name looks destructive.
pub(crate) fn is_destructive(name: &str) -> bool {
    let n = name.to_lowercase();
    DESTRUCTIVE.iter().any(|w| n.contains(w))
}

/// What a todo does.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Task {
    /// Its name in the atlas when no agent labels it (`click link About us`).
    pub(super) name: String,
    pub(super) steps: Vec<Value>,
    /// The name of what it acts on, for the destructive guard (`Delete account`).
    pub(super) target_name: String,
    /// An agent said it destroys data.
    pub(super) destructive: bool,
}

/// A selector object of an agent's or explore's todo, described (`link About us #2`).
fn describe(sel: &Value) -> String {
    let s = |k: &str| sel.get(k).and_then(Value::as_str);
    let base = match (s("role"), s("text"), s("css")) {
        (Some(role), Some(text), _) => format!("{role} {text}"),
        (Some(role), None, _) => role.to_string(),
        (None, Some(text), Some(css)) => format!("css `{css}` text \"{text}\""),
        (None, Some(text), None) => format!("text \"{text}\""),
        (None, None, Some(css)) => format!("css `{css}`"),
        _ => sel.to_string(),
    };
    match sel.get("nth").and_then(Value::as_i64) {
        Some(n) => format!("{base} #{}", n + 1),
        None => base,
    }
}

/// The field a form value is for: a CSS selector as given, else the control whose `name`,
/// id or accessible name it is.
fn field(key: &str) -> Value {
    if key.starts_with(['#', '.', '[']) || key.contains('=') {
        return json!({ "css": key });
    }
    let quoted = serde_json::to_string(key).unwrap_or_default();
    json!([
        { "css": format!("[name={quoted}]") },
        { "css": format!("[id={quoted}]") },
        { "role": "textbox", "text": key, "exact": true },
    ])
}

/// The actions explore does to an agent's element.
const TASK_ACTIONS: [&str; 8] = [
    "click", "dblclick", "hover", "fill", "check", "uncheck", "select", "submit",
];

/// An agent's frontier task in the form explore keeps it as a todo: its selector an
/// ElementSelector that outlives the snapshot (a ref becomes role and name), its action one
/// explore does (`type` is a `fill`), its parameters strings, its priority 0 to 10. Err: why
/// explore cannot do it.
pub(super) fn fit_task(task: &mut Value, refs: &BTreeMap<String, RefInfo>) -> Result<(), String> {
    let mut sel = answer_selector(&task["selector"])?;
    if let Some(r) = sel.get("ref").and_then(Value::as_str) {
        sel = stable_selector(r, refs)
            .ok_or_else(|| format!("the page's snapshot has no ref `{r}`"))?;
    }
    task["selector"] = sel;
    let given = task["action"].as_str().unwrap_or_default();
    let action = match answer_verb(given).as_str() {
        "type" => "fill".to_string(),
        other => other.to_string(),
    };
    if !TASK_ACTIONS.contains(&action.as_str()) {
        return Err(format!(
            "explore does not `{given}` (it does {})",
            TASK_ACTIONS.join(", ")
        ));
    }
    task["action"] = json!(action);
    if let Some(params) = task.get_mut("parameters").and_then(Value::as_object_mut) {
        for v in params.values_mut() {
            if !v.is_string() {
                *v = json!(v.to_string());
            }
        }
    }
    if action == "select"
        && task
            .pointer("/parameters")
            .is_none_or(|p| p.as_object().is_none_or(serde_json::Map::is_empty))
    {
        return Err("`select` needs the option to choose, in `parameters`".into());
    }
    let priority = task["priority"].as_f64().unwrap_or_default();
    // Within 0 and 10, so the order is the agent's; the cast cannot truncate after the clamp.
    #[allow(clippy::cast_possible_truncation)]
    let priority = priority.round().clamp(0.0, 10.0) as i64;
    task["priority"] = json!(priority);
    Ok(())
}

/// Steps made of a page's names and values (or an agent's words about them), with those as
/// text: a button named `Press {{ x }}` is clicked by that name, not by what a template makes
/// of it (see `template::literal`).
fn as_text(mut steps: Vec<Value>) -> Vec<Value> {
    steps.iter_mut().for_each(literal_value);
    steps
}

/// A todo as the steps that do it. Two shapes: explore's own (`{role, name, nth}`: click it)
/// and an agent's (`{action, selector, parameters, is_destructive}`). `None` for a todo it
/// cannot do (a snapshot ref the agent gave that is not on the page: refs do not outlive it).
pub(super) fn task_of(todo: &Value) -> Option<Task> {
    let Some(action) = todo.get("action").and_then(Value::as_str) else {
        let role = todo.get("role")?.as_str()?;
        let name = todo.get("name")?.as_str()?;
        let mut target = json!({ "role": role, "text": name, "exact": true });
        if let Some(n) = todo.get("nth").and_then(Value::as_i64) {
            target["nth"] = json!(n);
        }
        return Some(Task {
            name: format!("click {}", describe(&target)),
            steps: as_text(vec![json!({ "click": target })]),
            target_name: name.to_string(),
            destructive: false,
        });
    };
    let sel = todo.get("selector")?.clone();
    if sel.get("ref").is_some() {
        return None;
    }
    let params: Vec<(String, String)> = todo
        .get("parameters")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                .collect()
        })
        .unwrap_or_default();
    let value = params
        .iter()
        .find(|(k, _)| k == "value")
        .or(params.first())
        .map(|(_, v)| v.clone());
    let steps = match action {
        "click" => vec![json!({ "click": sel })],
        "dblclick" => vec![json!({ "dblclick": sel })],
        "hover" => vec![json!({ "hover": sel })],
        "check" => vec![json!({ "check": sel })],
        "uncheck" => vec![json!({ "uncheck": sel })],
        "fill" => vec![json!({ "fill": { "target": sel, "value": value.unwrap_or_default() } })],
        "select" => vec![json!({ "select": { "target": sel, "value": value? } })],
        "submit" => {
            let mut steps: Vec<Value> = params
                .iter()
                .map(|(k, v)| json!({ "fill": { "target": field(k), "value": v } }))
                .collect();
            steps.push(json!({ "click": sel }));
            steps
        }
        _ => return None,
    };
    Some(Task {
        name: format!("{action} {}", describe(&sel)),
        steps: as_text(steps),
        target_name: sel
            .get("text")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        destructive: todo
            .get("is_destructive")
            .and_then(Value::as_bool)
            .unwrap_or(false),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_agents_task_is_kept_in_the_form_explore_does_it_or_refused_saying_why() {
        let refs = BTreeMap::from([(
            "e5".to_string(),
            RefInfo {
                role: "link".into(),
                name: "Cart".into(),
            },
        )]);
        let fit = |t: Value| {
            let mut t = t;
            fit_task(&mut t, &refs).map(|()| t)
        };
        let t = fit(json!({"selector": "@e5", "action": "Tap", "priority": 12.4})).unwrap();
        assert_eq!(
            t["selector"],
            json!({"role": "link", "text": "Cart", "exact": true})
        );
        assert_eq!(
            (t["action"].as_str(), t["priority"].as_i64()),
            (Some("click"), Some(10))
        );
        let t = fit(json!({"selector": "#q", "action": "type", "parameters": {"q": 5}})).unwrap();
        assert_eq!(t["action"], "fill");
        assert_eq!(t["parameters"]["q"], "5");
        assert_eq!(
            task_of(&t).unwrap().steps,
            vec![json!({"fill": {"target": {"css": "#q"}, "value": "5"}})]
        );
        assert!(
            fit(json!({"selector": "e9", "action": "click"}))
                .unwrap_err()
                .contains("no ref `e9`")
        );
        assert!(
            fit(json!({"selector": "#a", "action": "drag"}))
                .unwrap_err()
                .contains("does not `drag`")
        );
        assert!(
            fit(json!({"selector": "#s", "action": "select"}))
                .unwrap_err()
                .contains("parameters")
        );
    }

    #[test]
    fn destructive_names() {
        assert!(is_destructive("Delete account"));
        assert!(is_destructive("Sign out"));
        assert!(!is_destructive("About us"));
    }
}
