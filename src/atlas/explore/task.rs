//! What a todo does: the steps of explore's own todos and of an agent's, their names in the
//! atlas.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::agent::{answer_selector, answer_verb};
use crate::atlas::store::Reach;
use crate::browser::driver::adapter::RefInfo;
use crate::browser::page::intent::stable_selector;

use crate::step::Masker;
use crate::template::{literal, literal_value};

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
    // A kept todo's steps are explore's own making (see `kept_todo`), never an agent's.
    if let Some(m) = task.as_object_mut() {
        m.remove("stored");
    }
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

/// A todo as the steps that do it. Three shapes: explore's own (`{role, name, nth}`: click it),
/// an agent's (`{action, selector, parameters, is_destructive}`), and one kept with its steps
/// because it holds a secret (see [`kept_todo`]). `None` for a todo it cannot do (a snapshot
/// ref the agent gave that is not on the page: refs do not outlive it).
pub(super) fn task_of(todo: &Value) -> Option<Task> {
    if let Some(kept) = todo.get("stored") {
        let text = |k: &str| kept.get(k).and_then(Value::as_str).map(str::to_string);
        return Some(Task {
            name: text("name")?,
            steps: kept.get("steps")?.as_array()?.clone(),
            target_name: text("target_name").unwrap_or_default(),
            destructive: kept.get("destructive").and_then(Value::as_bool)?,
        });
    }
    let mut task = raw_task(todo)?;
    task.steps = as_text(task.steps);
    Some(task)
}

/// Whether a string of `v` holds a secret `masker` masks.
fn holds_secret(masker: &Masker, v: &Value) -> bool {
    match v {
        Value::String(s) => masker.holds_secret(s),
        Value::Array(items) => items.iter().any(|i| holds_secret(masker, i)),
        Value::Object(m) => m
            .iter()
            .any(|(k, i)| masker.holds_secret(k) || holds_secret(masker, i)),
        _ => false,
    }
}

/// A todo as explore keeps it in the atlas (its `todos.json`, and the edge it makes): as it is
/// when it holds no secret `masker` masks; else as the steps that do it, each secret's value
/// written `{{ secrets.NAME }}` as a recorded flow writes a typed secret (of the secrets the
/// masker knows by name, those runner.toml's `[atlas] secrets` names in `reach`: the only ones
/// a stored step may read), the text around
/// as text, and its name masked: `{"stored": {name, steps, target_name, destructive}}`. Err: its
/// name masked, and why it cannot be kept without a secret (one in another form than its value:
/// a case, its reverse, its base64; or one the project does not name). A kept todo is as it is.
pub(super) fn kept_todo(
    todo: Value,
    masker: &Masker,
    reach: &Reach,
) -> Result<Value, (String, String)> {
    if todo.get("stored").is_some() || !holds_secret(masker, &todo) {
        return Ok(todo);
    }
    let mut secrets = masker.named_values();
    secrets.retain(|(n, _)| reach.secrets.contains(n));
    let Some(task) = raw_task(&todo) else {
        return Err((
            masker.mask(&todo.to_string()),
            "not a todo explore can do".into(),
        ));
    };
    let name = masker.mask(&task.name);
    let mut steps = Value::from(task.steps);
    stored_strings(&mut steps, masker, &secrets, reach).map_err(|why| (name.clone(), why))?;
    let kept = json!({ "stored": {
        "name": name,
        "steps": steps,
        "target_name": masker.mask(&task.target_name),
        "destructive": task.destructive,
    }});
    if holds_secret(masker, &kept) {
        return Err((name, ANOTHER_FORM.into()));
    }
    Ok(kept)
}

/// Why a todo whose text holds a secret in another form than its value is not done.
const ANOTHER_FORM: &str = "its text holds a secret in another form than the secret itself (its case, its reverse, an encoding), and a stored step holds a secret only as `{{ secrets.NAME }}`, which a replay types as the secret is: explore does not do it";

/// Every string of `v` as a stored step holds it: text, or each secret of `secrets` in it as
/// `{{ secrets.NAME }}` (see [`kept_todo`]).
fn stored_strings(
    v: &mut Value,
    masker: &Masker,
    secrets: &[(String, String)],
    reach: &Reach,
) -> Result<(), String> {
    match v {
        Value::String(s) if !masker.holds_secret(s) => *s = literal(s),
        Value::String(s) => {
            if let Some(t) = masker.as_template(secrets, s) {
                *s = t;
                return Ok(());
            }
            // A secret the project does not name for its atlases: what to add, said.
            let undeclared = masker
                .named_values()
                .into_iter()
                .find(|(n, v)| s.contains(v.as_str()) && !secrets.iter().any(|(m, _)| m == n));
            return Err(match undeclared {
                Some((n, _)) => format!(
                    "its text holds the secret `{n}`, which a stored step types as `{{{{ secrets.{n} }}}}`; {}",
                    reach.undeclared(&n)
                ),
                None => ANOTHER_FORM.into(),
            });
        }
        Value::Array(items) => {
            for i in items {
                stored_strings(i, masker, secrets, reach)?;
            }
        }
        Value::Object(m) => {
            for i in m.values_mut() {
                stored_strings(i, masker, secrets, reach)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// [`task_of`] of explore's own and an agent's todos, the page's text in their steps as it is
/// (not yet [`as_text`]).
fn raw_task(todo: &Value) -> Option<Task> {
    let Some(action) = todo.get("action").and_then(Value::as_str) else {
        let role = todo.get("role")?.as_str()?;
        let name = todo.get("name")?.as_str()?;
        let mut target = json!({ "role": role, "text": name, "exact": true });
        if let Some(n) = todo.get("nth").and_then(Value::as_i64) {
            target["nth"] = json!(n);
        }
        return Some(Task {
            name: format!("click {}", describe(&target)),
            steps: vec![json!({ "click": target })],
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
        steps,
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

    /// A todo whose text holds a secret is kept with its steps: the secret's value as
    /// `{{ secrets.T }}` (when runner.toml names T), the text around as text, its name masked;
    /// another form of it (upper case) cannot be, nor can a secret the project does not name.
    /// A kept todo is kept as it is; an agent's todo cannot pass as one.
    #[test]
    fn a_todo_that_holds_a_secret_is_kept_typed_by_name_or_refused() {
        const KEY: &str = "Zebra-Kestrel-4471";
        let masker = Masker::default();
        masker.add_named("T", KEY);
        let reach = Reach {
            secrets: vec!["T".into()],
            ..Reach::default()
        };
        let todo = json!({"role": "link", "name": format!("{{{{ {KEY} settings")});
        let kept = kept_todo(todo, &masker, &reach).unwrap();
        assert!(!kept.to_string().contains(KEY), "{kept}");
        let task = task_of(&kept).unwrap();
        assert_eq!(task.name, "click link {{ *** settings");
        assert_eq!(
            task.steps,
            vec![
                json!({"click": {"role": "link", "text": "{{ '{{' }} {{ secrets.T }} settings", "exact": true}})
            ]
        );
        assert_eq!(kept_todo(kept.clone(), &masker, &reach), Ok(kept));
        // Nothing secret: as it is.
        let plain = json!({"role": "link", "name": "About"});
        assert_eq!(kept_todo(plain.clone(), &masker, &reach), Ok(plain));
        let loud = json!({"role": "link", "name": format!("{} LOUD", KEY.to_uppercase())});
        let (name, why) = kept_todo(loud, &masker, &reach).unwrap_err();
        assert_eq!(name, "click link *** LOUD");
        assert!(
            why.contains("in another form than the secret itself"),
            "{why}"
        );
        let todo = json!({"role": "link", "name": format!("{KEY} settings")});
        let (_, why) = kept_todo(todo, &masker, &Reach::default()).unwrap_err();
        assert!(
            why.contains("add T to runner.toml: [atlas] secrets = [\"T\"]") && !why.contains(KEY),
            "{why}"
        );
        let mut forged = json!({"selector": "#a", "action": "click", "stored": {"name": "x", "steps": [], "destructive": false}});
        fit_task(&mut forged, &BTreeMap::new()).unwrap();
        assert!(forged.get("stored").is_none(), "{forged}");
    }
}
