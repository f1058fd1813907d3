//! `runner`: a declarative workflow runner. Flows written in YAML or TOML are loaded, validated
//! against JSON Schemas with positions, and interpreted step by step.

pub mod config;
pub mod source;
