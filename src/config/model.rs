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
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct BrowserDefaults {
    pub(crate) headed: Option<bool>,
    pub(crate) timeout: Option<String>,
    /// A running browser's DevTools endpoint to connect to instead of launching one.
    pub(crate) cdp: Option<String>,
    /// The answer to a confirm or prompt that no `dialog` step answers.
    pub(crate) dialogs: Option<DialogDefault>,
    /// Device settings of the flow's context.
    pub(crate) viewport: Option<Viewport>,
    pub(crate) device: Option<String>,
    pub(crate) locale: Option<String>,
    pub(crate) timezone: Option<String>,
    pub(crate) color_scheme: Option<ColorScheme>,
    pub(crate) geolocation: Option<Geolocation>,
    pub(crate) offline: Option<bool>,
    pub(crate) headers: Option<IndexMap<String, String>>,
    /// A saved state (cookies, storage) loaded into the flow's context before its first step;
    /// relative to the flow's directory.
    pub(crate) state: Option<String>,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Viewport {
    pub(crate) width: u32,
    pub(crate) height: u32,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ColorScheme {
    Light,
    Dark,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Geolocation {
    pub(crate) latitude: f64,
    pub(crate) longitude: f64,
}

/// `browser.dialogs`.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum DialogDefault {
    Accept,
    Dismiss,
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
    /// The iframe (CSS in the page) the step's selectors look inside, unless they say.
    pub(crate) frame: Option<String>,
    pub(crate) action: Action,
}

/// The keys every step may have besides its action.
pub(crate) const COMMON_KEYS: &[&str] = &[
    "id",
    "name",
    "if",
    "timeout",
    "retry",
    "continue_on_error",
    "frame",
];

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
    "scroll",
    "select",
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
    Press(PressAction),
    Scroll(ScrollAction),
    Select(SelectAction),
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
            Action::Scroll(_) => "scroll",
            Action::Select(_) => "select",
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
    /// The iframe (CSS in the page) to look inside.
    pub(crate) frame: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FillAction {
    pub(crate) target: Selector,
    pub(crate) value: Scalar,
}

/// `press`: a key or chord (`Enter`, `Control+a`) for the focused element, or for a target
/// (focused first).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum PressAction {
    Key(String),
    On(PressOn),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PressOn {
    pub(crate) key: String,
    pub(crate) target: Option<Selector>,
}

impl PressAction {
    pub(crate) fn key(&self) -> &str {
        match self {
            PressAction::Key(k) => k,
            PressAction::On(p) => &p.key,
        }
    }

    pub(crate) fn target(&self) -> Option<&Selector> {
        match self {
            PressAction::Key(_) => None,
            PressAction::On(p) => p.target.as_ref(),
        }
    }
}

/// `scroll`: to an element (scrolled into view), to the `top` or `bottom` of the page, or `by`
/// a number of pixels (negative: up).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ScrollAction {
    pub(crate) to: Option<Selector>,
    pub(crate) by: Option<i64>,
}

/// Where `scroll: { to }` goes.
pub(crate) enum ScrollTo<'a> {
    Top,
    Bottom,
    Element(&'a Selector),
}

impl ScrollAction {
    /// `to`, with the words `top` and `bottom` (never taken for CSS) read as page ends.
    pub(crate) fn to(&self) -> Option<ScrollTo<'_>> {
        self.to.as_ref().map(|s| match s {
            Selector::String(w) if w == "top" => ScrollTo::Top,
            Selector::String(w) if w == "bottom" => ScrollTo::Bottom,
            other => ScrollTo::Element(other),
        })
    }
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

/// `state: { save: PATH }`: the flow's cookies and storage, saved (as Playwright's
/// storageState) for later flows' `browser.state`; the path is relative to the flow's directory.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct StateAction {
    pub(crate) save: String,
}

/// `download`: click an element that starts a download and keep the file (`path`: relative to
/// the flow's artifacts directory; default `downloads/<suggested name>`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DownloadAction {
    pub(crate) target: Selector,
    pub(crate) path: Option<String>,
}

/// `route`: for the rest of the flow, answer the requests whose URL matches `url` (a glob:
/// `*` within a path segment, `**` across) with a stub, or fail them (`abort`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RouteAction {
    pub(crate) url: String,
    pub(crate) status: Option<u16>,
    /// A string is sent as it is; any other JSON value is sent as JSON.
    pub(crate) body: Option<Value>,
    pub(crate) content_type: Option<String>,
    pub(crate) headers: Option<IndexMap<String, String>>,
    #[serde(default)]
    pub(crate) abort: bool,
}

/// `tab`: act on another tab of the flow (`{ switch: last | first | N | { url } }`), or close
/// the current one (`close`: back to the one before it).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum TabAction {
    Word(String),
    Switch(TabSwitch),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TabSwitch {
    pub(crate) switch: TabWhich,
}

/// Which tab: `last` (the newest), `first`, an index (0 is the flow's first tab; negative from
/// the end), or the first whose URL contains `url`.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum TabWhich {
    Index(i64),
    Word(String),
    Url(TabUrl),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TabUrl {
    pub(crate) url: String,
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
    pub(crate) unchecked: Option<Selector>,
    pub(crate) enabled: Option<Selector>,
    pub(crate) disabled: Option<Selector>,
    pub(crate) editable: Option<Selector>,
    pub(crate) focused: Option<Selector>,
    pub(crate) attribute: Option<AttributeMatcher>,
    /// Page checks of which each must NOT hold (re-checked until none does).
    pub(crate) not: Option<Box<ExpectAction>>,
    /// The last dialog of the flow (answered, or open now).
    pub(crate) dialog: Option<DialogMatcher>,
    /// How many tabs the flow has open.
    pub(crate) tabs: Option<TabsMatcher>,
    /// Requests the flow's pages made.
    pub(crate) request: Option<RequestMatcher>,
    pub(crate) that: Option<Value>,
}

impl ExpectAction {
    /// Whether it asserts anything about the page (everything but `that`).
    pub(crate) fn has_browser_checks(&self) -> bool {
        !self.selectors().is_empty()
            || self.url.is_some()
            || self.title.is_some()
            || self.dialog.is_some()
            || self.tabs.is_some()
            || self.request.is_some()
    }

    /// Every selector it checks, with its JSON pointer below the `expect` value.
    pub(crate) fn selectors(&self) -> Vec<(String, &Selector)> {
        let mut out: Vec<(String, &Selector)> = [
            ("/visible", self.visible.as_ref()),
            ("/hidden", self.hidden.as_ref()),
            ("/checked", self.checked.as_ref()),
            ("/unchecked", self.unchecked.as_ref()),
            ("/enabled", self.enabled.as_ref()),
            ("/disabled", self.disabled.as_ref()),
            ("/editable", self.editable.as_ref()),
            ("/focused", self.focused.as_ref()),
            ("/text/target", self.text.as_ref().map(|t| &t.target)),
            ("/value/target", self.value.as_ref().map(|t| &t.target)),
            ("/count/target", self.count.as_ref().map(|t| &t.target)),
            (
                "/attribute/target",
                self.attribute.as_ref().map(|t| &t.target),
            ),
        ]
        .into_iter()
        .filter_map(|(p, s)| s.map(|s| (p.to_string(), s)))
        .collect();
        if let Some(n) = &self.not {
            out.extend(
                n.selectors()
                    .into_iter()
                    .map(|(p, s)| (format!("/not{p}"), s)),
            );
        }
        out
    }
}

/// `expect: { request: { url, method, count } }`: requests the flow's pages made whose URL
/// matches `url` (a glob as `route`'s, or a part of the URL when it has no `*`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RequestMatcher {
    pub(crate) url: String,
    pub(crate) method: Option<String>,
    /// Exactly this many (default: at least one).
    pub(crate) count: Option<IntOrTemplate>,
}

/// `expect: { tabs: { count } }`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TabsMatcher {
    pub(crate) count: IntOrTemplate,
}

/// `expect: { dialog }`: what the last dialog was.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DialogMatcher {
    #[serde(rename = "type")]
    pub(crate) kind: Option<DialogKind>,
    pub(crate) message: Option<Matcher>,
    pub(crate) accepted: Option<bool>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum DialogKind {
    Alert,
    Confirm,
    Prompt,
    Beforeunload,
}

impl DialogKind {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            DialogKind::Alert => "alert",
            DialogKind::Confirm => "confirm",
            DialogKind::Prompt => "prompt",
            DialogKind::Beforeunload => "beforeunload",
        }
    }
}

/// `attribute`: an element's attribute is present (no matcher) or its value matches.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AttributeMatcher {
    pub(crate) target: Selector,
    pub(crate) name: String,
    pub(crate) equals: Option<String>,
    pub(crate) contains: Option<String>,
    pub(crate) matches: Option<String>,
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
        let frame: Option<String> = take("frame")
            .map(serde_json::from_value)
            .transpose()
            .map_err(D::Error::custom)?;
        if frame.as_deref() == Some("") {
            return Err(D::Error::custom("empty `frame`"));
        }

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
            frame,
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
        if let Some(b) = &self.browser {
            b.check()?;
        }
        Ok(())
    }
}

impl BrowserDefaults {
    fn check(&self) -> Result<(), String> {
        if let Some(v) = self.viewport
            && (v.width == 0 || v.height == 0)
        {
            return Err("`browser.viewport` needs a width and height of at least 1".into());
        }
        if let Some(g) = self.geolocation
            && !((-90.0..=90.0).contains(&g.latitude) && (-180.0..=180.0).contains(&g.longitude))
        {
            return Err("`browser.geolocation`: latitude is -90..90, longitude -180..180".into());
        }
        for (key, v) in [
            ("device", &self.device),
            ("locale", &self.locale),
            ("timezone", &self.timezone),
            ("state", &self.state),
        ] {
            if v.as_deref() == Some("") {
                return Err(format!("`browser.{key}` must not be empty"));
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
            if !any {
                Err("a selector needs `ref`, `role`, `css` or `text`".to_string())
            } else if o.frame.as_deref() == Some("") {
                Err("empty `frame`".to_string())
            } else {
                Ok(())
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
            Action::Press(p) if p.key().is_empty() => Err("`press` needs a key".into()),
            Action::Press(p) => p.target().map_or(Ok(()), Selector::check),
            Action::Scroll(s) => match (&s.to, s.by) {
                (Some(_), Some(_)) => Err("`scroll` takes `to` or `by`, not both".into()),
                (None, None) => Err("`scroll` needs `to` or `by`".into()),
                (Some(t), None) => t.check(),
                (None, Some(_)) => Ok(()),
            },
            Action::Select(f) => f.target.check(),
            Action::Dialog(DialogAction::Word(w)) if w != "accept" && w != "dismiss" => {
                Err(format!("`dialog: {w}`: expected accept or dismiss"))
            }
            Action::State(s) if s.save.is_empty() => Err("`state.save` needs a path".into()),
            Action::Download(d) if d.path.as_deref() == Some("") => {
                Err("`download.path` must not be empty".into())
            }
            Action::Download(d) => d.target.check(),
            Action::Route(r) if r.url.is_empty() => Err("`route` needs a `url`".into()),
            Action::Route(r)
                if r.abort
                    && (r.status.is_some()
                        || r.body.is_some()
                        || r.content_type.is_some()
                        || r.headers.is_some()) =>
            {
                Err("`route` with `abort: true` takes no response (status, body, ...)".into())
            }
            Action::Route(r) if r.status.is_some_and(|s| !(100..=599).contains(&s)) => {
                Err("`route.status` is an HTTP status (100-599)".into())
            }
            Action::Tab(TabAction::Word(w)) if w != "close" => Err(format!(
                "`tab: {w}`: expected close, or {{ switch: last | first | N | {{ url }} }}"
            )),
            Action::Tab(TabAction::Switch(TabSwitch {
                switch: TabWhich::Word(w),
            })) if w != "last" && w != "first" => Err(format!(
                "`tab: {{ switch: {w} }}`: expected last, first, a number or {{ url }}"
            )),
            Action::Tab(TabAction::Switch(TabSwitch {
                switch: TabWhich::Url(u),
            })) if u.url.is_empty() => Err("`tab: { switch: { url } }` needs a URL part".into()),
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
                if !(e.has_browser_checks() || e.that.is_some()) {
                    return Err("empty `expect`".into());
                }
                if let Some(n) = &e.not {
                    if n.that.is_some()
                        || n.not.is_some()
                        || n.dialog.is_some()
                        || n.tabs.is_some()
                        || n.request.is_some()
                    {
                        return Err(
                            "`not` takes page checks only (no `that`, `not`, `dialog`, `tabs` or `request`)"
                                .into(),
                        );
                    }
                    if !n.has_browser_checks() {
                        return Err("empty `not`".into());
                    }
                }
                if let Some(a) = &e.attribute
                    && a.name.is_empty()
                {
                    return Err("`attribute` needs a `name`".into());
                }
                if let Some(r) = &e.request
                    && r.url.is_empty()
                {
                    return Err("`request` needs a `url`".into());
                }
                e.selectors().iter().try_for_each(|(_, s)| s.check())
            }
            Action::Exec(ExecAction::Short(c)) => c.check(),
            Action::Exec(ExecAction::Full(o)) => o.command.check(),
            Action::Set(m) if m.is_empty() => Err("empty `set`".into()),
            Action::Log(Value::Null) => Err("`log` needs a message".into()),
            _ => Ok(()),
        }
    }
}
