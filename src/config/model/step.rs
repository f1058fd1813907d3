//! One step: the keys every step may have (`id`, `if`, `timeout`, `retry`, ...) around exactly
//! one action, and how a step is read from its map.

use serde::Deserialize;
use serde_json::Value;

use super::action::Action;
use super::retry::Retry;

/// One step: the common keys and its action.
#[derive(Debug, Clone)]
pub(crate) struct Step {
    pub(crate) id: Option<String>,
    pub(crate) name: Option<String>,
    pub(crate) condition: Option<Value>,
    pub(crate) timeout: Option<String>,
    pub(crate) retry: Option<Retry>,
    pub(crate) continue_on_error: bool,
    /// The iframe (CSS in the page) the step's selectors look inside, unless they say.
    pub(crate) frame: Option<String>,
    pub(crate) action: Action,
}

/// The keys every step may have besides its action.
pub(crate) const COMMON_KEYS: &[&str] = &[
    "id",
    "name",
    "if",
    "timeout",
    "retry",
    "continue_on_error",
    "frame",
];

impl<'de> Deserialize<'de> for Step {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Step, D::Error> {
        use serde::de::Error;
        let mut map = serde_json::Map::<String, Value>::deserialize(d)?;
        let mut take = |k: &str| map.remove(k);
        let id = take("id")
            .map(serde_json::from_value)
            .transpose()
            .map_err(D::Error::custom)?;
        let name = take("name")
            .map(serde_json::from_value)
            .transpose()
            .map_err(D::Error::custom)?;
        let condition = take("if");
        if let Some(c) = &condition
            && !(c.is_string() || c.is_boolean())
        {
            return Err(D::Error::custom("`if` must be a string or a boolean"));
        }
        let timeout = take("timeout")
            .map(serde_json::from_value)
            .transpose()
            .map_err(D::Error::custom)?;
        let retry = take("retry")
            .map(serde_json::from_value)
            .transpose()
            .map_err(D::Error::custom)?;
        let continue_on_error = take("continue_on_error")
            .map(serde_json::from_value)
            .transpose()
            .map_err(D::Error::custom)?
            .unwrap_or(false);
        let frame: Option<String> = take("frame")
            .map(serde_json::from_value)
            .transpose()
            .map_err(D::Error::custom)?;
        if frame.as_deref() == Some("") {
            return Err(D::Error::custom("empty `frame`"));
        }

        if map.len() != 1 {
            return Err(D::Error::custom(format!(
                "a step needs exactly one action key, found {}",
                map.len()
            )));
        }
        let action: Action =
            serde_json::from_value(Value::Object(map)).map_err(D::Error::custom)?;
        action.check().map_err(D::Error::custom)?;
        Ok(Step {
            id,
            name,
            condition,
            timeout,
            retry,
            continue_on_error,
            frame,
            action,
        })
    }
}
