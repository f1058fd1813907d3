//! Steps that involve AI coding agents or the atlas: `act` (an instruction the resolver or an
//! agent carries out), `agent` (start or follow up a chat) and `link_state`.

use indexmap::IndexMap;
use serde::Deserialize;

use super::value::Scalar;

/// `act: "click the Sign in button"`, or with the agent profile that resolves what the built-in
/// resolver cannot.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum ActAction {
    Intent(String),
    Options(ActOptions),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ActOptions {
    pub(crate) intent: String,
    pub(crate) profile: Option<String>,
    pub(crate) variant: Option<String>,
}

impl ActAction {
    /// The instruction, its profile and variant.
    pub(crate) fn parts(&self) -> (&str, Option<&str>, Option<&str>) {
        match self {
            ActAction::Intent(i) => (i, None, None),
            ActAction::Options(o) => (&o.intent, o.profile.as_deref(), o.variant.as_deref()),
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AgentAction {
    pub(crate) profile: String,
    pub(crate) variant: Option<String>,
    pub(crate) prompt: Option<String>,
    pub(crate) follow_up: Option<String>,
    pub(crate) session: Option<String>,
    pub(crate) message: Option<String>,
    pub(crate) workspace: Option<String>,
    pub(crate) timeout: Option<String>,
    pub(crate) idle_timeout: Option<String>,
    pub(crate) background: Option<bool>,
    #[serde(default)]
    pub(crate) env: IndexMap<String, Scalar>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum LinkState {
    Action(String),
    Full(LinkStateOptions),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct LinkStateOptions {
    pub(crate) action: String,
    pub(crate) atlas: Option<String>,
}
