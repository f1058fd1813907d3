//! A flow's browser (`browser:`): which one it runs in, and the settings of its own context —
//! with the templates of `device`, `locale`, `timezone` and `headers` rendered once its vars are
//! known, before the context is made (so a header can carry `{{ secrets.TOKEN }}`).

use serde_json::{Map, Value};

use super::context::Scope;
use super::render::{learn_secrets, location, template_error};
use super::runtime::Runtime;
use crate::browser::{BrowserSpec, ContextSetup, Emulation};
use crate::config::flows::LoadedFlow;
use crate::config::model::RENDERED_KEYS;
use crate::step::{ErrorKind, Masker, StepError};
use crate::template::is_template;

/// The flow's browser: a running one its `browser.cdp` (else `--browser-cdp`) names, else one
/// launched here, headed with `--headed` or its `browser.headed`.
pub(crate) fn browser_spec(rt: &Runtime, loaded: &LoadedFlow) -> BrowserSpec {
    let b = loaded.flow.browser.as_ref();
    rt.browser.spec(
        b.and_then(|b| b.headed).unwrap_or(false),
        b.and_then(|b| b.cdp.as_deref()),
        super::attempts::browser_timeout(loaded),
    )
}

/// What the flow sets up in its own browser context, as written (see [`render_settings`] for
/// its templates); `downloads`: where its downloads go.
pub(crate) fn context_setup(
    loaded: &LoadedFlow,
    downloads: Option<crate::browser::driver::downloads::DownloadDir>,
) -> ContextSetup {
    match loaded.flow.browser.as_ref() {
        Some(b) => setup_of(b, &loaded.dir, downloads),
        None => ContextSetup {
            downloads,
            ..ContextSetup::default()
        },
    }
}

/// What the project's `[browser]` sets up in a context of the atlas commands (`replay`,
/// `verify`, `test`, `explore`): what a flow with no `browser:` of its own takes in a run.
pub(crate) fn project_setup(
    project: Option<&crate::config::project::ProjectBrowser>,
    dir: &std::path::Path,
) -> ContextSetup {
    let mut b = crate::config::model::BrowserDefaults::default();
    match project {
        Some(p) => p.fill(&mut b),
        None => return ContextSetup::default(),
    }
    setup_of(&b, dir, None)
}

/// The context settings `b` (a flow's `browser:`, filled from the project's) says; a
/// `state` file is relative to `dir`.
fn setup_of(
    b: &crate::config::model::BrowserDefaults,
    dir: &std::path::Path,
    downloads: Option<crate::browser::driver::downloads::DownloadDir>,
) -> ContextSetup {
    ContextSetup {
        downloads,
        record: None,
        masker: crate::step::Masker::default(),
        testid_attribute: b.testid_attribute.clone(),
        dialogs: b
            .dialogs
            .map(|d| matches!(d, crate::config::model::DialogDefault::Accept)),
        emulation: Emulation {
            device: b.device.clone(),
            viewport: b.viewport.map(|v| (v.width, v.height)),
            locale: b.locale.clone(),
            timezone: b.timezone.clone(),
            color_scheme: b.color_scheme.map(|c| {
                match c {
                    crate::config::model::ColorScheme::Light => "light",
                    crate::config::model::ColorScheme::Dark => "dark",
                }
                .to_string()
            }),
            geolocation: b.geolocation.map(|g| (g.latitude, g.longitude)),
            offline: b.offline.unwrap_or(false),
            headers: b
                .headers
                .as_ref()
                .map(|h| serde_json::to_value(h).unwrap_or_default()),
            state: b.state.as_ref().map(|s| dir.join(s)),
        },
    }
}

/// The flow's `browser:` keys that hold a template, as written in its file.
fn templated(loaded: &LoadedFlow) -> Vec<(&'static str, &Value)> {
    let Some(b) = loaded.doc.value.get("browser") else {
        return Vec::new();
    };
    RENDERED_KEYS
        .iter()
        .filter_map(|k| Some((*k, b.get(*k)?)))
        .filter(|(_, v)| holds_template(v))
        .collect()
}

fn holds_template(v: &Value) -> bool {
    match v {
        Value::String(s) => is_template(s),
        Value::Object(m) => m.values().any(holds_template),
        _ => false,
    }
}

/// Whether the flow's context waits for its vars: some of its settings are templates.
pub(crate) fn waits_for_vars(loaded: &LoadedFlow) -> bool {
    !templated(loaded).is_empty()
}

/// The settings whose templates were rendered.
#[derive(Debug, Default)]
pub(crate) struct Rendered {
    device: Option<String>,
    locale: Option<String>,
    timezone: Option<String>,
    headers: Option<Value>,
}

impl Rendered {
    /// Puts them in place of those as written.
    pub(crate) fn apply(self, e: &mut Emulation) {
        e.device = self.device.or(e.device.take());
        e.locale = self.locale.or(e.locale.take());
        e.timezone = self.timezone.or(e.timezone.take());
        e.headers = self.headers.or(e.headers.take());
    }
}

/// Renders the templates of the flow's settings (its vars are in `scope` by now); what they
/// make of a secret is masked from here on.
pub(crate) fn render_settings(
    rt: &Runtime,
    loaded: &LoadedFlow,
    scope: &mut Scope,
    masker: &Masker,
) -> Result<Rendered, StepError> {
    let ctx = scope.context();
    let mut out = Rendered::default();
    for (key, raw) in templated(loaded) {
        let at = format!("/browser/{key}");
        let rendered = rt
            .templates
            .render_value(raw, &ctx)
            .map_err(|err| template_error(loaded, &at, err))?;
        learn_secrets(&rt.templates, &ctx, raw, masker);
        let text = |ptr: &str, v: &Value, empty_ok: bool| {
            text_of(v, empty_ok).map_err(|what| {
                let src = loaded.doc.value.pointer(ptr).and_then(Value::as_str);
                StepError::new(
                    ErrorKind::Template,
                    format!(
                        "`{}` (`{}`) renders to {what}",
                        ptr.trim_start_matches('/').replace('/', "."),
                        src.unwrap_or_default().trim()
                    ),
                )
                .located(&location(loaded, ptr))
            })
        };
        match key {
            "headers" => {
                let mut headers = Map::new();
                for (name, v) in rendered.as_object().into_iter().flatten() {
                    let ptr = crate::source::pointer_push(&at, name);
                    let value = text(&ptr, v, true)?;
                    // A line break a template made would end the header there (injection).
                    if let Some(what) = crate::config::headers::value_problem(&value) {
                        return Err(StepError::new(
                            ErrorKind::Template,
                            format!("`browser.headers.{name}` renders to text with {what}: a header's value is one line"),
                        )
                        .located(&location(loaded, &ptr)));
                    }
                    headers.insert(name.clone(), Value::String(value));
                }
                out.headers = Some(Value::Object(headers));
            }
            "device" => out.device = Some(text(&at, &rendered, false)?),
            "locale" => out.locale = Some(taken(loaded, key, text(&at, &rendered, false)?)?),
            "timezone" => {
                out.timezone = Some(taken(loaded, key, text(&at, &rendered, false)?)?);
            }
            other => {
                return Err(StepError::new(
                    ErrorKind::Internal,
                    format!(
                        "internal error: `browser.{other}` takes templates, but nothing renders it"
                    ),
                ));
            }
        }
    }
    Ok(out)
}

/// A rendered `locale` or `timezone`, if the browser takes it; else the error `validate` gives
/// such a value written without a template, at the setting's line.
fn taken(loaded: &LoadedFlow, key: &str, value: String) -> Result<String, StepError> {
    let problem = match key {
        "locale" => crate::config::browser_values::locale_problem(&value),
        _ => crate::config::browser_values::timezone_problem(&value),
    };
    let Some((problem, help)) = problem else {
        return Ok(value);
    };
    let ptr = format!("/browser/{key}");
    let src = loaded.doc.value.pointer(&ptr).and_then(Value::as_str);
    Err(StepError::new(
        ErrorKind::Template,
        format!(
            "`browser.{key}` (`{}`): {problem} ({help})",
            src.unwrap_or_default().trim()
        ),
    )
    .located(&location(loaded, &ptr)))
}

/// A rendered setting as the text the browser takes: a number or a boolean as written; none,
/// a list or a map is an error (the words of it).
fn text_of(v: &Value, empty_ok: bool) -> Result<String, &'static str> {
    match v {
        Value::String(s) if s.is_empty() && !empty_ok => Err("an empty string"),
        Value::String(s) => Ok(s.clone()),
        Value::Number(_) | Value::Bool(_) => Ok(v.to_string()),
        Value::Null => Err("none"),
        Value::Array(_) | Value::Object(_) => Err("a list or a map, not text"),
    }
}
