//! The JSON Schemas (embedded from `schemas/`) and the mapping of their validation errors to
//! diagnostics that point at the offending key or value.

mod at;
mod embedded;
mod messages;
mod text;
mod validate;
mod walk;

pub(crate) use at::{at_key, at_value};
pub(crate) use embedded::{CONFIG_SCHEMA, FLOW_SCHEMA, PROFILE_SCHEMA, SchemaKind};
#[cfg(test)]
pub(crate) use embedded::{schema_accepts, schema_value};
pub(crate) use text::{names_property, refuses_empty, wants_text};
pub(crate) use validate::validate;
