//! Actions on the page and its context rather than one element: dialogs, tabs, routes,
//! downloads and saved state.

use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::Value;

use super::selector::Selector;

/// `open`: a URL, or `{ url, status }` (the status the page must answer with).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum OpenAction {
    Url(String),
    Full(OpenOptions),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct OpenOptions {
    pub(crate) url: String,
    pub(crate) status: Option<u16>,
}

impl OpenAction {
    pub(crate) fn url(&self) -> &str {
        match self {
            OpenAction::Url(u) | OpenAction::Full(OpenOptions { url: u, .. }) => u,
        }
    }

    /// The status the page must answer with; `None`: any but a 4xx or 5xx.
    pub(crate) fn status(&self) -> Option<u16> {
        match self {
            OpenAction::Url(_) => None,
            OpenAction::Full(o) => o.status,
        }
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

    pub(crate) fn check(&self) -> Result<(), String> {
        match self {
            DialogAction::Word(w) if w != "accept" && w != "dismiss" => {
                Err(format!("`dialog: {w}`: expected accept or dismiss"))
            }
            DialogAction::Word(_) | DialogAction::Full(_) => Ok(()),
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
/// `*` within a path segment, `**` across, other characters the URL's own; without a `?` it is
/// matched against the URL without its query, see `driver::url_glob`) with a stub, or fail
/// them (`abort`).
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

impl StateAction {
    pub(crate) fn check(&self) -> Result<(), String> {
        if self.save.is_empty() {
            return Err("`state.save` needs a path".into());
        }
        Ok(())
    }
}

impl DownloadAction {
    pub(crate) fn check(&self) -> Result<(), String> {
        if self.path.as_deref() == Some("") {
            return Err("`download.path` must not be empty".into());
        }
        self.target.check()
    }
}

impl RouteAction {
    pub(crate) fn check(&self) -> Result<(), String> {
        let has_response = self.status.is_some()
            || self.body.is_some()
            || self.content_type.is_some()
            || self.headers.is_some();
        if self.url.is_empty() {
            Err("`route` needs a `url`".into())
        } else if self.abort && has_response {
            Err("`route` with `abort: true` takes no response (status, body, ...)".into())
        } else if self.status.is_some_and(|s| !(100..=599).contains(&s)) {
            Err("`route.status` is an HTTP status (100-599)".into())
        } else {
            Ok(())
        }
    }
}

impl TabAction {
    pub(crate) fn check(&self) -> Result<(), String> {
        match self {
            TabAction::Word(w) if w != "close" => Err(format!(
                "`tab: {w}`: expected close, or {{ switch: last | first | N | {{ url }} }}"
            )),
            TabAction::Switch(TabSwitch {
                switch: TabWhich::Word(w),
            }) if w != "last" && w != "first" => Err(format!(
                "`tab: {{ switch: {w} }}`: expected last, first, a number or {{ url }}"
            )),
            TabAction::Switch(TabSwitch {
                switch: TabWhich::Url(u),
            }) if u.url.is_empty() => Err("`tab: { switch: { url } }` needs a URL part".into()),
            TabAction::Word(_) | TabAction::Switch(_) => Ok(()),
        }
    }
}
