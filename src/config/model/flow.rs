//! One flow: its keys, the web server it starts, and the rules the types alone do not enforce.

use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::Value;

use super::action::Action;
use super::browser::BrowserDefaults;
use super::exec::Command;
use super::retry::StepDefaults;
use super::step::Step;
use super::value::Scalar;

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
    /// One test per combination of these vars' values (expanded when the file is loaded: the
    /// flow of each test has none).
    pub(crate) matrix: Option<super::matrix::Matrix>,
}

/// `web_server:` of a flow, or one `[[web_server]]` of the project file (a run-level server,
/// which has a `name`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct WebServer {
    /// A run-level server's name (`{{ web_server.<name>.url }}`, `web_server/<name>.log`); a
    /// flow's server is `server` unless named.
    pub(crate) name: Option<String>,
    #[serde(rename = "static")]
    pub(crate) static_dir: Option<String>,
    pub(crate) command: Option<Command>,
    pub(crate) url: Option<String>,
    /// What readiness polls when it is not `url` (a health check): a URL, or a path taken on
    /// `url`.
    pub(crate) ready_url: Option<String>,
    /// The port the command listens on: a number, or `auto` (a free port, given as `$PORT`).
    pub(crate) port: Option<Port>,
    /// More environment for the command (on top of runner's and the flow's `env`).
    #[serde(default)]
    pub(crate) env: IndexMap<String, Scalar>,
    /// The command's working directory (relative to the flow's, or the project file's, directory).
    pub(crate) cwd: Option<String>,
    pub(crate) ready_timeout: Option<String>,
    /// Between SIGTERM and SIGKILL when the server is stopped (default 5s).
    pub(crate) stop_timeout: Option<String>,
    /// When the URL already answers: use it and start nothing (default: a flow's, off; the
    /// run's, on unless `CI` is set).
    pub(crate) reuse_existing: Option<bool>,
}

/// `web_server.port`.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(untagged)]
pub(crate) enum Port {
    Fixed(u16),
    Keyword(PortKeyword),
}

/// The one word `port` takes.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub(crate) enum PortKeyword {
    /// A free port picked for each start.
    Auto,
}

impl WebServer {
    /// Its name, else `server`.
    pub(crate) fn name_or_default(&self) -> String {
        self.name.clone().unwrap_or_else(|| "server".to_string())
    }

    /// The rules the types alone do not enforce: a folder or a command, a command with a
    /// `url` or a `port`, nothing a folder does not use.
    pub(crate) fn check(&self) -> Result<(), String> {
        let by_static = self.static_dir.is_some();
        let by_command = self.command.is_some() && (self.url.is_some() || self.port.is_some());
        if by_static == by_command {
            return Err(WEB_SERVER_FORMS.into());
        }
        if by_static
            && (self.command.is_some()
                || self.port.is_some()
                || !self.env.is_empty()
                || self.cwd.is_some()
                || self.url.is_some()
                || self.ready_url.is_some()
                || self.reuse_existing.is_some())
        {
            return Err(WEB_SERVER_STATIC.into());
        }
        if self.port == Some(Port::Fixed(0)) {
            return Err("`web_server.port` must be 1-65535, or `auto`".into());
        }
        Ok(())
    }
}

/// Why `value` cannot be the server's `field` (`url`, `ready_url`): readiness polls it with
/// HTTP, so anything but an absolute http(s) URL would only time out. Checked as written by
/// `validate`, and as rendered when the server starts.
pub(crate) fn url_problem(field: &str, value: &str) -> Option<String> {
    if field == "ready_url" && value.starts_with('/') {
        return None;
    }
    let why = match reqwest::Url::parse(value) {
        Ok(u) if matches!(u.scheme(), "http" | "https") && u.host_str().is_some() => return None,
        Ok(u) => format!("its scheme is `{}`, not http or https", u.scheme()),
        Err(e) => e.to_string(),
    };
    let path = if field == "ready_url" {
        ", or a path such as `/health`"
    } else {
        ""
    };
    Some(format!(
        "`web_server.{field}` must be an http(s) URL such as `http://127.0.0.1:8000`{path}: `{value}` is not ({why})"
    ))
}

/// What a `web_server` that serves a folder must not have.
pub(crate) const WEB_SERVER_STATIC: &str = "`web_server.static` serves a folder: `command`, `url`, `ready_url`, `port`, `env`, `cwd` and `reuse_existing` belong to a `command` server";

/// What `web_server` must have.
pub(crate) const WEB_SERVER_FORMS: &str =
    "`web_server` needs either `static`, or `command` with `url` or `port`";

impl Flow {
    /// Every step, `finally` included, and the steps inside `each` and `group` steps.
    pub(crate) fn all_steps(&self) -> impl Iterator<Item = &Step> {
        self.pointed_steps().into_iter().map(|(_, s)| s)
    }

    /// Every step as [`Flow::all_steps`] lists them, each with its JSON pointer (`/steps/2`,
    /// `/finally/0`, `/steps/3/each/steps/1`).
    pub(crate) fn pointed_steps(&self) -> Vec<(String, &Step)> {
        let mut out = Vec::new();
        super::step::walk_steps(&self.steps, "/steps", &mut out);
        super::step::walk_steps(&self.finally, "/finally", &mut out);
        out
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

    /// The vars rendered before the flow's web server starts: those above the first var that
    /// reads `web_server` (the engine renders the rest once the server is up).
    pub(crate) fn early_vars(&self) -> impl Iterator<Item = &str> {
        self.vars
            .iter()
            .take_while(|(_, v)| !reads_web_server(v))
            .map(|(k, _)| k.as_str())
    }

    /// The keys of the flow's `env:` that its web server cannot see: those that read
    /// `web_server`, or a var rendered once the server is up.
    pub(crate) fn late_env(&self) -> Vec<&str> {
        let early = self.early_vars().count();
        let late: Vec<String> = self
            .vars
            .keys()
            .skip(early)
            .map(|k| format!("vars.{k}"))
            .collect();
        self.env
            .iter()
            .filter(|(_, v)| {
                let raw = Value::String(v.to_string());
                reads_web_server(&raw) || late.iter().any(|l| v.to_string().contains(l.as_str()))
            })
            .map(|(k, _)| k.as_str())
            .collect()
    }

    /// The flow-level rules the types alone do not enforce.
    pub(crate) fn check(&self) -> Result<(), String> {
        if self.steps.is_empty() {
            return Err("`steps` must not be empty".into());
        }
        if let Some(ws) = &self.web_server {
            ws.check()?;
        }
        if let Some(b) = &self.browser {
            b.check()?;
        }
        if let Some(m) = &self.matrix {
            m.check()?;
        }
        Ok(())
    }
}

/// Whether a value's templates mention `web_server`.
pub(crate) fn reads_web_server(v: &Value) -> bool {
    match v {
        Value::String(s) => s.contains("{{") && s.contains("web_server"),
        Value::Array(a) => a.iter().any(reads_web_server),
        Value::Object(m) => m.values().any(reads_web_server),
        _ => false,
    }
}
