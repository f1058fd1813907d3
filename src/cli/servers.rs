//! The web servers of `explore` and `atlas replay|verify|test`: runner.toml's `[[web_server]]`
//! or the one of `--web-server`, started before the command's work and stopped after it, by the
//! code `run` uses (`engine::start_servers`). Their logs go to `.runner/logs/<run-id>/web_server/`.

use std::future::Future;
use std::path::{Path, PathBuf};

use super::args::ServerArgs;
use super::error::CliError;
use crate::config::project::{self, ServersSpec};
use crate::engine::{Runtime, start_servers};
use crate::report::Reporter;

/// The servers to start: `--web-server`'s (it replaces the project file's), else the project
/// file's `[[web_server]]`, else none.
pub(crate) fn spec(args: &ServerArgs) -> Result<Option<ServersSpec>, CliError> {
    if let Some(cmd) = &args.command {
        return project::flag_server(cmd, args.url.as_deref(), args.port.as_deref())
            .map(Some)
            .map_err(CliError::invalid);
    }
    let cwd = std::env::current_dir()
        .map_err(|e| CliError::Environment(format!("cannot read the current directory: {e}")))?;
    Ok(project::find(&cwd)
        .map_err(CliError::invalid)?
        .and_then(|p| p.servers()))
}

/// Where the servers' logs go for a command: `.runner/logs/<run-id>/`.
pub(crate) fn logs_dir(run_id: &str) -> PathBuf {
    Path::new(".runner/logs").join(run_id)
}

/// Starts the servers, runs `work` with the first one's origin (`scheme://host:port`), stops
/// them (each command's whole process group). A server that does not start is the command's
/// environment error, and nothing runs; an interrupt during the start ends the command as
/// interrupted; one that exited while `work` ran is reported.
pub(crate) async fn around<T, F, Fut>(
    rt: &Runtime,
    spec: Option<&ServersSpec>,
    run_id: &str,
    reporter: &Reporter,
    work: F,
) -> Result<T, CliError>
where
    F: FnOnce(Option<String>) -> Fut,
    Fut: Future<Output = T>,
{
    let logs = logs_dir(run_id);
    // Ctrl-C (or SIGTERM, SIGHUP) while a server starts ends the start: what was started is
    // stopped, and the command ends as interrupted. The watch stays on while `work` runs: the
    // signal then cancels the run (`rt.cancel`), `work` ends, and the servers are still
    // stopped below; without it a signal during the work would end runner before it stops them.
    let watcher = tokio::spawn(super::signals::watch(rt.cancel.clone()));
    let mut servers = start_servers(rt, spec, &logs).await;
    let out = if rt.cancel.is_cancelled() {
        Err(CliError::Interrupted(
            "interrupted while the web servers started".to_string(),
        ))
    } else if let Some(e) = servers.failed() {
        Err(CliError::Environment(format!(
            "{} (logs in {})",
            e.message,
            logs.display()
        )))
    } else {
        let origin = servers.first_url().map(origin);
        Ok(work(origin).await)
    };
    watcher.abort();
    if let Some(why) = servers.died().await {
        reporter.error(&why);
    }
    servers.stop().await;
    out
}

/// `scheme://host:port` of a URL.
fn origin(url: &str) -> String {
    match url.split_once("://") {
        Some((scheme, rest)) => {
            let host = rest.split(['/', '?', '#']).next().unwrap_or("");
            format!("{scheme}://{host}")
        }
        None => url.trim_end_matches('/').to_string(),
    }
}

/// The URL to explore: a path (`/`, `/app`) is taken on the server's origin.
pub(crate) fn start_url(url: &str, origin: Option<&str>) -> Result<String, String> {
    if !url.starts_with('/') {
        return Ok(url.to_string());
    }
    origin.map(|o| format!("{o}{url}")).ok_or_else(|| {
        format!("`{url}` is a path: it needs a web server (runner.toml's [[web_server]] or --web-server) to be taken on, or give a whole URL")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_taken_on_the_servers_origin() {
        assert_eq!(
            origin("http://127.0.0.1:8123/app?x=1"),
            "http://127.0.0.1:8123"
        );
        assert_eq!(
            start_url("/about", Some("http://127.0.0.1:8123")).unwrap(),
            "http://127.0.0.1:8123/about"
        );
        assert_eq!(
            start_url("http://example.test/", Some("http://127.0.0.1:1")).unwrap(),
            "http://example.test/"
        );
        assert!(
            start_url("/", None)
                .unwrap_err()
                .contains("needs a web server")
        );
    }
}
