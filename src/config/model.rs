//! The typed model of a flow, deserialized from the validated `Value`. The JSON Schema in
//! `schemas/flow.schema.json` and these types describe the same data; a test keeps them in step.

use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::Value;

/// A whole flow file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Flow {
    /// Accepted so editors can point at the schema; not used.
    #[serde(rename = "$schema")]
    #[allow(dead_code)]
    pub schema: Option<String>,
    pub name: String,
    /// Documentation for readers of the flow; not used.
    #[allow(dead_code)]
    pub description: Option<String>,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub vars: IndexMap<String, Value>,
    #[serde(default)]
    pub secrets: Vec<String>,
    #[serde(default)]
    pub env: IndexMap<String, Scalar>,
    pub web_server: Option<WebServer>,
    pub atlas: Option<String>,
    pub browser: Option<BrowserDefaults>,
    pub defaults: Option<StepDefaults>,
    pub steps: Vec<Step>,
    #[serde(default)]
    pub finally: Vec<Step>,
    #[serde(default)]
    pub outputs: IndexMap<String, Value>,
}

/// A string, number or boolean (environment values, log messages).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Scalar {
    String(String),
    Number(serde_json::Number),
    Bool(bool),
}

impl std::fmt::Display for Scalar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Scalar::String(s) => f.write_str(s),
            Scalar::Number(n) => write!(f, "{n}"),
            Scalar::Bool(b) => write!(f, "{b}"),
        }
    }
}

/// `web_server:`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebServer {
    #[serde(rename = "static")]
    pub static_dir: Option<String>,
    pub command: Option<Command>,
    pub url: Option<String>,
    pub ready_timeout: Option<String>,
}

/// `browser:`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BrowserDefaults {
    pub headed: Option<bool>,
    pub timeout: Option<String>,
}

/// `defaults:`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepDefaults {
    pub timeout: Option<String>,
    pub retry: Option<Retry>,
}

/// `retry:` — a number of attempts or the full form.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Retry {
    Attempts(u32),
    Full(RetryPolicy),
}

/// The full form of `retry:`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RetryPolicy {
    pub attempts: Option<u32>,
    pub delay: Option<String>,
    pub backoff: Option<f64>,
    pub max_delay: Option<String>,
    pub on: Option<Vec<ErrorKindName>>,
}

/// Error kinds `retry.on` can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKindName {
    Timeout,
    NotFound,
    Assertion,
    CommandFailed,
    Any,
}

/// A command: argv or a string.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Command {
    String(String),
    Argv(Vec<String>),
}

/// One step: the common keys and its action.
#[derive(Debug, Clone)]
pub struct Step {
    pub id: Option<String>,
    pub name: Option<String>,
    pub condition: Option<Value>,
    pub timeout: Option<String>,
    pub retry: Option<Retry>,
    pub continue_on_error: bool,
    pub action: Action,
}

/// The keys every step may have besides its action.
pub const COMMON_KEYS: &[&str] = &["id", "name", "if", "timeout", "retry", "continue_on_error"];

/// Every action key, in the order the schema lists them.
pub const ACTION_KEYS: &[&str] = &[
    "open",
    "snapshot",
    "click",
    "dblclick",
    "hover",
    "focus",
    "check",
    "uncheck",
    "fill",
    "type",
    "press",
    "select",
    "wait",
    "screenshot",
    "eval",
    "inspect",
    "expect",
    "agent",
    "stop_agent",
    "link_state",
    "exec",
    "set",
    "log",
    "run_flow",
];

/// A step's action with its (not yet rendered) value.
// Built once per step at load time; boxing the larger variants would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Open(String),
    Snapshot(Toggle<SnapshotOptions>),
    Click(Selector),
    Dblclick(Selector),
    Hover(Selector),
    Focus(Selector),
    Check(Selector),
    Uncheck(Selector),
    Fill(FillAction),
    Type(FillAction),
    Press(String),
    Select(SelectAction),
    Wait(WaitAction),
    Screenshot(Toggle<ScreenshotOptions>),
    Eval(String),
    Inspect(InspectAction),
    Expect(ExpectAction),
    Agent(AgentAction),
    StopAgent(String),
    LinkState(LinkState),
    Exec(ExecAction),
    Set(IndexMap<String, Value>),
    Log(Scalar),
    RunFlow(RunFlow),
}

impl Action {
    /// The action key.
    pub fn key(&self) -> &'static str {
        match self {
            Action::Open(_) => "open",
            Action::Snapshot(_) => "snapshot",
            Action::Click(_) => "click",
            Action::Dblclick(_) => "dblclick",
            Action::Hover(_) => "hover",
            Action::Focus(_) => "focus",
            Action::Check(_) => "check",
            Action::Uncheck(_) => "uncheck",
            Action::Fill(_) => "fill",
            Action::Type(_) => "type",
            Action::Press(_) => "press",
            Action::Select(_) => "select",
            Action::Wait(_) => "wait",
            Action::Screenshot(_) => "screenshot",
            Action::Eval(_) => "eval",
            Action::Inspect(_) => "inspect",
            Action::Expect(_) => "expect",
            Action::Agent(_) => "agent",
            Action::StopAgent(_) => "stop_agent",
            Action::LinkState(_) => "link_state",
            Action::Exec(_) => "exec",
            Action::Set(_) => "set",
            Action::Log(_) => "log",
            Action::RunFlow(_) => "run_flow",
        }
    }
}

/// Which part of runner carries out an action: one exhaustive answer per action, so a new
/// action cannot silently default to one family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// The engine itself: `log`, `set`, `exec`, `run_flow`, and `expect` (whose page checks go
    /// to the browser, and whose `that` is a template condition).
    Core,
    /// Acts on the page through agent-browser.
    Browser,
    /// Starts or stops AI coding agents.
    Agent,
    /// Records the browser's state into the atlas (`link_state`).
    State,
}

impl Action {
    /// The family that runs this action.
    pub fn family(&self) -> Family {
        match self {
            Action::Open(_)
            | Action::Snapshot(_)
            | Action::Click(_)
            | Action::Dblclick(_)
            | Action::Hover(_)
            | Action::Focus(_)
            | Action::Check(_)
            | Action::Uncheck(_)
            | Action::Fill(_)
            | Action::Type(_)
            | Action::Press(_)
            | Action::Select(_)
            | Action::Wait(_)
            | Action::Screenshot(_)
            | Action::Eval(_)
            | Action::Inspect(_) => Family::Browser,
            Action::Agent(_) | Action::StopAgent(_) => Family::Agent,
            Action::LinkState(_) => Family::State,
            Action::Expect(_)
            | Action::Exec(_)
            | Action::Set(_)
            | Action::Log(_)
            | Action::RunFlow(_) => Family::Core,
        }
    }

    /// Whether the step drives the flow's browser (then it is launched for it, and a failure
    /// leaves a screenshot and a snapshot of the page).
    pub fn needs_browser(&self) -> bool {
        match self.family() {
            Family::Browser | Family::State => true,
            Family::Agent => false,
            Family::Core => matches!(self, Action::Expect(e) if e.has_browser_checks()),
        }
    }

    /// Whether a successful step of this kind goes into the atlas edge that the next
    /// `link_state` records: what changes or checks the page's state, not bookkeeping.
    pub fn recorded_in_atlas(&self) -> bool {
        match self.family() {
            Family::Browser => true,
            Family::Core => matches!(self, Action::Expect(_) | Action::Exec(_)),
            Family::Agent | Family::State => false,
        }
    }

    /// Whether the step ends its own work gracefully on an interrupt (its processes get SIGTERM
    /// and a grace period) instead of being dropped at once.
    pub fn graceful_on_interrupt(&self) -> bool {
        matches!(self, Action::Exec(_) | Action::RunFlow(_))
    }

    /// The timeout of one attempt when the step sets none; `None` means the flow's defaults
    /// apply. A sub-flow's steps have their own timeouts; an agent's is its own `timeout`.
    pub fn own_timeout(&self) -> Option<OwnTimeout> {
        match self {
            Action::RunFlow(_) => Some(OwnTimeout::Unbounded),
            Action::Agent(a) => Some(OwnTimeout::Agent(a.timeout.clone())),
            _ => None,
        }
    }
}

/// A timeout an action brings with it (see [`Action::own_timeout`]).
#[derive(Debug, Clone)]
pub enum OwnTimeout {
    /// No timeout of its own: its inner steps are bounded.
    Unbounded,
    /// The agent step's `timeout` (a duration text), or the agent default.
    Agent(Option<String>),
}

/// `true` or an options object.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Toggle<T> {
    On(True),
    Options(T),
}

/// Only the literal `true`.
#[derive(Debug, Clone, Copy)]
pub struct True;

impl<'de> Deserialize<'de> for True {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<True, D::Error> {
        if bool::deserialize(d)? {
            Ok(True)
        } else {
            Err(serde::de::Error::custom("expected `true` or an object"))
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SnapshotOptions {
    pub interactive: Option<bool>,
    pub compact: Option<bool>,
    pub depth: Option<u32>,
    pub scope: Option<Selector>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScreenshotOptions {
    pub path: Option<String>,
    pub target: Option<Selector>,
    pub full_page: Option<bool>,
}

/// An ElementSelector (SPEC §3.2).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Selector {
    String(String),
    Object(SelectorObject),
    List(Vec<SelectorItem>),
}

/// One entry of a fallback list.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum SelectorItem {
    String(String),
    Object(SelectorObject),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SelectorObject {
    #[serde(rename = "ref")]
    pub reference: Option<String>,
    pub role: Option<String>,
    pub text: Option<String>,
    pub exact: Option<bool>,
    pub css: Option<String>,
    pub tag: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FillAction {
    pub target: Selector,
    pub value: Scalar,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SelectAction {
    pub target: Selector,
    pub value: OneOrMany,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum WaitAction {
    Duration(String),
    For(WaitOptions),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WaitOptions {
    #[serde(rename = "for")]
    pub target: Option<Selector>,
    pub state: Option<VisibleState>,
    pub text: Option<String>,
    pub url: Option<String>,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VisibleState {
    Visible,
    Hidden,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InspectAction {
    pub target: Selector,
    pub depth: Option<u32>,
    pub include_styles: Option<bool>,
    pub max_size: Option<Size>,
    pub format: Option<InspectFormat>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Size {
    Bytes(u64),
    Text(String),
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InspectFormat {
    Html,
    Aria,
    Text,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectAction {
    pub url: Option<Matcher>,
    pub title: Option<Matcher>,
    pub visible: Option<Selector>,
    pub hidden: Option<Selector>,
    pub text: Option<TargetMatcher>,
    pub value: Option<TargetMatcher>,
    pub count: Option<CountMatcher>,
    pub checked: Option<Selector>,
    pub that: Option<Value>,
}

impl ExpectAction {
    /// Whether it asserts anything about the page (everything but `that`).
    pub fn has_browser_checks(&self) -> bool {
        self.url.is_some()
            || self.title.is_some()
            || self.visible.is_some()
            || self.hidden.is_some()
            || self.text.is_some()
            || self.value.is_some()
            || self.count.is_some()
            || self.checked.is_some()
    }
}

/// A plain string (equals) or one of `equals` / `contains` / `matches`.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Matcher {
    Equals(String),
    Full(MatcherOptions),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MatcherOptions {
    pub equals: Option<String>,
    pub contains: Option<String>,
    pub matches: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TargetMatcher {
    pub target: Selector,
    pub equals: Option<String>,
    pub contains: Option<String>,
    pub matches: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CountMatcher {
    pub target: Selector,
    pub equals: Option<IntOrTemplate>,
    pub min: Option<IntOrTemplate>,
    pub max: Option<IntOrTemplate>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum IntOrTemplate {
    Int(i64),
    Template(String),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentAction {
    pub profile: String,
    pub variant: Option<String>,
    pub prompt: Option<String>,
    pub follow_up: Option<String>,
    pub session: Option<String>,
    pub message: Option<String>,
    pub workspace: Option<String>,
    pub timeout: Option<String>,
    pub idle_timeout: Option<String>,
    pub background: Option<bool>,
    #[serde(default)]
    pub env: IndexMap<String, Scalar>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum LinkState {
    Action(String),
    Full(LinkStateOptions),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkStateOptions {
    pub action: String,
    pub atlas: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum ExecAction {
    Short(Command),
    Full(ExecOptions),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExecOptions {
    pub command: Command,
    #[serde(default)]
    pub shell: bool,
    pub cwd: Option<String>,
    #[serde(default)]
    pub env: IndexMap<String, Scalar>,
    pub stdin: Option<String>,
    #[serde(default)]
    pub allow_failure: bool,
}

impl ExecAction {
    /// The full form, whichever way it was written.
    pub fn options(self) -> ExecOptions {
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
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum RunFlow {
    Path(String),
    Full(RunFlowOptions),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunFlowOptions {
    pub path: String,
    #[serde(default)]
    pub vars: IndexMap<String, Value>,
}

impl RunFlow {
    /// The sub-flow's path as written.
    pub fn path(&self) -> &str {
        match self {
            RunFlow::Path(p) => p,
            RunFlow::Full(o) => &o.path,
        }
    }
}

impl<'de> Deserialize<'de> for Step {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Step, D::Error> {
        use serde::de::Error;
        let mut map = serde_json::Map::<String, Value>::deserialize(d)?;
        let mut take = |k: &str| map.remove(k);
        let id = take("id")
            .map(serde_json::from_value)
            .transpose()
            .map_err(D::Error::custom)?;
        let name = take("name")
            .map(serde_json::from_value)
            .transpose()
            .map_err(D::Error::custom)?;
        let condition = take("if");
        if let Some(c) = &condition
            && !(c.is_string() || c.is_boolean())
        {
            return Err(D::Error::custom("`if` must be a string or a boolean"));
        }
        let timeout = take("timeout")
            .map(serde_json::from_value)
            .transpose()
            .map_err(D::Error::custom)?;
        let retry = take("retry")
            .map(serde_json::from_value)
            .transpose()
            .map_err(D::Error::custom)?;
        let continue_on_error = take("continue_on_error")
            .map(serde_json::from_value)
            .transpose()
            .map_err(D::Error::custom)?
            .unwrap_or(false);
        if map.len() != 1 {
            return Err(D::Error::custom(format!(
                "a step needs exactly one action key, found {}",
                map.len()
            )));
        }
        let action: Action =
            serde_json::from_value(Value::Object(map)).map_err(D::Error::custom)?;
        action.check().map_err(D::Error::custom)?;
        Ok(Step {
            id,
            name,
            condition,
            timeout,
            retry,
            continue_on_error,
            action,
        })
    }
}

/// Rules of the schema that serde types do not carry (empty strings and lists, patterns,
/// minimums), checked on a whole flow (the drift tests compare it with the schema).
#[cfg(test)]
pub fn check_constraints(flow: &Value) -> Result<(), String> {
    let f: Flow = serde_json::from_value(flow.clone()).map_err(|e| e.to_string())?;
    f.check()
}

impl Flow {
    /// Every step, `finally` included.
    pub fn all_steps(&self) -> impl Iterator<Item = &Step> {
        self.steps.iter().chain(&self.finally)
    }

    /// The flow's `env` as strings (what exec and agent steps get).
    pub fn env_strings(&self) -> IndexMap<String, String> {
        self.env
            .iter()
            .map(|(k, v)| (k.clone(), v.to_string()))
            .collect()
    }

    /// Whether the flow drives the browser (then its browser can be launched ahead).
    pub fn uses_browser(&self) -> bool {
        self.all_steps().any(|s| s.action.needs_browser())
    }

    /// Whether the flow has `link_state` steps (then the steps it runs are recorded for edges).
    pub fn records_states(&self) -> bool {
        self.all_steps()
            .any(|s| matches!(s.action, Action::LinkState(_)))
    }

    /// The flow-level rules the types alone do not enforce.
    pub fn check(&self) -> Result<(), String> {
        if self.steps.is_empty() {
            return Err("`steps` must not be empty".into());
        }
        if let Some(ws) = &self.web_server {
            let by_static = ws.static_dir.is_some();
            let by_command = ws.command.is_some() && ws.url.is_some();
            if by_static == by_command {
                return Err(
                    "`web_server` needs either `static`, or both `command` and `url`".into(),
                );
            }
        }
        Ok(())
    }
}

impl Selector {
    fn check(&self) -> Result<(), String> {
        let obj = |o: &SelectorObject| {
            let any =
                o.reference.is_some() || o.role.is_some() || o.css.is_some() || o.text.is_some();
            if any {
                Ok(())
            } else {
                Err("a selector needs `ref`, `role`, `css` or `text`".to_string())
            }
        };
        let string = |s: &str| {
            if s.is_empty() {
                Err("empty selector".to_string())
            } else {
                Ok(())
            }
        };
        match self {
            Selector::String(s) => string(s),
            Selector::Object(o) => obj(o),
            Selector::List(l) if l.is_empty() => Err("empty selector list".into()),
            Selector::List(l) => l.iter().try_for_each(|i| match i {
                SelectorItem::String(s) => string(s),
                SelectorItem::Object(o) => obj(o),
            }),
        }
    }
}

impl Command {
    fn check(&self) -> Result<(), String> {
        match self {
            Command::String(s) if s.is_empty() => Err("empty command".into()),
            Command::Argv(a) if a.is_empty() => Err("empty command".into()),
            _ => Ok(()),
        }
    }
}

impl Action {
    /// The rules of the schema that the types alone do not enforce.
    pub fn check(&self) -> Result<(), String> {
        match self {
            Action::Click(s)
            | Action::Dblclick(s)
            | Action::Hover(s)
            | Action::Focus(s)
            | Action::Check(s)
            | Action::Uncheck(s) => s.check(),
            Action::Fill(f) | Action::Type(f) => f.target.check(),
            Action::Select(f) => f.target.check(),
            Action::Inspect(i) => i.target.check(),
            Action::Wait(WaitAction::For(w)) => {
                if w.target.is_none() && w.state.is_none() && w.text.is_none() && w.url.is_none() {
                    return Err("empty `wait`".into());
                }
                w.target.as_ref().map_or(Ok(()), Selector::check)
            }
            Action::Expect(e) => {
                if e.has_browser_checks() || e.that.is_some() {
                    Ok(())
                } else {
                    Err("empty `expect`".into())
                }
            }
            Action::Exec(ExecAction::Short(c)) => c.check(),
            Action::Exec(ExecAction::Full(o)) => o.command.check(),
            Action::Set(m) if m.is_empty() => Err("empty `set`".into()),
            _ => Ok(()),
        }
    }
}
