//! `web_server: { static: DIR }`: a folder served on 127.0.0.1 at a free port (no dotfiles,
//! nothing outside it).

use std::path::Path;
use std::time::Duration;

use crate::step::{ErrorKind, StepError};

/// A folder being served.
pub(crate) struct StaticSite {
    pub(crate) url: String,
    pub(crate) port: u16,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl StaticSite {
    /// Serves `dir` on 127.0.0.1 at a free port.
    pub(crate) async fn serve(dir: &Path) -> Result<StaticSite, StepError> {
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
        Ok(StaticSite {
            url: format!("http://{addr}"),
            port: addr.port(),
            stop: Some(tx),
            task: Some(task),
        })
    }

    /// Stops serving.
    pub(crate) async fn stop(mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.task.take() {
            let _ = tokio::time::timeout(Duration::from_secs(2), t).await;
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
