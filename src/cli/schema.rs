//! `runner schema flow|profile|config|skill/<name>`.

use super::args::SchemaWhich;
use crate::agent::Skill;
use crate::config::schema::{CONFIG_SCHEMA, FLOW_SCHEMA, PROFILE_SCHEMA};

/// The schema's text, exactly as the file in `schemas/`.
pub(crate) fn text(which: SchemaWhich) -> &'static str {
    match which {
        SchemaWhich::Flow => FLOW_SCHEMA,
        SchemaWhich::Profile => PROFILE_SCHEMA,
        SchemaWhich::Config => CONFIG_SCHEMA,
        SchemaWhich::SkillIntent => Skill::Intent.schema_text(),
        SchemaWhich::SkillPageAnalysis => Skill::PageAnalysis.schema_text(),
        SchemaWhich::SkillTrajectoryLabeling => Skill::TrajectoryLabeling.schema_text(),
        SchemaWhich::SkillTestGeneration => Skill::TestGeneration.schema_text(),
    }
}
