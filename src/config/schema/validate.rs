//! Validation of a document: each error of the schema's validator becomes diagnostics at the node
//! it is about, narrowed into the branch of an `anyOf`/`oneOf` that the value's type picks.

use jsonschema::Validator;
use jsonschema::error::{ValidationError, ValidationErrorKind};
use serde_json::Value;

use super::embedded::{Compiled, SchemaKind, WHOLE_NUMBER, compile, compiled};
use super::messages::{Site, key_name, step_action_error};
use super::walk::{branch_for, is_step, is_web_server, resolve};
use crate::config::any_text::CONTAINS_HELP;
use crate::source::{Diagnostic, SourceFile, SpanMap};

/// Validates `doc` against the schema; every error becomes a diagnostic at the node it is about.
pub(crate) fn validate(
    kind: SchemaKind,
    file: &SourceFile,
    doc: &Value,
    spans: &SpanMap,
) -> Vec<Diagnostic> {
    let c = compiled(kind);
    if c.validator.is_valid(doc) {
        return Vec::new();
    }
    let mut out = Vec::new();
    let at = Document { c, file, spans };
    at.collect(&c.validator, &c.schema, "", doc, &mut out);
    out.sort_by_key(|d| d.span.as_ref().map(|s| s.start));
    out.dedup_by(|a, b| a.span == b.span && a.message == b.message);
    out
}

/// The document being validated, and the schema it follows.
struct Document<'a> {
    c: &'a Compiled,
    file: &'a SourceFile,
    spans: &'a SpanMap,
}

impl Document<'_> {
    /// Validates `instance` (found at `base` in the document) with `validator` compiled from
    /// `schema`, and turns each error into diagnostics.
    fn collect(
        &self,
        validator: &Validator,
        schema: &Value,
        base: &str,
        instance: &Value,
        out: &mut Vec<Diagnostic>,
    ) {
        for err in validator.iter_errors(instance) {
            let pointer = format!("{base}{}", err.instance_path().as_str());
            let site = Site {
                file: self.file,
                spans: self.spans,
                name: key_name(&pointer),
                pointer,
                value: err.instance().as_ref(),
                node: resolve(schema, err.schema_path().as_str()).and_then(|(node, _)| node),
            };
            self.report(&err, &site, out);
        }
    }

    /// The diagnostics of one error: a dispatch on its kind to the message for it.
    fn report(&self, err: &ValidationError<'_>, site: &Site<'_>, out: &mut Vec<Diagnostic>) {
        let name = &site.name;
        match err.kind() {
            ValidationErrorKind::AdditionalProperties { unexpected } => {
                out.extend(site.unknown_keys(unexpected));
            }
            ValidationErrorKind::OneOfNotValid { .. }
            | ValidationErrorKind::OneOfMultipleValid { .. }
                if is_step(&site.pointer) =>
            {
                out.extend(step_action_error(
                    site.file,
                    site.spans,
                    &site.pointer,
                    site.value,
                ));
            }
            ValidationErrorKind::OneOfNotValid { .. }
            | ValidationErrorKind::OneOfMultipleValid { .. }
                if is_web_server(&site.pointer) =>
            {
                out.push(site.web_server());
            }
            // A key the schema rules out where it stands (`steps` beside `flows`): its
            // description says where it goes.
            ValidationErrorKind::Not { .. } => out.push(site.misplaced()),
            ValidationErrorKind::AnyOf { .. } | ValidationErrorKind::OneOfNotValid { .. } => {
                if !self.narrowed(site, out) {
                    out.push(site.invalid_value());
                }
            }
            ValidationErrorKind::Type { kind } => out.push(site.wrong_type(kind)),
            ValidationErrorKind::Required { property } => out.push(site.missing(property)),
            ValidationErrorKind::MinItems { limit } => out.push(site.too_few_items(*limit)),
            ValidationErrorKind::MaxProperties { limit } => {
                out.push(site.at_value(format!("`{name}` takes at most {limit} key(s)")));
            }
            ValidationErrorKind::MinProperties { .. }
                if site.value.as_object().is_some_and(|o| !o.is_empty()) =>
            {
                out.push(site.needs_more_keys());
            }
            // Every text contains the empty one: a check that cannot fail (attack 31, G9).
            ValidationErrorKind::MinLength { .. } if name.starts_with("contains") => {
                out.push(
                    site.at_value(format!(
                        "`{name}` must not be empty: every text contains the empty one"
                    ))
                    .with_help(CONTAINS_HELP),
                );
            }
            ValidationErrorKind::MinProperties { .. } | ValidationErrorKind::MinLength { .. } => {
                out.push(site.at_value(format!("`{name}` must not be empty")));
            }
            // Empty text where it must not be blank either: "must not be empty" says it.
            ValidationErrorKind::Pattern { pattern }
                if super::text::NOT_BLANK.contains(&pattern.as_str())
                    && site.value.as_str() == Some("")
                    && site.node.and_then(|n| n.get("minLength")).is_some() => {}
            ValidationErrorKind::Pattern { pattern } => out.push(site.pattern(pattern)),
            ValidationErrorKind::PropertyNames { error } => {
                out.push(site.bad_name(error.instance().as_str().unwrap_or_default()));
            }
            ValidationErrorKind::Enum { options } => out.push(site.not_in_enum(options)),
            ValidationErrorKind::Constant { expected_value } => {
                out.push(site.at_value(format!("`{name}` must be {expected_value}")));
            }
            ValidationErrorKind::Minimum { .. } | ValidationErrorKind::Maximum { .. } => {
                out.push(site.out_of_range());
            }
            ValidationErrorKind::Custom { message, .. } if message == WHOLE_NUMBER => {
                out.push(site.not_whole());
            }
            ValidationErrorKind::UniqueItems => {
                out.push(site.at_value(format!("`{name}` lists an item twice")));
            }
            _ => out.push(site.at_value(err.to_string())),
        }
    }

    /// Narrows an `anyOf`/`oneOf` error to the one branch the value is meant for, to point at
    /// what is wrong inside it rather than at the whole value; whether that found anything.
    fn narrowed(&self, site: &Site<'_>, out: &mut Vec<Diagnostic>) -> bool {
        let value = site.value;
        if !(value.is_object() || value.is_array() || value.is_number()) {
            return false;
        }
        let Some(branch) = site.node.and_then(|n| branch_for(&self.c.schema, n, value)) else {
            return false;
        };
        let mut sub = branch.clone();
        if let (Some(obj), Some(defs)) = (sub.as_object_mut(), self.c.schema.get("$defs")) {
            obj.insert("$defs".into(), defs.clone());
        }
        let Ok(v) = compile(&sub) else {
            return false;
        };
        let before = out.len();
        self.collect(&v, &sub, &site.pointer, value, out);
        out.len() > before
    }
}
