//! What each action is, answered once and exhaustively (no `_ =>`): its family, and the traits
//! the engine, the atlas and the labels ask about. A new action does not compile until it has
//! answered every question here.

use super::model::{Action, Selector};

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
}

impl Action {
    /// The family that runs this action.
    pub(crate) fn family(&self) -> Family {
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
            Action::Expect(_)
            | Action::Exec(_)
            | Action::Set(_)
            | Action::Log(_)
            | Action::RunFlow(_) => Family::Core,
        }
    }

    /// Whether the step drives the flow's browser (then it is launched for it, and a failure
    /// leaves a screenshot and a snapshot of the page).
    pub(crate) fn needs_browser(&self) -> bool {
        match self.family() {
            Family::Browser | Family::State | Family::Act => true,
            Family::Agent => false,
            Family::Core => matches!(self, Action::Expect(e) if e.has_browser_checks()),
        }
    }

    /// Whether a successful step of this kind goes into the atlas edge that the next
    /// `link_state` records: what changes or checks the page's state, not bookkeeping.
    pub(crate) fn recorded_in_atlas(&self) -> bool {
        match self.family() {
            Family::Browser | Family::Act => true,
            Family::Core => matches!(self, Action::Expect(_) | Action::Exec(_)),
            Family::Agent | Family::State => false,
        }
    }

    /// Scopes every selector of the action that names no frame to iframe `frame` (a step's
    /// `frame`); refs stay as they are (a ref names one element, in whatever frame).
    pub(crate) fn scope_to_frame(&mut self, frame: &str) {
        use super::model::{ScrollAction, SelectorItem, SelectorObject, Toggle, WaitAction};
        fn object(o: &mut SelectorObject, frame: &str) {
            if o.reference.is_none() && o.frame.is_none() {
                o.frame = Some(frame.to_string());
            }
        }
        fn css(s: &str, frame: &str) -> SelectorObject {
            SelectorObject {
                reference: None,
                role: None,
                text: None,
                exact: None,
                css: Some(s.to_string()),
                tag: None,
                nth: None,
                frame: Some(frame.to_string()),
            }
        }
        fn scope(sel: &mut Selector, frame: &str) {
            match sel {
                Selector::String(s) if s.starts_with('@') => {}
                Selector::String(s) => *sel = Selector::Object(css(s, frame)),
                Selector::Object(o) => object(o, frame),
                Selector::List(items) => {
                    for i in items {
                        match i {
                            SelectorItem::String(s) if s.starts_with('@') => {}
                            SelectorItem::String(s) => *i = SelectorItem::Object(css(s, frame)),
                            SelectorItem::Object(o) => object(o, frame),
                        }
                    }
                }
            }
        }
        fn expect(e: &mut super::model::ExpectAction, frame: &str) {
            let sels = [
                &mut e.visible,
                &mut e.hidden,
                &mut e.checked,
                &mut e.unchecked,
                &mut e.enabled,
                &mut e.disabled,
                &mut e.editable,
                &mut e.focused,
            ];
            for s in sels.into_iter().flatten() {
                scope(s, frame);
            }
            for t in [&mut e.text, &mut e.value].into_iter().flatten() {
                scope(&mut t.target, frame);
            }
            if let Some(c) = &mut e.count {
                scope(&mut c.target, frame);
            }
            if let Some(a) = &mut e.attribute {
                scope(&mut a.target, frame);
            }
            if let Some(n) = &mut e.not {
                expect(n, frame);
            }
        }
        match self {
            Action::Click(s)
            | Action::Dblclick(s)
            | Action::Hover(s)
            | Action::Focus(s)
            | Action::Check(s)
            | Action::Uncheck(s) => scope(s, frame),
            Action::Fill(f) | Action::Type(f) => scope(&mut f.target, frame),
            Action::Select(s) => scope(&mut s.target, frame),
            Action::Upload(u) => scope(&mut u.target, frame),
            Action::Download(d) => scope(&mut d.target, frame),
            Action::Inspect(i) => scope(&mut i.target, frame),
            Action::Press(super::model::PressAction::On(p)) => {
                if let Some(t) = &mut p.target {
                    scope(t, frame);
                }
            }
            Action::Scroll(ScrollAction { to: Some(t), .. }) => {
                if !matches!(t, Selector::String(w) if w == "top" || w == "bottom") {
                    scope(t, frame);
                }
            }
            Action::Screenshot(Toggle::Options(o)) => {
                if let Some(t) = &mut o.target {
                    scope(t, frame);
                }
            }
            Action::Snapshot(Toggle::Options(o)) => {
                if let Some(t) = &mut o.scope {
                    scope(t, frame);
                }
            }
            Action::Wait(WaitAction::For(w)) => {
                if let Some(t) = &mut w.target {
                    scope(t, frame);
                }
            }
            Action::Expect(e) => expect(e, frame),
            // No selector to scope (a step's `frame` on these is refused when it is loaded).
            Action::Open(_)
            | Action::Snapshot(Toggle::On(_))
            | Action::Screenshot(Toggle::On(_))
            | Action::Press(super::model::PressAction::Key(_))
            | Action::Scroll(ScrollAction { to: None, .. })
            | Action::Wait(WaitAction::Duration(_))
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
            | Action::Set(_)
            | Action::Log(_)
            | Action::RunFlow(_) => {}
        }
    }

    /// The outputs a successful step of this action has (`steps.<id>.<output>`); `None` when
    /// they are not known ahead (a sub-flow's are its own `outputs`).
    pub(crate) fn outputs(&self) -> Option<&'static [&'static str]> {
        const ELEMENT: &[&str] = &["matched", "matched_index", "failure_artifacts"];
        Some(match self {
            Action::Open(_) => &["url", "title", "status", "failure_artifacts"],
            Action::Snapshot(_) => &["text", "refs", "url", "failure_artifacts"],
            Action::Click(_)
            | Action::Dblclick(_)
            | Action::Hover(_)
            | Action::Focus(_)
            | Action::Check(_)
            | Action::Uncheck(_)
            | Action::Fill(_)
            | Action::Type(_)
            | Action::Press(_)
            | Action::Select(_) => ELEMENT,
            Action::Upload(_) => &[
                "matched",
                "matched_index",
                "uploaded",
                "files",
                "failure_artifacts",
            ],
            Action::Wait(_) | Action::Expect(_) => &["failure_artifacts"],
            Action::Scroll(_) => &["matched", "matched_index", "x", "y", "failure_artifacts"],
            Action::Dialog(_) => &["type", "message", "accepted", "failure_artifacts"],
            Action::Tab(_) => &["index", "url", "count", "failure_artifacts"],
            Action::Route(_) => &["url", "failure_artifacts"],
            Action::State(_) => &["path", "cookies", "origins", "failure_artifacts"],
            Action::Download(_) => &[
                "path",
                "size",
                "suggested_name",
                "url",
                "matched",
                "failure_artifacts",
            ],
            Action::Act(_) => &[
                "action_type",
                "selector",
                "value",
                "source",
                "confidence",
                "screenshot_before",
                "screenshot_after",
                "matched",
                "failure_artifacts",
            ],
            Action::Screenshot(_) => &["path", "failure_artifacts"],
            Action::Eval(_) => &["value", "failure_artifacts"],
            Action::Inspect(_) => &[
                "html",
                "text",
                "elements",
                "total_size",
                "truncated",
                "suggestions",
                "failure_artifacts",
            ],
            Action::Agent(_) => &[
                "session_id",
                "result",
                "exit_code",
                "cost_usd",
                "usage",
                "log",
                "background",
            ],
            Action::StopAgent(_) => &["stopped", "session_id"],
            Action::LinkState(_) => &[
                "node_id",
                "is_new",
                "path",
                "edge",
                "url",
                "title",
                "failure_artifacts",
            ],
            Action::Exec(_) => &["stdout", "stderr", "exit_code", "truncated"],
            Action::Set(_) => &[],
            Action::Log(_) => &["message"],
            Action::RunFlow(_) => return None,
        })
    }

    /// The element the action acts on or reads, when it names one (labels show it).
    pub(crate) fn target(&self) -> Option<&Selector> {
        match self {
            Action::Click(s)
            | Action::Dblclick(s)
            | Action::Hover(s)
            | Action::Focus(s)
            | Action::Check(s)
            | Action::Uncheck(s) => Some(s),
            Action::Fill(f) | Action::Type(f) => Some(&f.target),
            Action::Select(s) => Some(&s.target),
            Action::Upload(u) => Some(&u.target),
            Action::Inspect(i) => Some(&i.target),
            Action::Download(d) => Some(&d.target),
            Action::Press(p) => p.target(),
            Action::Scroll(s) => match s.to() {
                Some(super::model::ScrollTo::Element(e)) => Some(e),
                _ => None,
            },
            Action::Act(_)
            | Action::Dialog(_)
            | Action::Tab(_)
            | Action::Route(_)
            | Action::State(_)
            | Action::Open(_)
            | Action::Snapshot(_)
            | Action::Wait(_)
            | Action::Screenshot(_)
            | Action::Eval(_)
            | Action::Expect(_)
            | Action::Agent(_)
            | Action::StopAgent(_)
            | Action::LinkState(_)
            | Action::Exec(_)
            | Action::Set(_)
            | Action::Log(_)
            | Action::RunFlow(_) => None,
        }
    }

    /// Whether the step ends its own work gracefully on an interrupt (its processes get SIGTERM
    /// and a grace period) instead of being dropped at once.
    pub(crate) fn graceful_on_interrupt(&self) -> bool {
        matches!(self, Action::Exec(_) | Action::RunFlow(_))
    }

    /// The timeout of one attempt when the step sets none; `None` means the flow's defaults
    /// apply. A sub-flow's steps have their own timeouts; an agent's is its own `timeout`; an
    /// `act` may ask an agent, so it gets an agent's default.
    pub(crate) fn own_timeout(&self) -> Option<OwnTimeout> {
        match self {
            Action::RunFlow(_) => Some(OwnTimeout::Unbounded),
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
