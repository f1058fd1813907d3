//! The samples `template_fields_tests` fills every string field of every file format with:
//! documents `validate` accepts, which between them give each field a value.

use serde_json::{Value, json};

use super::schema::SchemaKind;

/// Steps of every kind, valid on their own: what fills the fields of steps.
pub(crate) fn step_samples() -> Vec<Value> {
    super::drift_tests::valid_steps()
        .into_iter()
        .chain(more_steps())
        .collect()
}

/// The samples of a kind of file: documents that pass `validate`, which together fill every
/// string field of its schema.
pub(crate) fn corpus(kind: SchemaKind) -> Vec<Value> {
    match kind {
        SchemaKind::Flow => flow_corpus(),
        SchemaKind::Config => config_corpus(),
        SchemaKind::Profile => profile_corpus(),
    }
}

fn browser() -> Value {
    json!({"headed": true, "timeout": "5s", "cdp": "http://127.0.0.1:9222", "dialogs": "dismiss",
        "viewport": {"width": 390, "height": 844}, "device": "iPhone 14", "locale": "de-DE",
        "timezone": "Asia/Tokyo", "color_scheme": "dark", "geolocation": {"latitude": 48.85, "longitude": 2.35},
        "offline": false, "headers": {"X-A": "1"}, "state": ".auth/user.json", "testid_attribute": "data-test"})
}

fn flow_corpus() -> Vec<Value> {
    // (Without strings: each flow's vars would be places of their own.)
    let vars = json!({"items": [1, 2], "n": 1, "a": 1});
    let agent =
        json!({"id": "a", "agent": {"profile": "claude-code", "prompt": "p", "background": true}});
    // One flow per step (a small document validates fast), with what it refers to: the vars,
    // and the agent `a` running in the background.
    let mut out: Vec<Value> = step_samples()
        .into_iter()
        .map(|step| {
            let needs_agent =
                step.get("stop_agent").is_some() || step.pointer("/agent/follow_up").is_some();
            let steps = if needs_agent {
                json!([agent, step])
            } else {
                json!([step])
            };
            json!({"name": "step", "vars": vars, "steps": steps})
        })
        .collect();
    let full = json!({"$schema": "../schemas/flow.schema.json", "name": "full", "description": "d",
        "tags": ["t"], "vars": {"a": "x", "deep": {"k": ["s"]}}, "secrets": ["HOME"], "env": {"A": "b"}, "web_server": {"static": "site"},
        "atlas": "atlas", "browser": browser(), "agent": "claude-code",
        "defaults": {"timeout": "1s", "retry": {"attempts": 2, "delay": "1s", "max_delay": "2s", "on": ["timeout"]}},
        "steps": [{"log": "a"}], "finally": [{"log": "b"}], "outputs": {"o": "x", "deep": {"k": ["s"]}}});
    let command = json!({"name": "command server", "web_server": {"name": "app", "command": ["python3", "-m", "http.server"],
            "url": "http://127.0.0.1:{{ web_server.port }}", "ready_url": "/health", "port": "auto", "cwd": "site",
            "env": {"A": "b"}, "ready_timeout": "5s", "stop_timeout": "2s", "reuse_existing": false},
        "steps": [{"open": "{{ web_server.url }}"}]});
    let shell = json!({"name": "shell server", "web_server": {"command": "python3 -m http.server", "port": 8000},
        "steps": [{"log": "x"}]});
    let matrix = json!({"name": "m", "matrix": {"u": ["ada", 2], "include": [{"u": "bob", "size": "s"}],
        "exclude": [{"u": "ada"}]}, "steps": [{"log": "{{ vars.u }}"}]});
    let suite = json!({"$schema": "x", "name": "S", "description": "d", "tags": ["t"], "vars": {"a": "x"},
        "secrets": ["HOME"], "env": {"A": "b"}, "web_server": {"static": "site"}, "atlas": "atlas",
        "browser": browser(), "agent": "claude-code", "defaults": {"timeout": "1s"},
        "before_each": [{"log": "b"}], "after_each": [{"log": "c"}],
        "flows": [{"name": "a", "description": "d", "tags": ["t"], "vars": {"b": "x", "deep": ["s"]},
            "secrets": ["HOME"], "env": {"B": "b"}, "web_server": {"static": "site"}, "atlas": "atlas",
            "browser": browser(), "agent": "claude-code", "defaults": {"timeout": "1s"},
            "steps": [{"log": "x"}], "finally": [{"log": "y"}], "outputs": {"o": "1", "deep": ["s"]},
            "matrix": {"u": ["ada"], "include": [{"u": "bob"}], "exclude": [{"u": "eve"}]}},
            // What the suite's shared keys are for: a flow that sets none of its own.
            {"name": "b", "steps": [{"log": "x"}]}]});
    out.extend([full, command, shell, matrix, suite]);
    out
}

/// Steps that fill the string fields the drift samples leave empty.
fn more_steps() -> Vec<Value> {
    vec![
        json!({"act": "click Sign in"}),
        json!({"act": {"intent": "click Sign in", "profile": "claude-code", "variant": "plan"}}),
        json!({"agent": {"profile": "claude-code", "session": "s1", "message": "m"}}),
        json!({"dialog": "accept"}),
        json!({"dialog": {"accept": true, "text": "t"}}),
        json!({"dispatch": {"target": "#a", "event": "input", "init": {"data": "x", "deep": ["y"]}}}),
        json!({"each": {"in": ["a", {"b": "c"}], "steps": [{"log": "x"}]}}),
        json!({"expect": {"attribute": {"target": "a", "name": "href", "equals": "/x"},
            "count": {"target": "li", "equals": "1"}, "text": {"target": "h1", "equals": "T"},
            "value": {"target": "#e", "contains": "d"}, "request": {"url": "**/x", "count": "1"},
            "tabs": {"count": "1"}, "that": "vars.a == 1",
            "not": {"attribute": {"target": "a", "name": "href", "contains": "x"},
                "count": {"target": "li", "equals": "2"}, "text": {"target": "h1", "contains": "E"},
                "value": {"target": "#e", "matches": "^z"}}}}),
        json!({"expect": {"attribute": {"target": "a", "name": "href", "contains": "/x"},
            "count": {"target": "li", "min": "1"}, "text": {"target": "h1", "matches": "^T"},
            "value": {"target": "#e", "matches": "^d"},
            "not": {"attribute": {"target": "a", "name": "href", "equals": "x"},
                "count": {"target": "li", "min": "3"}, "text": {"target": "h1", "matches": "^E"},
                "value": {"target": "#e", "equals": "z"}}}}),
        json!({"expect": {"not": {"attribute": {"target": "a", "name": "href", "matches": "x"},
            "count": {"target": "li", "max": "0"}, "value": {"target": "#e", "contains": "z"}}}}),
        json!({"expect": {"url": {"equals": "http://x/"}, "title": {"matches": "^T"}}}),
        json!({"expect": {"class": {"target": "li", "has": "{{ vars.a }}"}}}),
        json!({"expect": {"classes": {"target": "li", "has": "{{ vars.items }}"}}}),
        json!({"keyboard": {"press": "Enter"}}),
        json!({"log": {"a": "x", "b": ["y"]}}),
        json!({"request": {"url": "http://localhost/x", "query": {"q": "a"}, "json": "j",
            "expect": {"json": {"$.a": "x", "$.b": {"equals": "y", "not_equals": "z", "contains": "w"},
                "$.c": ["v"], "$.d": {"equals": {"k": "v"}, "not_equals": ["u"], "contains": {"t": "s"}}}}}}),
        json!({"request": {"url": "http://localhost/x", "form": {"a": "b"}}}),
        json!({"request": {"url": "http://localhost/x", "json": {"a": ["b"]}}}),
        json!({"route": {"url": "**/a", "body": "text"}}),
        json!({"route": {"url": "**/a", "body": {"a": ["b"]}}}),
        json!({"run_flow": {"path": "sub.yaml", "vars": {"a": "x"}}}),
        json!({"run_flow": {"path": "sub.yaml", "vars": {"a": {"deep": ["x"]}}}}),
        json!({"select": {"target": "#c", "value": "a"}}),
        json!({"set": {"a": "x", "b": {"c": ["d"]}}}),
        json!({"type": {"target": "#n", "value": "v"}}),
        json!({"upload": {"target": "#f", "files": "a.txt"}}),
        json!({"upload": {"target": "#f", "files": ["a.txt"]}}),
        json!({"wait": {"url": "**/done"}}),
        json!({"wait": {"js": {"expr": "args", "args": "x"}}}),
        json!({"wait": {"js": {"expr": "args", "args": {"deep": ["x"]}}}}),
    ]
}

fn config_corpus() -> Vec<Value> {
    let mut browser = browser();
    browser.as_object_mut().map(|b| b.remove("state"));
    vec![
        json!({"flows": ["flows"], "jobs": 2, "timeout": "30s", "retries": 1, "trace": "on",
        "reports": ["junit=out/junit.xml"], "profiles": ["agents"], "vars": {"a": "x", "deep": {"k": ["s"]}},
        "browser": browser,
        "atlas": {"fingerprint": "text", "secrets": ["S"], "origins": ["https://auth.example.com"]},
        "web_server": [
            {"name": "app", "command": ["python3", "-m", "http.server", "{{ web_server.port }}"], "port": "auto",
                "url": "http://127.0.0.1:{{ web_server.port }}", "ready_url": "/health", "cwd": "site",
                "env": {"A": "b"}, "ready_timeout": "5s", "stop_timeout": "2s", "reuse_existing": false},
            {"name": "files", "static": "site"},
            {"name": "shell", "command": "python3 -m http.server", "port": 8000}]}),
    ]
}

fn profile_corpus() -> Vec<Value> {
    vec![
        json!({"$schema": "x", "label": "mine", "executor_type": "MINE", "kind": "generic",
        "description": "d", "command": {"binary": "echo", "args": ["a"], "env": {"A": "b"}},
        "variants": [{"label": "v", "description": "d", "command": {"binary": "echo", "args": ["b"], "env": {"B": "c"}}}]}),
    ]
}
