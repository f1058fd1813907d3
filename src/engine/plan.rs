//! How steps are named in the output and the `--dry-run` plan: a step's `name`, or a short
//! rendering of its action with the templates that can be rendered already.

use serde_json::Value;

use super::context::Scope;
use super::runtime::Runtime;
use super::start::{RunSecrets, new_scope};
use crate::browser::describe_selector;
use crate::config::flows::LoadedFlow;
use crate::config::model::{Action, Step};
use crate::step::Masker;

/// The name shown for a step: its `name`, or a short rendering of its action, masked (before it
/// is shortened, so no part of a secret is shown).
pub(crate) fn display_name(
    rt: &Runtime,
    loaded: &LoadedFlow,
    scope: &mut Scope,
    step: &Step,
    ptr: &str,
    masker: &Masker,
) -> String {
    let key = step.action.key();
    if let Some(n) = step.name.as_deref().or(step.action.group_name()) {
        return own_name(rt, scope, n, masker);
    }
    // Its steps are not part of its label.
    if let Action::Each(e) = &step.action {
        return shortened(key, &e.label());
    }
    let raw = loaded.doc.value.pointer(&format!("{ptr}/{key}"));
    let rendered = rendered(rt, scope, raw, masker);
    let raw = rendered.as_ref().or(raw);
    // An action that names an element is labelled by it, as the user reads selectors.
    let typed = raw.and_then(|v| {
        let mut m = serde_json::Map::new();
        m.insert(key.to_string(), v.clone());
        serde_json::from_value::<Action>(Value::Object(m)).ok()
    });
    if let Some(sel) = typed.as_ref().and_then(Action::target) {
        let forced = typed.as_ref().is_some_and(Action::forced);
        let forced = if forced {
            " (forced: no actionability checks)"
        } else {
            ""
        };
        return format!("{key} {}{forced}", describe_selector(sel));
    }
    // A `log` step's message is printed as it runs: the label does not say it again.
    if key == "log" {
        return key.to_string();
    }
    shortened(key, &detail(key, raw))
}

/// A step's own `name`, rendered where it can be already, masked.
fn own_name(rt: &Runtime, scope: &mut Scope, name: &str, masker: &Masker) -> String {
    let ctx = scope.context();
    let rendered = rt
        .templates
        .render_str(name, &ctx)
        .unwrap_or_else(|_| name.to_string());
    super::render::learn_secrets(
        &rt.templates,
        &ctx,
        &Value::String(name.to_string()),
        masker,
    );
    masker.mask(&rendered)
}

/// The values the step will use, when its templates render already; what they made of a secret
/// is masked from here on.
fn rendered(
    rt: &Runtime,
    scope: &mut Scope,
    raw: Option<&Value>,
    masker: &Masker,
) -> Option<Value> {
    let r = raw?;
    let ctx = scope.context();
    let v = rt.templates.render_value(r, &ctx).ok()?;
    super::render::learn_secrets(&rt.templates, &ctx, r, masker);
    Some(masker.mask_value(&v))
}

/// A value in words: a string as is, a list as words, anything else as JSON.
fn words(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(a) => a
            .iter()
            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
            .collect::<Vec<_>>()
            .join(" "),
        v => v.to_string(),
    }
}

/// What a step's label says after its action: a map by its most telling key.
fn detail(key: &str, raw: Option<&Value>) -> String {
    let scalar = |v: &Value| !v.is_object() && !v.is_array();
    // A request and an open read as their URL (a request's method first, as curl shows it).
    if let Some(Value::Object(m)) = raw
        && matches!(key, "request" | "open")
        && let Some(url) = m.get("url")
    {
        return match m.get("method").filter(|_| key == "request") {
            Some(method) => format!("{} {}", words(method), words(url)),
            None => words(url),
        };
    }
    match raw {
        Some(Value::Object(m)) => ["command", "path", "intent", "profile", "action", "target"]
            .iter()
            .find_map(|k| m.get(*k))
            .map_or_else(
                || {
                    // A wait's plain settings read as they are written (`wait for #spinner
                    // state hidden`), as do a keyboard's (`keyboard press End Enter`).
                    if key == "keyboard" || key == "wait" && m.values().all(scalar) {
                        m.iter()
                            .map(|(k, v)| format!("{k} {}", words(v)))
                            .collect::<Vec<_>>()
                            .join(" ")
                    } else {
                        m.keys().cloned().collect::<Vec<_>>().join(", ")
                    }
                },
                words,
            ),
        // `back: true`, `snapshot: true`: the key says it all.
        Some(Value::Bool(true)) | None => String::new(),
        Some(v) => words(v),
    }
}

/// `key detail`, the detail on one line and cut at 60 characters.
fn shortened(key: &str, detail: &str) -> String {
    let detail = detail.replace('\n', " ");
    let short: String = detail.chars().take(60).collect();
    let ellipsis = if detail.chars().count() > 60 {
        "…"
    } else {
        ""
    };
    if short.is_empty() {
        key.to_string()
    } else {
        format!("{key} {short}{ellipsis}")
    }
}

/// `--dry-run`: each step's display name with the templates that can be rendered before the run
/// (vars, env, flow) rendered; secrets show as `***`, the run's `secrets` (another flow's
/// too) also where a step reads them through `env.NAME`.
pub(crate) fn plan(rt: &Runtime, loaded: &LoadedFlow, secrets: &RunSecrets) -> Vec<String> {
    let mut scope = new_scope(rt, loaded);
    let masker = secrets.masker();
    for name in &loaded.flow.secrets {
        scope.set_secret(name.clone(), "***".into());
        if let Some(v) = rt.env.get(name).and_then(Value::as_str) {
            masker.add(v);
        }
    }
    for (k, raw) in &loaded.flow.vars {
        let ctx = scope.context();
        let v = match rt
            .overrides
            .get(k)
            .filter(|_| !loaded.matrix.contains_key(k))
        {
            // (Refused before the run when it does not read as the type.)
            Some(v) => {
                crate::config::overrides::for_flow(v, Some(raw)).unwrap_or_else(|_| v.clone())
            }
            None => rt
                .templates
                .render_value(raw, &ctx)
                .unwrap_or_else(|_| raw.clone()),
        };
        scope.set_var(k.clone(), v, super::cut::MadeFrom::new());
    }
    let mut out = Vec::new();
    let steps = loaded
        .flow
        .steps
        .iter()
        .enumerate()
        .map(|(i, s)| (format!("/steps/{i}"), s, ""));
    let fin = loaded
        .flow
        .finally
        .iter()
        .enumerate()
        .map(|(i, s)| (format!("/finally/{i}"), s, "finally "));
    for (n, (ptr, step, prefix)) in steps.chain(fin).enumerate() {
        let name = display_name(rt, loaded, &mut scope, step, &ptr, &masker);
        let cond = if step.condition.is_some() {
            " (if)"
        } else {
            ""
        };
        out.push(format!("{prefix}{}. {name}{cond}", n + 1));
        held(
            rt,
            loaded,
            &mut scope,
            &masker,
            (step, &ptr),
            &format!("{}.", n + 1),
            &mut out,
        );
    }
    out
}

/// The plan's lines of the steps `step` (at `ptr`) holds, numbered after it (`2.1.`) and
/// indented under it.
fn held(
    rt: &Runtime,
    loaded: &LoadedFlow,
    scope: &mut Scope,
    masker: &Masker,
    (step, ptr): (&Step, &str),
    number: &str,
    out: &mut Vec<String>,
) {
    let pad = "   ".repeat(number.matches('.').count());
    for (i, inner) in step.steps.iter().enumerate() {
        let at = format!("{ptr}/{}/steps/{i}", step.action.key());
        let name = display_name(rt, loaded, scope, inner, &at, masker);
        let cond = if inner.condition.is_some() {
            " (if)"
        } else {
            ""
        };
        let n = format!("{number}{}.", i + 1);
        out.push(format!("{pad}{n} {name}{cond}"));
        held(rt, loaded, scope, masker, (inner, &at), &n, out);
    }
}
