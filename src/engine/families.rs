//! The engine's side of each step family: what a browser, agent or state step needs from the
//! flow, handed to the family's entry point.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use super::artifacts;
use super::context::Scope;
use super::runtime::StepCtx;
use crate::agent::{AgentCtx, CacheMode, Skill, SkillCall, SkillEnv};
use crate::atlas::RecordTarget;
use crate::browser::driver::pictures;
use crate::browser::page::intent;
use crate::browser::{Session, StepFiles};
use crate::config::model::Action;
use crate::step::{ErrorKind, StepError};

/// A browser action (an `expect`'s page checks too) on the flow's session.
pub(crate) async fn browser(cx: &StepCtx<'_>, action: Action) -> Result<Value, StepError> {
    let (rt, frame) = (cx.rt, cx.frame);
    let files = step_files(cx, cx.step.action.key());
    let mut session = frame.browser.session(&rt.browser).await?;
    // Boxed: the browser steps' futures are large and the engine's must stay small.
    Box::pin(crate::browser::run_step(
        &mut session,
        action,
        cx.timeout,
        &files,
    ))
    .await
}

/// Where the step writes its files (`fallback`: the file prefix of a step without an id), and
/// the flow's masker, which names them.
fn step_files(cx: &StepCtx<'_>, fallback: &str) -> StepFiles {
    StepFiles {
        root: cx.rt.artifacts.clone(),
        dir: cx.frame.dir.clone(),
        base: artifacts::step_base(&cx.frame.prefix, cx.index, cx.step, fallback),
        masker: cx.frame.masker.clone(),
        states: cx.rt.saved_states.clone(),
    }
}

pub(crate) async fn agent(
    cx: &StepCtx<'_>,
    action: Action,
    scope: &Scope,
) -> Result<Value, StepError> {
    let (rt, frame) = (cx.rt, cx.frame);
    let session_of_step = scope.session_lookup();
    match action {
        Action::Agent(a) => {
            let listener = rt.listener.clone();
            let info = frame.info.clone();
            let depth = frame.depth;
            let ctx = AgentCtx {
                profiles: &rt.profiles,
                flow_dir: frame.loaded.dir.clone(),
                env: frame.env.clone(),
                masker: frame.masker.clone(),
                relay: Arc::new(move |line: &str| listener.message(&info, depth, line)),
                cancel: frame.cancel.clone(),
                log_path: cx.artifact("agent").with_extension("agent.log"),
                flow_key: frame.browser.name().to_string(),
                session_of_step: &session_of_step,
                timeout: cx.timeout,
            };
            Ok(crate::agent::run_step(a, ctx).await?)
        }
        Action::StopAgent(target) => Ok(crate::agent::stop_step(&target, &session_of_step).await?),
        other => Err(not_in_family(&other, "agent")),
    }
}

pub(crate) async fn state(
    cx: &StepCtx<'_>,
    action: Action,
    scope: &mut Scope,
) -> Result<Value, StepError> {
    let (rt, frame) = (cx.rt, cx.frame);
    let Action::LinkState(mut ls) = action else {
        return Err(not_in_family(&action, "state"));
    };
    // A step since the last one the atlas cannot hold without a secret: no edge is written.
    if let Some(why) = &scope.unrecordable {
        return Err(StepError::new(ErrorKind::Template, why.clone()));
    }
    // A directory runner creates is named as the reports show it: secrets masked.
    if let crate::config::model::LinkState::Full(o) = &mut ls {
        o.atlas = o.atlas.as_deref().map(|a| frame.masker.mask(a));
    }
    // The flow's `atlas:` may be a template (the step's own was rendered with the step).
    let flow_atlas = match &frame.loaded.flow.atlas {
        Some(a) => {
            let ctx = scope.context();
            let raw = Value::String(a.clone());
            super::render::learn_secrets(&rt.templates, &ctx, &raw, &frame.masker);
            let a = rt
                .templates
                .render_str(a, &ctx)
                .map_err(|e| super::render::template_error(frame.loaded, "/atlas", e))?;
            Some(frame.masker.mask(&a))
        }
        None => None,
    };
    let atlas = crate::atlas::atlas_dir(
        &ls,
        rt.atlas.as_deref(),
        flow_atlas.as_deref(),
        &frame.loaded.dir,
    );
    let shot = frame
        .dir
        .join(format!("{}{:03}-state.png", frame.prefix, cx.index + 1));
    // The run's servers by name (a flow's own `web_server`, which no replay starts, adds its
    // `url` and `port` beside them, and is not one).
    let servers = match &scope.web_server {
        Some(Value::Object(m)) => m.clone(),
        _ => serde_json::Map::new(),
    };
    let target = RecordTarget {
        atlas: &atlas,
        fingerprint: rt.fingerprint,
        screenshot: &shot,
        screenshot_known: true,
        run_id: &rt.run_id,
        masker: &frame.masker,
        servers: &servers,
    };
    let mut session = frame.browser.session(&rt.browser).await?;
    crate::atlas::record_state(&mut session, &ls, &target, &mut scope.trail, cx.timeout).await
}

/// `request`: an HTTP request and the checks on its response.
pub(crate) async fn http(cx: &StepCtx<'_>, action: Action) -> Result<Value, StepError> {
    let Action::Request(r) = action else {
        return Err(not_in_family(&action, "http"));
    };
    let ctx = crate::http::HttpCtx {
        timeout: cx.timeout,
        masker: cx.frame.masker.clone(),
    };
    crate::http::run_step(r, ctx).await
}

/// `act`: an instruction carried out on the page. Its answer comes from the agent cache when
/// the cached element is still there (and alone), else from the built-in resolver, else from
/// the `intent` skill of the step's agent profile (the answer then replaces the cached one);
/// the answer becomes the runner step it names, which runs as written out would.
pub(crate) async fn act(
    cx: &StepCtx<'_>,
    action: Action,
    scope: &Scope,
) -> Result<Value, StepError> {
    let (rt, frame) = (cx.rt, cx.frame);
    let Action::Act(a) = action else {
        return Err(not_in_family(&action, "act"));
    };
    let (intent_text, profile, variant) = a.parts();
    // The attempt is bounded as an agent's (the agent may be asked); the page work keeps the
    // browser's timeout, so a missing element fails as fast as in the step written out.
    let page_timeout = super::attempts::browser_timeout(frame.loaded).min(cx.timeout);
    let mut session = frame.browser.session(&rt.browser).await?;
    // As every browser step before it touches the page (see `dialog::settle`): a dialog the
    // step before left open gets the flow's answer, and the answers runner's watch sent have
    // come back first.
    crate::browser::driver::dialog::settle(&mut session, page_timeout).await?;
    let url = intent::current_url(&mut session, page_timeout).await?;
    let question = Question {
        intent: intent_text,
        // The question's identity: the instruction and the page's path. Not its origin (a
        // local web server's port changes every run; staging and production share answers)
        // and not its text (which changes with every item in a list): an answer that does not
        // fit the page it is used on is resolved again anyway.
        key: json!({ "intent": intent_text, "page": page_path(&url) }),
        // The step's profile, else its flow's `agent:`, else `--agent`.
        profile: profile
            .or(frame.loaded.flow.agent.as_deref())
            .or(rt.default_agent.as_deref()),
        variant,
        page_timeout,
    };
    let env = skill_env(cx);
    let (answer, source) =
        answer(&mut session, &env, &question, url.clone(), rt.agent_cache).await?;
    let errors = Skill::Intent.check(&answer);
    if !errors.is_empty() {
        return Err(StepError::new(
            ErrorKind::Internal,
            format!(
                "internal error: `act` made an invalid answer ({source}): {}",
                errors.join("; ")
            ),
        ));
    }
    // An agent's text or a cache file's (whose key anyone can forge) may take the flow to a
    // page of the app it is on, not to any URL (`file:///etc/passwd` would land in the failure
    // snapshot); the resolver's `open` is the flow's own instruction.
    let whose = match source {
        "cache" => Some("the cached answer"),
        "agent" => Some("the agent's answer"),
        _ => None,
    };
    let mut origins = vec![url];
    origins.extend(server_urls(scope.web_server.as_ref()));
    if let (Some(whose), Some(why)) = (whose, intent::open_refused(&answer, &origins)) {
        return Err(StepError::new(ErrorKind::Skill, format!("{whose} {why}")));
    }
    perform(cx, &mut session, &answer, source, page_timeout).await
}

/// The URLs of the run's web servers and the flow's own, as `web_server` holds them
/// (`{url, port}`, and `{<name>: {url, port}}`).
fn server_urls(web_server: Option<&Value>) -> Vec<String> {
    let Some(Value::Object(m)) = web_server else {
        return Vec::new();
    };
    let own = m.get("url").and_then(Value::as_str);
    let named = m
        .values()
        .filter_map(|s| s.get("url").and_then(Value::as_str));
    own.into_iter().chain(named).map(str::to_string).collect()
}

/// What an `act` asks.
struct Question<'a> {
    intent: &'a str,
    /// Its cache key.
    key: Value,
    profile: Option<&'a str>,
    variant: Option<&'a str>,
    page_timeout: Duration,
}

/// Where an `act` step's agent is asked: the flow's agent environment, answers cached under
/// `.runner/cache/skills`, its log beside the step's artifacts.
fn skill_env<'a>(cx: &StepCtx<'a>) -> SkillEnv<'a> {
    let (rt, frame) = (cx.rt, cx.frame);
    let listener = rt.listener.clone();
    let info = frame.info.clone();
    let depth = frame.depth;
    SkillEnv {
        profiles: &rt.profiles,
        cache: rt.agent_cache,
        cache_dir: std::env::current_dir()
            .unwrap_or_default()
            .join(".runner/cache/skills"),
        workspace: frame.loaded.dir.clone(),
        env: frame.env.clone(),
        masker: frame.masker.clone(),
        relay: Arc::new(move |line: &str| listener.message(&info, depth, line)),
        cancel: frame.cancel.clone(),
        log_path: cx.artifact("act"),
        timeout: cx.timeout,
    }
}

/// The answer to an `act` and where it came from: the cache when its element is still on the
/// page, else the built-in resolver on the page's snapshot, else the agent.
async fn answer(
    session: &mut Session,
    env: &SkillEnv<'_>,
    q: &Question<'_>,
    url: String,
    cache: CacheMode,
) -> Result<(Value, &'static str), StepError> {
    let mut cached_broke = false;
    if let Some(answer) = crate::agent::cached_skill_answer(env, Skill::Intent, &q.key) {
        if intent::still_matches(session, &answer).await {
            return Ok((answer, "cache"));
        }
        cached_broke = true;
    }
    // The page's interactive snapshot, for the resolver and the agent (not needed on a hit).
    let page = intent::observe(session, url, q.page_timeout).await?;
    let why = match intent::resolve_local(q.intent, &page.refs) {
        Ok(answer) => return Ok((answer, "local")),
        Err(why) => why,
    };
    let no_agent = q.profile.is_none() && cache != CacheMode::ReadOnly;
    if no_agent {
        return Err(StepError::new(
            ErrorKind::Skill,
            format!(
                "cannot tell what to do for \"{}\" on this page{}{}: give it an agent profile (`act: {{ intent: ..., profile: ... }}`, the flow's `agent:`, or `runner run --agent`) or name the element as the page does",
                q.intent,
                if why.is_empty() {
                    String::new()
                } else {
                    format!(": {why}")
                },
                if cached_broke {
                    " (the cached answer no longer fits)"
                } else {
                    ""
                }
            ),
        ));
    }
    // The seed's words and selector strings made runner's; a snapshot ref is kept as role and
    // name, which outlive the snapshot.
    let stable = |a: &mut Value| {
        crate::agent::intent_answer(a)?;
        if let Some(s) = a
            .pointer("/selector/ref")
            .and_then(Value::as_str)
            .and_then(|r| intent::stable_selector(r, &page.refs))
        {
            a["selector"] = s;
        }
        Ok(())
    };
    let call = SkillCall {
        skill: Skill::Intent,
        input: json!({
            "intent": q.intent,
            "url": page.url,
            "snapshot": page.snapshot,
        }),
        key: q.key.clone(),
        profile: q.profile,
        variant: q.variant,
        use_cache: !cached_broke,
        normalize: &stable,
        fit_item: &crate::agent::keep_item,
    };
    let answer = crate::agent::call_skill(&call, env).await?;
    Ok((answer.value, "agent"))
}

/// Runs the step the answer names; the step's outputs say what was done and why.
async fn perform(
    cx: &StepCtx<'_>,
    session: &mut Session,
    answer: &Value,
    source: &str,
    page_timeout: Duration,
) -> Result<Value, StepError> {
    let step = intent::to_action(answer)?;
    // An agent's decision is kept on record: the page before and after it (~40 ms each, so not
    // for the resolver's and the cache's answers, which are as cheap as the step written out).
    let shots = (source == "agent").then(|| {
        (
            cx.artifact("act").with_extension("before.png"),
            cx.artifact("act").with_extension("after.png"),
        )
    });
    let files = step_files(cx, "act");
    // Inside the artifacts, as every screenshot: no symlink in their place is written through.
    // None of a page that shows a secret (pixels no masker reads): the output says why.
    let mut left_out = None;
    if let Some((before, _)) = &shots {
        let before = files.ready(before.clone())?;
        left_out = pictures::shoot_page(session, &files.masker, &before, page_timeout).await?;
    }
    let done = Box::pin(crate::browser::run_step(
        session,
        step,
        page_timeout,
        &files,
    ))
    .await?;
    if let Some((_, after)) = &shots
        && let Ok(after) = files.ready(after.clone())
        && let Ok(Some(why)) =
            pictures::shoot_page(session, &files.masker, &after, page_timeout).await
    {
        left_out = left_out.or(Some(why));
    }
    let shown = |p: Option<&std::path::PathBuf>| {
        p.filter(|p| p.exists())
            .map_or(Value::Null, |p| Value::String(p.display().to_string()))
    };
    Ok(json!({
        "action_type": answer["action_type"],
        "selector": answer.get("selector").cloned().unwrap_or(Value::Null),
        "value": answer.get("value").cloned().unwrap_or(Value::Null),
        "source": source,
        "confidence": answer["confidence"],
        "screenshot_before": shown(shots.as_ref().map(|s| &s.0)),
        "screenshot_after": shown(shots.as_ref().map(|s| &s.1)),
        "screenshot_left_out": left_out,
        "matched": done.get("matched").cloned().unwrap_or(Value::Null),
    }))
}

/// The path of a URL, without origin, query or fragment (`about:blank` stays whole).
fn page_path(url: &str) -> String {
    let no_query = url.split(['?', '#']).next().unwrap_or_default();
    match no_query.split_once("://") {
        Some((_, rest)) => rest.find('/').map_or("/", |i| &rest[i..]).to_string(),
        None => no_query.to_string(),
    }
}

/// An action sent to a family it does not belong to: a bug in runner.
fn not_in_family(action: &Action, family: &str) -> StepError {
    StepError::new(
        ErrorKind::Internal,
        format!("internal error: `{}` is not a {family} step", action.key()),
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_act_answer_is_keyed_by_the_pages_path() {
        assert_eq!(
            super::page_path("http://127.0.0.1:4242/shop/cart?x=1#top"),
            "/shop/cart"
        );
        assert_eq!(super::page_path("https://example.com"), "/");
        assert_eq!(super::page_path("about:blank"), "about:blank");
    }
}
