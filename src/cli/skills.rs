//! The agent skills `explore` and `atlas test` ask: where, and how their answers are cached.

use std::sync::Arc;

use super::args::AgentArgs;
use super::error::CliError;
use crate::agent::{CacheMode, SkillEnv};
use crate::atlas::ExploreAgent;
use crate::engine::Runtime;

/// Where the explorer's skills are asked: the `--agent` profile (none with a read-only cache
/// is fine: answers come from the cache), answers cached under `.runner/cache/skills`, agent
/// logs under `.runner/logs/<run-id>/`.
pub(super) fn skill_env<'a>(
    rt: &'a Runtime,
    args: &AgentArgs,
    run_id: &str,
) -> Result<Option<ExploreAgent<'a>>, CliError> {
    let cache = args.agent_cache.mode();
    if args.agent.is_none() && cache != CacheMode::ReadOnly {
        return Ok(None);
    }
    if let Some(p) = &args.agent
        && rt.profiles.get_profile(p).is_none()
    {
        return Err(CliError::Usage(format!(
            "no agent profile `{p}` (see `runner profiles list`)"
        )));
    }
    let cwd = std::env::current_dir()
        .map_err(|e| CliError::Environment(format!("cannot read the current directory: {e}")))?;
    let logs = cwd.join(".runner/logs").join(run_id);
    crate::fs::make_dir_all(&logs).map_err(|e| {
        CliError::Environment(format!("cannot create {}: {}", logs.display(), e.why()))
    })?;
    Ok(Some(ExploreAgent {
        env: SkillEnv {
            profiles: &rt.profiles,
            cache,
            cache_dir: cwd.join(".runner/cache/skills"),
            workspace: cwd,
            env: indexmap::IndexMap::new(),
            masker: crate::step::Masker::default(),
            relay: Arc::new(|_: &str| {}),
            cancel: tokio_util::sync::CancellationToken::new(),
            log_path: logs.join("skill"),
            timeout: std::time::Duration::from_secs(600),
        },
        profile: args.agent.clone(),
    }))
}
