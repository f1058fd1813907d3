//! `runner schema flow|profile`.

use super::args::SchemaWhich;
use crate::config::schema::{FLOW_SCHEMA, PROFILE_SCHEMA};

/// The schema's text, exactly as the file in `schemas/`.
pub(crate) fn text(which: SchemaWhich) -> &'static str {
    match which {
        SchemaWhich::Flow => FLOW_SCHEMA,
        SchemaWhich::Profile => PROFILE_SCHEMA,
    }
}
