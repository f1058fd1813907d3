//! `runner`: a declarative workflow runner. Flows written in YAML or TOML are loaded, validated
//! against JSON Schemas with positions, and interpreted step by step.

pub mod agent;
pub mod atlas;
pub mod browser;
pub mod cli;
pub mod config;
pub mod engine;
pub mod report;
pub mod source;
pub mod template;
