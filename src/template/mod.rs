//! minijinja templates: the environment (strict undefined), rendering of values, conditions, and
//! the static checks `validate` runs on every template string.

pub mod check;
mod render;

pub use check::{TemplateIssue, check_expression, check_template};
pub use render::{RenderError, Templates, is_template};

/// The names a template's context holds at its top level.
pub const ROOTS: &[&str] = &[
    "vars",
    "env",
    "secrets",
    "steps",
    "flow",
    "run",
    "web_server",
];
