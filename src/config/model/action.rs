//! A step's action: one variant per action key, its key, and the rules of the schema each
//! action's types do not carry.

use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::Value;

use super::agent::{ActAction, AgentAction, LinkState};
use super::control::{EachAction, GroupAction};
use super::element::{
    DispatchAction, FillAction, PressAction, ScrollAction, SelectAction, UploadAction,
};
use super::exec::{ExecAction, RunFlow};
use super::expect::ExpectAction;
use super::keyboard::KeyboardAction;
use super::page::{DialogAction, DownloadAction, OpenAction, RouteAction, StateAction, TabAction};
use super::read::{InspectAction, ScreenshotOptions, SnapshotOptions, WaitAction};
use super::request::RequestAction;
use super::selector::PointerTarget;
use super::value::{Toggle, True};

/// Every action key, in the order the schema lists them.
pub(crate) const ACTION_KEYS: &[&str] = &[
    "open",
    "back",
    "forward",
    "reload",
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
    "keyboard",
    "scroll",
    "select",
    "dispatch",
    "dialog",
    "tab",
    "route",
    "upload",
    "download",
    "state",
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
    "request",
    "set",
    "log",
    "run_flow",
    "each",
    "group",
];

/// A step's action with its (not yet rendered) value.
// Built once per step at load time; boxing the larger variants would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Action {
    Open(OpenAction),
    Back(True),
    Forward(True),
    Reload(True),
    Snapshot(Toggle<SnapshotOptions>),
    Click(PointerTarget),
    Dblclick(PointerTarget),
    Hover(PointerTarget),
    Focus(PointerTarget),
    Check(PointerTarget),
    Uncheck(PointerTarget),
    Fill(FillAction),
    Type(FillAction),
    Press(PressAction),
    Keyboard(KeyboardAction),
    Scroll(ScrollAction),
    Select(SelectAction),
    Dispatch(DispatchAction),
    Upload(UploadAction),
    Dialog(DialogAction),
    Tab(TabAction),
    Route(RouteAction),
    Download(DownloadAction),
    State(StateAction),
    Wait(WaitAction),
    Screenshot(Toggle<ScreenshotOptions>),
    Eval(String),
    Inspect(InspectAction),
    Act(ActAction),
    Expect(Box<ExpectAction>),
    Agent(AgentAction),
    StopAgent(String),
    LinkState(LinkState),
    Exec(ExecAction),
    Request(RequestAction),
    Set(IndexMap<String, Value>),
    Log(Value),
    RunFlow(RunFlow),
    Each(EachAction),
    Group(GroupAction),
}

impl Action {
    /// The action key.
    pub(crate) fn key(&self) -> &'static str {
        match self {
            Action::Open(_) => "open",
            Action::Back(_) => "back",
            Action::Forward(_) => "forward",
            Action::Reload(_) => "reload",
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
            Action::Keyboard(_) => "keyboard",
            Action::Scroll(_) => "scroll",
            Action::Select(_) => "select",
            Action::Dispatch(_) => "dispatch",
            Action::Upload(_) => "upload",
            Action::Dialog(_) => "dialog",
            Action::Tab(_) => "tab",
            Action::Route(_) => "route",
            Action::Download(_) => "download",
            Action::State(_) => "state",
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
            Action::Request(_) => "request",
            Action::Set(_) => "set",
            Action::Log(_) => "log",
            Action::RunFlow(_) => "run_flow",
            Action::Each(_) => "each",
            Action::Group(_) => "group",
        }
    }
}

impl Action {
    /// A `group`'s name (its label).
    pub(crate) fn group_name(&self) -> Option<&str> {
        match self {
            Action::Group(g) => Some(&g.name),
            _ => None,
        }
    }
}

impl Action {
    /// The rules of the schema that the types alone do not enforce: each action's own `check`.
    pub(crate) fn check(&self) -> Result<(), String> {
        match self {
            Action::Click(s)
            | Action::Dblclick(s)
            | Action::Hover(s)
            | Action::Focus(s)
            | Action::Check(s)
            | Action::Uncheck(s) => s.check(),
            Action::Fill(f) | Action::Type(f) => f.target.check(),
            Action::Press(p) => p.check(),
            Action::Keyboard(k) => k.check(),
            Action::Scroll(s) => s.check(),
            Action::Select(s) => s.target.check(),
            Action::Dispatch(d) => d.check(),
            Action::Upload(u) => u.check(),
            Action::Dialog(d) => d.check(),
            Action::Tab(t) => t.check(),
            Action::Route(r) => r.check(),
            Action::Download(d) => d.check(),
            Action::State(s) => s.check(),
            Action::Wait(w) => w.check(),
            Action::Inspect(i) => i.target.check(),
            Action::Expect(e) => e.check(),
            Action::Exec(e) => e.check(),
            Action::Set(m) if m.is_empty() => Err("empty `set`".into()),
            Action::Log(Value::Null) => Err("`log` needs a message".into()),
            Action::Each(e) => e.check(),
            Action::Group(g) => g.check(),
            Action::Open(_)
            | Action::Back(_)
            | Action::Forward(_)
            | Action::Reload(_)
            | Action::Snapshot(_)
            | Action::Screenshot(_)
            | Action::Eval(_)
            | Action::Act(_)
            | Action::Agent(_)
            | Action::StopAgent(_)
            | Action::LinkState(_)
            | Action::Request(_)
            | Action::Set(_)
            | Action::Log(_)
            | Action::RunFlow(_) => Ok(()),
        }
    }
}
