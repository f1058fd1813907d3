//! The context a template is evaluated again in, to tell what it made of the secrets: the
//! values it names with each secret in them hidden.

use minijinja::value::ValueKind;

use super::{Hide, Key, named_values};

/// `ctx` with each secret in the values `src` names hidden by `hide`, in every text and map key:
/// what a template is evaluated in again to tell what it made of the secrets. Only what the
/// template's paths reach is hidden (`steps.s58.stdout`, not all of `steps`): a name is
/// followed through attributes and constant keys as far as the context has it, and all below
/// where it stops is hidden (a subscript that is not a constant, `steps[x]`, stops it at
/// `steps`); what no path reaches, the template cannot read. The rest is shared, not copied.
/// None when `ctx` is no map or a value named is no data (nothing is told then: the value is
/// learned whole).
pub(super) fn hidden_context(
    src: &str,
    ctx: &minijinja::Value,
    hide: Hide<'_>,
) -> Option<minijinja::Value> {
    let mut reached: Vec<(&str, Vec<&str>)> = Vec::new();
    for path in named_values(src) {
        let Ok(mut v) = ctx.get_attr(path.root) else {
            continue;
        };
        let mut keys = Vec::new();
        for key in &path.keys {
            // A list is hidden whole: its items are no keys of a map.
            let Key::Name(a) = key else { break };
            match v.get_attr(a) {
                Ok(next) if !next.is_undefined() && v.kind() == ValueKind::Map => {
                    v = next;
                    keys.push(*a);
                }
                _ => break,
            }
        }
        reached.push((path.root, keys));
    }
    let mut hidden = Vec::new();
    for k in ctx.try_iter().ok()? {
        let name = k.as_str()?.to_string();
        let mut v = ctx.get_attr(&name).ok()?;
        let paths: Vec<&[&str]> = reached
            .iter()
            .filter(|(root, _)| *root == name)
            .map(|(_, keys)| keys.as_slice())
            .collect();
        if !paths.is_empty() {
            v = hidden_at(&v, &paths, hide)?;
        }
        hidden.push((name, v));
    }
    Some(hidden.into_iter().collect())
}

/// `v` with what is at each of `paths` (keys of maps, one in another) hidden, the rest as it
/// is; all of it when a path ends at it.
fn hidden_at(v: &minijinja::Value, paths: &[&[&str]], hide: Hide<'_>) -> Option<minijinja::Value> {
    if v.kind() != ValueKind::Map || paths.iter().any(|p| p.is_empty()) {
        let mut json = serde_json::to_value(v).ok()?;
        hide_json(&mut json, hide);
        return Some(minijinja::Value::from_serialize(&json));
    }
    let mut out = Vec::new();
    for k in v.try_iter().ok()? {
        let mut item = v.get_item(&k).ok()?;
        let below: Vec<&[&str]> = paths
            .iter()
            .filter(|p| k.as_str() == Some(p[0]))
            .map(|p| &p[1..])
            .collect();
        if !below.is_empty() {
            item = hidden_at(&item, &below, hide)?;
        }
        out.push((k, item));
    }
    Some(out.into_iter().collect())
}

/// `v` with each text and map key in it hidden by `hide`.
fn hide_json(v: &mut serde_json::Value, hide: Hide<'_>) {
    match v {
        serde_json::Value::String(s) => {
            if let Some(h) = hide(s) {
                *s = h;
            }
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(|v| hide_json(v, hide)),
        serde_json::Value::Object(m) => {
            *m = std::mem::take(m)
                .into_iter()
                .map(|(k, mut v)| {
                    hide_json(&mut v, hide);
                    (hide(&k).unwrap_or(k), v)
                })
                .collect();
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use serde_json::json;

    use crate::template::Templates;

    /// A template that reads one small output of a flow whose other outputs are big hides only
    /// that output to evaluate it again, not every output under `steps`: a flow of N steps
    /// would pay for all earlier outputs in each (quadratic).
    #[test]
    fn only_the_values_a_template_names_are_hidden() {
        let big = format!("token=s3cret {}", "a".repeat(1_000_000));
        let ctx = minijinja::Value::from_serialize(json!({
            "secrets": { "T": "s3cret" },
            "steps": {
                "big": { "stdout": big, "code": 0 },
                "small": { "stdout": "id s3cret", "code": 0 },
            },
        }));
        let bytes = Cell::new(0);
        let holds = |text: &str| text.contains("s3cret");
        let hide = |text: &str| {
            bytes.set(bytes.get() + text.len());
            text.contains("s3cret")
                .then(|| text.replace("s3cret", "\u{e000}".repeat(6).as_str()))
        };
        let t = Templates::new();
        let p = t.secret_parts("{{ steps.small.stdout | upper }}", &ctx, &holds, &hide);
        assert_eq!(p.texts, ["ID S3CRET"]);
        assert_eq!(p.made, ["S3CRET"]);
        assert!(bytes.get() < 1000, "{} bytes hidden", bytes.get());
        // A path cut by a subscript that is not a constant hides all it may reach.
        bytes.set(0);
        let p = t.secret_parts(
            "{{ steps['sm' ~ 'all'].stdout | upper }}",
            &ctx,
            &holds,
            &hide,
        );
        assert_eq!(p.made, ["S3CRET"]);
        assert!(bytes.get() > 1_000_000, "{} bytes hidden", bytes.get());
    }
}
