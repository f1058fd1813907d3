//! `web_server:` — a folder served on 127.0.0.1 at a free port, or a command started in its own
//! process group and polled at `url` until it answers. Stopped when the flow ends.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use tokio::process::Command;

use super::render::template_error;
use super::runtime::Runtime;
use crate::config::duration::parse_duration;
use crate::config::flows::LoadedFlow;
use crate::config::model::Command as CommandSpec;
use crate::process;
use crate::step::{ErrorKind, StepError};

/// A running web server.
pub(crate) struct WebServer {
    pub(crate) url: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<()>>,
    /// A command server: its process (the leader of its group).
    child: Option<(i32, tokio::process::Child)>,
}

impl WebServer {
    /// Starts the flow's `web_server`, if it has one; its strings are rendered with `ctx`
    /// (`env`, `flow`, `run`: it starts before the vars, which may read its URL).
    pub(crate) async fn start(
        rt: &Runtime,
        loaded: &LoadedFlow,
        ctx: &minijinja::Value,
    ) -> Result<Option<WebServer>, StepError> {
        let Some(ws) = &loaded.flow.web_server else {
            return Ok(None);
        };
        let render = |s: &str, ptr: &str| {
            rt.templates
                .render_str(s, ctx)
                .map_err(|e| template_error(loaded, ptr, e))
        };
        if let Some(dir) = &ws.static_dir {
            let dir = render(dir, "/web_server/static")?;
            return WebServer::serve_static(&loaded.dir.join(dir))
                .await
                .map(Some);
        }
        let (Some(command), Some(url)) = (&ws.command, &ws.url) else {
            return Ok(None);
        };
        let url = render(url, "/web_server/url")?;
        let argv = match command {
            CommandSpec::Argv(a) => a
                .iter()
                .enumerate()
                .map(|(i, s)| render(s, &format!("/web_server/command/{i}")))
                .collect::<Result<Vec<_>, _>>()?,
            CommandSpec::String(s) => {
                let s = render(s, "/web_server/command")?;
                shell_words::split(&s).map_err(|e| {
                    StepError::new(ErrorKind::Environment, format!("cannot split `{s}`: {e}"))
                })?
            }
        };
        let ready = ws
            .ready_timeout
            .as_deref()
            .and_then(|d| parse_duration(d).ok())
            .unwrap_or(Duration::from_secs(30));
        WebServer::start_command(&argv, &loaded.dir, &url, ready, &rt.cancel)
            .await
            .map(Some)
    }

    /// Serves `dir` on 127.0.0.1 at a free port.
    async fn serve_static(dir: &Path) -> Result<WebServer, StepError> {
        if !dir.is_dir() {
            return Err(StepError::new(
                ErrorKind::Environment,
                format!("web_server.static: {} is not a directory", dir.display()),
            ));
        }
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| {
                StepError::new(
                    ErrorKind::Environment,
                    format!("cannot bind 127.0.0.1: {e}"),
                )
            })?;
        let addr = listener
            .local_addr()
            .map_err(|e| StepError::new(ErrorKind::Environment, e.to_string()))?;
        let root = dir.canonicalize().map_err(|e| {
            StepError::new(
                ErrorKind::Environment,
                format!("web_server.static: {}: {e}", dir.display()),
            )
        })?;
        let app = axum::Router::new()
            .fallback_service(tower_http::services::ServeDir::new(&root))
            .layer(axum::middleware::from_fn(move |req, next| {
                let root = root.clone();
                guard_static(root, req, next)
            }));
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    let _ = rx.await;
                })
                .await;
        });
        Ok(WebServer {
            url: format!("http://{addr}"),
            stop: Some(tx),
            task: Some(task),
            child: None,
        })
    }

    /// Starts `argv` in `cwd` and waits until `url` answers.
    async fn start_command(
        argv: &[String],
        cwd: &Path,
        url: &str,
        ready: Duration,
        cancel: &tokio_util::sync::CancellationToken,
    ) -> Result<WebServer, StepError> {
        let Some((program, args)) = argv.split_first() else {
            return Err(StepError::new(
                ErrorKind::Environment,
                "web_server.command is empty",
            ));
        };
        let mut cmd = Command::new(program);
        cmd.args(args)
            .current_dir(cwd)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let (mut child, pgid) = process::spawn_group(&mut cmd).map_err(|e| {
            StepError::new(
                ErrorKind::Environment,
                format!("cannot start web server `{program}`: {e}"),
            )
        })?;
        let deadline = tokio::time::Instant::now() + ready;
        let failure = loop {
            if answers(url).await {
                return Ok(WebServer {
                    url: url.to_string(),
                    stop: None,
                    task: None,
                    child: Some((pgid, child)),
                });
            }
            if let Ok(Some(status)) = child.try_wait() {
                break (
                    ErrorKind::Environment,
                    format!("web server `{program}` exited ({status}) before {url} answered"),
                );
            }
            if tokio::time::Instant::now() >= deadline {
                break (
                    ErrorKind::Environment,
                    format!(
                        "web server did not answer at {url} within {}",
                        humantime::format_duration(ready)
                    ),
                );
            }
            // Ctrl-C while waiting for it ends the wait (and the server) at once.
            tokio::select! {
                () = tokio::time::sleep(Duration::from_millis(100)) => {}
                () = cancel.cancelled() => break (ErrorKind::Interrupted, "interrupted".to_string()),
            }
        };
        process::terminate_child_group(pgid, &mut child).await;
        process::unregister(pgid);
        Err(StepError::new(failure.0, failure.1))
    }

    /// Stops the server (a command's whole process group).
    pub(crate) async fn stop(mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.task.take() {
            let _ = tokio::time::timeout(Duration::from_secs(2), t).await;
        }
        if let Some((pgid, mut child)) = self.child.take() {
            process::terminate_child_group(pgid, &mut child).await;
            process::unregister(pgid);
        }
    }
}

/// What the static server refuses and adds: no dotfile (`/.env`, `/.git/config`), nothing a
/// symlink leads to outside the directory (both 404), and `charset=utf-8` on text, so
/// non-ASCII pages are not read as windows-1252.
async fn guard_static(
    root: std::path::PathBuf,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let path = percent_encoding::percent_decode_str(req.uri().path())
        .decode_utf8_lossy()
        .into_owned();
    let hidden = path.split('/').any(|seg| seg.starts_with('.'));
    let outside = root
        .join(path.trim_start_matches('/'))
        .canonicalize()
        .is_ok_and(|real| !real.starts_with(&root));
    if hidden || outside {
        return axum::http::StatusCode::NOT_FOUND.into_response();
    }
    let mut resp = next.run(req).await;
    let ct = resp
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .cloned();
    if let Some(ct) = ct.and_then(|v| v.to_str().ok().map(str::to_string))
        && (ct.starts_with("text/") || ct.starts_with("application/javascript"))
        && !ct.contains("charset")
        && let Ok(v) = axum::http::HeaderValue::from_str(&format!("{ct}; charset=utf-8"))
    {
        resp.headers_mut()
            .insert(axum::http::header::CONTENT_TYPE, v);
    }
    resp
}

/// Whether an HTTP GET of `url` gets any answer.
async fn answers(url: &str) -> bool {
    let Ok(uri) = url.parse::<hyper::Uri>() else {
        return false;
    };
    let host = uri.host().unwrap_or("127.0.0.1").to_string();
    let port = uri.port_u16().unwrap_or(80);
    let Ok(Ok(stream)) = tokio::time::timeout(
        Duration::from_secs(1),
        tokio::net::TcpStream::connect((host.as_str(), port)),
    )
    .await
    else {
        return false;
    };
    let io = hyper_util::rt::TokioIo::new(stream);
    let Ok((mut sender, conn)) =
        hyper::client::conn::http1::handshake::<_, http_body_util::Empty<hyper::body::Bytes>>(io)
            .await
    else {
        return false;
    };
    tokio::spawn(conn);
    let path = uri.path_and_query().map_or("/", |p| p.as_str()).to_string();
    let Ok(req) = hyper::Request::get(path)
        .header("host", host)
        .body(http_body_util::Empty::new())
    else {
        return false;
    };
    matches!(
        tokio::time::timeout(Duration::from_secs(2), sender.send_request(req)).await,
        Ok(Ok(_))
    )
}
