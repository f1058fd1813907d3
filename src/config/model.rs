//! The typed model of a flow, deserialized from the validated `Value`. The JSON Schema in
//! `schemas/flow.schema.json` and these types describe the same data; a test keeps them in step.

use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::Value;

/// A whole flow file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Flow {
    /// Accepted so editors can point at the schema; not used.
    #[serde(rename = "$schema")]
    #[allow(dead_code)]
    pub(crate) schema: Option<String>,
    pub(crate) name: String,
    /// Documentation for readers of the flow; not used.
    #[allow(dead_code)]
    pub(crate) description: Option<String>,
    #[serde(default)]
    pub(crate) tags: Vec<String>,
    #[serde(default)]
    pub(crate) vars: IndexMap<String, Value>,
    #[serde(default)]
    pub(crate) secrets: Vec<String>,
    #[serde(default)]
    pub(crate) env: IndexMap<String, Scalar>,
    pub(crate) web_server: Option<WebServer>,
    pub(crate) atlas: Option<String>,
    pub(crate) browser: Option<BrowserDefaults>,
    /// The agent profile `act` steps ask when they name none (`--agent` when this is unset).
    pub(crate) agent: Option<String>,
    pub(crate) defaults: Option<StepDefaults>,
    pub(crate) steps: Vec<Step>,
    #[serde(default)]
    pub(crate) finally: Vec<Step>,
    #[serde(default)]
    pub(crate) outputs: IndexMap<String, Value>,
}

/// A string, number or boolean (environment values, log messages).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum Scalar {
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
pub(crate) struct WebServer {
    #[serde(rename = "static")]
    pub(crate) static_dir: Option<String>,
    pub(crate) command: Option<Command>,
    pub(crate) url: Option<String>,
    pub(crate) ready_timeout: Option<String>,
}

/// `browser:`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct BrowserDefaults {
    pub(crate) headed: Option<bool>,
    pub(crate) timeout: Option<String>,
    /// A running browser's DevTools endpoint to connect to instead of launching one.
    pub(crate) cdp: Option<String>,
}

/// `defaults:`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct StepDefaults {
    pub(crate) timeout: Option<String>,
    pub(crate) retry: Option<Retry>,
}

/// `retry:` — a number of attempts or the full form.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum Retry {
    Attempts(u32),
    Full(RetryPolicy),
}

/// The full form of `retry:`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RetryPolicy {
    pub(crate) attempts: Option<u32>,
    pub(crate) delay: Option<String>,
    pub(crate) backoff: Option<f64>,
    pub(crate) max_delay: Option<String>,
    pub(crate) on: Option<Vec<ErrorKindName>>,
}

/// Error kinds `retry.on` can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ErrorKindName {
    Timeout,
    NotFound,
    Assertion,
    CommandFailed,
    Any,
}

/// A command: argv or a string.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum Command {
    String(String),
    Argv(Vec<String>),
}

/// One step: the common keys and its action.
#[derive(Debug, Clone)]
pub(crate) struct Step {
    pub(crate) id: Option<String>,
    pub(crate) name: Option<String>,
    pub(crate) condition: Option<Value>,
    pub(crate) timeout: Option<String>,
    pub(crate) retry: Option<Retry>,
    pub(crate) continue_on_error: bool,
    pub(crate) action: Action,
}

/// The keys every step may have besides its action.
pub(crate) const COMMON_KEYS: &[&str] =
    &["id", "name", "if", "timeout", "retry", "continue_on_error"];

/// Every action key, in the order the schema lists them.
pub(crate) const ACTION_KEYS: &[&str] = &[
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
    "dialog",
    "upload",
    "wait",
    "screenshot",
    "eval",
    "inspect",
    "act",
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
pub(crate) enum Action {
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
    Upload(UploadAction),
    Dialog(DialogAction),
    Wait(WaitAction),
    Screenshot(Toggle<ScreenshotOptions>),
    Eval(String),
    Inspect(InspectAction),
    Act(ActAction),
    Expect(ExpectAction),
    Agent(AgentAction),
    StopAgent(String),
    LinkState(LinkState),
    Exec(ExecAction),
    Set(IndexMap<String, Value>),
    Log(Value),
    RunFlow(RunFlow),
}

impl Action {
    /// The action key.
    pub(crate) fn key(&self) -> &'static str {
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
            Action::Upload(_) => "upload",
            Action::Dialog(_) => "dialog",
            Action::Wait(_) => "wait",
            Action::Screenshot(_) => "screenshot",
            Action::Eval(_) => "eval",
            Action::Inspect(_) => "inspect",
            Action::Act(_) => "act",
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

/// `true` or an options object.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum Toggle<T> {
    On(True),
    Options(T),
}

/// Only the literal `true`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct True;

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
pub(crate) struct SnapshotOptions {
    pub(crate) interactive: Option<bool>,
    pub(crate) compact: Option<bool>,
    pub(crate) depth: Option<u32>,
    pub(crate) scope: Option<Selector>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ScreenshotOptions {
    pub(crate) path: Option<String>,
    pub(crate) target: Option<Selector>,
    pub(crate) full_page: Option<bool>,
}

/// An ElementSelector (SPEC §3.2).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum Selector {
    String(String),
    Object(SelectorObject),
    List(Vec<SelectorItem>),
}

/// One entry of a fallback list.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum SelectorItem {
    String(String),
    Object(SelectorObject),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SelectorObject {
    #[serde(rename = "ref")]
    pub(crate) reference: Option<String>,
    pub(crate) role: Option<String>,
    pub(crate) text: Option<String>,
    pub(crate) exact: Option<bool>,
    pub(crate) css: Option<String>,
    pub(crate) tag: Option<String>,
    /// Which match, when several do: 0-based, negative counts from the end.
    pub(crate) nth: Option<i64>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FillAction {
    pub(crate) target: Selector,
    pub(crate) value: Scalar,
}

/// `dialog`: the answer to the page's `alert`/`confirm`/`prompt`: `accept`, `dismiss`, or
/// `{ accept, text }` (the text typed into a prompt).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum DialogAction {
    Word(String),
    Full(DialogAnswer),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DialogAnswer {
    pub(crate) accept: Option<bool>,
    pub(crate) text: Option<String>,
}

impl DialogAction {
    /// Whether it accepts, and the prompt's text.
    pub(crate) fn answer(&self) -> (bool, Option<&str>) {
        match self {
            DialogAction::Word(w) => (w == "accept", None),
            DialogAction::Full(a) => (a.accept.unwrap_or(true), a.text.as_deref()),
        }
    }
}

/// `upload`: files for a file input, paths relative to the flow's directory.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct UploadAction {
    pub(crate) target: Selector,
    pub(crate) files: OneOrMany,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SelectAction {
    pub(crate) target: Selector,
    pub(crate) value: OneOrMany,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum WaitAction {
    Duration(String),
    For(WaitOptions),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct WaitOptions {
    #[serde(rename = "for")]
    pub(crate) target: Option<Selector>,
    pub(crate) state: Option<VisibleState>,
    pub(crate) text: Option<String>,
    pub(crate) url: Option<String>,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum VisibleState {
    Visible,
    Hidden,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct InspectAction {
    pub(crate) target: Selector,
    pub(crate) depth: Option<u32>,
    pub(crate) include_styles: Option<bool>,
    pub(crate) max_size: Option<Size>,
    pub(crate) format: Option<InspectFormat>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum Size {
    Bytes(u64),
    Text(String),
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum InspectFormat {
    Html,
    Aria,
    Text,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExpectAction {
    pub(crate) url: Option<Matcher>,
    pub(crate) title: Option<Matcher>,
    pub(crate) visible: Option<Selector>,
    pub(crate) hidden: Option<Selector>,
    pub(crate) text: Option<TargetMatcher>,
    pub(crate) value: Option<TargetMatcher>,
    pub(crate) count: Option<CountMatcher>,
    pub(crate) checked: Option<Selector>,
    pub(crate) that: Option<Value>,
}

impl ExpectAction {
    /// Whether it asserts anything about the page (everything but `that`).
    pub(crate) fn has_browser_checks(&self) -> bool {
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
pub(crate) enum Matcher {
    Equals(String),
    Full(MatcherOptions),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct MatcherOptions {
    pub(crate) equals: Option<String>,
    pub(crate) contains: Option<String>,
    pub(crate) matches: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TargetMatcher {
    pub(crate) target: Selector,
    pub(crate) equals: Option<String>,
    pub(crate) contains: Option<String>,
    pub(crate) matches: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CountMatcher {
    pub(crate) target: Selector,
    pub(crate) equals: Option<IntOrTemplate>,
    pub(crate) min: Option<IntOrTemplate>,
    pub(crate) max: Option<IntOrTemplate>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum IntOrTemplate {
    Int(i64),
    Template(String),
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
pub(crate) fn check_constraints(flow: &Value) -> Result<(), String> {
    let f: Flow = serde_json::from_value(flow.clone()).map_err(|e| e.to_string())?;
    f.check()
}

impl Flow {
    /// Every step, `finally` included.
    pub(crate) fn all_steps(&self) -> impl Iterator<Item = &Step> {
        self.steps.iter().chain(&self.finally)
    }

    /// Whether the flow drives the browser (then its browser can be launched ahead).
    pub(crate) fn uses_browser(&self) -> bool {
        self.all_steps().any(|s| s.action.needs_browser())
    }

    /// Whether the flow has `link_state` steps (then the steps it runs are recorded for edges).
    pub(crate) fn records_states(&self) -> bool {
        self.all_steps()
            .any(|s| matches!(s.action, Action::LinkState(_)))
    }

    /// The flow-level rules the types alone do not enforce.
    pub(crate) fn check(&self) -> Result<(), String> {
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
    pub(crate) fn check(&self) -> Result<(), String> {
        match self {
            Action::Click(s)
            | Action::Dblclick(s)
            | Action::Hover(s)
            | Action::Focus(s)
            | Action::Check(s)
            | Action::Uncheck(s) => s.check(),
            Action::Fill(f) | Action::Type(f) => f.target.check(),
            Action::Select(f) => f.target.check(),
            Action::Dialog(DialogAction::Word(w)) if w != "accept" && w != "dismiss" => {
                Err(format!("`dialog: {w}`: expected accept or dismiss"))
            }
            Action::Upload(u) => match &u.files {
                OneOrMany::Many(v) if v.is_empty() => {
                    Err("`upload` needs at least one file".into())
                }
                _ => u.target.check(),
            },
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
            Action::Log(Value::Null) => Err("`log` needs a message".into()),
            _ => Ok(()),
        }
    }
}
