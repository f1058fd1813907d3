//! Semantic checks beyond the schema: ids, durations, regexes, templates and the names they read,
//! agent profiles and the steps that `follow_up` / `stop_agent` name.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::duration::parse_duration;
use super::model::{Action, Flow, Matcher, Step};
use super::schema::{at_key, at_value};
use crate::config::profiles::Registry;
use crate::source::did_you_mean;
use crate::source::{Diagnostic, SourceFile, SpanMap, pointer_push};
use crate::template::check::Scope;
use crate::template::{Templates, check_expression, check_template, is_template};

/// Everything a check needs to point into the file.
pub(crate) struct Ctx<'a> {
    pub(crate) file: &'a SourceFile,
    pub(crate) spans: &'a SpanMap,
    pub(crate) value: &'a Value,
    pub(crate) flow: &'a Flow,
    pub(crate) profiles: &'a Registry,
    pub(crate) templates: &'a Templates,
    /// Vars given on the command line.
    pub(crate) extra_vars: &'a [String],
}

/// Runs every semantic check on a flow that passed the schema.
pub(crate) fn check_flow(c: &Ctx<'_>) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let steps: Vec<(String, &Step)> = c
        .flow
        .steps
        .iter()
        .enumerate()
        .map(|(i, s)| (format!("/steps/{i}"), s))
        .chain(
            c.flow
                .finally
                .iter()
                .enumerate()
                .map(|(i, s)| (format!("/finally/{i}"), s)),
        )
        .collect();

    // The flow's default agent profile (for `act` steps that name none).
    if let Some(agent) = &c.flow.agent {
        check_profile(c, "/agent", "/agent", agent, None, &mut out);
    }

    // Ids: unique across steps and finally.
    let mut ids: HashMap<&str, usize> = HashMap::new();
    let mut agent_steps: HashMap<&str, bool> = HashMap::new();
    for (ptr, step) in &steps {
        if let Some(id) = &step.id {
            let p = format!("{ptr}/id");
            if let Some(first) = ids.get(id.as_str()) {
                let line = c.file.line_col(*first).0;
                out.push(
                    at_value(c.file, c.spans, &p, format!("duplicate step id `{id}`")).with_help(
                        format!("`{id}` is already the id of the step on line {line}"),
                    ),
                );
            } else {
                let at = c.spans.nearest(&p).map_or(0, |s| s.value.start);
                ids.insert(id, at);
            }
            if let Action::Agent(a) = &step.action {
                agent_steps.insert(id, a.background.unwrap_or(false));
            }
        }
    }
    let all_steps: HashSet<String> = ids.keys().map(std::string::ToString::to_string).collect();
    // What `steps.<id>.*` may read, where the outputs are known ahead.
    let outputs: HashMap<String, &'static [&'static str]> = steps
        .iter()
        .filter_map(|(_, s)| Some((s.id.clone()?, s.action.outputs()?)))
        .collect();
    // A `_` sub-flow runs with its parent's web server.
    let sub_flow = std::path::Path::new(c.file.name())
        .file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with('_'));
    let has_ws = c.flow.web_server.is_some() || sub_flow;

    // Durations (the schema checks their form; this checks their value).
    for ptr in duration_pointers(c.value) {
        if let Some(s) = c.value.pointer(&ptr).and_then(Value::as_str)
            && let Err(e) = parse_duration(s)
        {
            out.push(
                at_value(c.file, c.spans, &ptr, e)
                    .with_help("write a number and a unit: `250ms`, `5s`, `2m`, `1h`"),
            );
        }
    }

    // A static web server's directory must exist (relative to the flow's directory).
    if let Some(dir) = c
        .flow
        .web_server
        .as_ref()
        .and_then(|w| w.static_dir.as_deref())
        && !is_template(dir)
    {
        let base = std::path::Path::new(c.file.name())
            .parent()
            .unwrap_or(std::path::Path::new(""));
        if !base.join(dir).is_dir() {
            out.push(
                at_value(
                    c.file,
                    c.spans,
                    "/web_server/static",
                    format!("web_server.static: no directory `{dir}`"),
                )
                .with_help("the path is relative to the flow's directory"),
            );
        }
    }

    // Artifact paths stay inside the artifacts directory.
    for (ptr, step) in &steps {
        if let Action::Screenshot(super::model::Toggle::Options(o)) = &step.action
            && let Some(p) = &o.path
            && !is_template(p)
            && crate::fs::leaves_dir(p)
        {
            out.push(
                at_value(
                    c.file,
                    c.spans,
                    &format!("{ptr}/screenshot/path"),
                    format!("screenshot path `{p}` leaves the artifacts directory"),
                )
                .with_help("give a path relative to the run's artifacts directory, without `..`"),
            );
        }
    }

    // Strings runner uses as written: a template there would be taken literally, so it is refused.
    let mut literal: Vec<String> = vec!["/name".to_string()];
    let tags = c
        .value
        .get("tags")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    literal.extend((0..tags).map(|i| format!("/tags/{i}")));
    for (ptr, step) in &steps {
        if let Action::RunFlow(_) = &step.action {
            literal.push(format!("{ptr}/run_flow"));
            literal.push(format!("{ptr}/run_flow/path"));
        }
    }
    for ptr in literal {
        if let Some(s) = c.value.pointer(&ptr).and_then(Value::as_str)
            && is_template(s)
        {
            out.push(
                at_value(
                    c.file,
                    c.spans,
                    &ptr,
                    format!(
                        "`{s}` is used as written here: templates are not rendered in this field"
                    ),
                )
                .with_help(
                    "write the value itself (sub-flow paths are loaded and checked before the run)",
                ),
            );
        }
    }

    // Templates, in the order things are rendered.
    let vars_all: HashSet<String> = c
        .flow
        .vars
        .keys()
        .cloned()
        .chain(steps.iter().flat_map(|(_, s)| match &s.action {
            Action::Set(m) => m.keys().cloned().collect::<Vec<_>>(),
            _ => Vec::new(),
        }))
        .chain(c.extra_vars.iter().cloned())
        .collect();
    let secrets: HashSet<String> = c.flow.secrets.iter().cloned().collect();
    let none = HashSet::new();
    let mut vars_before: HashSet<String> = c.extra_vars.iter().cloned().collect();
    for (k, v) in &c.flow.vars {
        let scope = Scope {
            vars: &vars_before,
            secrets: &secrets,
            steps_before: &none,
            all_steps: &none,
            outputs: &outputs,
            web_server: has_ws,
        };
        strings(c, &pointer_push("/vars", k), v, &scope, &mut out);
        vars_before.insert(k.clone());
    }
    let top_scope = Scope {
        vars: &vars_all,
        secrets: &secrets,
        steps_before: &none,
        all_steps: &all_steps,
        outputs: &outputs,
        web_server: has_ws,
    };
    for key in ["env", "atlas"] {
        if let Some(v) = c.value.get(key) {
            strings(c, &format!("/{key}"), v, &top_scope, &mut out);
        }
    }
    // The web server starts before vars are rendered (they may read its URL): it sees `env`,
    // `flow` and `run` only.
    if let Some(v) = c.value.get("web_server") {
        let early = Scope {
            vars: &none,
            secrets: &none,
            steps_before: &none,
            all_steps: &none,
            outputs: &outputs,
            web_server: false,
        };
        let mut found = Vec::new();
        strings(c, "/web_server", v, &early, &mut found);
        out.extend(found.into_iter().map(|mut d| {
            if ["unknown var", "unknown secret", "unknown step"]
                .iter()
                .any(|p| d.message.starts_with(p))
            {
                d.message = format!(
                    "{} here: the web server starts before vars, secrets and steps",
                    d.message
                );
                d.help = Some("`web_server` can read `env`, `flow` and `run`".into());
            }
            d
        }));
    }
    let mut before: HashSet<String> = HashSet::new();
    for (ptr, step) in &steps {
        let scope = Scope {
            vars: &vars_all,
            secrets: &secrets,
            steps_before: &before,
            all_steps: &all_steps,
            outputs: &outputs,
            web_server: has_ws,
        };
        if let Some(raw) = c.value.pointer(ptr).and_then(Value::as_object) {
            for (k, v) in raw {
                let p = pointer_push(ptr, k);
                match (k.as_str(), v) {
                    ("if", Value::String(s)) if !is_template(s) => {
                        expression(c, &p, s, &scope, &mut out);
                    }
                    ("id" | "timeout" | "retry" | "continue_on_error" | "frame", _) => {}
                    _ => strings(c, &p, v, &scope, &mut out),
                }
            }
            if let Some(Value::String(s)) = raw.get("expect").and_then(|e| e.get("that"))
                && !is_template(s)
            {
                expression(c, &format!("{ptr}/expect/that"), s, &scope, &mut out);
            }
        }
        check_action(c, ptr, step, &ids, &agent_steps, &before, &mut out);
        if let Some(id) = &step.id {
            before.insert(id.clone());
        }
    }
    if let Some(flow_outputs) = c.value.get("outputs") {
        let scope = Scope {
            vars: &vars_all,
            secrets: &secrets,
            steps_before: &all_steps,
            all_steps: &all_steps,
            outputs: &outputs,
            web_server: has_ws,
        };
        strings(c, "/outputs", flow_outputs, &scope, &mut out);
    }
    out
}

fn check_action(
    c: &Ctx<'_>,
    ptr: &str,
    step: &Step,
    ids: &HashMap<&str, usize>,
    agent_steps: &HashMap<&str, bool>,
    before: &HashSet<String>,
    out: &mut Vec<Diagnostic>,
) {
    let key = step.action.key();
    if let Some(f) = &step.frame {
        let p = format!("{ptr}/frame");
        if super::selector::selectors(&step.action).is_empty() {
            out.push(
                at_key(
                    c.file,
                    c.spans,
                    &p,
                    format!("`frame` scopes a step's selectors to an iframe; `{key}` has none"),
                )
                .with_help("drop `frame`"),
            );
        } else if is_template(f) {
            out.push(
                at_value(
                    c.file,
                    c.spans,
                    &p,
                    "a step's `frame` is taken as written: no templates".to_string(),
                )
                .with_help("write the iframe's CSS selector"),
            );
        }
    }
    // Bare strings in selectors are CSS: Playwright's syntax and broken CSS are refused here.
    for (at, sel) in super::selector::selectors(&step.action) {
        for sub in super::selector::refs_with_nth(sel) {
            let key_of = sub.rsplit('/').next().unwrap_or("nth").to_string();
            out.push(
                at_key(
                    c.file,
                    c.spans,
                    &format!("{ptr}/{key}{at}{sub}"),
                    format!("a ref names one element: `{key_of}` does not apply to it"),
                )
                .with_help(format!("drop `{key_of}`, or select by role, CSS or text")),
            );
        }
        for (sub, css) in super::selector::css_strings(sel) {
            if is_template(css) {
                continue;
            }
            if let Some(problem) = super::selector::css_problem(css) {
                out.push(
                    at_value(c.file, c.spans, &format!("{ptr}/{key}{at}{sub}"), problem).with_help(
                        "a string selector is CSS; other kinds: `@e5` (a ref), { role, text }, { text, tag }, { css, nth }",
                    ),
                );
            }
        }
    }
    match &step.action {
        Action::Expect(e) => {
            let regexes = |e: &crate::config::model::ExpectAction, at: &str| {
                vec![
                    (format!("{at}url"), e.url.as_ref().and_then(matcher_regex)),
                    (
                        format!("{at}title"),
                        e.title.as_ref().and_then(matcher_regex),
                    ),
                    (
                        format!("{at}text"),
                        e.text.as_ref().and_then(|t| t.matches.clone()),
                    ),
                    (
                        format!("{at}value"),
                        e.value.as_ref().and_then(|t| t.matches.clone()),
                    ),
                    (
                        format!("{at}attribute"),
                        e.attribute.as_ref().and_then(|t| t.matches.clone()),
                    ),
                ]
            };
            let mut matchers = regexes(e, "");
            if let Some(n) = &e.not {
                matchers.extend(regexes(n, "not/"));
            }
            for (key, re) in matchers {
                if let Some(re) = re
                    && !is_template(&re)
                    && let Err(err) = regex::Regex::new(&re)
                {
                    let p = format!("{ptr}/expect/{key}/matches");
                    let msg = err.to_string();
                    let last = msg.lines().last().unwrap_or("invalid regex").trim();
                    let last = last.strip_prefix("error: ").unwrap_or(last).to_string();
                    out.push(
                        at_value(
                            c.file,
                            c.spans,
                            &p,
                            format!("invalid regular expression: {last}"),
                        )
                        .with_help(
                            "`matches` takes a Rust regex; escape special characters with `\\`",
                        ),
                    );
                }
            }
        }
        Action::Act(a) => {
            if let (_, Some(profile), variant) = a.parts() {
                let p = format!("{ptr}/act");
                check_profile(
                    c,
                    &format!("{p}/profile"),
                    &format!("{p}/variant"),
                    profile,
                    variant,
                    out,
                );
            }
        }
        Action::Agent(a) => {
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
                step_ref(
                    c,
                    &format!("{p}/follow_up"),
                    target,
                    ids,
                    agent_steps,
                    before,
                    "follow_up",
                    out,
                );
            }
        }
        Action::StopAgent(target) => {
            let looks_like_id = target
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
            if looks_like_id && !is_template(target) {
                step_ref(
                    c,
                    &format!("{ptr}/stop_agent"),
                    target,
                    ids,
                    agent_steps,
                    before,
                    "stop_agent",
                    out,
                );
                if agent_steps.get(target.as_str()) == Some(&false) {
                    out.push(
                        at_value(
                            c.file,
                            c.spans,
                            &format!("{ptr}/stop_agent"),
                            format!("step `{target}` is not a background agent: it has finished before this step runs"),
                        )
                        .with_help("add `background: true` to that agent step"),
                    );
                }
            }
        }
        _ => {}
    }
}

/// An agent profile (and variant) a step names: known, or an error with the near misses.
fn check_profile(
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

#[allow(clippy::too_many_arguments)]
fn step_ref(
    c: &Ctx<'_>,
    p: &str,
    target: &str,
    ids: &HashMap<&str, usize>,
    agent_steps: &HashMap<&str, bool>,
    before: &HashSet<String>,
    key: &str,
    out: &mut Vec<Diagnostic>,
) {
    if !ids.contains_key(target) {
        let agents: Vec<&str> = agent_steps.keys().copied().collect();
        let mut d = at_value(
            c.file,
            c.spans,
            p,
            format!("`{key}` names unknown step `{target}`"),
        );
        d = match did_you_mean(target, agents.iter().copied().chain(ids.keys().copied())) {
            Some(s) => d.with_help(format!("did you mean `{s}`?")),
            None => d.with_help("name the `id` of an earlier agent step"),
        };
        out.push(d);
    } else if !agent_steps.contains_key(target) {
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

fn matcher_regex(m: &Matcher) -> Option<String> {
    match m {
        Matcher::Full(o) => o.matches.clone(),
        Matcher::Equals(_) => None,
    }
}

/// Pointers of every duration-valued node.
fn duration_pointers(v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for p in [
        "/browser/timeout",
        "/defaults/timeout",
        "/web_server/ready_timeout",
    ] {
        out.push(p.to_string());
    }
    retry_pointers("/defaults/retry", &mut out);
    for list in ["steps", "finally"] {
        let n = v.get(list).and_then(Value::as_array).map_or(0, Vec::len);
        for i in 0..n {
            let base = format!("/{list}/{i}");
            out.push(format!("{base}/timeout"));
            out.push(format!("{base}/wait"));
            out.push(format!("{base}/agent/timeout"));
            out.push(format!("{base}/agent/idle_timeout"));
            retry_pointers(&format!("{base}/retry"), &mut out);
        }
    }
    out
}

fn retry_pointers(base: &str, out: &mut Vec<String>) {
    out.push(format!("{base}/delay"));
    out.push(format!("{base}/max_delay"));
}

fn expression(c: &Ctx<'_>, ptr: &str, src: &str, scope: &Scope<'_>, out: &mut Vec<Diagnostic>) {
    for issue in check_expression(c.templates, src, scope) {
        out.push(located(c, ptr, issue));
    }
}

/// Checks every template string inside `v`.
fn strings(c: &Ctx<'_>, ptr: &str, v: &Value, scope: &Scope<'_>, out: &mut Vec<Diagnostic>) {
    match v {
        Value::String(s) if is_template(s) => {
            for issue in check_template(c.templates, s, scope) {
                out.push(located(c, ptr, issue));
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                strings(c, &pointer_push(ptr, &i.to_string()), item, scope, out);
            }
        }
        Value::Object(m) => {
            for (k, item) in m {
                strings(c, &pointer_push(ptr, k), item, scope, out);
            }
        }
        _ => {}
    }
}

/// Turns an issue inside a string into a diagnostic at the right column when the string maps to
/// the source one to one, or at the string otherwise.
fn located(c: &Ctx<'_>, ptr: &str, issue: crate::template::TemplateIssue) -> Diagnostic {
    let span = match c.spans.get(ptr) {
        Some(s) => match s.content_start {
            Some(start) => start + issue.offset..start + issue.offset + issue.len,
            None => s.value.clone(),
        },
        None => c.spans.nearest(ptr).map_or(0..0, |s| s.value.clone()),
    };
    let mut d = Diagnostic::error(c.file, span, issue.message).with_pointer(ptr);
    if let Some(h) = issue.help {
        d = d.with_help(h);
    }
    d
}
