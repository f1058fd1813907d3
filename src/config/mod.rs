//! Loading flow and profile files: YAML/TOML -> `Value` + span map, schema validation, the typed
//! model, the semantic checks, and agent profiles.

pub(crate) mod action;
pub(crate) mod any_text;
pub(crate) mod browser_values;
mod check;
pub(crate) mod declared_secrets;
pub(crate) mod document;
pub(crate) mod duration;
pub(crate) mod flows;
pub(crate) mod headers;
mod literal;
mod matrix;
mod merge;
pub(crate) mod model;
pub(crate) mod numbers;
mod origin;
pub(crate) mod overrides;
mod partial;
pub(crate) mod profiles;
pub(crate) mod project;
pub(crate) mod reads;
mod scalar;
pub(crate) mod schema;
mod selector;
pub(crate) mod server_flags;
pub(crate) mod stored;
mod suite;
mod toml;
pub(crate) mod trace_mode;
pub(crate) mod url_host;
pub(crate) mod var_file;
mod yaml;

pub(crate) use selector::{css_problem, selector_hint};

#[cfg(test)]
mod drift_tests;
#[cfg(test)]
pub(crate) mod field_samples;
#[cfg(test)]
pub(crate) mod schema_fields;
#[cfg(test)]
pub(crate) mod template_fields_tests;
