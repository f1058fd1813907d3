//! Agent skills: a question runner asks an agent profile, with an answer runner can check.
//!
//! The contract (docs/agents.md, "Agent skills"): a call is a new chat of the profile (the same execution
//! service as `agent` steps: process group, timeouts, relay, masking). The prompt goes to stdin
//! and ends with one fenced ```json block `{"skill": "<name>", ...inputs}`. The answer is the
//! agent's final result; it must hold one JSON object (bare or in a ```json fence) valid against
//! `schemas/skills/<name>.schema.json` (`runner schema skill/<name>`). An invalid answer is asked
//! again once with the validation errors; then the call fails with error kind `skill`.
//!
//! Answers are cached under `.runner/cache/skills/<name>/<sha256>.json`, keyed by the skill and
//! what the caller names as the question's identity (never raw volatile page text); an answer
//! that holds a secret is never cached (its entry says why, for a read-only run's miss);
//! `--agent-cache read-write|read-only|off`. With `read-only` nothing calls an agent: a missing
//! answer is an error, so CI can replay a recorded run without any LLM.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use indexmap::IndexMap;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tokio_util::sync::CancellationToken;

use super::error::AgentError;
use super::execution::{self, Ended, Launch, Relay};
use crate::config::profiles::Registry;
use crate::step::{ErrorKind, Masker, StepError};

/// A skill runner can ask an agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Skill {
    Intent,
    PageAnalysis,
    TrajectoryLabeling,
    TestGeneration,
}

impl Skill {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Skill::Intent => "intent",
            Skill::PageAnalysis => "page_analysis",
            Skill::TrajectoryLabeling => "trajectory_labeling",
            Skill::TestGeneration => "test_generation",
        }
    }

    /// The text of `schemas/skills/<name>.schema.json`.
    pub(crate) fn schema_text(self) -> &'static str {
        match self {
            Skill::Intent => include_str!("../../schemas/skills/intent.schema.json"),
            Skill::PageAnalysis => include_str!("../../schemas/skills/page_analysis.schema.json"),
            Skill::TrajectoryLabeling => {
                include_str!("../../schemas/skills/trajectory_labeling.schema.json")
            }
            Skill::TestGeneration => {
                include_str!("../../schemas/skills/test_generation.schema.json")
            }
        }
    }

    /// What the agent is asked to do, before the request block.
    fn instructions(self) -> &'static str {
        match self {
            Skill::Intent => {
                "You choose the one browser action that carries out a user's instruction on the current page. The request below gives the instruction (`intent`), the page URL and an accessibility snapshot of its interactive elements with refs (`[ref=e5]`). Pick the element by its role and accessible name as the snapshot shows them (a `ref` only if nothing else says which one)."
            }
            Skill::PageAnalysis => {
                "You analyse one page of a web application for an explorer: what the page is, what can be tried on it (each with a priority from 0 to 10 and whether it destroys data), and ideas for tests."
            }
            Skill::TrajectoryLabeling => {
                "You judge one action an explorer took between two page states: whether it changed anything meaningful, a short label for it, and a file name for a script that replays it."
            }
            Skill::TestGeneration => {
                "You write runner flow steps (YAML step objects as JSON) that test one idea on a page the given flow reaches."
            }
        }
    }

    fn validator(self) -> &'static jsonschema::Validator {
        static V: OnceLock<Vec<(Skill, jsonschema::Validator)>> = OnceLock::new();
        let all = V.get_or_init(|| {
            [
                Skill::Intent,
                Skill::PageAnalysis,
                Skill::TrajectoryLabeling,
                Skill::TestGeneration,
            ]
            .into_iter()
            .map(|s| {
                let schema: Value =
                    serde_json::from_str(s.schema_text()).expect("embedded skill schema is JSON");
                let v = jsonschema::options()
                    .with_draft(jsonschema::Draft::Draft202012)
                    .with_pattern_options(jsonschema::PatternOptions::regex())
                    .build(&schema)
                    .expect("embedded skill schema compiles");
                (s, v)
            })
            .collect()
        });
        &all.iter()
            .find(|(s, _)| *s == self)
            .expect("every skill has a schema")
            .1
    }

    /// The validation errors of an answer (empty when it is valid).
    pub(crate) fn check(self, answer: &Value) -> Vec<String> {
        self.validator()
            .iter_errors(answer)
            .map(|e| {
                let at = e.instance_path().to_string();
                format!("{}: {e}", if at.is_empty() { "/" } else { &at })
            })
            .collect()
    }
}

/// How answers are cached (`--agent-cache`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum CacheMode {
    #[default]
    ReadWrite,
    /// Answers come from the cache only; nothing calls an agent.
    ReadOnly,
    Off,
}

/// Where and how a skill call runs.
pub(crate) struct SkillEnv<'a> {
    pub(crate) profiles: &'a Registry,
    pub(crate) cache: CacheMode,
    /// `.runner/cache/skills` (absolute).
    pub(crate) cache_dir: PathBuf,
    pub(crate) workspace: PathBuf,
    pub(crate) env: IndexMap<String, String>,
    pub(crate) masker: Masker,
    pub(crate) relay: Relay,
    pub(crate) cancel: CancellationToken,
    /// Where the agent's output is logged (`.1`, `.2` for a retry).
    pub(crate) log_path: PathBuf,
    pub(crate) timeout: Duration,
}

/// One question.
pub(crate) struct SkillCall<'a> {
    pub(crate) skill: Skill,
    /// What the agent gets (after `"skill"`).
    pub(crate) input: Value,
    /// What identifies the question for the cache.
    pub(crate) key: Value,
    pub(crate) profile: Option<&'a str>,
    pub(crate) variant: Option<&'a str>,
    /// False when the cached answer is known not to fit any more (it is asked anew and
    /// replaced).
    pub(crate) use_cache: bool,
    /// Puts an agent's answer in the form it is checked, cached and used in (for `intent`: a
    /// snapshot ref becomes role and name, which outlive the snapshot).
    pub(crate) normalize: &'a (dyn Fn(&mut Value) + Send + Sync),
}

/// The file an answer to `key` is cached in.
pub(crate) fn cache_file(dir: &Path, skill: Skill, key: &Value) -> PathBuf {
    let mut h = Sha256::new();
    h.update(skill.name().as_bytes());
    h.update([0]);
    h.update(key.to_string().as_bytes());
    let hex: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    dir.join(skill.name()).join(format!("{hex}.json"))
}

/// The cached answer to `key`, if there is a valid one and the cache is read.
pub(crate) fn cached(env: &SkillEnv<'_>, skill: Skill, key: &Value) -> Option<Value> {
    if env.cache == CacheMode::Off {
        return None;
    }
    let text = std::fs::read_to_string(cache_file(&env.cache_dir, skill, key)).ok()?;
    let v: Value = serde_json::from_str(&text).ok()?;
    let answer = v.get("answer")?.clone();
    skill.check(&answer).is_empty().then_some(answer)
}

/// What a cache entry says in place of an answer that holds a secret.
const HOLDS_SECRET: &str = "the answer holds a secret";

/// Whether an answer holds a secret: a value the masker masks, in any of its forms.
fn holds_secret(masker: &Masker, answer: &Value) -> bool {
    let plain = answer.to_string();
    masker.mask(&plain) != plain
}

/// Keeps an answer (read-write cache only), atomically. An answer that holds a secret is never
/// kept: the cache is masked, so a replay would carry `***` where the secret was (an `act`
/// would type it), and a template of it could not be trusted either (the secret may be
/// transformed, or the answer's own text read as a template). Its entry says so instead, for
/// the miss of a later read-only run.
fn store(env: &SkillEnv<'_>, skill: Skill, key: &Value, answer: &Value) {
    if env.cache != CacheMode::ReadWrite {
        return;
    }
    let entry = if holds_secret(&env.masker, answer) {
        json!({ "skill": skill.name(), "key": key, "not_cached": HOLDS_SECRET })
    } else {
        json!({ "skill": skill.name(), "key": key, "answer": answer })
    };
    let file = cache_file(&env.cache_dir, skill, key);
    let Some(dir) = file.parent() else { return };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let text = serde_json::to_string_pretty(&entry).unwrap_or_default();
    if let Ok(tmp) = tempfile::NamedTempFile::new_in(dir)
        && std::fs::write(tmp.path(), env.masker.mask(&text).as_bytes()).is_ok()
    {
        let _ = tmp.persist(&file);
    }
}

/// Why the cache holds no answer to `key` when its entry says (an answer that held a secret).
fn not_cached(env: &SkillEnv<'_>, skill: Skill, key: &Value) -> Option<String> {
    let text = std::fs::read_to_string(cache_file(&env.cache_dir, skill, key)).ok()?;
    let v: Value = serde_json::from_str(&text).ok()?;
    v.get("not_cached")?.as_str().map(str::to_string)
}

/// The error of a read-only run that has no answer to give.
fn read_only_miss(c: &SkillCall<'_>, env: &SkillEnv<'_>) -> StepError {
    let skill = c.skill.name();
    let message = match not_cached(env, c.skill, &c.key) {
        Some(why) => format!(
            "no cached `{skill}` answer for this question: {why}, so it is never cached (a replay would give back `***` where the secret was), and the agent cache is read-only (--agent-cache read-only): this question needs its agent on every run"
        ),
        None => format!(
            "no {}cached `{skill}` answer for this question, and the agent cache is read-only (--agent-cache read-only): record it with a read-write run first",
            if c.use_cache { "" } else { "fitting " },
        ),
    };
    StepError::new(ErrorKind::Skill, message)
}

/// The prompt of a call: instructions, then the request block.
pub(crate) fn prompt(skill: Skill, input: &Value) -> String {
    let mut request = serde_json::Map::new();
    request.insert("skill".into(), skill.name().into());
    if let Value::Object(m) = input {
        for (k, v) in m {
            request.insert(k.clone(), v.clone());
        }
    }
    format!(
        "{}\n\nAnswer with one JSON object valid against this JSON Schema, and nothing else:\n```json\n{}\n```\n\nThe request:\n```json\n{}\n```\n",
        skill.instructions(),
        skill.schema_text().trim(),
        serde_json::to_string_pretty(&Value::Object(request)).unwrap_or_default()
    )
}

/// The one JSON object in an answer: a ```json fence's, else the whole text's, else the first
/// `{`…last `}` span's.
pub(crate) fn extract_json(text: &str) -> Option<Value> {
    let fenced = text
        .split("```json")
        .nth(1)
        .and_then(|rest| rest.split("```").next());
    let candidates = [
        fenced.map(str::trim),
        Some(text.trim()),
        text.find('{')
            .zip(text.rfind('}'))
            .filter(|(a, b)| a < b)
            .map(|(a, b)| &text[a..=b]),
    ];
    candidates.into_iter().flatten().find_map(|c| {
        serde_json::from_str::<Value>(c)
            .ok()
            .filter(Value::is_object)
    })
}

/// Asks the question: the cache first (unless off), then the agent, once more with the
/// validation errors if its answer is invalid. Returns the answer and whether it came from the
/// cache.
pub(crate) async fn call(
    c: &SkillCall<'_>,
    env: &SkillEnv<'_>,
) -> Result<(Value, bool), StepError> {
    if c.use_cache
        && let Some(answer) = cached(env, c.skill, &c.key)
    {
        return Ok((answer, true));
    }
    let fail = |m: String| StepError::new(ErrorKind::Skill, m);
    if env.cache == CacheMode::ReadOnly {
        return Err(read_only_miss(c, env));
    }
    let Some(label) = c.profile else {
        return Err(fail(format!(
            "the `{}` skill needs an agent profile (`profile:` on the step)",
            c.skill.name()
        )));
    };
    let first = prompt(c.skill, &c.input);
    let mut message = first.clone();
    for attempt in 1..=2 {
        let text = ask(label, c.variant, &message, attempt, env).await?;
        let errors = match extract_json(&text) {
            Some(mut answer) => {
                (c.normalize)(&mut answer);
                let errors = c.skill.check(&answer);
                if errors.is_empty() {
                    store(env, c.skill, &c.key, &answer);
                    if env.cache == CacheMode::ReadWrite && holds_secret(&env.masker, &answer) {
                        (env.relay)(&format!(
                            "the `{}` answer holds a secret: it is not cached (a read-only run cannot replay it)",
                            c.skill.name()
                        ));
                    }
                    return Ok((answer, false));
                }
                errors
            }
            None => vec!["the answer holds no JSON object".to_string()],
        };
        if attempt == 2 {
            return Err(fail(format!(
                "agent `{label}` gave no valid `{}` answer (asked twice): {}",
                c.skill.name(),
                errors.join("; ")
            )));
        }
        message = format!(
            "{first}\nYour previous answer was not valid:\n{}\nAnswer again with one JSON object valid against the schema.\n",
            errors
                .iter()
                .map(|e| format!("- {e}"))
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
    unreachable!("the loop returns on its second attempt")
}

/// One new chat; the agent's final answer text.
async fn ask(
    label: &str,
    variant: Option<&str>,
    message: &str,
    attempt: u32,
    env: &SkillEnv<'_>,
) -> Result<String, StepError> {
    let profile = env
        .profiles
        .get_profile(label)
        .ok_or_else(|| StepError::from(AgentError::UnknownProfile(label.to_string())))?;
    let command = profile.command_of(variant).cloned().ok_or_else(|| {
        StepError::from(AgentError::UnknownVariant {
            profile: profile.label.clone(),
            variant: variant.unwrap_or_default().to_string(),
        })
    })?;
    let launch = Launch {
        label: profile.label.clone(),
        executor_type: profile.executor_type.clone(),
        kind: profile.kind,
        variant: variant.map(str::to_string),
        command,
        workspace: env.workspace.clone(),
        // A secret typed into the page shows in its snapshot: never sent to the agent.
        message: env.masker.mask(message),
        follow_up: None,
        env: env.env.clone(),
        timeout: env.timeout,
        idle_timeout: None,
        log_path: env.log_path.with_extension(format!("{attempt}.agent.log")),
        masker: env.masker.clone(),
        relay: env.relay.clone(),
        cancel: env.cancel.clone(),
    };
    let running = execution::start(launch).map_err(StepError::from)?;
    let finished = running
        .task
        .await
        .map_err(|e| StepError::from(AgentError::Task(e.to_string())))?;
    let err = match finished.ended {
        Ended::Exited if finished.exit_code == Some(0) && !finished.state.is_error => {
            return Ok(finished.state.answer().unwrap_or_default());
        }
        Ended::Timeout => AgentError::Timeout(env.timeout),
        Ended::Idle => AgentError::Idle,
        Ended::Interrupted => AgentError::Interrupted,
        Ended::Stopped => AgentError::Stopped,
        Ended::Exited if finished.exit_code != Some(0) => AgentError::Exited {
            code: finished
                .exit_code
                .map_or("none (killed by a signal)".to_string(), |c| c.to_string()),
            log: env.log_path.display().to_string(),
        },
        Ended::Exited => AgentError::Reported(finished.state.answer().unwrap_or_default()),
    };
    Err(StepError::from(err))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_answer_is_found_bare_fenced_or_inside_prose() {
        let want = json!({"action_type": "click", "confidence": 0.5});
        assert_eq!(
            extract_json(r#"{"action_type":"click","confidence":0.5}"#),
            Some(want.clone())
        );
        assert_eq!(
            extract_json(
                "Here you go:\n```json\n{\"action_type\":\"click\",\"confidence\":0.5}\n```\nDone."
            ),
            Some(want.clone())
        );
        assert_eq!(
            extract_json("I would click it: {\"action_type\":\"click\",\"confidence\":0.5} ok"),
            Some(want)
        );
        assert_eq!(extract_json("no json here"), None);
        assert_eq!(extract_json("[1, 2]"), None);
    }

    #[test]
    fn answers_are_checked_against_each_skills_schema() {
        assert!(
            Skill::Intent
                .check(&json!({"action_type": "click", "selector": {"role": "button", "text": "Sign in"}, "confidence": 0.9}))
                .is_empty()
        );
        let bad = Skill::Intent.check(&json!({"action_type": "explode", "confidence": 2}));
        assert_eq!(bad.len(), 2, "{bad:?}");
        assert!(
            Skill::TrajectoryLabeling
                .check(&json!({"is_meaningful": true, "semantic_label": "open team", "script_name": "open_team", "confidence": 1}))
                .is_empty()
        );
        assert!(
            !Skill::TrajectoryLabeling
                .check(&json!({"is_meaningful": true, "semantic_label": "x", "script_name": "Bad Name", "confidence": 1}))
                .is_empty()
        );
        assert!(
            Skill::PageAnalysis
                .check(&json!({"summary": "s", "frontier_tasks": [{"selector": {"css": "#a"}, "action": "click", "reason": "r", "priority": 3, "is_destructive": false}], "test_ideas": []}))
                .is_empty()
        );
        assert!(
            !Skill::TestGeneration
                .check(&json!({"steps": []}))
                .is_empty()
        );
    }

    #[test]
    fn the_prompt_ends_with_the_request_block() {
        let p = prompt(
            Skill::Intent,
            &json!({"intent": "点击登录按钮", "url": "http://x/"}),
        );
        let block = p.rsplit("```json").next().unwrap();
        let v: Value = serde_json::from_str(block.trim().trim_end_matches("```").trim()).unwrap();
        assert_eq!(v["skill"], "intent");
        assert_eq!(v["intent"], "点击登录按钮");
    }

    #[test]
    fn an_answer_holding_a_secret_is_not_cached_and_the_miss_says_why() {
        let dir = tempfile::tempdir().unwrap();
        let profiles = Registry::default();
        let env = SkillEnv {
            profiles: &profiles,
            cache: CacheMode::ReadWrite,
            cache_dir: dir.path().to_path_buf(),
            workspace: dir.path().to_path_buf(),
            env: IndexMap::new(),
            masker: Masker::new(["pa\"ss".to_string()]),
            relay: std::sync::Arc::new(|_: &str| {}),
            cancel: CancellationToken::new(),
            log_path: dir.path().join("log"),
            timeout: Duration::from_secs(1),
        };
        let key = json!({"intent": "sign in"});
        let secret = json!({"action_type": "fill", "value": "pa\"ss-1", "confidence": 1});
        // Its JSON-escaped form is what the answer's text holds.
        assert!(holds_secret(&env.masker, &secret));
        store(&env, Skill::Intent, &key, &secret);
        assert_eq!(cached(&env, Skill::Intent, &key), None);
        let normalize = |_: &mut Value| {};
        let call = SkillCall {
            skill: Skill::Intent,
            input: json!({}),
            key: key.clone(),
            profile: None,
            variant: None,
            use_cache: true,
            normalize: &normalize,
        };
        let miss = read_only_miss(&call, &env).to_string();
        assert!(
            miss.contains("holds a secret, so it is never cached"),
            "{miss}"
        );

        // A plain answer replaces the entry and is replayed.
        let plain = json!({"action_type": "fill", "value": "pass", "confidence": 1});
        assert!(!holds_secret(&env.masker, &plain));
        store(&env, Skill::Intent, &key, &plain);
        assert_eq!(cached(&env, Skill::Intent, &key), Some(plain));
        assert!(
            read_only_miss(&call, &env)
                .to_string()
                .contains("record it")
        );
    }

    #[test]
    fn cache_keys_differ_by_skill_and_question() {
        let d = Path::new("/c");
        let a = cache_file(d, Skill::Intent, &json!({"intent": "a"}));
        assert_ne!(a, cache_file(d, Skill::Intent, &json!({"intent": "b"})));
        assert_ne!(
            a,
            cache_file(d, Skill::PageAnalysis, &json!({"intent": "a"}))
        );
        assert!(a.starts_with("/c/intent"));
    }
}
