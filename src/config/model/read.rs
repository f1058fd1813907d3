//! Steps that look at the page without acting on it: `snapshot`, `screenshot`, `wait` and
//! `inspect`.

use serde::Deserialize;

use super::checks::JsCheck;
use super::selector::Selector;

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

// Built once per step at load time; boxing the options would buy nothing.
#[allow(clippy::large_enum_variant)]
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
    /// A JavaScript expression re-evaluated in the page until it is truthy.
    pub(crate) js: Option<JsCheck>,
}

impl WaitAction {
    pub(crate) fn check(&self) -> Result<(), String> {
        match self {
            WaitAction::For(w) => {
                if w.target.is_none()
                    && w.state.is_none()
                    && w.text.is_none()
                    && w.url.is_none()
                    && w.js.is_none()
                {
                    return Err("empty `wait`".into());
                }
                w.js.as_ref().map_or(Ok(()), JsCheck::check)?;
                w.target.as_ref().map_or(Ok(()), Selector::check)
            }
            WaitAction::Duration(_) => Ok(()),
        }
    }
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
