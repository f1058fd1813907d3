//! Rendering a step's templates when it starts, and locating what failed in the flow file.

use serde_json::{Map, Value};

use super::runtime::StepCtx;
use crate::config::flows::LoadedFlow;
use crate::config::model::Action;
use crate::step::{ErrorKind, Location, StepError};
use crate::template::RenderError;

/// The place of the node at `ptr` (its key when it has one).
pub(crate) fn location(loaded: &LoadedFlow, ptr: &str) -> Location {
    let span = loaded.doc.spans.nearest(ptr).map_or(0..0, |s| {
        let at = s.key.clone().unwrap_or_else(|| s.value.clone());
        at.start..at.end
    });
    Location::new(loaded.doc.file.clone(), span)
}

/// A template error at `ptr` (plus the pointer inside the value the error names), located at
/// the offending text inside the string when the renderer knows it.
pub(crate) fn template_error(loaded: &LoadedFlow, ptr: &str, e: RenderError) -> StepError {
    template_error_in(&loaded.doc, ptr, e)
}

/// [`template_error`] in any document (the project file's servers too).
pub(crate) fn template_error_in(
    doc: &crate::config::document::Document,
    ptr: &str,
    e: RenderError,
) -> StepError {
    let full = format!("{ptr}{}", e.pointer);
    let span = match doc.spans.get(&full) {
        Some(s) => match (s.content_start, e.offset) {
            (Some(start), Some(off)) => (start + off)..(start + off + 1),
            _ => s.value.clone(),
        },
        None => doc.spans.nearest(&full).map_or(0..0, |s| s.value.clone()),
    };
    StepError::new(ErrorKind::Template, e.message).located(&Location::new(doc.file.clone(), span))
}

/// Teaches `masker` what the templates in `raw` make of a secret (`{{ secrets.T | upper }}`, or
/// of a var, an output or an env value that holds one), so derived values are masked wherever
/// they travel. Every place the engine renders a flow's templates calls this with them.
pub(crate) fn learn_secrets(
    t: &crate::template::Templates,
    ctx: &minijinja::Value,
    raw: &Value,
    masker: &crate::step::Masker,
) {
    if masker.is_empty() {
        return;
    }
    match raw {
        Value::String(s) => {
            let parts = t.secret_parts(s, ctx, &|text| masker.holds_secret(text), &|text| {
                masker.hidden(text)
            });
            // Each value made of a secret is learned whole when it is short enough (and the
            // budget lasts), and what the secrets became in it.
            // What the secrets became is learned too (what `hidden` hides in the inputs of a
            // template made of this value later).
            let told = !parts.untold;
            masker.add_made(parts.texts, told);
            masker.add_shapes(parts.shapes, told);
            masker.add_spans(parts.made);
            // After the texts: a piece is kept when it is a piece of one of them.
            masker.add_pieces(parts.pieces);
            masker.add_made_pieces(parts.made_pieces);
        }
        Value::Array(a) => a.iter().for_each(|v| learn_secrets(t, ctx, v, masker)),
        Value::Object(m) => m.values().for_each(|v| learn_secrets(t, ctx, v, masker)),
        _ => {}
    }
}

/// `e`, the error of a template in `raw`, quoting no value when a template there reads a value
/// `masker` holds as a secret or made of one (`vars.x` set to `{{ secrets.PIN[1:] }}`, then
/// `{{ ((vars.x | int) + 1) ** 100 }}` fails quoting `9312346`): nothing of what a failed
/// template made was learned, so the masker cannot mask it.
pub(crate) fn quoting_no_secret(
    ctx: &minijinja::Value,
    raw: &Value,
    masker: &crate::step::Masker,
    e: crate::template::RenderError,
) -> crate::template::RenderError {
    fn reads(ctx: &minijinja::Value, raw: &Value, masker: &crate::step::Masker) -> bool {
        match raw {
            Value::String(s) => {
                crate::template::Templates::reads_secret(s, ctx, &|text| masker.holds_secret(text))
            }
            Value::Array(a) => a.iter().any(|v| reads(ctx, v, masker)),
            Value::Object(m) => m.values().any(|v| reads(ctx, v, masker)),
            _ => false,
        }
    }
    if masker.is_empty() || !reads(ctx, raw, masker) {
        return e;
    }
    e.without_values()
}

/// Where a template in `raw` rendered to none (null): the paths (`expect/that`), below `at`.
/// A null there would read as a setting left out — an assertion that vanishes, a `cwd` or an
/// `equals` ignored — so it is an error; inside `vars` and `env` maps a null is a value.
fn none_from_templates(raw: &Value, rendered: &Value, at: &str, out: &mut Vec<String>) {
    match (raw, rendered) {
        (Value::String(s), Value::Null) if crate::template::is_template(s) => {
            out.push(at.to_string());
        }
        (Value::Array(a), Value::Array(b)) => {
            for (i, (r, v)) in a.iter().zip(b).enumerate() {
                none_from_templates(r, v, &format!("{at}/{i}"), out);
            }
        }
        (Value::Object(a), Value::Object(b)) => {
            for (k, r) in a {
                if matches!(k.as_str(), "vars" | "env") {
                    continue;
                }
                if let Some(v) = b.get(k) {
                    none_from_templates(r, v, &format!("{at}/{k}"), out);
                }
            }
        }
        _ => {}
    }
}

/// Where a template in `raw` rendered to an empty value (`""`, `[]`, `{}`) at a place whose
/// schema refuses one written out (`validate`: "`url` must not be empty"): the paths, below
/// `at`. Taken, it would mean something the flow could not have written (attack 28, E5: an
/// `expect: { request: { url: "{{ vars.e }}" } }` with `e` empty matched every request).
fn empty_from_templates(key: &str, raw: &Value, rendered: &Value, at: &str, out: &mut Vec<String>) {
    match (raw, rendered) {
        (Value::String(s), r)
            if crate::template::is_template(s)
                && crate::config::schema::refuses_empty(key, at, r) =>
        {
            out.push(at.to_string());
        }
        (Value::Array(a), Value::Array(b)) => {
            for (i, (r, v)) in a.iter().zip(b).enumerate() {
                empty_from_templates(key, r, v, &format!("{at}/{i}"), out);
            }
        }
        (Value::Object(a), Value::Object(b)) => {
            for (k, r) in a {
                if let Some(v) = b.get(k) {
                    let at = format!("{at}/{}", crate::source::pointer_escape(k));
                    empty_from_templates(key, r, v, &at, out);
                }
            }
        }
        _ => {}
    }
}

/// A template of the action `key` (at `ptr`) that rendered to none, or to nothing where the
/// schema refuses an empty value: the step's error, never a setting left out or a check of
/// nothing.
fn nothing_from_templates(
    loaded: &LoadedFlow,
    ptr: &str,
    key: &str,
    raw: &Value,
    rendered: &Value,
) -> Result<(), StepError> {
    let mut nulls = Vec::new();
    none_from_templates(raw, rendered, key, &mut nulls);
    if let Some(at) = nulls.first() {
        let src = raw
            .pointer(at.strip_prefix(key).unwrap_or(""))
            .and_then(Value::as_str);
        return Err(StepError::new(
            ErrorKind::Template,
            format!(
                "`{at}` renders to none (`{}`), which would leave it out: give it a value (`| default(...)`) or remove it",
                src.unwrap_or_default().trim()
            ),
        )
        .located(&location(loaded, &format!("{ptr}/{at}"))));
    }
    let mut empties = Vec::new();
    empty_from_templates(key, raw, rendered, "", &mut empties);
    if let Some(at) = empties.first() {
        let src = raw.pointer(at).and_then(Value::as_str);
        let (what, must) = match rendered.pointer(at).and_then(Value::as_str) {
            Some(s) if !s.is_empty() => ("only whitespace", "blank"),
            _ => ("nothing", "empty"),
        };
        return Err(StepError::new(
            ErrorKind::Template,
            format!(
                "`{key}{at}` rendered to {what} (`{}`), which `validate` refuses written out: it must not be {must}",
                src.unwrap_or_default().trim()
            ),
        )
        .located(&location(loaded, &format!("{ptr}/{key}{at}"))));
    }
    let mut anything = Vec::new();
    any_text_from_templates(key, raw, rendered, "", &mut anything);
    if let Some(at) = anything.first() {
        let src = raw.pointer(at).and_then(Value::as_str).unwrap_or_default();
        let re = rendered
            .pointer(at)
            .and_then(Value::as_str)
            .unwrap_or_default();
        return Err(StepError::new(
            ErrorKind::Template,
            format!(
                "`{key}{at}` rendered to `{re}` (`{}`), a regular expression that matches any text, which `validate` refuses written out: the check cannot fail",
                src.trim()
            ),
        )
        .located(&location(loaded, &format!("{ptr}/{key}{at}"))));
    }
    Ok(())
}

/// Where a template in `raw` rendered, as a check's `matches` (one the schema names: not a key
/// of a request's body, review 28, #7), to a regular expression that matches any text (`""`
/// from an empty var, `.*`): the paths, below `at` (attack 31, G9).
fn any_text_from_templates(
    key: &str,
    raw: &Value,
    rendered: &Value,
    at: &str,
    out: &mut Vec<String>,
) {
    match (raw, rendered) {
        (Value::Array(a), Value::Array(b)) => {
            for (i, (r, v)) in a.iter().zip(b).enumerate() {
                any_text_from_templates(key, r, v, &format!("{at}/{i}"), out);
            }
        }
        (Value::Object(a), Value::Object(b)) => {
            for (k, r) in a {
                let Some(v) = b.get(k) else { continue };
                let here = format!("{at}/{}", crate::source::pointer_escape(k));
                match (r, v) {
                    (Value::String(s), Value::String(re))
                        if k == "matches"
                            && crate::template::is_template(s)
                            && crate::config::any_text::matches_any_text(re)
                            && crate::config::schema::names_property(key, &here) =>
                    {
                        out.push(here);
                    }
                    _ => any_text_from_templates(key, r, v, &here, out),
                }
            }
        }
        _ => {}
    }
}

/// Where a template in `raw` rendered to a number or a boolean at a place the schema takes only
/// text (an `exec` argument `"{{ port }}"`), the rendered value becomes that text: the typed
/// action then reads it as the string it would have been inside a longer template.
fn text_from_templates(key: &str, raw: &Value, rendered: &mut Value, at: &str) {
    match (raw, rendered) {
        (Value::String(s), r @ (Value::Number(_) | Value::Bool(_)))
            if crate::template::is_template(s) && crate::config::schema::wants_text(key, at, r) =>
        {
            *r = Value::String(r.to_string());
        }
        (Value::Array(a), Value::Array(b)) => {
            for (i, (r, v)) in a.iter().zip(b.iter_mut()).enumerate() {
                text_from_templates(key, r, v, &format!("{at}/{i}"));
            }
        }
        (Value::Object(a), Value::Object(b)) => {
            for (k, r) in a {
                if let Some(v) = b.get_mut(k) {
                    let at = format!("{at}/{}", crate::source::pointer_escape(k));
                    text_from_templates(key, r, v, &at);
                }
            }
        }
        _ => {}
    }
}

/// The step's action value as written (`/steps/N/<key>`).
pub(crate) fn raw_action<'a>(loaded: &'a LoadedFlow, ptr: &str, key: &str) -> Option<&'a Value> {
    loaded.doc.value.pointer(&format!("{ptr}/{key}"))
}

/// Renders the step's action value and deserializes it into the typed action.
pub(crate) fn render_action(cx: &StepCtx<'_>, ctx: &minijinja::Value) -> Result<Action, StepError> {
    let loaded = cx.frame.loaded;
    let key = cx.step.action.key();
    let raw = raw_action(loaded, cx.ptr, key)
        .cloned()
        .unwrap_or(Value::Null);
    // An integer wider than 64 bits where the schema takes only text (or a log message, which
    // prints a list or map as JSON) is its digits; in a var a
    // `set` makes, the nearest float, the exact value kept beside it (`builtins`).
    let text = |at: &str| {
        use crate::template::Wide;
        if key == "set" && at.matches('/').count() == 1 {
            Wide::Nearest
        } else if (key == "log" && at.is_empty())
            || crate::config::schema::wants_text(key, at, &Value::from(0))
        {
            Wide::Text
        } else {
            Wide::Fail
        }
    };
    let mut rendered = cx
        .rt
        .templates
        .render_value_as(&raw, ctx, &text, "")
        .map_err(|e| {
            let e = quoting_no_secret(ctx, &raw, &cx.frame.masker, e);
            template_error(loaded, &format!("{}/{key}", cx.ptr), e)
        })?;
    // What a template made of a secret (`| upper`, a URL with it) is masked from now on.
    learn_secrets(&cx.rt.templates, ctx, &raw, &cx.frame.masker);
    if !matches!(key, "set" | "log") {
        nothing_from_templates(loaded, cx.ptr, key, &raw, &rendered)?;
    }
    text_from_templates(key, &raw, &mut rendered, "");
    let mut m = Map::new();
    m.insert(key.to_string(), rendered);
    let mut action: Action = serde_json::from_value(Value::Object(m)).map_err(|e| {
        StepError::new(
            ErrorKind::Template,
            format!("after rendering its templates, `{key}` is invalid: {e}"),
        )
        .located(&location(loaded, &format!("{}/{key}", cx.ptr)))
    })?;
    if let Some(f) = &cx.step.frame {
        action.scope_to_frame(f);
    }
    Ok(action)
}

#[cfg(test)]
mod tests {
    /// A loop of 200 values of 4 KB each that `| replace` makes of outputs holding the token, each
    /// output another: once the budget is spent, what is learned of each is what the token became
    /// in it (the same each time), not its whole text, so what is learned stops growing; and the
    /// token so made is masked in each value.
    #[test]
    fn a_loop_of_transformed_outputs_learns_what_the_secret_became_not_each_output() {
        let secret = "Kestrel-Vault-9931-Zulu";
        let m = crate::step::Masker::new([secret.to_string()]);
        let t = crate::template::Templates::new();
        let raw = serde_json::json!({ "x": "{{ steps.d.stdout | replace('-', ' ') }}" });
        let mut at_half = 0;
        for i in 0..200 {
            let out = format!(
                "{i:>5} {} token={secret} user=bob",
                "abcdefghij".repeat(400)
            );
            let ctx = minijinja::Value::from_serialize(
                serde_json::json!({ "steps": { "d": { "stdout": out } } }),
            );
            super::learn_secrets(&t, &ctx, &raw, &m);
            let shown = m.mask(&out.replace('-', " "));
            assert!(
                !shown.contains("Vault 9931"),
                "{i}: {}",
                &shown[shown.len() - 40..]
            );
            let learned = m.learned();
            assert!(learned <= 1024 * 1024, "{i}: {learned} bytes learned");
            if i == 100 {
                at_half = learned;
            }
        }
        assert_eq!(m.learned(), at_half, "learned past the budget");
        // What the token became is masked in a longer value too, that was never learned.
        let long = format!("{} token={secret}!", "z".repeat(10_000)).replace('-', " ");
        assert!(m.mask(&long).ends_with("zz token=***!"));
    }
}

#[cfg(test)]
mod learning_tests;
