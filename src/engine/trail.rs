//! What a step that passed adds to the trail the next `link_state` records as an edge: its
//! action as a flow writes it. Rendered values are text, so their `{{` is written as the
//! template that prints it (`{{ '{{' }}`). No secret is written: a value that holds one keeps
//! the template that produced it when that template reads secrets and nothing else
//! (`{{ secrets.X | upper }}`); otherwise each secret's value in it is written as
//! `{{ secrets.NAME }}` and the text around it as text (`token: {{ secrets.T }}`), so a replay
//! renders it with its own secrets. A value made of a secret in another way (a secret's slice,
//! what a command made of it) cannot be stored so: the next `link_state` fails, saying why
//! ([`Scope::unrecordable`]), rather than write an edge no replay would read. An `act` goes in
//! as the step it resolved to (a replay asks no agent), its answer stored as any value is.
//! Read back, these are the only templates an atlas's steps may hold (`config::stored`).

use serde_json::Value;

use super::context::Scope;
use super::render::{location, raw_action};
use super::runtime::{Frame, Runtime};
use crate::browser::page::intent;
use crate::config::model::{Action, Step};
use crate::step::Masker;
use crate::template::{Templates, foreign_template, is_template, literal, literal_value};

/// Adds `step` (shown as `name`, which produced `outputs`) to the trail; a value of it the
/// atlas cannot hold without a secret makes the trail unrecordable, saying why.
pub(super) fn add_to_trail(
    rt: &Runtime,
    frame: &Frame<'_>,
    scope: &mut Scope,
    step: &Step,
    ptr: &str,
    name: &str,
    outputs: &Value,
) {
    let to = Stored {
        templates: &rt.templates,
        masker: &frame.masker,
        secrets: named_secrets(rt, &frame.masker),
    };
    let (key, value) = if let Action::Act(_) = &step.action {
        // The answer is an agent's (or the cache's) text: no template made it.
        let Some((key, value)) = intent::as_step(outputs) else {
            return;
        };
        (key, to.value(None, value))
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
        (key, to.value(Some(raw), rendered))
    };
    let value = match value {
        Ok(v) => v,
        Err(why) => {
            if scope.unrecordable.is_none() {
                let at = location(frame.loaded, &format!("{ptr}/{key}"));
                scope.unrecordable = Some(format!(
                    "the atlas cannot hold the step at {at} ({name}) without a secret: {why}; no edge is written"
                ));
            }
            return;
        }
    };
    // A name is the step's own (rendered, masked), as the output shows it.
    let name = step.name.as_ref().map(|_| literal(name));
    scope.trail.push(step, name, key, value);
}

/// The secrets the flow's masker knows by name, with their values as the run reads them: those
/// a stored step may name (the atlas keeps these names, and replays read them).
fn named_secrets(rt: &Runtime, masker: &Masker) -> Vec<(String, String)> {
    let mut named: Vec<(String, String)> = masker
        .names()
        .into_iter()
        .filter_map(|n| super::start::secret_value(&rt.env, &n).map(|v| (n, v.to_string())))
        .collect();
    // Where one secret's value holds another's, the longer is the one typed.
    named.sort_by_key(|(_, v)| std::cmp::Reverse(v.len()));
    named
}

/// How values are written into an atlas: which templates it reads back, what is a secret, and
/// the secrets it may name.
struct Stored<'a> {
    templates: &'a Templates,
    masker: &'a Masker,
    secrets: Vec<(String, String)>,
}

impl Stored<'_> {
    /// A step's action value (`rendered` from the flow's `raw`, if a template made it) as the
    /// atlas records it; Err: why it cannot be, without a secret in it.
    fn value(&self, raw: Option<&Value>, rendered: Value) -> Result<Value, String> {
        match rendered {
            Value::Array(b) => {
                let raws = raw.and_then(Value::as_array).filter(|a| a.len() == b.len());
                b.into_iter()
                    .enumerate()
                    .map(|(i, v)| self.value(raws.map(|a| &a[i]), v))
                    .collect::<Result<_, _>>()
                    .map(Value::Array)
            }
            Value::Object(b) => b
                .into_iter()
                .map(|(k, v)| {
                    let r = raw.and_then(|r| r.get(&k));
                    self.value(r, v).map(|v| (k, v))
                })
                .collect::<Result<_, _>>()
                .map(Value::Object),
            v => self.leaf(raw, v),
        }
    }

    /// One value: as text when it holds no secret; else the template that made it, when that
    /// reads secrets only; else its secrets named and the rest as text.
    fn leaf(&self, raw: Option<&Value>, mut v: Value) -> Result<Value, String> {
        let text = match &v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        if self.masker.mask(&text) == text {
            literal_value(&mut v);
            return Ok(v);
        }
        if let Some(Value::String(r)) = raw
            && is_template(r)
            && foreign_template(self.templates, r).is_none()
            && self.masker.mask(r) == *r
        {
            return Ok(Value::String(r.clone()));
        }
        if let Value::String(s) = &v
            && let Some(named) = self.named(s)
        {
            return Ok(Value::String(named));
        }
        let value = match raw {
            Some(Value::String(r)) if is_template(r) => {
                format!("its value `{}`", self.masker.mask(r))
            }
            _ => "a value of it".to_string(),
        };
        Err(format!(
            "{value} holds a secret in another form than the secret itself, and a stored step holds a secret only as `{{{{ secrets.NAME }}}}` or as a template that reads secrets and nothing else (`{{{{ secrets.NAME | upper }}}}`), which a replay renders with its own secrets: give that value a secret of its own, or make it from `secrets` in the flow"
        ))
    }

    /// `s` as a template that renders it (see [`Masker::as_template`]).
    fn named(&self, s: &str) -> Option<String> {
        self.masker.as_template(&self.secrets, s)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const KEY: &str = "Kestrel-Vault-9931-Zulu";

    /// Values stored with the secrets `T` (= KEY) and `LONG` (a value holding KEY), and a
    /// value made of `T` the masker learnt (`T | upper`).
    fn check(raw: Option<Value>, rendered: Value) -> Result<Value, String> {
        let masker = Masker::default();
        masker.add_named("T", KEY);
        let long = format!("{KEY}-and-more");
        masker.add_named("LONG", &long);
        masker.add_derived([KEY.to_uppercase()]);
        let to = Stored {
            templates: &Templates::new(),
            masker: &masker,
            secrets: vec![("LONG".into(), long), ("T".into(), KEY.into())],
        };
        to.value(raw.as_ref(), rendered)
    }

    #[test]
    fn a_secrets_value_is_stored_by_name_and_the_text_around_it_as_text() {
        let raw = json!({"target": "#t", "value": "{{ steps.d.stdout }}"});
        let rendered = json!({"target": "#t", "value": format!("{{{{ {KEY} and {KEY}-and-more")});
        assert_eq!(
            check(Some(raw), rendered),
            Ok(
                json!({"target": "#t", "value": "{{ '{{' }} {{ secrets.T }} and {{ secrets.LONG }}"})
            )
        );
        // No template made it (an agent's answer): the same.
        assert_eq!(
            check(None, json!(["a", KEY])),
            Ok(json!(["a", "{{ secrets.T }}"]))
        );
        // Text with no secret is text.
        assert_eq!(
            check(Some(json!("{{ vars.x }}")), json!("{{ x }}")),
            Ok(json!("{{ '{{' }} x }}"))
        );
    }

    #[test]
    fn what_is_stored_renders_the_value_and_the_atlas_reads_it_whatever_the_text_around() {
        let t = Templates::new();
        let ctx = minijinja::Value::from_serialize(
            json!({"secrets": {"T": KEY, "LONG": format!("{KEY}-and-more")}}),
        );
        for (before, after) in [
            ("{", ""),
            ("{{", "}}"),
            ("{{{", "}}}"),
            ("x{%", "%}"),
            ("{#", "#}"),
            ("'{' ~ ", " }}"),
            ("", "{"),
        ] {
            let value = format!("{before}{KEY}{after}");
            let stored = check(None, json!(value)).unwrap();
            let stored = stored.as_str().unwrap();
            assert!(!stored.contains(KEY), "{stored}");
            assert_eq!(foreign_template(&t, stored), None, "{value} -> {stored}");
            assert_eq!(t.render_str(stored, &ctx).unwrap(), value, "{stored}");
        }
    }

    #[test]
    fn a_template_that_reads_only_secrets_is_kept_and_another_form_is_refused() {
        let upper = KEY.to_uppercase();
        assert_eq!(
            check(Some(json!("{{ secrets.T | upper }}")), json!(upper)),
            Ok(json!("{{ secrets.T | upper }}"))
        );
        for raw in [Some(json!("{{ vars.loud }}")), None] {
            let e = check(raw.clone(), json!(format!("{KEY} {upper}"))).unwrap_err();
            assert!(e.contains("in another form than the secret itself"), "{e}");
            assert!(!e.contains(KEY) && !e.contains(&upper), "{e}");
            if raw.is_some() {
                assert!(e.starts_with("its value `{{ vars.loud }}`"), "{e}");
            }
        }
        // Written in the flow as text, a secret is stored by name, never as written.
        assert_eq!(
            check(Some(json!(KEY)), json!(KEY)),
            Ok(json!("{{ secrets.T }}"))
        );
        assert!(check(Some(json!(upper.clone())), json!(upper)).is_err());
    }
}
