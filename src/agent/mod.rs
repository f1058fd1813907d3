//! AI coding agents: the execution service (spawn, relay, stop), session-id resolution, the
//! active-execution registry, and the `agent` / `stop_agent` steps. Profiles are loaded by
//! `config`.

mod error;
mod execution;
mod kind;
mod registry;
mod session_id;
mod skill;
mod step;

pub(crate) use registry::stop_flow;
pub(crate) use skill::{
    CacheMode, Skill, SkillCall, SkillEnv, cached as cached_skill_answer, call as call_skill,
};
pub(crate) use step::{AgentCtx, run_step, stop_step};
