//! The schemas runner embeds, each compiled once on first use.

use std::sync::OnceLock;

use jsonschema::{Draft, Keyword, ValidationError, Validator};
use serde_json::Value;

/// The text of `schemas/flow.schema.json`.
pub(crate) const FLOW_SCHEMA: &str = include_str!("../../../schemas/flow.schema.json");
/// The text of `schemas/profile.schema.json`.
pub(crate) const PROFILE_SCHEMA: &str = include_str!("../../../schemas/profile.schema.json");
/// The text of `schemas/config.schema.json` (the project file).
pub(crate) const CONFIG_SCHEMA: &str = include_str!("../../../schemas/config.schema.json");

/// Which schema a document follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SchemaKind {
    Flow,
    Profile,
    Config,
}

/// A schema as JSON and its validator.
pub(super) struct Compiled {
    pub(super) schema: Value,
    pub(super) validator: Validator,
}

pub(super) fn compiled(kind: SchemaKind) -> &'static Compiled {
    static FLOW: OnceLock<Compiled> = OnceLock::new();
    static PROFILE: OnceLock<Compiled> = OnceLock::new();
    static CONFIG: OnceLock<Compiled> = OnceLock::new();
    let (cell, text) = match kind {
        SchemaKind::Flow => (&FLOW, FLOW_SCHEMA),
        SchemaKind::Profile => (&PROFILE, PROFILE_SCHEMA),
        SchemaKind::Config => (&CONFIG, CONFIG_SCHEMA),
    };
    cell.get_or_init(|| {
        let mut schema: Value =
            serde_json::from_str(text).expect("the embedded schema is valid JSON");
        mark_whole_numbers(&mut schema);
        let validator = compile(&schema).expect("the embedded schema compiles");
        Compiled { schema, validator }
    })
}

/// A validator for `schema` (an embedded schema, or one branch of it with its `$defs`).
pub(super) fn compile(schema: &Value) -> Result<Validator, String> {
    jsonschema::options()
        .with_draft(Draft::Draft202012)
        .with_pattern_options(jsonschema::PatternOptions::regex())
        .with_keyword(WHOLE_NUMBER, |_, _, _| Ok(Box::new(WholeNumber)))
        .build(schema)
        .map_err(|e| e.to_string())
}

/// The keyword runner adds beside each `"type": "integer"` of its schemas (the files stay plain
/// JSON Schema). JSON Schema counts `5.0` and `1e3` as integers; the typed model's integers do
/// not, and would refuse them after validate passed. Written as digits, a whole number is an
/// integer of the document; past 64 bits it is a float that the field's `maximum` refuses.
pub(super) const WHOLE_NUMBER: &str = "x-runner-whole-number";

/// Adds [`WHOLE_NUMBER`] to every node of `schema` whose type is `integer` (alone, or beside
/// types other than `number`).
fn mark_whole_numbers(schema: &mut Value) {
    match schema {
        Value::Object(node) => {
            let integer = match node.get("type") {
                Some(Value::String(t)) => t == "integer",
                Some(Value::Array(ts)) => {
                    ts.iter().any(|t| t == "integer") && !ts.iter().any(|t| t == "number")
                }
                _ => false,
            };
            if integer {
                node.insert(WHOLE_NUMBER.into(), Value::Bool(true));
            }
            node.values_mut().for_each(mark_whole_numbers);
        }
        Value::Array(items) => items.iter_mut().for_each(mark_whole_numbers),
        _ => {}
    }
}

/// [`WHOLE_NUMBER`]: a whole number must be written as one, not as a float.
struct WholeNumber;

impl<'i> Keyword<'i> for WholeNumber {
    fn validate(&self, instance: &'i Value) -> Result<(), ValidationError<'i>> {
        if self.is_valid(instance) {
            Ok(())
        } else {
            Err(ValidationError::custom(WHOLE_NUMBER))
        }
    }

    /// A float with a fraction is refused by `type` already, one past 64 bits by the range
    /// every whole-number field has: this refuses the rest, `5.0` and `1e3`.
    fn is_valid(&self, instance: &'i Value) -> bool {
        let float = instance
            .as_number()
            .filter(|n| !n.is_i64() && !n.is_u64())
            .and_then(serde_json::Number::as_f64);
        float.is_none_or(|f| f.fract() != 0.0 || f.abs() >= 9.2e18)
    }
}

/// The schema as JSON (the drift tests walk it).
#[cfg(test)]
pub(crate) fn schema_value(kind: SchemaKind) -> &'static Value {
    &compiled(kind).schema
}

/// Whether runner's validator (its own keywords included) accepts `doc`.
#[cfg(test)]
pub(crate) fn schema_accepts(kind: SchemaKind, doc: &Value) -> bool {
    compiled(kind).validator.is_valid(doc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_schemas_compile() {
        assert_eq!(schema_value(SchemaKind::Flow)["title"], "runner flow");
        assert_eq!(
            schema_value(SchemaKind::Profile)["title"],
            "runner agent profile"
        );
    }
}
