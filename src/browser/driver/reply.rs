//! What agent-browser answers to the commands whose answers runner reads, typed. Each reads
//! leniently, as the untyped answers were read: a missing field is empty (see `Session::ask`).

use serde::Deserialize;
use serde_json::Value;

/// The answer of `get url`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct Url {
    pub(crate) url: String,
}

/// The answer of `get title`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct Title {
    pub(crate) title: String,
}

/// The answer of `get attr`: the attribute's value, `None` when the element has none.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct Attribute {
    pub(crate) value: Option<String>,
}

/// The answer of `dialog status`.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(crate) struct DialogStatus {
    pub(crate) has_dialog: Option<bool>,
    #[serde(rename = "type")]
    pub(crate) kind: Value,
    pub(crate) message: Value,
}

/// The answer of `is <what> <target>`.
pub(crate) fn is_answer(data: &Value, what: &str) -> bool {
    data.get(what)
        .or_else(|| data.get("result"))
        .or_else(|| data.get("value"))
        .and_then(Value::as_bool)
        .unwrap_or(false)
}
