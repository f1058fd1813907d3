//! Loading flow and profile files: YAML/TOML -> `Value` + span map, schema validation, the typed
//! model and the semantic checks.

pub mod check;
pub mod document;
pub mod duration;
pub mod flows;
pub mod model;
pub mod schema;
pub mod suggest;
pub mod toml;
pub mod yaml;
