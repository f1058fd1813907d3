//! Steps that do not come from the user's own flow files — an atlas's edges, root entries and
//! saved tests, an agent's `test_generation` answer, the agent cache — admitted or refused in
//! this one place before they run. A repository may hold an atlas and the cache, and a page can
//! steer an agent, so such steps may only act on the page or check it, as the page itself
//! could (see [`Action::beyond_the_page`]): no command, request, agent, file read or written,
//! sub-flow or var; an `open` of an http(s) page only; and their strings are text: the only
//! templates in them are those runner writes (see [`foreign_template`]).

use std::sync::OnceLock;

use serde_json::{Value, json};

use super::model::{ACTION_KEYS, Action, COMMON_KEYS, Step};
use crate::template::{Templates, foreign_template};

/// The keys a flow runner reads from outside may have: what runner writes into a saved test
/// (`defaults` is its own `timeout`, added before a replay runs).
const FLOW_KEYS: &[&str] = &["name", "steps", "secrets", "defaults"];

/// The keys a step runner reads from outside may hold besides its action: a replay bounds
/// each step itself (a stored `timeout` would lift that bound: `wait: 100h` held a replay for
/// days), and a stored step neither retries nor fails without failing its replay.
const STEP_KEYS: &[&str] = &["name", "frame"];

/// A parse error's text on one line, its characters from outside escaped (serde quotes the key
/// it did not know, line breaks and all).
fn shown_error(e: &serde_json::Error) -> String {
    e.to_string().escape_debug().to_string()
}

/// What every refusal says of the rule.
const RULE: &str = "a step runner does not read from your own flow files (an atlas, the agent cache, an agent's answer) may only act on the page or check it: browser steps and `expect`";

/// Admits the flow `flow` read from `from` (a file, or the answer that held it): its own keys,
/// then each of its steps. Err: why not, naming `from`, the step and what it may not do.
pub(crate) fn admit_flow(flow: &Value, from: &str) -> Result<(), String> {
    let Some(m) = flow.as_object() else {
        return Err(format!("{from}: not a flow (a map with `steps`)"));
    };
    if let Some(k) = m.keys().find(|k| !FLOW_KEYS.contains(&k.as_str())) {
        return Err(format!(
            "{from}: `{k}`: a flow runner does not read from your own flow files holds only `name`, `steps` and `secrets` (no server, command, vars or `finally` steps)"
        ));
    }
    let defaults = m.get("defaults").and_then(Value::as_object);
    if let Some(k) = defaults.and_then(|d| d.keys().find(|k| *k != "timeout")) {
        return Err(format!(
            "{from}: `defaults.{k}`: only `defaults.timeout` is taken from there"
        ));
    }
    let steps = m.get("steps").and_then(Value::as_array);
    admit_steps(steps.map_or(&[], Vec::as_slice), from)
}

/// Admits the steps `steps` read from `from`; Err: why the first it refuses is refused
/// (`<from>: step 2 (`exec`): it runs a command on this machine; ...`).
pub(crate) fn admit_steps(steps: &[Value], from: &str) -> Result<(), String> {
    static TEMPLATES: OnceLock<Templates> = OnceLock::new();
    let t = TEMPLATES.get_or_init(Templates::new);
    for (i, step) in steps.iter().enumerate() {
        let key = step
            .as_object()
            .and_then(|m| m.keys().find(|k| ACTION_KEYS.contains(&k.as_str())))
            .map_or("?", String::as_str);
        admit_step(t, step).map_err(|why| format!("{from}: step {} (`{key}`): {why}", i + 1))?;
    }
    Ok(())
}

fn admit_step(t: &Templates, step: &Value) -> Result<(), String> {
    let Some(m) = step.as_object() else {
        return Err("not a step (a map with one action)".into());
    };
    if let Some(tag) = first_foreign(t, step) {
        return Err(format!(
            "`{tag}` is a template: text read from there is used as written, and runner renders no template there but those it writes (`{{{{ '{{{{' }}}}` for a `{{{{` of the text, `{{{{ secrets.NAME }}}}` where a recorded flow typed a secret)"
        ));
    }
    let mut action = None;
    for (k, v) in m {
        if ACTION_KEYS.contains(&k.as_str()) {
            if action.is_some() {
                return Err("a step has one action".into());
            }
            action = Some(
                serde_json::from_value::<Action>(json!({ k: v }))
                    .map_err(|e| format!("not a step runner reads: {}", shown_error(&e)))?,
            );
        } else if k == "if" {
            return Err(format!(
                "`if` is a condition, code runner would evaluate: {RULE}"
            ));
        } else if !COMMON_KEYS.contains(&k.as_str()) {
            return Err(format!(
                "not a step runner reads: `{}` is no key a step has",
                k.escape_debug()
            ));
        } else if !STEP_KEYS.contains(&k.as_str()) {
            return Err(format!(
                "`{}`: a step runner does not read from your own flow files holds its name, frame and one action only (no `timeout`, `retry`, `continue_on_error` or `id`: a replay bounds each step itself)",
                k.escape_debug()
            ));
        }
    }
    let Some(action) = action else {
        return Err("not a step runner reads: it has no action".into());
    };
    // The whole step as a flow reads it (`frame` a non-empty string, `name` a string).
    serde_json::from_value::<Step>(step.clone())
        .map_err(|e| format!("not a step runner reads: {}", shown_error(&e)))?;
    if let Some(why) = action.beyond_the_page() {
        return Err(format!("{why}: {RULE}"));
    }
    // Where it writes, confined as `validate` and the run confine it: an export passes the
    // step on to a flow of its own.
    if let Some(p) = action.artifact_path()
        && let Some(problem) = crate::fs::artifact_path_problem(action.key(), p)
    {
        return Err(format!("{problem}: {}", crate::fs::ARTIFACT_PATH_HELP));
    }
    if let Action::Open(o) = &action
        && !is_http(o.url())
    {
        return Err(format!(
            "it opens `{}`: a step from there opens only http(s) URLs (no `file:`, `data:`, `javascript:` or browser pages)",
            o.url()
        ));
    }
    Ok(())
}

/// Whether `url` is an http or https URL, as written.
pub(crate) fn is_http(url: &str) -> bool {
    let lower = url.get(..8).unwrap_or(url).to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

/// The first template in the strings of `v` that runner does not write there.
fn first_foreign(t: &Templates, v: &Value) -> Option<String> {
    match v {
        Value::String(s) => foreign_template(t, s),
        Value::Array(items) => items.iter().find_map(|i| first_foreign(t, i)),
        Value::Object(m) => m.values().find_map(|i| first_foreign(t, i)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_steps_are_admitted_and_the_rest_refused_saying_why() {
        let ok = json!([
            {"open": "https://example.com/{{ '{{' }}x"},
            {"click": {"role": "button", "text": "Go"}, "name": "go", "frame": "#pay"},
            {"fill": {"target": "#p", "value": "{{ secrets.PW }}"}},
            {"expect": {"title": {"equals": "Home"}}},
        ]);
        assert_eq!(admit_steps(ok.as_array().unwrap(), "f"), Ok(()));
        for (step, said) in [
            (
                json!({"exec": ["id"]}),
                "f: step 1 (`exec`): it runs a command",
            ),
            (json!({"open": "file:///etc/passwd"}), "opens only http(s)"),
            (json!({"open": " http://x"}), "opens only http(s)"),
            (json!({"open": "{{ secrets.URL }}"}), "opens only http(s)"),
            (
                json!({"open": "http://x/{{ env.HOME }}"}),
                "`{{ env.HOME }}` is a template",
            ),
            (json!({"wait": "1s", "if": "true"}), "`if` is a condition"),
            (json!({"expect": {"that": "true"}}), "`expect.that`"),
            (json!({"click": "#a", "exec": ["id"]}), "one action"),
            (json!({"exec": {"command": 5}}), "not a step runner reads"),
            (
                json!({"wait": "100h", "timeout": "100h"}),
                "`timeout`: a step",
            ),
            (json!({"click": "#a", "retry": 2}), "`retry`"),
            (
                json!({"click": "#a", "continue_on_error": true}),
                "`continue_on_error`",
            ),
            (json!({"click": "#a", "id": "x"}), "`id`"),
            (
                json!({"click\nimport os\n#": "#a"}),
                "not a step runner reads: `click\\nimport os\\n#` is no key a step has",
            ),
            (json!({"name": "only a name"}), "it has no action"),
            (json!({"click": "#a", "frame": ""}), "empty `frame`"),
            (
                json!({"screenshot": {"path": "../../x.png"}}),
                "screenshot path `../../x.png` leaves the artifacts directory",
            ),
            (
                json!({"screenshot": {"path": "/tmp/x.png"}}),
                "screenshot path `/tmp/x.png` leaves the artifacts directory",
            ),
        ] {
            let e = admit_steps(std::slice::from_ref(&step), "f").unwrap_err();
            assert!(e.contains(said), "{step}: {e}");
        }
    }

    #[test]
    fn a_flow_from_outside_holds_steps_and_names_only() {
        assert_eq!(
            admit_flow(
                &json!({"name": "t", "steps": [], "secrets": ["A"], "defaults": {"timeout": "5s"}}),
                "t.yaml"
            ),
            Ok(())
        );
        for (flow, said) in [
            (
                json!({"steps": [], "web_server": {"command": "id"}}),
                "t.yaml: `web_server`",
            ),
            (json!({"steps": [], "finally": []}), "t.yaml: `finally`"),
            (
                json!({"steps": [], "defaults": {"retry": 2}}),
                "`defaults.retry`",
            ),
            (json!([]), "not a flow"),
        ] {
            let e = admit_flow(&flow, "t.yaml").unwrap_err();
            assert!(e.contains(said), "{flow}: {e}");
        }
    }
}
