//! minijinja templates: the environment (strict undefined), rendering of values, conditions, and
//! the static checks `validate` runs on every template string.

mod attrs;
pub(crate) mod check;
mod compile;
mod derived;
mod explain;
mod filters;
mod folded;
mod items;
pub(crate) mod json_size;
mod literal;
mod methods;
mod order;
mod python;
mod render;
mod tags;
pub(crate) mod var_reads;
mod wide_json;

pub(crate) use check::{TemplateIssue, check_expression, check_template};
pub(crate) use explain::explain;
pub(crate) use literal::{foreign_template, literal, literal_value, text_value, unbraced};
pub(crate) use order::read_number;
pub(crate) use python::as_python;
pub(crate) use render::{RenderError, Templates, Wide, is_template};
pub(crate) use tags::{names_read, secrets_read};
pub(crate) use wide_json::{exact_json, nearest_json, wide_integer_in};

/// The names a template's context holds at its top level.
pub(crate) const ROOTS: &[&str] = &[
    "vars",
    "env",
    "secrets",
    "steps",
    "flow",
    "run",
    "web_server",
];
