//! The schema files, the embedded copies and the typed model must describe the same data.

use serde_json::{Value, json};

use super::model::{ACTION_KEYS, COMMON_KEYS};
use super::schema::{SchemaKind, schema_accepts, schema_value};

fn resolve<'a>(root: &'a Value, node: &'a Value) -> &'a Value {
    match node.get("$ref").and_then(Value::as_str) {
        Some(r) => root
            .pointer(r.trim_start_matches('#'))
            .expect("a $ref resolves"),
        None => node,
    }
}

fn check_descriptions(root: &Value, node: &Value, path: &str, missing: &mut Vec<String>) {
    if let Some(props) = node.get("properties").and_then(Value::as_object) {
        for (k, v) in props {
            let has =
                v.get("description").is_some() || resolve(root, v).get("description").is_some();
            if !has {
                missing.push(format!("{path}/properties/{k}"));
            }
        }
    }
    match node {
        Value::Object(m) => {
            for (k, v) in m {
                check_descriptions(root, v, &format!("{path}/{k}"), missing);
            }
        }
        Value::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                check_descriptions(root, v, &format!("{path}/{i}"), missing);
            }
        }
        _ => {}
    }
}

#[test]
fn every_property_has_a_description_and_objects_are_closed() {
    for kind in [SchemaKind::Flow, SchemaKind::Profile, SchemaKind::Config] {
        let s = schema_value(kind);
        let mut missing = Vec::new();
        check_descriptions(s, s, "", &mut missing);
        assert!(
            missing.is_empty(),
            "properties without description: {missing:?}"
        );
        assert_eq!(s["$schema"], "https://json-schema.org/draft/2020-12/schema");
        assert_eq!(s["additionalProperties"], false);
    }
}

#[test]
fn schema_and_model_list_the_same_step_keys() {
    let s = schema_value(SchemaKind::Flow);
    let props: Vec<&str> = s["$defs"]["step"]["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let expected: Vec<&str> = COMMON_KEYS.iter().chain(ACTION_KEYS).copied().collect();
    assert_eq!(props, expected);
    let one_of: Vec<&str> = s["$defs"]["step"]["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["required"][0].as_str().unwrap())
        .collect();
    assert_eq!(one_of, ACTION_KEYS);
}

/// One valid value per action, and per option where the shape changes.
pub(super) fn valid_steps() -> Vec<Value> {
    vec![
        json!({"open": "http://127.0.0.1/"}),
        json!({"snapshot": true}),
        json!({"snapshot": {"interactive": true, "compact": true, "depth": 3, "scope": {"css": "main"}}}),
        json!({"click": "@e5"}),
        json!({"click": {"role": "button", "text": "Sign in", "exact": true}}),
        json!({"dblclick": {"css": "li"}}),
        json!({"click": {"css": "#pay", "frame": "iframe#card"}}),
        json!({"click": {"label": "Email", "exact": true, "nth": 0}}),
        json!({"fill": {"target": {"placeholder": "you@example.com"}, "value": "a"}}),
        json!({"click": {"css": ".toggle", "within": {"testid": "todo-item", "nth": 1, "within": "ul"}}}),
        json!({"check": [{"alt": "logo"}, {"title": "Close", "within": {"role": "dialog"}}]}),
        json!({"hover": [{"css": "#a"}, {"role": "button", "text": "A"}, "#b"]}),
        json!({"focus": {"text": "Welcome", "tag": "h1"}}),
        json!({"check": {"ref": "e2"}}),
        json!({"uncheck": "#agree"}),
        json!({"fill": {"target": {"css": "#email"}, "value": "a@b.c"}}),
        json!({"type": {"target": "#n", "value": 42}}),
        json!({"press": "Control+a"}),
        json!({"tab": "close"}),
        json!({"state": {"save": ".auth/user.json"}}),
        json!({"download": {"target": {"role": "link", "text": "Report"}, "path": "kept/r.csv"}}),
        json!({"route": {"url": "**/api/orders", "status": 201, "body": [{"id": 1}], "content_type": "application/json", "headers": {"X-A": "1"}}}),
        json!({"route": {"url": "**/ads/**", "abort": true}}),
        json!({"expect": {"request": {"url": "**/api/orders", "method": "POST", "count": 1}}}),
        json!({"tab": {"switch": "last"}}),
        json!({"tab": {"switch": -1}}),
        json!({"tab": {"switch": {"url": "/help"}}}),
        json!({"expect": {"tabs": {"count": 2}}}),
        json!({"press": {"key": "Enter", "target": {"role": "textbox", "text": "New"}}}),
        json!({"keyboard": {"type": "select 1"}}),
        json!({"keyboard": {"insert_text": "é"}}),
        json!({"keyboard": {"press": ["Control+a", "Delete"]}}),
        json!({"scroll": {"to": "bottom"}}),
        json!({"scroll": {"to": {"css": "#end"}}}),
        json!({"scroll": {"by": -200}}),
        json!({"select": {"target": "#c", "value": ["a", "b"]}}),
        json!({"wait": "250ms"}),
        json!({"wait": {"for": "#x", "state": "hidden"}}),
        json!({"wait": {"text": "Done"}}),
        json!({"screenshot": true}),
        json!({"screenshot": {"path": "a.png", "target": "#x", "full_page": true}}),
        json!({"eval": "document.title"}),
        json!({"inspect": {"target": ["#a", {"css": "main"}], "depth": 2, "include_styles": true, "max_size": "50KB", "format": "aria"}}),
        json!({"inspect": {"target": "#a", "max_size": 1000}}),
        json!({"expect": {"url": {"contains": "/x"}, "title": "T", "visible": "#a", "hidden": {"css": ".s"},
            "text": {"target": "h1", "contains": "W"}, "value": {"target": "#e", "equals": "d"},
            "count": {"target": "li", "min": 1, "max": "{{ vars.n }}"}, "checked": "#c", "that": true}}),
        json!({"expect": {"dialog": {"type": "confirm", "message": {"contains": "Sure"}, "accepted": false}}}),
        json!({"expect": {"unchecked": "#c", "enabled": "#a", "disabled": {"role": "button"}, "editable": "#e",
            "focused": "#f", "attribute": {"target": "a", "name": "href", "matches": "^/"},
            "not": {"visible": "#x", "text": {"target": "h1", "equals": "Error"}, "attribute": {"target": "a", "name": "hidden"}}}}),
        json!({"agent": {"profile": "claude-code", "variant": "plan", "prompt": "p", "workspace": ".",
            "timeout": "15m", "idle_timeout": "2m", "background": true, "env": {"K": "v"}}}),
        json!({"agent": {"profile": "codex", "follow_up": "a", "message": "m"}}),
        json!({"stop_agent": "a"}),
        json!({"link_state": "signed in"}),
        json!({"link_state": {"action": "signed in", "atlas": "x"}}),
        json!({"exec": "echo hi"}),
        json!({"exec": ["echo", "hi"]}),
        json!({"exec": {"command": "echo hi", "shell": true, "cwd": "sub", "env": {"A": 1}, "stdin": "x", "allow_failure": true}}),
        json!({"request": "http://localhost/x"}),
        json!({"request": {"method": "POST", "url": "http://localhost/x", "headers": {"A": "b"}, "query": {"p": 2},
            "json": {"a": [1]}, "follow_redirects": false, "expect": {"status": {"min": 200, "max": 299},
            "headers": {"content-type": {"contains": "json"}}, "json": {"$.a": 1, "$.b": {"equals": null, "exists": true},
            "$.c[*]": {"count": 2, "contains": 1, "not_equals": [3]}}, "body": {"matches": "a"}, "duration_ms": {"max": 500}}}}),
        json!({"request": {"url": "http://localhost/x", "form": {"a": true}}}),
        json!({"request": {"url": "http://localhost/x", "body": "text", "expect": {"status": 404, "body": ""}}}),
        json!({"open": {"url": "http://localhost/x", "status": 404}}),
        json!({"set": {"a": 1, "b": {"c": [1]}}}),
        json!({"log": "hi"}),
        json!({"log": 3}),
        json!({"run_flow": "sub.yaml"}),
        json!({"run_flow": {"path": "sub.yaml", "vars": {"a": 1}}}),
        json!({"each": {"in": "{{ vars.items }}", "as": "row", "steps": [{"log": "{{ vars.row }}"}]}}),
        json!({"each": {"in": [1, 2], "steps": [{"each": {"in": [], "steps": [{"log": "x"}]}}]}}),
        json!({"group": {"name": "g", "steps": [{"log": "x"}, {"group": {"name": "h", "steps": [{"exec": "true"}]}}]}}),
        json!({"timeout": "5s", "continue_on_error": true, "if": "true", "group": {"name": "g", "steps": [{"log": "x"}]}}),
        json!({"id": "x_1", "name": "n", "if": "vars.a", "timeout": "5s", "retry": 3, "continue_on_error": true, "log": "x"}),
        json!({"retry": {"attempts": 3, "delay": "1s", "backoff": 2, "max_delay": "5s", "on": ["timeout", "not_found"]}, "log": "x"}),
        json!({"if": false, "log": "x"}),
        json!({"frame": "iframe#pay", "click": {"role": "button", "text": "Pay"}}),
        json!({"back": true}),
        json!({"forward": true}),
        json!({"reload": true}),
        json!({"dispatch": {"target": {"role": "textbox", "text": "Edit"}, "event": "blur", "init": {"detail": 1}}}),
        json!({"wait": {"js": {"expr": "localStorage.n == args", "args": 3}}}),
        json!({"wait": {"js": "window.ready"}}),
        json!({"expect": {"texts": {"target": ".todo li", "equals": ["a", "b"]}, "classes": {"target": "li", "equals": ["done", ""]},
            "class": {"target": "li", "has": "done"}, "js": "window.ok",
            "not": {"texts": {"target": "li", "contains": "{{ vars.items }}"}, "classes": {"target": "li", "has": ["a b"]},
                "class": {"target": "li", "equals": "", "matches": "^a"}, "js": {"expr": "args", "args": false}}}}),
        json!({"expect": {"texts": {"target": "li", "contains": ["a"]},
            "not": {"texts": {"target": "li", "equals": "{{ vars.items }}"}}}}),
    ]
}

/// Ways to break a valid step.
fn mutations(step: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    let obj = step.as_object().unwrap();
    let mut unknown = obj.clone();
    unknown.insert("bogus".into(), json!(1));
    out.push(Value::Object(unknown));
    let mut two = obj.clone();
    two.insert(
        if obj.contains_key("log") {
            "exec"
        } else {
            "log"
        }
        .into(),
        json!("x"),
    );
    out.push(Value::Object(two));
    for (k, v) in obj {
        for replacement in [
            json!(null),
            json!([]),
            json!({}),
            json!(12.5),
            json!({"zzz": 1}),
        ] {
            if &replacement == v {
                continue;
            }
            let mut m = obj.clone();
            m.insert(k.clone(), replacement);
            out.push(Value::Object(m));
        }
        if let Value::Object(inner) = v {
            let mut i2 = inner.clone();
            i2.insert("bogus".into(), json!(true));
            let mut m = obj.clone();
            m.insert(k.clone(), Value::Object(i2));
            out.push(Value::Object(m));
        }
    }
    out
}

fn flow_with(step: Value) -> Value {
    json!({"name": "sample", "steps": [step]})
}

#[test]
fn schema_and_typed_model_judge_a_corpus_identically() {
    let mut samples: Vec<Value> = Vec::new();
    for s in valid_steps() {
        samples.extend(mutations(&s).into_iter().map(flow_with));
        samples.push(flow_with(s));
    }
    samples.push(json!({"name": "x", "steps": [{"log": "a"}], "vars": {"a": 1}, "secrets": ["A"],
        "env": {"A": "b"}, "web_server": {"static": "./site"}, "atlas": "a", "browser": {"headed": true, "timeout": "5s", "dialogs": "dismiss",
            "viewport": {"width": 390, "height": 844}, "device": "iPhone 14", "locale": "de-DE", "timezone": "Asia/Tokyo",
            "color_scheme": "dark", "geolocation": {"latitude": 48.85, "longitude": 2.35}, "offline": false, "headers": {"X-A": "1"}, "state": ".auth/user.json"},
        "defaults": {"timeout": "1s", "retry": 2}, "finally": [{"log": "b"}], "outputs": {"o": "{{ vars.a }}"}, "tags": ["t"]}));
    for bad in [
        json!({"viewport": {"width": 0, "height": 10}}),
        json!({"viewport": {"width": 10}}),
        json!({"geolocation": {"latitude": 100, "longitude": 0}}),
        json!({"geolocation": {"latitude": 0, "longitude": -181}}),
        json!({"device": ""}),
        json!({"locale": ""}),
        json!({"color_scheme": "blue"}),
        json!({"headers": {"a": 1}}),
        json!({"offline": "yes"}),
        json!({"dialogs": "maybe"}),
        json!({"testid_attribute": ""}),
        json!({"testid_attribute": "data test"}),
        json!({"testid_attribute": "1x"}),
    ] {
        samples.push(json!({"name": "x", "steps": [{"log": "a"}], "browser": bad}));
    }
    samples.push(
        json!({"name": "x", "steps": [{"route": {"url": "**/x", "abort": true, "status": 200}}]}),
    );
    samples.push(json!({"name": "x", "steps": [{"route": {"url": "**/x", "status": 99}}]}));
    samples.push(
        json!({"name": "x", "steps": [{"log": "a"}], "browser": {"testid_attribute": "data-test"}}),
    );
    samples.push(json!({"name": "x", "steps": [{"click": {"within": "ul"}}]}));
    samples.push(json!({"name": "x", "steps": [{"click": {"css": "a", "within": {"nth": 1}}}]}));
    samples.push(json!({"name": "x", "steps": [{"click": {"css": "a", "within": ""}}]}));
    for bad in [
        json!({"in": [], "as": "", "steps": [{"log": "x"}]}),
        json!({"in": [], "as": "a-b", "steps": [{"log": "x"}]}),
        json!({"in": [], "steps": []}),
        json!({"in": [], "steps": [{"bogus": 1}]}),
        json!({"in": 3, "steps": [{"log": "x"}]}),
        json!({"in": {"a": 1}, "steps": [{"log": "x"}]}),
        json!({"steps": [{"log": "x"}]}),
        json!({"in": []}),
    ] {
        samples.push(json!({"name": "x", "steps": [{"each": bad}]}));
    }
    for bad in [
        json!({"name": "", "steps": [{"log": "x"}]}),
        json!({"name": "g", "steps": []}),
        json!({"name": "g"}),
        json!({"steps": [{"log": "x"}]}),
        json!({"name": "g", "steps": [{"log": "x", "exec": "y"}]}),
    ] {
        samples.push(json!({"name": "x", "steps": [{"group": bad}]}));
    }
    samples.push(json!({"name": "x", "steps": []}));
    samples.push(json!({"name": "x"}));
    samples.push(json!({"steps": [{"log": "a"}]}));
    samples.push(json!({"name": "x", "steps": [{"log": "a"}], "tags": "t"}));
    samples.push(json!({"name": "x", "steps": [{"log": "a"}], "web_server": {"command": "x"}}));
    samples.push(json!({"name": "x", "steps": [{"log": "a"}], "stepz": []}));
    samples.extend(suites_and_matrices());
    let mut disagreements = Vec::new();
    let mut valid = 0;
    for s in &samples {
        let by_schema = schema_accepts(SchemaKind::Flow, s);
        let by_model = model_extra_rules(s);
        if by_schema {
            valid += 1;
        }
        if by_schema != by_model {
            disagreements.push(format!("schema={by_schema} model={by_model}: {s}"));
        }
    }
    assert!(valid >= 40, "only {valid} valid samples");
    assert!(
        samples.len() - valid >= 200,
        "only {} invalid samples",
        samples.len() - valid
    );
    assert!(
        disagreements.is_empty(),
        "{} disagreements:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
}

/// Suites and matrices, right and wrong: the file-level keys of each form, a suite flow's own.
fn suites_and_matrices() -> Vec<Value> {
    let one = json!({"name": "a", "steps": [{"log": "x"}]});
    let suite = |extra: Value| {
        let mut s = json!({"flows": [one.clone()]});
        s.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        s
    };
    let with_matrix = |m: Value| json!({"name": "a", "steps": [{"log": "x"}], "matrix": m});
    let mut out = vec![
        suite(json!({})),
        suite(
            json!({"name": "S", "description": "d", "tags": ["t"], "vars": {"a": 1},
            "secrets": ["A"], "env": {"A": "b"}, "web_server": {"static": "./site"}, "atlas": "a",
            "browser": {"timeout": "5s"}, "agent": "claude", "defaults": {"timeout": "1s"},
            "before_each": [{"log": "b"}], "after_each": [{"log": "c"}], "$schema": "x"}),
        ),
        json!({"flows": [{"name": "a", "description": "d", "tags": ["t"], "vars": {"a": 1},
            "secrets": ["A"], "env": {"A": "b"}, "web_server": {"static": "./site"}, "atlas": "a",
            "browser": {"timeout": "5s"}, "agent": "claude", "defaults": {"timeout": "1s"},
            "steps": [{"log": "x"}], "finally": [{"log": "y"}], "outputs": {"o": "1"},
            "matrix": {"u": [1, 2]}}]}),
        json!({"flows": []}),
        json!({"flows": [{"name": "a"}]}),
        json!({"flows": [{"steps": [{"log": "x"}]}]}),
        json!({"flows": [{"name": "a", "steps": []}]}),
        json!({"flows": [{"name": "a", "steps": [{"log": "x"}], "before_each": []}]}),
        json!({"flows": [1]}),
        json!({"flows": "a"}),
        suite(json!({"name": ""})),
        suite(json!({"before_each": [{"clik": "x"}]})),
        suite(json!({"after_each": {"log": "x"}})),
        with_matrix(json!({"a": [1, "b", {"c": 1}]})),
        with_matrix(json!({"include": [{"a": 1}], "exclude": [{"a": 2}]})),
        with_matrix(json!({"include": []})),
        with_matrix(json!({})),
        with_matrix(json!({"a": []})),
        with_matrix(json!({"a": 1})),
        with_matrix(json!({"a-b": [1]})),
        with_matrix(json!({"include": [{}]})),
        with_matrix(json!({"include": [{"a-b": 1}]})),
        with_matrix(json!({"include": "x"})),
        with_matrix(json!({"exclude": [1]})),
        with_matrix(json!([1])),
    ];
    // What belongs to one form only.
    for (k, v) in [
        ("steps", json!([{"log": "x"}])),
        ("finally", json!([{"log": "x"}])),
        ("outputs", json!({"a": "1"})),
        ("matrix", json!({"a": [1]})),
        ("stepz", json!(1)),
    ] {
        out.push(suite(json!({ k: v })));
    }
    for k in ["before_each", "after_each"] {
        let mut f = one.clone();
        f[k] = json!([{"log": "x"}]);
        out.push(f);
    }
    out
}

/// Constraints the schema expresses that serde types cannot (lengths, patterns, ranges); the
/// validator enforces them after deserializing, so they count as part of the model.
fn model_extra_rules(v: &Value) -> bool {
    super::model::check_constraints(v).is_ok()
}

/// Every whole-number field of every schema has a `minimum` and a `maximum`: a number past
/// what its type holds is refused by validate with its range, never by the typed model.
#[test]
fn every_whole_number_field_has_a_range() {
    fn walk(node: &Value, path: &str, unbounded: &mut Vec<String>) {
        match node {
            Value::Object(m) => {
                let t = m.get("type");
                let integer = t == Some(&json!("integer"))
                    || t.and_then(Value::as_array)
                        .is_some_and(|ts| ts.contains(&json!("integer")));
                if integer && !(m.contains_key("minimum") && m.contains_key("maximum")) {
                    unbounded.push(path.to_string());
                }
                for (k, v) in m {
                    walk(v, &format!("{path}/{k}"), unbounded);
                }
            }
            Value::Array(a) => {
                for (i, v) in a.iter().enumerate() {
                    walk(v, &format!("{path}/{i}"), unbounded);
                }
            }
            _ => {}
        }
    }
    let mut unbounded = Vec::new();
    for kind in [SchemaKind::Flow, SchemaKind::Config, SchemaKind::Profile] {
        walk(schema_value(kind), &format!("{kind:?}"), &mut unbounded);
    }
    assert!(unbounded.is_empty(), "no range: {unbounded:#?}");
}

/// Each number of the valid samples replaced by one a careless writer might put there (a
/// fraction written as a whole, an exponent, a number past 32 or 64 bits): what the schema
/// accepts, the typed model takes too (no "internal error" after validate passed).
#[test]
fn numbers_the_schema_accepts_fit_the_model() {
    fn replaced(v: &Value, path: &str, out: &mut Vec<(String, Value)>) {
        match v {
            Value::Number(_) => {
                for n in [
                    json!(5.0),
                    json!(1e3),
                    json!(1e30),
                    json!(-1e30),
                    json!(99_999_999_999_i64),
                    json!(-99_999_999_999_i64),
                ] {
                    out.push((path.to_string(), n));
                }
            }
            Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    replaced(x, &format!("{path}/{i}"), out);
                }
            }
            Value::Object(m) => {
                for (k, x) in m {
                    replaced(x, &format!("{path}/{k}"), out);
                }
            }
            _ => {}
        }
    }
    let mut disagreements = Vec::new();
    let mut tried = 0;
    for step in valid_steps() {
        let flow = flow_with(step);
        let mut swaps = Vec::new();
        replaced(&flow, "", &mut swaps);
        for (path, n) in swaps {
            let mut sample = flow.clone();
            *sample.pointer_mut(&path).expect("the path was walked") = n;
            tried += 1;
            if schema_accepts(SchemaKind::Flow, &sample) && !model_extra_rules(&sample) {
                disagreements.push(format!("{path}: {sample}"));
            }
        }
    }
    assert!(tried >= 100, "only {tried} numbers tried");
    assert!(
        disagreements.is_empty(),
        "the schema accepts, the model refuses:\n{}",
        disagreements.join("\n")
    );
}
