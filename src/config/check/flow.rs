//! The checks of a whole flow, in the order their problems are reported, and those about the
//! flow's own keys: durations, the web server's directory, artifact paths, and the fields taken
//! as written.

use std::collections::HashSet;

use serde_json::Value;

use super::actions::check_action;
use super::agents::check_profile;
use super::context::{Ctx, Declared};
use super::templates::TemplateNames;
use crate::config::duration::problem_at;
use crate::config::literal::{refuse_all, refuse_keys};
use crate::config::model::{Action, Step};
use crate::config::schema::at_value;
use crate::source::Diagnostic;
use crate::template::is_template;

/// Runs every semantic check on a flow that passed the schema.
pub(crate) fn check_flow(c: &Ctx<'_>) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    // The flow's default agent profile (for `act` steps that name none).
    if let Some(agent) = &c.flow.agent {
        check_profile(c, "/agent", "/agent", agent, None, &mut out);
    }
    let d = Declared::gather(c, &mut out);
    durations(c, &d.steps, &mut out);
    retry_waits(c, &d.steps, &mut out);
    headers(c, &d.steps, &mut out);
    static_dir(c, &mut out);
    server_urls(c.file, c.spans, c.value, "/web_server", &mut out);
    artifact_paths(c, &d.steps, &mut out);
    literal_strings(c, &d.steps, &mut out);
    super::wide::wide_literals(c.file, c.spans, c.value, &mut out);

    // Templates, in the order things are rendered; each step's own checks beside its templates.
    let names = TemplateNames::new(c, &d);
    names.vars(c, &mut out);
    names.before_steps(c, &mut out);
    names.web_server(c, &mut out);
    let mut before: HashSet<String> = HashSet::new();
    let loop_vars = super::control::all_loop_vars(&d.steps);
    for (ptr, step) in &d.steps {
        let from = out.len();
        names.step(c, ptr, &before, &mut out);
        super::control::outside_their_loop(&loop_vars, &mut out[from..]);
        check_action(c, ptr, step, &d, &before, &mut out);
        if let Some(id) = &step.id {
            before.insert(id.clone());
        }
    }
    names.outputs(c, &mut out);
    out
}

/// Durations: the schema checks their form; this checks their value.
fn durations(c: &Ctx<'_>, steps: &[(String, &Step)], out: &mut Vec<Diagnostic>) {
    out.extend(
        duration_pointers(steps)
            .iter()
            .filter_map(|ptr| problem_at(c.file, c.spans, c.value, ptr)),
    );
}

/// The `url` and `ready_url` of the server at `ptr` (a flow's, or one of runner.toml's), as
/// written: readiness polls them with HTTP (one with a template is checked when it renders).
pub(crate) fn server_urls(
    file: &crate::source::SourceFile,
    spans: &crate::source::SpanMap,
    value: &serde_json::Value,
    ptr: &str,
    out: &mut Vec<Diagnostic>,
) {
    for field in ["url", "ready_url"] {
        let at = format!("{ptr}/{field}");
        let Some(v) = value.pointer(&at).and_then(serde_json::Value::as_str) else {
            continue;
        };
        if let Some(e) = (!is_template(v))
            .then(|| crate::config::model::url_problem(field, v))
            .flatten()
        {
            out.push(at_value(file, spans, &at, e));
        }
    }
}

/// A static web server's directory must exist (relative to the flow's directory).
fn static_dir(c: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let Some(dir) = c
        .flow
        .web_server
        .as_ref()
        .and_then(|w| w.static_dir.as_deref())
    else {
        return;
    };
    if is_template(dir) {
        return;
    }
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

/// Artifact paths (`screenshot.path`, `download.path`) stay inside the artifacts directory, and
/// `state.save` inside the flow's directory: the run's own checks, made here on the paths
/// written without a template.
fn artifact_paths(c: &Ctx<'_>, steps: &[(String, &Step)], out: &mut Vec<Diagnostic>) {
    for (ptr, step) in steps {
        let key = step.action.key();
        if let Some(p) = step.action.artifact_path()
            && !is_template(p)
            && let Some(problem) = crate::fs::artifact_path_problem(key, p)
        {
            out.push(
                at_value(c.file, c.spans, &format!("{ptr}/{key}/path"), problem)
                    .with_help(crate::fs::ARTIFACT_PATH_HELP),
            );
        }
        if let Some(p) = step.action.flow_path()
            && !is_template(p)
            && let Some(problem) = crate::fs::flow_path_problem(&format!("{key}.save"), p)
        {
            out.push(
                at_value(c.file, c.spans, &format!("{ptr}/{key}/save"), problem)
                    .with_help(crate::fs::FLOW_PATH_HELP),
            );
        }
    }
}

/// Strings runner uses as written, which a template would reach with its `{{ }}` in it: the
/// flow's name and tags (its name in reports and filters), `$schema` and `description`, its
/// default `agent`, the `browser:` keys read before any template renders (`cdp` picks the
/// browser, `state` orders the flows), `run_flow` paths (loaded before the run), and every key.
fn literal_strings(c: &Ctx<'_>, steps: &[(String, &Step)], out: &mut Vec<Diagnostic>) {
    const ITSELF: &str = "write the value itself";
    let mut literal: Vec<(String, &str)> = vec![
        (
            "/name".into(),
            "write the name itself: reports, `--grep` and `merge-reports` know the flow by it",
        ),
        (
            "/tags".into(),
            "write the tag itself: `--tag` selects flows before any template renders",
        ),
        ("/$schema".into(), ITSELF),
        ("/description".into(), ITSELF),
        (
            "/agent".into(),
            "name the profile itself, or give it in the step (`act: { intent, profile }`), where templates render",
        ),
        (
            "/browser/cdp".into(),
            "write the endpoint itself, or give it with `--browser-cdp`",
        ),
        (
            "/browser/state".into(),
            "write the path itself: the flow that saves it runs first, which is decided before the run",
        ),
    ];
    for (ptr, step) in steps {
        if let Action::RunFlow(_) = &step.action {
            // Its path (`run_flow: PATH`, or the `path` of `run_flow: { path, vars }`).
            let at = format!("{ptr}/run_flow");
            let at = if c.value.pointer(&at).is_some_and(Value::is_object) {
                format!("{at}/path")
            } else {
                at
            };
            literal.push((
                at,
                "write the path itself: sub-flows are loaded and checked before the run",
            ));
        }
    }
    for (ptr, help) in literal {
        if let Some(v) = c.value.pointer(&ptr) {
            refuse_all(c.file, c.spans, &ptr, v, help, out);
        }
    }
    refuse_keys(c.file, c.spans, "", c.value, out);
}

/// A retry whose waits together would pass the longest duration a flow may ask for (7 days):
/// a backoff without `max_delay` grows each wait (1 s doubled 40 times is 35,000 years).
fn retry_waits(c: &Ctx<'_>, steps: &[(String, &Step)], out: &mut Vec<Diagnostic>) {
    let defaults = c.flow.defaults.as_ref().and_then(|d| d.retry.as_ref());
    let all = defaults
        .map(|r| ("/defaults/retry".to_string(), r))
        .into_iter()
        .chain(
            steps
                .iter()
                .filter_map(|(ptr, s)| Some((format!("{ptr}/retry"), s.retry.as_ref()?))),
        );
    for (ptr, retry) in all {
        if waits_past(retry, crate::config::duration::MAX_DURATION) {
            out.push(
                at_value(
                    c.file,
                    c.spans,
                    &ptr,
                    "the waits of this retry add up to more than 7 days, the longest a duration may be",
                )
                .with_help("set `max_delay` (the longest one wait), or fewer `attempts` or a smaller `backoff`"),
            );
        }
    }
}

/// Whether the waits between a retry's attempts add up to more than `limit` (its durations
/// parsed; one that does not parse waits nothing here: it is refused on its own).
fn waits_past(retry: &crate::config::model::Retry, limit: std::time::Duration) -> bool {
    let crate::config::model::Retry::Full(p) = retry else {
        return false;
    };
    let secs = |d: &Option<String>| {
        d.as_deref()
            .and_then(|d| crate::config::duration::parse_duration(d).ok())
            .map(|d| d.as_secs_f64())
    };
    let delay = secs(&p.delay).unwrap_or(0.0);
    let cap = secs(&p.max_delay).unwrap_or(f64::INFINITY);
    let backoff = p.backoff.unwrap_or(1.0).max(1.0);
    let limit = limit.as_secs_f64();
    let (mut wait, mut total) = (delay, 0.0);
    for _ in 1..p.attempts.unwrap_or(1) {
        total += wait.min(cap);
        if total > limit {
            return true;
        }
        wait *= backoff;
    }
    false
}

/// Header maps: the flow's `browser.headers`, each `request`'s and `route`'s; and the flow's
/// `browser.locale` and `browser.timezone`, which the browser takes as text too.
fn headers(c: &Ctx<'_>, steps: &[(String, &Step)], out: &mut Vec<Diagnostic>) {
    crate::config::headers::problems(c.file, c.spans, c.value, "/browser/headers", out);
    crate::config::browser_values::problems(c.file, c.spans, c.value, "/browser", out);
    for (ptr, _) in steps {
        for action in ["request", "route"] {
            let at = format!("{ptr}/{action}/headers");
            crate::config::headers::problems(c.file, c.spans, c.value, &at, out);
        }
    }
}

/// Pointers of every duration-valued node: the flow's, and those of `steps` (every step, with
/// its pointer).
fn duration_pointers(steps: &[(String, &Step)]) -> Vec<String> {
    let mut out = Vec::new();
    for p in [
        "/browser/timeout",
        "/defaults/timeout",
        "/web_server/ready_timeout",
        "/web_server/stop_timeout",
    ] {
        out.push(p.to_string());
    }
    retry_pointers("/defaults/retry", &mut out);
    for (base, _) in steps {
        out.push(format!("{base}/timeout"));
        out.push(format!("{base}/wait"));
        out.push(format!("{base}/agent/timeout"));
        out.push(format!("{base}/agent/idle_timeout"));
        retry_pointers(&format!("{base}/retry"), &mut out);
    }
    out
}

fn retry_pointers(base: &str, out: &mut Vec<String>) {
    out.push(format!("{base}/delay"));
    out.push(format!("{base}/max_delay"));
}
