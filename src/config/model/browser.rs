//! `browser:`: how the flow's browser is launched or reached, and the device settings of its
//! context.

use indexmap::IndexMap;
use serde::Deserialize;

/// The `browser:` keys whose templates are rendered: after the flow's vars (they may read
/// `vars`, `secrets`, `env` and `web_server`), before its browser context is made. Its other
/// keys are used as written (`cdp` picks the browser and `state` orders the flows before any
/// template renders; the rest take no text a template could make).
pub(crate) const RENDERED_KEYS: [&str; 4] = ["device", "locale", "timezone", "headers"];

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
    /// The attribute `{ testid }` selectors read (`data-testid`), as Playwright's
    /// `testIdAttribute`.
    pub(crate) testid_attribute: Option<String>,
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

impl BrowserDefaults {
    pub(crate) fn check(&self) -> Result<(), String> {
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
        if let Some(a) = &self.testid_attribute
            && !is_attribute_name(a)
        {
            return Err(format!(
                "`browser.testid_attribute` is an attribute name (`data-test`), not `{a}`"
            ));
        }
        Ok(())
    }
}

/// An HTML attribute name as the schema's `testid_attribute` pattern takes it:
/// `^[A-Za-z_][A-Za-z0-9_.:-]*$`.
fn is_attribute_name(a: &str) -> bool {
    let mut chars = a.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-'))
}
