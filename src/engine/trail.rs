//! What a step that passed adds to the trail the next `link_state` records as an edge: its
//! action as a flow writes it. Rendered values are text, so their `{{` is written as the
//! template that prints it (`{{ '{{' }}`); a value that holds a secret (or something made of
//! one) keeps the template that produced it, so no secret is written and a replay renders it
//! with its own secrets; an `act` goes in as the step it resolved to (a replay asks no agent).
//! Read back, these are the only templates an atlas's steps may hold (`config::stored`).

use serde_json::Value;

use super::context::Scope;
use super::render::raw_action;
use super::runtime::{Frame, Runtime};
use crate::browser::page::intent;
use crate::config::model::{Action, Step};
use crate::step::Masker;
use crate::template::{literal, literal_value};

/// Adds `step` (shown as `name`, which produced `outputs`) to the trail.
pub(super) fn add_to_trail(
    rt: &Runtime,
    frame: &Frame<'_>,
    scope: &mut Scope,
    step: &Step,
    ptr: &str,
    name: &str,
    outputs: &Value,
) {
    let (key, value) = if let Action::Act(_) = &step.action {
        // The answer is an agent's (or the cache's) text. One holding a secret is not kept
        // (masked, it would replay `***`): the edge is recorded without it.
        let Some((key, mut value)) = intent::as_step(outputs) else {
            return;
        };
        literal_value(&mut value);
        let text = value.to_string();
        if frame.masker.mask(&text) != text {
            return;
        }
        (key, value)
    } else {
        let key = step.action.key();
        let Some(raw) = raw_action(frame.loaded, ptr, key) else {
            return;
        };
        let ctx = scope.context();
        let rendered = rt
            .templates
            .render_value(raw, &ctx)
            .unwrap_or_else(|_| raw.clone());
        (key, for_the_atlas(raw, rendered, &frame.masker))
    };
    // A name is the step's own (rendered, masked), as the output shows it.
    let name = step.name.as_ref().map(|_| literal(name));
    scope.trail.push(step, name, key, value);
}

/// A step's action as the atlas records it: rendered, as text, except where the rendered value
/// holds a secret (or something made of one, `| upper` included): there the template that
/// produced it is kept.
fn for_the_atlas(raw: &Value, rendered: Value, masker: &Masker) -> Value {
    match (raw, rendered) {
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => Value::Array(
            a.iter()
                .zip(b)
                .map(|(r, v)| for_the_atlas(r, v, masker))
                .collect(),
        ),
        (Value::Object(a), Value::Object(b)) => Value::Object(
            b.into_iter()
                .map(|(k, v)| {
                    let v = if let Some(r) = a.get(&k) {
                        for_the_atlas(r, v, masker)
                    } else {
                        let mut v = v;
                        literal_value(&mut v);
                        v
                    };
                    (k, v)
                })
                .collect(),
        ),
        (raw, mut v) => {
            let text = v.to_string();
            if masker.mask(&text) == text {
                literal_value(&mut v);
                v
            } else {
                raw.clone()
            }
        }
    }
}
