//! Steps that run something else: a command (`exec`, and the command of `web_server`) or
//! another flow (`run_flow`).

use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::Value;

use super::value::Scalar;

/// A command: argv or a string.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum Command {
    String(String),
    Argv(Vec<String>),
}

impl Command {
    pub(crate) fn check(&self) -> Result<(), String> {
        match self {
            Command::String(s) if s.is_empty() => Err("empty command".into()),
            Command::Argv(a) if a.is_empty() => Err("empty command".into()),
            // No program takes one in an argument: the system cuts it there.
            Command::String(s) => nul_free("the command", s),
            Command::Argv(a) => a.iter().try_for_each(|s| nul_free("an argument", s)),
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum ExecAction {
    Short(Command),
    Full(ExecOptions),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExecOptions {
    pub(crate) command: Command,
    #[serde(default)]
    pub(crate) shell: bool,
    pub(crate) cwd: Option<String>,
    #[serde(default)]
    pub(crate) env: IndexMap<String, Scalar>,
    pub(crate) stdin: Option<String>,
    #[serde(default)]
    pub(crate) allow_failure: bool,
}

impl ExecAction {
    /// The full form, whichever way it was written.
    pub(crate) fn options(self) -> ExecOptions {
        match self {
            ExecAction::Short(command) => ExecOptions {
                command,
                shell: false,
                cwd: None,
                env: IndexMap::new(),
                stdin: None,
                allow_failure: false,
            },
            ExecAction::Full(o) => o,
        }
    }

    pub(crate) fn check(&self) -> Result<(), String> {
        match self {
            ExecAction::Short(c) => c.check(),
            ExecAction::Full(o) => {
                o.command.check()?;
                o.cwd.as_deref().map_or(Ok(()), |c| nul_free("`cwd`", c))
            }
        }
    }
}

/// `what` (`s`) holds no NUL character, which no argument, path or environment value can.
fn nul_free(what: &str, s: &str) -> Result<(), String> {
    if s.contains('\0') {
        return Err(format!("{what} {s:?} holds a NUL character"));
    }
    Ok(())
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum RunFlow {
    Path(String),
    Full(RunFlowOptions),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RunFlowOptions {
    pub(crate) path: String,
    #[serde(default)]
    pub(crate) vars: IndexMap<String, Value>,
}

impl RunFlow {
    /// The sub-flow's path as written.
    pub(crate) fn path(&self) -> &str {
        match self {
            RunFlow::Path(p) => p,
            RunFlow::Full(o) => &o.path,
        }
    }
}
