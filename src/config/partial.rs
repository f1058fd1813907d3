//! The well-formed parts of a file that failed the schema, so their semantic problems are
//! reported with the schema's (every problem at once): steps that do not parse become
//! placeholders (keeping their index and id) and bad keys are dropped.

use serde_json::{Map, Value, json};

use super::model::{Flow, Step, Suite};

/// The file `value` cleaned of what does not parse: a flow, or a suite and each of its flows.
pub(crate) fn partial_file(value: &Value) -> Option<Value> {
    let v = value.as_object()?;
    if !v.contains_key("flows") {
        return partial_flow(v).map(Value::Object);
    }
    let mut v = v.clone();
    for list in ["before_each", "after_each"] {
        if let Some(Value::Array(items)) = v.get_mut(list) {
            items.iter_mut().for_each(placeholder_if_bad);
        }
    }
    // A flow that is not a map stays (the others keep their indexes); tests skip it.
    if let Some(Value::Array(flows)) = v.get_mut("flows") {
        for f in flows.iter_mut() {
            if let Some(clean) = f.as_object().and_then(partial_flow) {
                *f = Value::Object(clean);
            }
        }
    }
    let probe = |k: &str, val: &Value| {
        let mut p = Map::new();
        p.insert(
            "flows".into(),
            json!([{"name": "x", "steps": [{"log": ""}]}]),
        );
        if k != "flows" {
            p.insert(k.into(), val.clone());
        }
        serde_json::from_value::<Suite>(Value::Object(p)).is_ok()
    };
    let keys: Vec<String> = v.keys().cloned().collect();
    for k in keys {
        if !probe(&k, &v[&k]) {
            v.remove(&k);
        }
    }
    if !v.get("flows").is_some_and(Value::is_array) {
        v.insert("flows".into(), json!([]));
    }
    Some(Value::Object(v))
}

/// One flow cleaned: bad steps become placeholders, bad keys are dropped; `None` when even
/// that does not parse.
fn partial_flow(value: &Map<String, Value>) -> Option<Map<String, Value>> {
    let mut v = value.clone();
    for list in ["steps", "finally"] {
        if let Some(Value::Array(items)) = v.get_mut(list) {
            items.iter_mut().for_each(placeholder_if_bad);
        }
    }
    let keys: Vec<String> = v.keys().cloned().collect();
    for k in keys {
        let mut probe = Map::new();
        probe.insert("name".into(), json!("x"));
        probe.insert("steps".into(), json!([{"log": ""}]));
        probe.insert(k.clone(), v[&k].clone());
        // A key the typed model refuses, or whose own rules it breaks (an empty matrix).
        if serde_json::from_value::<Flow>(Value::Object(probe))
            .map_err(|e| e.to_string())
            .and_then(|f| f.check())
            .is_err()
        {
            v.remove(&k);
        }
    }
    // A matrix dropped: the names of the tests it makes are not known (nor whether they clash),
    // and its keys are still the vars the steps read.
    if let Some(m) = value.get("matrix").filter(|_| !v.contains_key("matrix")) {
        v.insert("name".into(), json!(""));
        if let Value::Object(vars) = v.entry("vars").or_insert(json!({})) {
            for k in matrix_keys(m) {
                vars.entry(k).or_insert(Value::Null);
            }
        }
    }
    v.entry("name").or_insert(json!(""));
    v.entry("steps").or_insert(json!([]));
    serde_json::from_value::<Flow>(Value::Object(v.clone()))
        .is_ok()
        .then_some(v)
}

/// A step that does not parse becomes a `log` placeholder with its id (when the id is good).
fn placeholder_if_bad(item: &mut Value) {
    if serde_json::from_value::<Step>(item.clone()).is_ok() {
        return;
    }
    let id = item.get("id").and_then(Value::as_str).filter(|s| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
    });
    *item = match id {
        Some(id) => json!({"id": id, "log": ""}),
        None => json!({"log": ""}),
    };
}

/// The vars a matrix (well formed or not) names: its keys, and those of its `include`.
fn matrix_keys(m: &Value) -> Vec<String> {
    let Some(m) = m.as_object() else {
        return Vec::new();
    };
    let included = m
        .get("include")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_object)
        .flat_map(Map::keys);
    m.keys()
        .filter(|k| *k != "include" && *k != "exclude")
        .chain(included)
        .cloned()
        .collect()
}
