//! One step: the keys every step may have (`id`, `if`, `timeout`, `retry`, ...) around exactly
//! one action, the steps an `each` or a `group` holds, how a step is read from its map, and the
//! walk over a list of steps that goes inside those that hold steps.

use serde::Deserialize;
use serde_json::Value;

use super::action::Action;
use super::control::HOLDERS;
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
    /// The steps an `each` or a `group` holds (its action's `steps`); none for other actions.
    pub(crate) steps: Vec<Step>,
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
        let steps = held_steps(&mut map).map_err(D::Error::custom)?;
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
            steps,
        })
    }
}

/// The steps the action of a step (its one key left in `map`) holds: taken out of an `each`'s
/// or a `group`'s map, which must have some.
fn held_steps(map: &mut serde_json::Map<String, Value>) -> Result<Vec<Step>, String> {
    let Some((key, Value::Object(body))) = map.iter_mut().next() else {
        return Ok(Vec::new());
    };
    if !HOLDERS.contains(&key.as_str()) {
        return Ok(Vec::new());
    }
    let Some(raw) = body.remove("steps") else {
        return Err(format!("`{key}` needs `steps`"));
    };
    let steps: Vec<Step> = serde_json::from_value(raw).map_err(|e| e.to_string())?;
    if steps.is_empty() {
        return Err(format!("`{key}.steps` must not be empty"));
    }
    Ok(steps)
}

/// Every step of `steps` and every step inside them, in the order they run (a step before the
/// steps it holds), each with its JSON pointer: `{base}/{i}`, and inside an `each` at
/// `{base}/{i}/each/steps/{j}`.
pub(crate) fn walk_steps<'a>(steps: &'a [Step], base: &str, out: &mut Vec<(String, &'a Step)>) {
    for (i, step) in steps.iter().enumerate() {
        let ptr = format!("{base}/{i}");
        let below = format!("{ptr}/{}/steps", step.action.key());
        out.push((ptr, step));
        walk_steps(&step.steps, &below, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_walk_goes_inside_each_and_group() {
        let steps: Vec<Step> = serde_json::from_value(serde_json::json!([
            {"log": "a"},
            {"group": {"name": "g", "steps": [
                {"each": {"in": [1, 2], "steps": [{"log": "b"}]}},
                {"log": "c"}
            ]}}
        ]))
        .unwrap();
        let mut out = Vec::new();
        walk_steps(&steps, "/steps", &mut out);
        let ptrs: Vec<&str> = out.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(
            ptrs,
            [
                "/steps/0",
                "/steps/1",
                "/steps/1/group/steps/0",
                "/steps/1/group/steps/0/each/steps/0",
                "/steps/1/group/steps/1",
            ]
        );
    }
}
