//! What a crawl is asked to do: where it starts, how far it goes, what it may do, where it
//! writes; and the agent whose skills it asks, when there is one.

use std::path::PathBuf;

use crate::agent::SkillEnv;

/// Crawl settings.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    pub(crate) url: String,
    pub(crate) max_depth: usize,
    pub(crate) max_nodes: usize,
    pub(crate) allow_destructive: bool,
    pub(crate) atlas: PathBuf,
    /// How a new atlas tells states apart (`--fingerprint`, runner.toml's `[atlas]
    /// fingerprint`); `None`: as the atlas was made (by structure, for a new one).
    pub(crate) fingerprint: Option<crate::config::project::Fingerprint>,
    pub(crate) artifacts: PathBuf,
    pub(crate) run_id: String,
    /// The web server the URL is on (its name), kept in `atlas.json`: replays go to that
    /// server's origin of their own run.
    pub(crate) server: Option<String>,
    /// That server's URL.
    pub(crate) server_url: Option<String>,
    /// What the atlas's stored steps may reach (runner.toml's `[atlas]`).
    pub(crate) reach: crate::atlas::Reach,
    /// What masks the crawl (the agent's masker, when there is one, and the web servers'
    /// logs'): the crawl adds the atlas's secrets to it before it opens a page.
    pub(crate) masker: crate::step::Masker,
}

/// The agent behind `explore --agent`: where and how its skills are asked.
pub(crate) struct ExploreAgent<'a> {
    pub(crate) env: SkillEnv<'a>,
    /// `None` when answers may only come from the cache (`--agent-cache read-only`).
    pub(crate) profile: Option<String>,
}
