//! Agent skills: a question runner asks an agent profile, with an answer runner can check.
//!
//! The contract (docs/agents.md, "Agent skills"): a call is a new chat of the profile (the same execution
//! service as `agent` steps: process group, timeouts, relay, masking). The prompt goes to stdin
//! and ends with one fenced ```json block `{"skill": "<name>", ...inputs}`. The answer is the
//! agent's final result; it must hold one JSON object (bare or in a ```json fence) valid against
//! `schemas/skills/<name>.schema.json` (`runner schema skill/<name>`), which take the web-explorer
//! seed's forms (free strings for selectors and actions). The caller puts the answer in runner's
//! form; an item of a list it cannot use is dropped and named (`sift`). An answer that is
//! invalid, or whose items were all dropped, is asked again once with the reasons; then the call
//! fails with error kind `skill`, naming the logs that hold the agent's text.
//!
//! Answers are cached under `.runner/cache/skills/<name>/<sha256>.json`, keyed by the skill and
//! what the caller names as the question's identity, masked (never raw volatile page text, never
//! a secret's value: a question that differs only by one is the same question); an answer
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

use super::answer::extract_json;
use super::error::AgentError;
use super::execution::{self, Ended, Launch, Relay};
use super::sift::{FitItem, ItemLists, sift};
use crate::config::profiles::Registry;
use crate::fs::{Owner, Tree, TreeError};
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

    /// The lists of an answer whose items stand alone: one that cannot be used is dropped,
    /// not the answer. (A `test_generation` answer's steps are one test: they stand together.)
    fn list_names(self) -> &'static [&'static str] {
        match self {
            Skill::PageAnalysis => &["frontier_tasks", "test_ideas"],
            Skill::Intent | Skill::TrajectoryLabeling | Skill::TestGeneration => &[],
        }
    }

    /// The skill's schema compiled: the whole answer's, and one item's of each of its lists.
    fn compiled(self) -> &'static Compiled {
        static V: OnceLock<Vec<(Skill, Compiled)>> = OnceLock::new();
        let compile = |schema: &Value| {
            jsonschema::options()
                .with_draft(jsonschema::Draft::Draft202012)
                .with_pattern_options(jsonschema::PatternOptions::regex())
                .build(schema)
                .expect("embedded skill schema compiles")
        };
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
                let lists = s
                    .list_names()
                    .iter()
                    .map(|l| (*l, compile(&schema["properties"][l]["items"])))
                    .collect();
                (s, (compile(&schema), lists))
            })
            .collect()
        });
        &all.iter()
            .find(|(s, _)| *s == self)
            .expect("every skill has a schema")
            .1
    }

    /// The lists whose items stand alone, each with its item's validator.
    pub(crate) fn item_lists(self) -> &'static ItemLists {
        &self.compiled().1
    }

    /// The validation errors of an answer (empty when it is valid).
    pub(crate) fn check(self, answer: &Value) -> Vec<String> {
        self.compiled()
            .0
            .iter_errors(answer)
            .map(|e| {
                let at = e.instance_path().to_string();
                format!("{}: {e}", if at.is_empty() { "/" } else { &at })
            })
            .collect()
    }
}

/// A skill's schema compiled: the whole answer's validator, and its lists'.
type Compiled = (
    jsonschema::Validator,
    Vec<(&'static str, jsonschema::Validator)>,
);

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
    /// The agent logs are beside it and named after it:
    /// `<this>-<skill>-<question>.<attempt>.agent.log`.
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
    /// snapshot ref becomes role and name, which outlive the snapshot), or says why runner
    /// cannot use it.
    pub(crate) normalize: &'a Normalize<'a>,
    /// The same for each item of the skill's lists ([`Skill::item_lists`]): an item it refuses
    /// is dropped, not the answer.
    pub(crate) fit_item: &'a FitItem<'a>,
}

/// Puts a whole answer in the form runner uses it in, or says why runner cannot.
pub(crate) type Normalize<'a> = dyn Fn(&mut Value) -> Result<(), String> + Send + Sync + 'a;

/// Takes an answer as it is.
// A hook: its type is the one `SkillCall` takes.
#[allow(clippy::unnecessary_wraps)]
pub(crate) fn keep(_: &mut Value) -> Result<(), String> {
    Ok(())
}

/// An answer runner can use.
#[derive(Debug)]
pub(crate) struct Answer {
    pub(crate) value: Value,
    /// The items dropped from it, each named with the reason (`frontier_tasks[3] (drag
    /// text=Add to cart): ...`); kept in the cache with it, so a replay says so too.
    pub(crate) dropped: Vec<String>,
    /// The cache file it was read from; `None`: the agent gave it in this run.
    pub(crate) cached: Option<PathBuf>,
}

/// The hex name of a question: the cache file's, and in its agent logs' names. Of the question
/// with each secret in it named, not shown ([`Masker::mask_named`]: `{{ secrets.CUST_B }}`): a
/// hash of the question with a secret's value in it would let anyone who reads the cache (it
/// may be committed) or the artifacts' log names test guesses of the secret offline, and one
/// of the question masked (`***` for every secret) made questions that read different secrets
/// one question (customer B's `act` replayed customer A's click). A question that differs only
/// by a secret's value is the same question (its answer, holding no secret, is replayed; one
/// holding a secret is never cached). None when a secret in it cannot be named (a value made
/// of one that shows none of its forms): such a question is never cached.
fn question_id(skill: Skill, key: &Value, masker: &Masker) -> Option<String> {
    let named = masker.mask_named(&key.to_string())?;
    Some(hex_hash(skill, &named))
}

/// The SHA-256 of the skill's name and a question's text, in hex.
fn hex_hash(skill: Skill, question: &str) -> String {
    let mut h = Sha256::new();
    h.update(skill.name().as_bytes());
    h.update([0]);
    h.update(question.as_bytes());
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// Why a question is not cached when [`question_id`] has no name for it.
const UNNAMED: &str = "the question holds a value made of a secret in which runner cannot tell which secret it is, so it is never cached (a cache entry could not tell it from the same question with another secret)";

/// The file an answer to `key` is cached in (named after the question with its secrets named
/// by `masker`); none when the question is never cached ([`question_id`]).
pub(crate) fn cache_file(
    dir: &Path,
    skill: Skill,
    key: &Value,
    masker: &Masker,
) -> Option<PathBuf> {
    let id = question_id(skill, key, masker)?;
    Some(dir.join(skill.name()).join(format!("{id}.json")))
}

/// The most runner reads of one cached answer.
const MAX_ENTRY: u64 = 16 << 20;

/// The cache, for reading and writing inside it: nothing through a link, only regular files
/// (a repository may hold the cache, so that CI replays without an agent).
fn cache_tree<'a>(env: &'a SkillEnv<'_>) -> Tree<'a> {
    Tree::new(&env.cache_dir, Owner::AgentCache)
}

/// The cache's entry for `key`: none when there is none or the cache is off; an error when
/// what is there is not read (a link, a FIFO, a file over the cap). One that is not JSON counts
/// as none (a read-write run replaces it).
fn entry(env: &SkillEnv<'_>, skill: Skill, key: &Value) -> Result<Option<Value>, TreeError> {
    if env.cache == CacheMode::Off {
        return Ok(None);
    }
    let Some(file) = cache_file(&env.cache_dir, skill, key, &env.masker) else {
        return Ok(None);
    };
    match cache_tree(env).read_text(&file, MAX_ENTRY) {
        Ok(text) => Ok(serde_json::from_str(&text).ok()),
        Err(e) if e.is_not_found() => Ok(None),
        Err(e) => Err(e),
    }
}

/// The cached answer to `key`, if there is a valid one and the cache is read.
pub(crate) fn cached(env: &SkillEnv<'_>, skill: Skill, key: &Value) -> Option<Value> {
    let entry = entry(env, skill, key).ok()??;
    answer_of(skill, &entry).map(|a| a.value)
}

/// The answer an entry holds, if it is a valid one.
fn answer_of(skill: Skill, v: &Value) -> Option<Answer> {
    let answer = v.get("answer")?.clone();
    let dropped = v
        .get("dropped")
        .and_then(Value::as_array)
        .map(|d| {
            d.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    skill.check(&answer).is_empty().then_some(Answer {
        value: answer,
        dropped,
        cached: None,
    })
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
fn store(env: &SkillEnv<'_>, skill: Skill, key: &Value, answer: &Answer) {
    if env.cache != CacheMode::ReadWrite {
        return;
    }
    let entry = if holds_secret(&env.masker, &answer.value) {
        json!({ "skill": skill.name(), "key": key, "not_cached": HOLDS_SECRET })
    } else {
        json!({ "skill": skill.name(), "key": key, "answer": answer.value, "dropped": answer.dropped })
    };
    let Some(file) = cache_file(&env.cache_dir, skill, key, &env.masker) else {
        (env.relay)(&format!(
            "the `{}` answer is not cached: {UNNAMED}",
            skill.name()
        ));
        return;
    };
    let text = serde_json::to_string_pretty(&entry).unwrap_or_default();
    if let Err(e) = cache_tree(env).write(&file, env.masker.mask(&text).as_bytes()) {
        (env.relay)(&format!("the `{}` answer is not cached: {e}", skill.name()));
    }
}

/// The error of a read-only run that has no answer to give (`entry`: what the cache holds for
/// the question).
fn read_only_miss(
    c: &SkillCall<'_>,
    entry: &Result<Option<Value>, TreeError>,
    masker: &Masker,
) -> StepError {
    let skill = c.skill.name();
    if question_id(c.skill, &c.key, masker).is_none() {
        return StepError::new(
            ErrorKind::Skill,
            format!(
                "no cached `{skill}` answer for this question: {UNNAMED}, and the agent cache is read-only (--agent-cache read-only): this question needs its agent on every run"
            ),
        );
    }
    // Why the cache holds no answer, when its entry says (an answer that held a secret).
    let not_cached = |v: &Value| v.get("not_cached")?.as_str().map(str::to_string);
    let message = match entry.as_ref().map(|e| e.as_ref().and_then(not_cached)) {
        Err(e) => format!(
            "the cached `{skill}` answer cannot be read: {e}; the agent cache is read-only (--agent-cache read-only): remove it and record the answer with a read-write run"
        ),
        Ok(Some(why)) => format!(
            "no cached `{skill}` answer for this question: {why}, so it is never cached (a replay would give back `***` where the secret was), and the agent cache is read-only (--agent-cache read-only): this question needs its agent on every run"
        ),
        Ok(None) => format!(
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

/// Asks the question: the cache first (unless off), then the agent, once more with the
/// reasons if its answer cannot be used.
pub(crate) async fn call(c: &SkillCall<'_>, env: &SkillEnv<'_>) -> Result<Answer, StepError> {
    let entry = entry(env, c.skill, &c.key);
    if c.use_cache
        && let Ok(Some(v)) = &entry
        && let Some(mut answer) = answer_of(c.skill, v)
    {
        answer.cached = cache_file(&env.cache_dir, c.skill, &c.key, &env.masker);
        return Ok(answer);
    }
    let fail = |m: String| StepError::new(ErrorKind::Skill, m);
    if env.cache == CacheMode::ReadOnly {
        return Err(read_only_miss(c, &entry, &env.masker));
    }
    if let Err(e) = &entry {
        (env.relay)(&format!("the cached answer is not read: {e}"));
    }
    let Some(label) = c.profile else {
        return Err(fail(format!(
            "the `{}` skill needs an agent profile (`profile:` on the step)",
            c.skill.name()
        )));
    };
    let first = prompt(c.skill, &c.input);
    let mut message = first.clone();
    let mut logs = Vec::new();
    for attempt in 1..=2 {
        let log = log_file(env, c.skill, &c.key, attempt);
        let text = ask(label, c.variant, &message, &log, env).await?;
        logs.push(log.display().to_string());
        let errors = match extract_json(&text) {
            Some(value) => match usable(c, value, &env.masker) {
                Ok(answer) => {
                    store(env, c.skill, &c.key, &answer);
                    if env.cache == CacheMode::ReadWrite && holds_secret(&env.masker, &answer.value)
                    {
                        (env.relay)(&format!(
                            "the `{}` answer holds a secret: it is not cached (a read-only run cannot replay it)",
                            c.skill.name()
                        ));
                    }
                    return Ok(answer);
                }
                Err(errors) => errors,
            },
            None => vec!["the answer holds no JSON object".to_string()],
        };
        if attempt == 2 {
            return Err(fail(format!(
                "agent `{label}` gave no usable `{}` answer (asked twice): {}; the agent's text is in {}",
                c.skill.name(),
                errors.join("; "),
                logs.join(" and ")
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

/// The answer in runner's form, its unusable items dropped; or why it cannot be used at all:
/// it breaks the schema, the caller refuses it, or every item it had was dropped.
fn usable(c: &SkillCall<'_>, mut value: Value, masker: &Masker) -> Result<Answer, Vec<String>> {
    let sifted = sift(c.skill.item_lists(), &mut value, c.fit_item, masker);
    (c.normalize)(&mut value).map_err(|e| vec![e])?;
    let errors = c.skill.check(&value);
    if !errors.is_empty() {
        return Err(errors);
    }
    if sifted.given > 0 && sifted.kept == 0 {
        let mut errors = vec![format!(
            "nothing in the answer is usable: its {} items were all dropped",
            sifted.given
        )];
        errors.extend(sifted.dropped);
        return Err(errors);
    }
    Ok(Answer {
        value,
        dropped: sifted.dropped,
        cached: None,
    })
}

/// Where attempt `attempt` at a question logs the agent's output: beside `env.log_path`, named
/// after the skill and the question (`skill-page_analysis-1a2b3c4d5e6f.1.agent.log`), so each
/// question of a run keeps its own log.
fn log_file(env: &SkillEnv<'_>, skill: Skill, key: &Value, attempt: u32) -> PathBuf {
    let stem = env
        .log_path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // A question never cached is named by its text masked (no secret's value in it either).
    let id = question_id(skill, key, &env.masker)
        .unwrap_or_else(|| hex_hash(skill, &env.masker.mask(&key.to_string())));
    env.log_path.with_file_name(format!(
        "{stem}-{}-{}.{attempt}.agent.log",
        skill.name(),
        &id[..12]
    ))
}

/// One new chat; the agent's final answer text.
async fn ask(
    label: &str,
    variant: Option<&str>,
    message: &str,
    log: &Path,
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
        log_path: log.to_path_buf(),
        masker: env.masker.clone(),
        relay: env.relay.clone(),
        cancel: env.cancel.clone(),
    };
    let running = execution::start(launch).map_err(StepError::from)?;
    let finished = running
        .task
        .await
        .map_err(|e| StepError::from(AgentError::Task(e.to_string())))?;
    if let Some(bad) = finished.invalid_session_id {
        return Err(StepError::from(AgentError::InvalidSessionId(bad)));
    }
    let err = match finished.ended {
        Ended::Exited if finished.exit_code == Some(0) && !finished.state.is_error => {
            return Ok(finished.state.answer().unwrap_or_default());
        }
        Ended::Timeout => AgentError::Timeout(env.timeout),
        Ended::Idle => AgentError::Idle,
        Ended::Interrupted => AgentError::Interrupted,
        Ended::Stopped => AgentError::Stopped,
        Ended::Overlong => AgentError::Overlong {
            profile: label.to_string(),
            mib: execution::MAX_LINE >> 20,
        },
        Ended::Exited if finished.exit_code != Some(0) => AgentError::Exited {
            code: finished
                .exit_code
                .map_or("none (killed by a signal)".to_string(), |c| c.to_string()),
            log: log.display().to_string(),
        },
        Ended::Exited => {
            AgentError::Reported(finished.state.kept_answer(&env.masker).unwrap_or_default())
        }
    };
    // What the agent wrote before it failed is worth reading (an exit's message names the log
    // already; a stop is runner's own doing).
    let point_at_log = !matches!(
        err,
        AgentError::Exited { .. } | AgentError::Interrupted | AgentError::Stopped
    );
    let mut err = StepError::from(err);
    if point_at_log && log.exists() {
        err.message = format!("{}; see {}", err.message, log.display());
    }
    Err(err)
}

#[cfg(test)]
mod tests;
