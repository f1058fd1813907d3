//! The commands runner sends to agent-browser, typed: each serializes to the JSON line the
//! session's daemon reads (`{action, ...}`, checked against agent-browser 0.41.2, the version
//! `scripts/setup` installs, by recording what its CLI writes to the socket; the unit tests are
//! that record) and renders the CLI's argv for the commands that still go through the CLI (a
//! session's first, which starts its daemon; `close`).

use std::path::{Path, PathBuf};

use serde::{Serialize, Serializer};
use serde_json::Value;

mod key_input;

pub(crate) use key_input::KeyboardInput;

/// One agent-browser command. `action` names it for the daemon; the fields are the daemon's.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub(crate) enum Command {
    /// `open URL` (a URL without a known scheme gets `https://`, as the CLI gives it).
    Navigate {
        #[serde(serialize_with = "with_scheme")]
        url: String,
    },
    /// `eval -b BASE64`: the script is base64 in argv, so any script survives a `batch`.
    Evaluate {
        script: String,
    },
    Click {
        selector: String,
    },
    #[serde(rename = "dblclick")]
    DoubleClick {
        selector: String,
    },
    Hover {
        selector: String,
    },
    Focus {
        selector: String,
    },
    Check {
        selector: String,
    },
    Uncheck {
        selector: String,
    },
    Fill {
        selector: String,
        value: String,
    },
    Type {
        selector: String,
        text: String,
    },
    Select {
        selector: String,
        values: Vec<String>,
    },
    /// Files by absolute path (the daemon resolves relative ones against its own directory).
    Upload {
        selector: String,
        files: Vec<String>,
    },
    Press {
        key: String,
    },
    /// `keyboard type|inserttext TEXT`: text for whatever has the focus, as real key events or
    /// as one input (as a paste or an input method gives it).
    Keyboard {
        subaction: KeyboardInput,
        text: String,
    },
    Scroll {
        direction: String,
        amount: u64,
    },
    /// `dispatch TARGET EVENT`: an event of type `event` (`new Event(event, event_init)`)
    /// dispatched on the element, which a page script listening for it then knows (runner
    /// reaches an element found through the snapshot, `@e5`, this way).
    Dispatch {
        selector: String,
        event: String,
        #[serde(rename = "eventInit")]
        event_init: Value,
    },
    #[serde(rename = "scrollintoview")]
    ScrollIntoView {
        selector: String,
    },
    /// `frame CSS`: later commands run inside that iframe.
    Frame {
        selector: String,
    },
    /// `frame main`: later commands run in the page's main frame.
    #[serde(rename = "mainframe")]
    MainFrame,
    /// `dialog accept|dismiss|status [TEXT]`.
    Dialog {
        response: DialogResponse,
        #[serde(rename = "promptText", skip_serializing_if = "Option::is_none")]
        prompt_text: Option<String>,
    },
    /// `tab TARGET`: the session acts on that tab.
    TabSwitch {
        #[serde(rename = "tabId")]
        tab_id: String,
    },
    /// `tab list`: the session's tabs (`tabs`: each one's `targetId`, and whether it is the
    /// session's `active` one).
    TabList,
    /// `tab close TARGET`.
    TabClose {
        #[serde(rename = "tabId")]
        tab_id: String,
    },
    /// `network route URL [--abort | --response JSON]`. `--response` is runner's own: the
    /// daemon's whole `response` object (`status`, `body`, `contentType`, `headers`), of which
    /// the CLI fills only `body` with `--body` (the daemon's handling of the others was checked
    /// by hand against agent-browser 0.41.2).
    Route {
        url: String,
        abort: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        response: Option<Value>,
    },
    /// `network unroute [URL]`: every route when no URL is given.
    Unroute {
        #[serde(skip_serializing_if = "Option::is_none")]
        url: Option<String>,
    },
    /// `network requests [--clear]`: the session's request log.
    Requests {
        clear: bool,
    },
    /// `state save PATH` (relative to the flow's directory).
    StateSave {
        #[serde(serialize_with = "display")]
        path: PathBuf,
    },
    /// `set viewport W H`.
    Viewport {
        width: u64,
        height: u64,
    },
    /// `set device NAME`.
    Device {
        device: String,
    },
    /// `set media SCHEME`: the CLI sends `no-preference` for reduced motion unless told
    /// `reduced-motion`.
    #[serde(rename = "emulatemedia", rename_all = "camelCase")]
    EmulateMedia {
        color_scheme: String,
        reduced_motion: ReducedMotion,
    },
    /// `set geo LAT LNG`.
    Geolocation {
        latitude: f64,
        longitude: f64,
    },
    /// `set offline on|off`.
    Offline {
        offline: bool,
    },
    /// `set headers JSON`.
    Headers {
        headers: Value,
    },
    /// `get url`.
    #[serde(rename = "url")]
    GetUrl,
    /// `get title`.
    #[serde(rename = "title")]
    GetTitle,
    /// `get cdp-url`: the DevTools URL of the session's browser.
    CdpUrl,
    #[serde(rename = "gettext")]
    GetText {
        selector: String,
    },
    #[serde(rename = "inputvalue")]
    GetValue {
        selector: String,
    },
    #[serde(rename = "boundingbox")]
    GetBox {
        selector: String,
    },
    #[serde(rename = "getattribute")]
    GetAttribute {
        selector: String,
        attribute: String,
    },
    #[serde(rename = "isvisible")]
    IsVisible {
        selector: String,
    },
    #[serde(rename = "ischecked")]
    IsChecked {
        selector: String,
    },
    #[serde(rename = "isenabled")]
    IsEnabled {
        selector: String,
    },
    Snapshot(SnapshotOptions),
    /// `screenshot [--full] [TARGET] PATH`.
    Screenshot {
        /// Never on: runner's screenshots are of the page as it is.
        annotate: Off,
        #[serde(rename = "fullPage")]
        full_page: bool,
        #[serde(serialize_with = "display")]
        path: PathBuf,
        selector: Option<String>,
    },
    Close,
}

/// The answer `dialog` gives the page's dialog, or `status` to ask what is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum DialogResponse {
    Accept,
    Dismiss,
    Status,
}

/// `prefers-reduced-motion` as `set media` sets it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum ReducedMotion {
    NoPreference,
    Reduce,
}

/// A daemon flag runner never turns on: always sent as `false`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Off;

impl Serialize for Off {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bool(false)
    }
}

/// `snapshot [-i] [-c] [-d N] [-s CSS]`: which part of the accessibility tree to read.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub(crate) struct SnapshotOptions {
    /// Interactive elements only (`-i`).
    #[serde(skip_serializing_if = "is_false")]
    pub(crate) interactive: bool,
    /// Without the structure's empty levels (`-c`).
    #[serde(skip_serializing_if = "is_false")]
    pub(crate) compact: bool,
    #[serde(rename = "maxDepth", skip_serializing_if = "Option::is_none")]
    pub(crate) max_depth: Option<u64>,
    /// The subtree of this CSS selector (`-s`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) selector: Option<String>,
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's `skip_serializing_if` passes a reference
fn is_false(b: &bool) -> bool {
    !*b
}

/// The CLI's `open` rule: a URL without a known scheme gets `https://`.
fn with_scheme<S: Serializer>(url: &str, s: S) -> Result<S::Ok, S::Error> {
    let lower = url.to_lowercase();
    let known = [
        "http://",
        "https://",
        "about:",
        "data:",
        "file:",
        "chrome-extension://",
        "chrome://",
    ];
    if known.iter().any(|k| lower.starts_with(k)) {
        s.serialize_str(url)
    } else {
        s.serialize_str(&format!("https://{url}"))
    }
}

/// A path as the CLI sends it (lossy for a path that is not UTF-8, as `display` is).
fn display<S: Serializer>(path: &Path, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&path.display().to_string())
}

impl Command {
    /// `eval` of `script`.
    pub(crate) fn eval(script: impl Into<String>) -> Command {
        Command::Evaluate {
            script: script.into(),
        }
    }

    /// A screenshot of the whole viewport into `path`.
    pub(crate) fn screenshot(path: impl Into<PathBuf>) -> Command {
        Command::Screenshot {
            annotate: Off,
            full_page: false,
            path: path.into(),
            selector: None,
        }
    }

    /// A snapshot of the whole page.
    pub(crate) fn snapshot() -> Command {
        Command::Snapshot(SnapshotOptions::default())
    }

    /// The command of an action on an element (`click`, `fill`, ...) as the CLI takes it:
    /// its name, the element and what else the action needs (a fill's value, a select's
    /// values). `None` for a name that is not one.
    pub(crate) fn on_element(name: &str, selector: String, extra: &[String]) -> Option<Command> {
        let first = || extra.first().cloned();
        Some(match name {
            "click" => Command::Click { selector },
            "dblclick" => Command::DoubleClick { selector },
            "hover" => Command::Hover { selector },
            "focus" => Command::Focus { selector },
            "check" => Command::Check { selector },
            "uncheck" => Command::Uncheck { selector },
            "fill" => Command::Fill {
                selector,
                value: first()?,
            },
            "type" => Command::Type {
                selector,
                text: first()?,
            },
            "select" if !extra.is_empty() => Command::Select {
                selector,
                values: extra.to_vec(),
            },
            "upload" if !extra.is_empty() => Command::Upload {
                selector,
                files: extra.to_vec(),
            },
            _ => return None,
        })
    }

    /// The command as the daemon must get it: paths absolute against `cwd` (the daemon
    /// resolves relative ones against its own directory; the CLI makes them absolute against
    /// the directory it runs in).
    pub(crate) fn absolute(&self, cwd: &Path) -> Command {
        let mut c = self.clone();
        if let Command::StateSave { path } | Command::Screenshot { path, .. } = &mut c {
            *path = cwd.join(&*path);
        }
        c
    }

    /// The element the command acts on or reads, when it names one.
    pub(crate) fn target(&self) -> Option<&str> {
        match self {
            Command::Click { selector }
            | Command::DoubleClick { selector }
            | Command::Hover { selector }
            | Command::Focus { selector }
            | Command::Check { selector }
            | Command::Uncheck { selector }
            | Command::Fill { selector, .. }
            | Command::Type { selector, .. }
            | Command::Select { selector, .. }
            | Command::Upload { selector, .. }
            | Command::ScrollIntoView { selector }
            | Command::Dispatch { selector, .. }
            | Command::GetText { selector }
            | Command::GetValue { selector }
            | Command::GetBox { selector }
            | Command::GetAttribute { selector, .. }
            | Command::IsVisible { selector }
            | Command::IsChecked { selector }
            | Command::IsEnabled { selector } => Some(selector),
            Command::Screenshot { selector, .. } => selector.as_deref(),
            _ => None,
        }
    }

    /// The CLI's name of the command (the first word of its argv), as errors name it.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Command::Navigate { .. } => "open",
            Command::Evaluate { .. } => "eval",
            Command::Click { .. } => "click",
            Command::DoubleClick { .. } => "dblclick",
            Command::Hover { .. } => "hover",
            Command::Focus { .. } => "focus",
            Command::Check { .. } => "check",
            Command::Uncheck { .. } => "uncheck",
            Command::Fill { .. } => "fill",
            Command::Type { .. } => "type",
            Command::Select { .. } => "select",
            Command::Upload { .. } => "upload",
            Command::Press { .. } => "press",
            Command::Keyboard { .. } => "keyboard",
            Command::Scroll { .. } => "scroll",
            Command::ScrollIntoView { .. } => "scrollintoview",
            Command::Dispatch { .. } => "dispatch",
            Command::Frame { .. } | Command::MainFrame => "frame",
            Command::Dialog { .. } => "dialog",
            Command::TabSwitch { .. } | Command::TabList | Command::TabClose { .. } => "tab",
            Command::Route { .. } | Command::Unroute { .. } | Command::Requests { .. } => "network",
            Command::StateSave { .. } => "state",
            Command::Viewport { .. }
            | Command::Device { .. }
            | Command::EmulateMedia { .. }
            | Command::Geolocation { .. }
            | Command::Offline { .. }
            | Command::Headers { .. } => "set",
            Command::GetUrl
            | Command::GetTitle
            | Command::CdpUrl
            | Command::GetText { .. }
            | Command::GetValue { .. }
            | Command::GetBox { .. }
            | Command::GetAttribute { .. } => "get",
            Command::IsVisible { .. } | Command::IsChecked { .. } | Command::IsEnabled { .. } => {
                "is"
            }
            Command::Snapshot(_) => "snapshot",
            Command::Screenshot { .. } => "screenshot",
            Command::Close => "close",
        }
    }

    /// The CLI's argv for the command, without the program and its global flags.
    pub(crate) fn argv(&self) -> Vec<String> {
        let mut v = vec![self.name().to_string()];
        v.extend(self.args());
        v
    }

    /// The CLI's arguments after the command's name.
    fn args(&self) -> Vec<String> {
        let s = |x: &str| x.to_string();
        match self {
            Command::Navigate { url } => vec![s(url)],
            Command::Evaluate { script } => {
                use base64::Engine;
                let b64 = base64::engine::general_purpose::STANDARD.encode(script);
                vec![s("-b"), b64]
            }
            Command::Click { selector }
            | Command::DoubleClick { selector }
            | Command::Hover { selector }
            | Command::Focus { selector }
            | Command::Check { selector }
            | Command::Uncheck { selector }
            | Command::ScrollIntoView { selector }
            | Command::Frame { selector } => vec![s(selector)],
            Command::Fill { selector, value: t } | Command::Type { selector, text: t } => {
                vec![s(selector), s(t)]
            }
            Command::Select {
                selector,
                values: list,
            }
            | Command::Upload {
                selector,
                files: list,
            } => std::iter::once(s(selector))
                .chain(list.iter().cloned())
                .collect(),
            // The daemon's only (the CLI has no `dispatch`): never a session's first command.
            Command::Dispatch {
                selector, event, ..
            } => vec![s(selector), s(event)],
            Command::Press { key } => vec![s(key)],
            Command::Keyboard { subaction, text } => vec![s(subaction.word()), s(text)],
            Command::Scroll { direction, amount } => vec![s(direction), amount.to_string()],
            Command::MainFrame => vec![s("main")],
            Command::Dialog {
                response,
                prompt_text,
            } => {
                let word = match response {
                    DialogResponse::Accept => "accept",
                    DialogResponse::Dismiss => "dismiss",
                    DialogResponse::Status => "status",
                };
                std::iter::once(s(word))
                    .chain(prompt_text.iter().cloned())
                    .collect()
            }
            Command::TabSwitch { tab_id } => vec![s(tab_id)],
            Command::TabClose { tab_id } => vec![s("close"), s(tab_id)],
            Command::Route {
                url,
                abort,
                response,
            } => {
                let mut v = vec![s("route"), s(url)];
                if *abort {
                    v.push(s("--abort"));
                } else if let Some(r) = response {
                    v.extend([s("--response"), r.to_string()]);
                }
                v
            }
            Command::Unroute { url } => std::iter::once(s("unroute"))
                .chain(url.iter().cloned())
                .collect(),
            Command::Requests { clear } => {
                let mut v = vec![s("requests")];
                if *clear {
                    v.push(s("--clear"));
                }
                v
            }
            Command::StateSave { path } => vec![s("save"), path.display().to_string()],
            _ => self.setting_or_read_args(),
        }
    }

    /// `args` of the `set`, `get`, `is`, `snapshot`, `screenshot`, `close` and `tab list` commands.
    fn setting_or_read_args(&self) -> Vec<String> {
        let s = |x: &str| x.to_string();
        match self {
            Command::Viewport { width, height } => {
                vec![s("viewport"), width.to_string(), height.to_string()]
            }
            Command::Device { device } => vec![s("device"), s(device)],
            Command::EmulateMedia {
                color_scheme,
                reduced_motion,
            } => {
                let mut v = vec![s("media"), s(color_scheme)];
                if *reduced_motion == ReducedMotion::Reduce {
                    v.push(s("reduced-motion"));
                }
                v
            }
            Command::Geolocation {
                latitude,
                longitude,
            } => vec![s("geo"), latitude.to_string(), longitude.to_string()],
            Command::Offline { offline } => {
                vec![s("offline"), s(if *offline { "on" } else { "off" })]
            }
            Command::Headers { headers } => vec![s("headers"), headers.to_string()],
            Command::GetUrl => vec![s("url")],
            Command::GetTitle => vec![s("title")],
            Command::CdpUrl => vec![s("cdp-url")],
            Command::TabList => vec![s("list")],
            Command::GetText { selector } => vec![s("text"), s(selector)],
            Command::GetValue { selector } => vec![s("value"), s(selector)],
            Command::GetBox { selector } => vec![s("box"), s(selector)],
            Command::GetAttribute {
                selector,
                attribute,
            } => vec![s("attr"), s(selector), s(attribute)],
            Command::IsVisible { selector } => vec![s("visible"), s(selector)],
            Command::IsChecked { selector } => vec![s("checked"), s(selector)],
            Command::IsEnabled { selector } => vec![s("enabled"), s(selector)],
            Command::Snapshot(o) => {
                let mut v = Vec::new();
                if o.interactive {
                    v.push(s("-i"));
                }
                if o.compact {
                    v.push(s("-c"));
                }
                if let Some(d) = o.max_depth {
                    v.extend([s("-d"), d.to_string()]);
                }
                if let Some(sel) = &o.selector {
                    v.extend([s("-s"), s(sel)]);
                }
                v
            }
            Command::Screenshot {
                full_page,
                path,
                selector,
                ..
            } => {
                let mut v = Vec::new();
                if *full_page {
                    v.push(s("--full"));
                }
                v.extend(selector.iter().cloned());
                v.push(path.display().to_string());
                v
            }
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests;
