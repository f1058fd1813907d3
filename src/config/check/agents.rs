//! The agent profiles and steps a flow names: a profile and variant that exist, an `agent` step
//! that starts a chat or follows one up, and `follow_up` / `stop_agent` naming an earlier agent
//! step.

use std::collections::HashSet;

use super::context::{Ctx, Declared};
use crate::config::model::AgentAction;
use crate::config::schema::{at_key, at_value};
use crate::source::{Diagnostic, did_you_mean};
use crate::template::is_template;

/// An agent profile (and variant) a step names: known, or an error with the near misses.
pub(super) fn check_profile(
    c: &Ctx<'_>,
    profile_ptr: &str,
    variant_ptr: &str,
    label: &str,
    variant: Option<&str>,
    out: &mut Vec<Diagnostic>,
) {
    match c.profiles.get_profile(label) {
        None if !is_template(label) => {
            let mut d = at_value(
                c.file,
                c.spans,
                profile_ptr,
                format!("Profile config not found for {label}"),
            );
            let labels: Vec<&str> = c.profiles.labels().collect();
            d = match did_you_mean(label, labels.iter().copied()) {
                Some(s) => d.with_help(format!("did you mean `{s}`?")),
                None => d.with_help(format!("known profiles: {}", labels.join(", "))),
            };
            out.push(d);
        }
        Some(profile) => {
            if let Some(v) = variant
                && !is_template(v)
                && profile.get_variant(v).is_none()
            {
                let names: Vec<&str> = profile.variants.iter().map(|v| v.label.as_str()).collect();
                let help = match did_you_mean(v, names.iter().copied()) {
                    Some(s) => format!("did you mean `{s}`?"),
                    None if names.is_empty() => {
                        format!("profile `{}` has no variants", profile.label)
                    }
                    None => {
                        format!("variants of `{}`: {}", profile.label, names.join(", "))
                    }
                };
                out.push(
                    at_value(
                        c.file,
                        c.spans,
                        variant_ptr,
                        format!("unknown variant `{v}` of profile `{}`", profile.label),
                    )
                    .with_help(help),
                );
            }
        }
        None => {}
    }
}

/// An `agent` step: its profile, either a new chat or a follow-up (with a message), and the step
/// it follows up.
pub(super) fn check_agent_step(
    c: &Ctx<'_>,
    ptr: &str,
    a: &AgentAction,
    d: &Declared<'_>,
    before: &HashSet<String>,
    out: &mut Vec<Diagnostic>,
) {
    let p = format!("{ptr}/agent");
    check_profile(
        c,
        &format!("{p}/profile"),
        &format!("{p}/variant"),
        &a.profile,
        a.variant.as_deref(),
        out,
    );
    let follows = a.follow_up.is_some() || a.session.is_some();
    if a.prompt.is_some() && follows {
        out.push(
            at_key(c.file, c.spans, &format!("{p}/prompt"), "an agent step has either `prompt` (a new chat) or `follow_up`/`session` with `message`, not both")
                .with_help("remove `prompt`, or start a new chat without `follow_up`"),
        );
    } else if a.prompt.is_none() && !follows {
        out.push(
            at_key(
                c.file,
                c.spans,
                &p,
                "an agent step needs `prompt` (a new chat) or `follow_up` and `message`",
            )
            .with_help("add `prompt: \"...\"`"),
        );
    } else if follows && a.message.is_none() {
        out.push(
            at_key(c.file, c.spans, &p, "a follow-up needs `message`")
                .with_help("add `message: \"...\"` with what to say next"),
        );
    }
    if a.follow_up.is_some() && a.session.is_some() {
        out.push(at_key(
            c.file,
            c.spans,
            &format!("{p}/session"),
            "use either `follow_up` (a step id) or `session` (a session id), not both",
        ));
    }
    if let Some(target) = &a.follow_up
        && !is_template(target)
    {
        let at = format!("{p}/follow_up");
        step_ref(c, &at, target, d, before, "follow_up", out);
    }
}

/// `stop_agent: ID`: an earlier agent step, which runs in the background. A value that does not
/// look like a step id is a session id, known only at run time.
pub(super) fn check_stop_agent(
    c: &Ctx<'_>,
    ptr: &str,
    target: &str,
    d: &Declared<'_>,
    before: &HashSet<String>,
    out: &mut Vec<Diagnostic>,
) {
    let looks_like_id = target
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    if !looks_like_id || is_template(target) {
        return;
    }
    let p = format!("{ptr}/stop_agent");
    step_ref(c, &p, target, d, before, "stop_agent", out);
    if d.agent_steps.get(target) == Some(&false) {
        out.push(
            at_value(
                c.file,
                c.spans,
                &p,
                format!(
                    "step `{target}` is not a background agent: it has finished before this step runs"
                ),
            )
            .with_help("add `background: true` to that agent step"),
        );
    }
}

/// A step id that `key` names: an agent step that runs earlier.
fn step_ref(
    c: &Ctx<'_>,
    p: &str,
    target: &str,
    d: &Declared<'_>,
    before: &HashSet<String>,
    key: &str,
    out: &mut Vec<Diagnostic>,
) {
    if !d.ids.contains_key(target) {
        let agents: Vec<&str> = d.agent_steps.keys().copied().collect();
        let mut diag = at_value(
            c.file,
            c.spans,
            p,
            format!("`{key}` names unknown step `{target}`"),
        );
        diag = match did_you_mean(target, agents.iter().copied().chain(d.ids.keys().copied())) {
            Some(s) => diag.with_help(format!("did you mean `{s}`?")),
            None => diag.with_help("name the `id` of an earlier agent step"),
        };
        out.push(diag);
    } else if !d.agent_steps.contains_key(target) {
        out.push(
            at_value(
                c.file,
                c.spans,
                p,
                format!("`{key}` names step `{target}`, which is not an agent step"),
            )
            .with_help("name the `id` of an earlier `agent` step"),
        );
    } else if !before.contains(target) {
        out.push(
            at_value(
                c.file,
                c.spans,
                p,
                format!("`{key}` names step `{target}`, which runs later"),
            )
            .with_help("an agent step must run before it can be followed up or stopped"),
        );
    }
}
