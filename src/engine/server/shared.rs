//! The run's servers (`[[web_server]]` of runner.toml): started once before the first flow,
//! shared by every flow and worker, stopped after the last flow. Flows read them as
//! `web_server.<name>.url` / `.port`; one that failed to start fails every flow, and one that
//! exits while flows run fails them, naming it.

use std::path::Path;

use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use super::launch::{Place, in_ci, launch, name_of};
use super::process::Server;
use crate::config::project::{Origin, ServersSpec};
use crate::config::server_flags::option_at;
use crate::engine::render::{learn_secrets, template_error_in};
use crate::step::{Masker, ServerInfo, StepError};
use crate::template::Templates;

/// The run's servers once started (or the error that stopped one from starting).
#[derive(Default)]
pub(crate) struct RunServers {
    servers: Vec<Server>,
    failed: Option<StepError>,
    /// `web_server.<name>`: `{url, port}`, for the flows' templates.
    values: Map<String, Value>,
    info: Vec<ServerInfo>,
    /// Each template the servers rendered, with its context: what a flow's masker learns of
    /// them ([`RunServers::teach`]).
    rendered: Vec<(minijinja::Value, String)>,
    /// What masks what reports show of them (see [`RunContext::masker`]).
    masker: Masker,
}

/// What starting the run's servers reads from the run.
pub(crate) struct RunContext<'a> {
    pub(crate) templates: &'a Templates,
    pub(crate) env: &'a Map<String, Value>,
    pub(crate) run: Value,
    pub(crate) artifacts: &'a Path,
    pub(crate) cancel: &'a CancellationToken,
    /// What masks the servers' output: the secrets the run's flows declare (the servers get
    /// runner's environment, which holds them) and what their templates make of one.
    pub(crate) masker: Masker,
}

impl RunServers {
    /// Starts every server of `spec` in order; stops at the first that fails (the ones started
    /// stay up until [`RunServers::stop`]).
    pub(crate) async fn start(spec: Option<&ServersSpec>, cx: &RunContext<'_>) -> RunServers {
        let mut out = RunServers {
            masker: cx.masker.clone(),
            ..RunServers::default()
        };
        let Some(spec) = spec else { return out };
        for (i, ws) in spec.servers.iter().enumerate() {
            let name = name_of(ws);
            let mut log = None;
            match start_one(spec, i, cx, &mut out.rendered, &mut log).await {
                Ok(s) => {
                    out.values
                        .insert(name, json!({ "url": s.url, "port": s.port }));
                    out.info.push(info_of(&s, &cx.masker));
                    out.servers.push(s);
                }
                Err(mut e) => {
                    // Each error names the rendered field it is about (a `ready_url` with a
                    // token from `env`): masked with what the templates made of a secret.
                    e.message = cx.masker.mask(&e.message);
                    out.info.push(ServerInfo {
                        name: name.clone(),
                        url: String::new(),
                        // The log of a command that started (none was made when it could not).
                        log: log.map(|l| l.display().to_string()),
                        log_not_kept: None,
                        start_ms: 0,
                        reused: false,
                        error: Some(e.message.clone()),
                    });
                    out.failed = Some(StepError {
                        message: format!("{} did not start: {}", described(spec, &name), e.message),
                        ..e
                    });
                    break;
                }
            }
        }
        out
    }

    /// Teaches a flow's `masker` what the servers' templates made of a secret it knows
    /// (`{{ env.TOKEN | upper }}` in a command): the servers may show it to the flow.
    pub(crate) fn teach(&self, templates: &Templates, masker: &Masker) {
        for (ctx, src) in &self.rendered {
            learn_secrets(templates, ctx, &Value::String(src.clone()), masker);
        }
    }

    /// `web_server.<name>` of each server.
    pub(crate) fn values(&self) -> &Map<String, Value> {
        &self.values
    }

    /// The first server's URL, when one started.
    pub(crate) fn first_url(&self) -> Option<&str> {
        self.servers.first().map(|s| s.url.as_str())
    }

    /// The servers as reports show them (each started, or the one that did not start).
    pub(crate) fn info(&self) -> Vec<ServerInfo> {
        self.info.clone()
    }

    /// Why flows cannot run: a server did not start.
    pub(crate) fn failed(&self) -> Option<&StepError> {
        self.failed.as_ref()
    }

    /// Why a server that was up is gone, if one has exited by itself.
    pub(crate) async fn died(&self) -> Option<String> {
        for s in &self.servers {
            if let Some(why) = s.died().await {
                return Some(why.replace("while the flow ran", "while the run's flows ran"));
            }
        }
        None
    }

    /// Stops every server (each command's whole process group); returns what reports show.
    pub(crate) async fn stop(&mut self) -> Vec<ServerInfo> {
        for (s, info) in self.servers.iter().zip(self.info.iter_mut()) {
            if let Some(why) = s.died().await {
                info.error = Some(self.masker.mask(&why));
            }
            s.stop().await;
        }
        std::mem::take(&mut self.info)
    }
}

/// The server as its errors name it: where it was written.
fn described(spec: &ServersSpec, name: &str) -> String {
    match spec.origin {
        Origin::File => {
            let file = Path::new(spec.doc.file.name())
                .file_name()
                .map_or_else(|| "the project file".into(), |n| n.to_string_lossy());
            format!("the run's web server `{name}` ({file})")
        }
        Origin::Flags => "the web server of --web-server".to_string(),
    }
}

/// `web_server/<name>.log`.
fn log_rel(name: &str) -> String {
    format!("web_server/{name}.log")
}

/// What reports show of a server that started (its log's path absolute; its URL masked: a
/// credential in it, `http://admin:{{ env.T }}@host`, is a secret's).
fn info_of(s: &Server, masker: &Masker) -> ServerInfo {
    ServerInfo {
        name: s.name.clone(),
        url: masker.mask(&s.url),
        log: s.log().map(|l| l.display().to_string()),
        log_not_kept: s.log_not_kept(),
        start_ms: u64::try_from(s.started_in.as_millis()).unwrap_or(u64::MAX),
        reused: s.reused,
        error: None,
    }
}

/// Starts the `i`-th server of the project file; adds each template it renders, with its
/// context, to `rendered`.
async fn start_one(
    spec: &ServersSpec,
    i: usize,
    cx: &RunContext<'_>,
    rendered: &mut Vec<(minijinja::Value, String)>,
    log: &mut Option<std::path::PathBuf>,
) -> Result<Server, StepError> {
    let ws = &spec.servers[i];
    let name = name_of(ws);
    let ptr = format!("/web_server/{i}");
    let mut render = |src: &str, at: &str, known: &Value| -> Result<String, StepError> {
        let ctx = minijinja::Value::from_serialize(
            json!({ "env": cx.env, "run": cx.run, "web_server": known }),
        );
        // What it makes of a secret's value in `env` is masked in its log (and in the flows
        // that declare the secret: `teach`).
        learn_secrets(
            cx.templates,
            &ctx,
            &Value::String(src.to_string()),
            &cx.masker,
        );
        rendered.push((ctx.clone(), src.to_string()));
        cx.templates
            .render_str(src, &ctx)
            .map_err(|e| match spec.origin {
                Origin::File => template_error_in(&spec.doc, at, e),
                // The options have no file to point into: the option says where.
                Origin::Flags => StepError::new(
                    crate::step::ErrorKind::Template,
                    format!("{}: {}", option_at(at), e.message),
                ),
            })
    };
    if let Some(dir) = &ws.static_dir {
        let dir = render(dir, &format!("{ptr}/static"), &Value::Null)?;
        return Server::serve_static(&name, &spec.dir.join(dir)).await;
    }
    let dir = if spec.dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        &spec.dir
    };
    let place = Place {
        ptr: &ptr,
        dir,
        env: Vec::new(),
        log: cx.artifacts.join(log_rel(&name)),
        artifacts: cx.artifacts.to_path_buf(),
        masker: cx.masker.clone(),
        reuse_by_default: !in_ci(),
    };
    Server::start(
        &mut || launch(ws, place.clone(), &mut render),
        cx.cancel,
        log,
    )
    .await
}
