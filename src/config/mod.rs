//! Loading flow and profile files: YAML/TOML -> `Value` + span map, schema validation, the typed
//! model, the semantic checks, and agent profiles.

pub(crate) mod action;
mod check;
pub(crate) mod document;
pub(crate) mod duration;
pub(crate) mod flows;
mod matrix;
mod merge;
pub(crate) mod model;
mod origin;
mod partial;
pub(crate) mod profiles;
pub(crate) mod project;
pub(crate) mod schema;
mod selector;
mod suite;
mod toml;
mod yaml;

pub(crate) use selector::{css_problem, selector_hint};

#[cfg(test)]
mod drift_tests;
