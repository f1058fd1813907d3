//! The schemas runner embeds, each compiled once on first use.

use std::sync::OnceLock;

use jsonschema::{Draft, Validator};
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
        let schema: Value = serde_json::from_str(text).expect("the embedded schema is valid JSON");
        let validator = compile(&schema).expect("the embedded schema compiles");
        Compiled { schema, validator }
    })
}

/// A validator for `schema` (an embedded schema, or one branch of it with its `$defs`).
pub(super) fn compile(schema: &Value) -> Result<Validator, String> {
    jsonschema::options()
        .with_draft(Draft::Draft202012)
        .with_pattern_options(jsonschema::PatternOptions::regex())
        .build(schema)
        .map_err(|e| e.to_string())
}

/// The schema as JSON (the drift tests walk it).
#[cfg(test)]
pub(crate) fn schema_value(kind: SchemaKind) -> &'static Value {
    &compiled(kind).schema
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
