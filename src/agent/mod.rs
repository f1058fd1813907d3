//! AI coding agents: the execution service (spawn, relay, stop), session-id resolution, the
//! active-execution registry, and the `agent` / `stop_agent` steps. Profiles are loaded by
//! `config`.

mod answer;
mod error;
mod execution;
mod kind;
mod registry;
mod session_id;
mod sift;
mod skill;
mod step;

pub(crate) use answer::{
    intent as intent_answer, selector as answer_selector, verb as answer_verb,
};
pub(crate) use registry::stop_flow;
pub(crate) use sift::keep_item;
pub(crate) use skill::{
    Answer, CacheMode, Skill, SkillCall, SkillEnv, cached as cached_skill_answer,
    call as call_skill, keep,
};
pub(crate) use step::{AgentCtx, run_step, stop_step};
