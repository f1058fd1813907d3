//! What each action is, answered once and exhaustively (no `_ =>`): its family, and the traits
//! the engine, the atlas and the labels ask about. A new action does not compile until it has
//! answered every question here.

use super::model::{
    Action, PressAction, PressOn, ScreenshotOptions, ScrollAction, ScrollTo, Selector,
    SnapshotOptions, Toggle, WaitAction, WaitOptions,
};

/// Which part of runner carries out an action: one exhaustive answer per action, so a new
/// action cannot silently default to one family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    /// The engine itself: `log`, `set`, `exec`, `run_flow`, and `expect` (whose page checks go
    /// to the browser, and whose `that` is a template condition).
    Core,
    /// Acts on the page through agent-browser.
    Browser,
    /// Starts or stops AI coding agents.
    Agent,
    /// Acts on the page on a natural-language instruction (`act`): the browser, and an agent
    /// skill when the built-in resolver cannot tell.
    Act,
    /// Records the browser's state into the atlas (`link_state`).
    State,
    /// Sends HTTP requests and checks their responses (`request`).
    Http,
    /// Holds steps (`each`, `group`): the engine runs the steps inside, each as a step of its
    /// own; nothing is dispatched for the step itself.
    Control,
}

impl Action {
    /// The family that runs this action.
    pub(crate) fn family(&self) -> Family {
        match self {
            Action::Open(_)
            | Action::Back(_)
            | Action::Forward(_)
            | Action::Reload(_)
            | Action::Dispatch(_)
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
            | Action::Keyboard(_)
            | Action::Scroll(_)
            | Action::Select(_)
            | Action::Upload(_)
            | Action::Dialog(_)
            | Action::Tab(_)
            | Action::Route(_)
            | Action::Download(_)
            | Action::State(_)
            | Action::Wait(_)
            | Action::Screenshot(_)
            | Action::Eval(_)
            | Action::Inspect(_) => Family::Browser,
            Action::Act(_) => Family::Act,
            Action::Agent(_) | Action::StopAgent(_) => Family::Agent,
            Action::LinkState(_) => Family::State,
            Action::Request(_) => Family::Http,
            Action::Expect(_)
            | Action::Exec(_)
            | Action::Set(_)
            | Action::Log(_)
            | Action::RunFlow(_) => Family::Core,
            Action::Each(_) | Action::Group(_) => Family::Control,
        }
    }

    /// Whether the step drives the flow's browser (then it is launched for it, and a failure
    /// leaves a screenshot and a snapshot of the page).
    pub(crate) fn needs_browser(&self) -> bool {
        match self.family() {
            Family::Browser | Family::State | Family::Act => true,
            // The steps inside drive the browser themselves (the flow's walk finds them).
            Family::Agent | Family::Http | Family::Control => false,
            Family::Core => matches!(self, Action::Expect(e) if e.has_browser_checks()),
        }
    }

    /// Whether a successful step of this kind goes into the atlas edge that the next
    /// `link_state` records: what acts on the page or checks it, as an atlas's steps may (see
    /// [`Action::beyond_the_page`]); an `act` goes in as the step it resolved to.
    pub(crate) fn recorded_in_atlas(&self) -> bool {
        match self.family() {
            Family::Browser => self.beyond_the_page().is_none(),
            Family::Act => true,
            Family::Core => matches!(self, Action::Expect(e) if e.has_browser_checks()),
            // The steps inside are recorded one by one.
            Family::Agent | Family::State | Family::Control | Family::Http => false,
        }
    }

    /// Why a step that does not come from the user's own files (an atlas's, an agent's answer,
    /// the agent cache) may not be this action: it reaches beyond the page, to this machine or
    /// the network, or it is code runner would evaluate. `None`: it acts on the page or checks
    /// it, which a page could do itself.
    pub(crate) fn beyond_the_page(&self) -> Option<&'static str> {
        match self {
            Action::Open(_)
            | Action::Back(_)
            | Action::Forward(_)
            | Action::Reload(_)
            | Action::Dispatch(_)
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
            | Action::Keyboard(_)
            | Action::Scroll(_)
            | Action::Select(_)
            | Action::Dialog(_)
            | Action::Tab(_)
            | Action::Route(_)
            | Action::Wait(_)
            | Action::Screenshot(_)
            | Action::Eval(_)
            | Action::Inspect(_) => None,
            Action::Expect(e) => e
                .that
                .as_ref()
                .map(|_| "`expect.that` is a template condition, code runner would evaluate"),
            Action::Upload(_) => Some("it hands files of this machine to the page"),
            Action::Download(_) => Some("it writes a file on this machine"),
            Action::State(_) => Some("it writes the browser's cookies and storage to a file"),
            Action::Act(_) => Some("it asks an agent (or the agent cache) what to do"),
            Action::Agent(_) | Action::StopAgent(_) => Some("it starts or stops an agent"),
            Action::LinkState(_) => Some("it writes into an atlas"),
            Action::Exec(_) => Some("it runs a command on this machine"),
            Action::Request(_) => Some("it sends an HTTP request from this machine"),
            Action::Set(_) => Some("it sets the flow's vars"),
            Action::Log(_) => Some("it writes into the run's output"),
            Action::RunFlow(_) => Some("it runs another flow file"),
            Action::Each(_) | Action::Group(_) => Some("it holds steps of its own"),
        }
    }

    /// Whether the step runs code of its own in the page — which sees all the page holds, what
    /// runner typed into it too, and may send it to any origin: an `eval`, a `js` check or
    /// wait, a `route` (its body is a page of its own), and the steps that hold or make other
    /// steps. No `_` arm: a new step decides.
    pub(crate) fn runs_page_code(&self) -> bool {
        match self {
            Action::Eval(_)
            | Action::Route(_)
            | Action::Act(_)
            | Action::Agent(_)
            | Action::RunFlow(_)
            | Action::Each(_)
            | Action::Group(_) => true,
            Action::Expect(e) => e.js.is_some(),
            Action::Wait(WaitAction::For(w)) => w.js.is_some(),
            Action::Wait(WaitAction::Duration(_))
            | Action::Open(_)
            | Action::Back(_)
            | Action::Forward(_)
            | Action::Reload(_)
            | Action::Dispatch(_)
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
            | Action::Keyboard(_)
            | Action::Scroll(_)
            | Action::Select(_)
            | Action::Dialog(_)
            | Action::Tab(_)
            | Action::Screenshot(_)
            | Action::Inspect(_)
            | Action::Upload(_)
            | Action::Download(_)
            | Action::State(_)
            | Action::StopAgent(_)
            | Action::LinkState(_)
            | Action::Exec(_)
            | Action::Request(_)
            | Action::Set(_)
            | Action::Log(_) => false,
        }
    }

    /// Whether a step of this kind only reads the page, leaving it as it was: an assertion, a
    /// wait, a snapshot, an element's inspection, an atlas state recorded. A trace's picture of
    /// the step before may be drawn while it runs (see `browser::driver::recorder`); a step
    /// that may change the page (one that acts, runs the page's code, switches or routes, or a
    /// screenshot, which may resize the page to take it all) ends that.
    pub(crate) fn only_reads_the_page(&self) -> bool {
        match self {
            Action::Expect(_)
            | Action::Wait(_)
            | Action::Snapshot(_)
            | Action::Inspect(_)
            | Action::LinkState(_) => true,
            Action::Open(_)
            | Action::Back(_)
            | Action::Forward(_)
            | Action::Reload(_)
            | Action::Dispatch(_)
            | Action::Click(_)
            | Action::Dblclick(_)
            | Action::Hover(_)
            | Action::Focus(_)
            | Action::Check(_)
            | Action::Uncheck(_)
            | Action::Fill(_)
            | Action::Type(_)
            | Action::Press(_)
            | Action::Keyboard(_)
            | Action::Scroll(_)
            | Action::Select(_)
            | Action::Upload(_)
            | Action::Dialog(_)
            | Action::Tab(_)
            | Action::Route(_)
            | Action::Download(_)
            | Action::State(_)
            | Action::Screenshot(_)
            | Action::Eval(_)
            | Action::Act(_)
            | Action::Agent(_)
            | Action::StopAgent(_)
            | Action::Exec(_)
            | Action::Request(_)
            | Action::Set(_)
            | Action::Log(_)
            | Action::RunFlow(_)
            | Action::Each(_)
            | Action::Group(_) => false,
        }
    }

    /// Scopes every selector of the action that names no frame to iframe `frame` (a step's
    /// `frame`); refs stay as they are (a ref names one element, in whatever frame).
    pub(crate) fn scope_to_frame(&mut self, frame: &str) {
        match self {
            Action::Click(s)
            | Action::Dblclick(s)
            | Action::Hover(s)
            | Action::Focus(s)
            | Action::Check(s)
            | Action::Uncheck(s) => s.scope_to_frame(frame),
            Action::Fill(f) | Action::Type(f) => f.target.scope_to_frame(frame),
            Action::Select(s) => s.target.scope_to_frame(frame),
            Action::Upload(u) => u.target.scope_to_frame(frame),
            Action::Download(d) => d.target.scope_to_frame(frame),
            Action::Dispatch(d) => d.target.scope_to_frame(frame),
            Action::Inspect(i) => i.target.scope_to_frame(frame),
            Action::Press(PressAction::On(PressOn {
                target: Some(t), ..
            }))
            | Action::Screenshot(Toggle::Options(ScreenshotOptions {
                target: Some(t), ..
            }))
            | Action::Snapshot(Toggle::Options(SnapshotOptions { scope: Some(t), .. }))
            | Action::Wait(WaitAction::For(WaitOptions {
                target: Some(t), ..
            })) => {
                t.scope_to_frame(frame);
            }
            // The words `top` and `bottom` are the page's ends, never CSS.
            Action::Scroll(ScrollAction { to: Some(t), .. }) => {
                if !matches!(t, Selector::String(w) if w == "top" || w == "bottom") {
                    t.scope_to_frame(frame);
                }
            }
            Action::Expect(e) => e.scope_to_frame(frame),
            // No selector to scope (a step's `frame` on these is refused when it is loaded).
            Action::Open(_)
            | Action::Back(_)
            | Action::Forward(_)
            | Action::Reload(_)
            | Action::Snapshot(_)
            | Action::Screenshot(_)
            | Action::Press(_)
            | Action::Keyboard(_)
            | Action::Scroll(ScrollAction { to: None, .. })
            | Action::Wait(_)
            | Action::Dialog(_)
            | Action::Tab(_)
            | Action::Route(_)
            | Action::State(_)
            | Action::Eval(_)
            | Action::Act(_)
            | Action::Agent(_)
            | Action::StopAgent(_)
            | Action::LinkState(_)
            | Action::Exec(_)
            | Action::Request(_)
            | Action::Set(_)
            | Action::Log(_)
            | Action::RunFlow(_)
            | Action::Each(_)
            | Action::Group(_) => {}
        }
    }

    /// The outputs a successful step of this action has (`steps.<id>.<output>`); `None` when
    /// they are not known ahead (a sub-flow's are its own `outputs`).
    pub(crate) fn outputs(&self) -> Option<&'static [&'static str]> {
        Some(match self {
            Action::Open(_) | Action::Back(_) | Action::Forward(_) | Action::Reload(_) => {
                &["url", "title", "status"]
            }
            Action::Snapshot(_) => &["text", "refs", "url"],
            Action::Click(_)
            | Action::Dblclick(_)
            | Action::Hover(_)
            | Action::Focus(_)
            | Action::Check(_)
            | Action::Uncheck(_)
            | Action::Fill(_)
            | Action::Type(_)
            | Action::Press(_)
            | Action::Select(_)
            | Action::Dispatch(_) => outputs::ELEMENT,
            Action::Upload(_) => outputs::UPLOAD,
            Action::Scroll(_) => &["matched", "matched_index", "x", "y"],
            Action::Dialog(_) => &["type", "message", "accepted"],
            Action::Tab(_) => &["index", "url", "count"],
            Action::Route(_) => &["url"],
            Action::State(_) => &["path", "cookies", "origins"],
            Action::Download(_) => outputs::DOWNLOAD,
            Action::Act(_) => outputs::ACT,
            Action::Screenshot(_) => &["path"],
            Action::Eval(_) => &["value", "truncated"],
            Action::Inspect(_) => outputs::INSPECT,
            Action::Agent(_) => outputs::AGENT,
            Action::StopAgent(_) => &["stopped", "session_id"],
            Action::LinkState(_) => outputs::LINK_STATE,
            Action::Exec(_) => &[
                "stdout",
                "stderr",
                "exit_code",
                "truncated",
                "stdout_truncated",
                "stderr_truncated",
            ],
            Action::Request(_) => outputs::REQUEST,
            Action::Wait(_)
            | Action::Expect(_)
            | Action::Keyboard(_)
            | Action::Set(_)
            | Action::Group(_) => &[],
            Action::Log(_) => &["message"],
            Action::RunFlow(_) => return None,
            Action::Each(_) => &["count"],
        })
    }

    /// A pointer action with `force: true`: it skips the actionability checks (labels say so).
    pub(crate) fn forced(&self) -> bool {
        match self {
            Action::Click(t)
            | Action::Dblclick(t)
            | Action::Hover(t)
            | Action::Check(t)
            | Action::Uncheck(t) => t.force,
            _ => false,
        }
    }

    /// The element the action acts on or reads, when it names one (labels show it).
    pub(crate) fn target(&self) -> Option<&Selector> {
        match self {
            Action::Click(s)
            | Action::Dblclick(s)
            | Action::Hover(s)
            | Action::Focus(s)
            | Action::Check(s)
            | Action::Uncheck(s) => Some(&s.target),
            Action::Fill(f) | Action::Type(f) => Some(&f.target),
            Action::Select(s) => Some(&s.target),
            Action::Upload(u) => Some(&u.target),
            Action::Inspect(i) => Some(&i.target),
            Action::Download(d) => Some(&d.target),
            Action::Dispatch(d) => Some(&d.target),
            Action::Press(p) => p.target(),
            Action::Scroll(s) => match s.to() {
                Some(ScrollTo::Element(e)) => Some(e),
                _ => None,
            },
            Action::Act(_)
            | Action::Keyboard(_)
            | Action::Dialog(_)
            | Action::Tab(_)
            | Action::Route(_)
            | Action::State(_)
            | Action::Open(_)
            | Action::Back(_)
            | Action::Forward(_)
            | Action::Reload(_)
            | Action::Snapshot(_)
            | Action::Wait(_)
            | Action::Screenshot(_)
            | Action::Eval(_)
            | Action::Expect(_)
            | Action::Agent(_)
            | Action::StopAgent(_)
            | Action::LinkState(_)
            | Action::Exec(_)
            | Action::Request(_)
            | Action::Set(_)
            | Action::Log(_)
            | Action::RunFlow(_)
            | Action::Each(_)
            | Action::Group(_) => None,
        }
    }

    /// The path of the file the step writes into the flow's artifacts directory, as written
    /// (`screenshot.path`, `download.path`, under the action's key as `path`): it must stay
    /// there (`crate::fs::artifact_path_problem`, which `validate` and the run both ask).
    /// (`state.save` is not one: see [`Action::flow_path`].)
    pub(crate) fn artifact_path(&self) -> Option<&str> {
        match self {
            Action::Screenshot(Toggle::Options(o)) => o.path.as_deref(),
            Action::Download(d) => d.path.as_deref(),
            _ => None,
        }
    }

    /// The path of the file the step writes into the flow's directory, as written
    /// (`state.save`, under the action's key as `save`): it must stay there
    /// (`crate::fs::flow_path_problem`, which `validate` and the run both ask).
    pub(crate) fn flow_path(&self) -> Option<&str> {
        match self {
            Action::State(s) => Some(&s.save),
            _ => None,
        }
    }

    /// Whether the step ends its own work gracefully on an interrupt (its processes get SIGTERM
    /// and a grace period) instead of being dropped at once.
    pub(crate) fn graceful_on_interrupt(&self) -> bool {
        matches!(
            self,
            Action::Exec(_) | Action::RunFlow(_) | Action::Each(_) | Action::Group(_)
        )
    }

    /// The timeout of one attempt when the step sets none; `None` means the flow's defaults
    /// apply. A sub-flow's steps have their own timeouts; an agent's is its own `timeout`; an
    /// `act` may ask an agent, so it gets an agent's default.
    pub(crate) fn own_timeout(&self) -> Option<OwnTimeout> {
        match self {
            // Their inner steps are bounded; a `timeout` on them caps them all.
            Action::RunFlow(_) | Action::Each(_) | Action::Group(_) => Some(OwnTimeout::Unbounded),
            Action::Agent(a) => Some(OwnTimeout::Agent(a.timeout.clone())),
            // It may ask an agent: bounded as one (its page work keeps the browser's timeout).
            Action::Act(_) => Some(OwnTimeout::Agent(None)),
            _ => None,
        }
    }
}

/// A timeout an action brings with it (see [`Action::own_timeout`]).
#[derive(Debug, Clone)]
pub(crate) enum OwnTimeout {
    /// No timeout of its own: its inner steps are bounded.
    Unbounded,
    /// The agent step's `timeout` (a duration text), or the agent default.
    Agent(Option<String>),
}

/// The longer output lists of [`Action::outputs`].
mod outputs {
    /// What an action on one element reports: which selector of a fallback list matched.
    pub(super) const ELEMENT: &[&str] = &["matched", "matched_index"];
    pub(super) const UPLOAD: &[&str] = &["matched", "matched_index", "uploaded", "files"];
    pub(super) const DOWNLOAD: &[&str] = &["path", "size", "suggested_name", "url", "matched"];
    pub(super) const ACT: &[&str] = &[
        "action_type",
        "selector",
        "value",
        "source",
        "confidence",
        "screenshot_before",
        "screenshot_after",
        "screenshot_left_out",
        "matched",
    ];
    pub(super) const INSPECT: &[&str] = &[
        "html",
        "text",
        "elements",
        "count",
        "total_size",
        "truncated",
        "suggestions",
    ];
    pub(super) const AGENT: &[&str] = &[
        "session_id",
        "result",
        "exit_code",
        "cost_usd",
        "usage",
        "log",
        "background",
        "truncated",
    ];
    pub(super) const REQUEST: &[&str] = &[
        "status",
        "headers",
        "body",
        "json",
        "url",
        "duration_ms",
        "truncated",
    ];
    pub(super) const LINK_STATE: &[&str] = &[
        "node_id", "is_new", "path", "edge", "url", "title", "server",
    ];
}
