//! What starting a server's command takes, rendered from its settings: the port (`auto`: a free
//! one), then the URL (which may read `web_server.port`), then the readiness URL, the command,
//! its environment and working directory (which may read both).

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};

use super::ports;
use crate::config::duration::parse_duration;
use crate::config::model::{Command, Port, WebServer, url_problem};
use crate::step::{ErrorKind, Masker, StepError};

/// Renders one string of the server's settings at a JSON pointer, with `web_server` holding
/// what is known of the server so far.
pub(crate) type Render<'a> = dyn FnMut(&str, &str, &Value) -> Result<String, StepError> + 'a;

/// A command server to start.
pub(crate) struct Launch {
    pub(crate) name: String,
    pub(crate) argv: Vec<String>,
    pub(crate) cwd: PathBuf,
    /// On top of runner's environment: the flow's `env`, the server's `env`, `PORT`.
    pub(crate) env: Vec<(String, String)>,
    /// `web_server.url`.
    pub(crate) url: String,
    pub(crate) port: Option<u16>,
    /// `port` is one runner picked (`port: auto`): when another program takes it before the
    /// command binds it, the start picks again.
    pub(crate) picked: bool,
    /// Ready when an HTTP GET of this URL answers below 404 (`ready_url`, else `url`); without
    /// either, when `port` accepts a connection.
    pub(crate) probe: Option<String>,
    pub(crate) reuse: bool,
    pub(crate) ready: Duration,
    pub(crate) stop: Duration,
    /// Its log file, and the artifacts directory reports show it under.
    pub(crate) log: PathBuf,
    pub(crate) artifacts: PathBuf,
    /// What masks its output (the log, the tail a failure shows).
    pub(crate) masker: Masker,
}

/// Where a server's files go and what it starts with.
#[derive(Clone)]
pub(crate) struct Place<'a> {
    /// `/web_server` (a flow's) or `/web_server/N` (the project file's).
    pub(crate) ptr: &'a str,
    /// Relative paths (`cwd`) start here.
    pub(crate) dir: &'a Path,
    /// Environment before the server's own `env` (a flow's `env`).
    pub(crate) env: Vec<(String, String)>,
    pub(crate) log: PathBuf,
    pub(crate) artifacts: PathBuf,
    /// What masks its output: the flow's masker for a flow's server; for the run's, the secrets
    /// the run's flows declare.
    pub(crate) masker: Masker,
    /// `reuse_existing` when the server does not say: the run's servers reuse one locally (not
    /// in CI); a flow's own never does unless asked (it is there for a fresh server, and under
    /// `--jobs` the server answering may be another flow's, which stops when that flow ends).
    pub(crate) reuse_by_default: bool,
}

/// The server's name: its own, else `server`.
pub(crate) fn name_of(ws: &WebServer) -> String {
    ws.name_or_default()
}

/// Whether runner runs in CI (`CI` set to anything but empty, `0` or `false`), where
/// `reuse_existing` is off by default (as Playwright's `reuseExistingServer: !process.env.CI`).
pub(crate) fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && !v.eq_ignore_ascii_case("false"))
}

/// The server's port: its own, a free one for `auto`, none.
fn port_of(ws: &WebServer, name: &str) -> Result<Option<u16>, StepError> {
    match ws.port {
        Some(Port::Fixed(n)) => Ok(Some(n)),
        Some(Port::Keyword(_)) => ports::pick_free().map(Some).map_err(|e| {
            StepError::new(
                ErrorKind::Environment,
                format!("web server `{name}`: cannot find a free port: {e}"),
            )
        }),
        None => Ok(None),
    }
}

/// The command's arguments, rendered (a string is split as a shell would).
fn argv_of(
    command: Option<&Command>,
    ptr: &str,
    known: &Value,
    render: &mut Render<'_>,
) -> Result<Vec<String>, StepError> {
    match command {
        Some(Command::Argv(a)) => a
            .iter()
            .enumerate()
            .map(|(i, s)| render(s, &format!("{ptr}/command/{i}"), known))
            .collect(),
        Some(Command::String(s)) => {
            let s = render(s, &format!("{ptr}/command"), known)?;
            shell_words::split(&s).map_err(|e| {
                StepError::new(ErrorKind::Environment, format!("cannot split `{s}`: {e}"))
            })
        }
        None => Ok(Vec::new()),
    }
}

/// A `ready_url` as a whole URL: a path (`/health`) is taken on the server's `url`.
fn ready_url(given: &str, url: &str) -> String {
    if given.starts_with('/') {
        format!("{}{given}", url.trim_end_matches('/'))
    } else {
        given.to_string()
    }
}

/// Renders a command server's settings (see the module's doc for the order).
pub(crate) fn launch(
    ws: &WebServer,
    place: Place<'_>,
    render: &mut Render<'_>,
) -> Result<Launch, StepError> {
    let name = name_of(ws);
    let ptr = place.ptr;
    let port = port_of(ws, &name)?;
    let mut known = json!({ "port": port });
    let url = match (&ws.url, port) {
        (Some(u), _) => render(u, &format!("{ptr}/url"), &known)?,
        (None, Some(p)) => format!("http://127.0.0.1:{p}"),
        (None, None) => {
            return Err(StepError::new(
                ErrorKind::Environment,
                format!("web server `{name}` has neither `url` nor `port`"),
            ));
        }
    };
    known["url"] = Value::String(url.clone());
    let probe = match &ws.ready_url {
        Some(r) => Some(ready_url(
            &render(r, &format!("{ptr}/ready_url"), &known)?,
            &url,
        )),
        None => ws.url.is_some().then(|| url.clone()),
    };
    // As rendered (`validate` checked the ones written without a template): a URL readiness
    // cannot poll fails now, not after `ready_timeout`.
    let bad =
        |field, v: &str| url_problem(field, v).map(|e| StepError::new(ErrorKind::Environment, e));
    if let Some(e) = bad("url", &url).or_else(|| probe.as_deref().and_then(|p| bad("ready_url", p)))
    {
        return Err(e);
    }
    let argv = argv_of(ws.command.as_ref(), ptr, &known, render)?;
    let mut env = place.env;
    for (k, v) in &ws.env {
        let p = format!("{ptr}/env/{}", crate::source::pointer_escape(k));
        env.push((k.clone(), render(&v.to_string(), &p, &known)?));
    }
    if let Some(p) = port {
        env.push(("PORT".into(), p.to_string()));
    }
    let cwd = match &ws.cwd {
        Some(c) => place.dir.join(render(c, &format!("{ptr}/cwd"), &known)?),
        None => place.dir.to_path_buf(),
    };
    if !cwd.is_dir() {
        return Err(StepError::new(
            ErrorKind::Environment,
            format!(
                "web server `{name}`: its cwd {} is not a directory",
                cwd.display()
            ),
        ));
    }
    let duration = |d: &Option<String>, default: u64| {
        d.as_deref()
            .and_then(|d| parse_duration(d).ok())
            .unwrap_or(Duration::from_secs(default))
    };
    Ok(Launch {
        name,
        argv,
        cwd,
        env,
        url,
        port,
        picked: matches!(ws.port, Some(Port::Keyword(_))),
        probe,
        reuse: ws.reuse_existing.unwrap_or(place.reuse_by_default),
        ready: duration(&ws.ready_timeout, 30),
        stop: duration(&ws.stop_timeout, 5),
        log: place.log,
        artifacts: place.artifacts,
        masker: place.masker,
    })
}
