//! The web servers of `explore` and `atlas replay|verify|test`: runner.toml's `[[web_server]]`
//! or the one of `--web-server`, started before the command's work and stopped after it, by the
//! code `run` uses (`engine::start_servers`). Their logs go to `.runner/logs/<run-id>/web_server/`.
//! The URLs the command is given (explore's, `--base-url`) may name them: a path is taken on the
//! first server's origin, and a template reads `web_server.<name>.url` / `.port` (and
//! `web_server.url` / `.port`, the first server's).

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use super::args::ServerArgs;
use super::error::CliError;
use crate::atlas::url_origin as origin;
use crate::config::project::ServersSpec;
use crate::engine::{Runtime, start_servers};
use crate::report::Reporter;
use crate::step::Masker;
use crate::step::ServerInfo;
use crate::template::{Templates, is_template};

/// The servers to start: `--web-server`'s (it replaces the project file's), else the project
/// file's `[[web_server]]`, else none.
pub(crate) fn spec(args: &ServerArgs) -> Result<Option<ServersSpec>, CliError> {
    if let Some(cmd) = &args.command {
        return crate::config::server_flags::flag_server(
            cmd,
            args.url.as_deref(),
            args.port.as_deref(),
        )
        .map(Some)
        .map_err(CliError::invalid);
    }
    let cwd = std::env::current_dir()
        .map_err(|e| CliError::Environment(format!("cannot read the current directory: {e}")))?;
    Ok(super::known::find_project(&cwd, &[], None)
        .map_err(CliError::invalid)?
        .and_then(|p| p.servers()))
}

/// Where the servers' logs go for a command: `.runner/logs/<run-id>/`.
pub(crate) fn logs_dir(run_id: &str) -> PathBuf {
    Path::new(".runner/logs").join(run_id)
}

/// The servers a command started, as the URLs it is given may name them.
#[derive(Debug, Clone, Default)]
pub(crate) struct Served {
    /// The first server's URL.
    first: Option<String>,
    /// `web_server.<name>`: `{url, port}` of each.
    values: Map<String, Value>,
    /// Their names, in order.
    names: Vec<String>,
}

impl Served {
    /// The first server's origin (`scheme://host:port`): the replays' default base URL.
    pub(crate) fn origin(&self) -> Option<String> {
        self.first.as_deref().map(origin)
    }

    /// The servers' names, in order.
    pub(crate) fn names(&self) -> &[String] {
        &self.names
    }

    /// The URL of the server named `name`, when it is one of these.
    pub(crate) fn url_of(&self, name: &str) -> Option<String> {
        self.values
            .get(name)
            .and_then(|v| v["url"].as_str())
            .map(str::to_string)
    }

    /// The origin of the server named `name`, when it is one of these.
    pub(crate) fn origin_of(&self, name: &str) -> Option<String> {
        self.values
            .get(name)
            .and_then(|v| v["url"].as_str())
            .map(origin)
    }

    /// The server a URL is on (its name): see [`crate::atlas::server_of`].
    pub(crate) fn server_of(&self, url: &str) -> Option<String> {
        crate::atlas::server_of(url, &self.values)
    }

    /// A URL the command was given, with the servers' values in place (see [`check_url`]).
    pub(crate) fn url(&self, given: &str) -> Result<String, CliError> {
        let rendered = if is_template(given) {
            let mut ws = self.values.clone();
            if let Some(first) = self.values.values().next() {
                ws.entry("url").or_insert_with(|| first["url"].clone());
                ws.entry("port").or_insert_with(|| first["port"].clone());
            }
            let ctx = minijinja::Value::from_serialize(json!({ "web_server": ws }));
            Templates::new()
                .render_str(given, &ctx)
                .map_err(|e| CliError::Usage(format!("`{given}`: {e}")))?
        } else {
            given.to_string()
        };
        start_url(&rendered, self.origin().as_deref()).map_err(CliError::Usage)
    }
}

/// Checks a URL the command was given before any server starts: a path needs a server to be
/// taken on, and a template may read only `web_server.url` / `.port` (the first server's) and
/// `web_server.<name>.url` / `.port` of the servers there are.
pub(crate) fn check_url(given: &str, spec: Option<&ServersSpec>) -> Result<(), CliError> {
    let names = spec.map(ServersSpec::names).unwrap_or_default();
    if is_template(given) {
        if names.is_empty() {
            return Err(CliError::Usage(format!(
                "`{given}` is a template, and no web server is started to fill it in: runner.toml's [[web_server]] or --web-server starts one"
            )));
        }
        let none = HashSet::new();
        let scope = crate::template::check::Scope {
            vars: &none,
            secrets: &none,
            steps_before: &none,
            all_steps: &none,
            outputs: &HashMap::new(),
            web_server: crate::template::check::Servers {
                own: true,
                shared: &names,
                any: false,
                no_port: false,
            },
        };
        let issues = crate::template::check_template(&Templates::new(), given, &scope);
        if let Some(i) = issues.first() {
            let help = i
                .help
                .as_ref()
                .map(|h| format!(" ({h})"))
                .unwrap_or_default();
            let known = if i.message.contains("web_server") {
                format!("; the web servers: {}", names.join(", "))
            } else {
                String::new()
            };
            return Err(CliError::Usage(format!(
                "`{given}`: {}{help}{known}",
                i.message
            )));
        }
        return Ok(());
    }
    if names.is_empty() {
        start_url(given, None).map_err(CliError::Usage)?;
    }
    Ok(())
}

/// Starts the servers, runs `work` with what they are ([`Served`]), stops them (each command's
/// whole process group). A server that does not start is the command's environment error, and
/// nothing runs; an interrupt during the start ends the command as interrupted; one that exited
/// while `work` ran is reported. Their logs are masked with `masker`.
pub(crate) async fn around<T, F, Fut>(
    rt: &Runtime,
    spec: Option<&ServersSpec>,
    (run_id, masker): (&str, &Masker),
    reporter: &Reporter,
    work: F,
) -> Result<T, CliError>
where
    F: FnOnce(Served) -> Fut,
    Fut: Future<Output = T>,
{
    Ok(around_reported(rt, spec, (run_id, masker), reporter, work)
        .await?
        .0)
}

/// As [`around`], with the servers as a run's report lists them (`web_servers`: URL, start
/// time, the log's absolute path, and why one exited).
pub(crate) async fn around_reported<T, F, Fut>(
    rt: &Runtime,
    spec: Option<&ServersSpec>,
    (run_id, masker): (&str, &Masker),
    reporter: &Reporter,
    work: F,
) -> Result<(T, Vec<ServerInfo>), CliError>
where
    F: FnOnce(Served) -> Fut,
    Fut: Future<Output = T>,
{
    let logs = logs_dir(run_id);
    // Ctrl-C (or SIGTERM, SIGHUP) while a server starts ends the start: what was started is
    // stopped, and the command ends as interrupted. The watch stays on while `work` runs: the
    // signal then cancels the run (`rt.cancel`), `work` ends, and the servers are still
    // stopped below; without it a signal during the work would end runner before it stops them.
    let watcher = tokio::spawn(super::signals::watch(rt.cancel.clone()));
    let mut servers = start_servers(rt, spec, &logs, masker.clone()).await;
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
        let served = Served {
            first: servers.first_url().map(str::to_string),
            values: servers.values().clone(),
            names: servers.info().into_iter().map(|i| i.name).collect(),
        };
        Ok(work(served).await)
    };
    watcher.abort();
    if let Some(why) = servers.died().await {
        reporter.error(&why);
    }
    let mut infos = servers.stop().await;
    say_unkept_logs(&infos, reporter);
    let cwd = std::env::current_dir().unwrap_or_default();
    for i in &mut infos {
        i.log = i.log.take().map(|l| cwd.join(l).display().to_string());
    }
    out.map(|t| (t, infos))
}

/// Says which of the run's servers kept no log, and why (a symlink stood in its place).
pub(crate) fn say_unkept_logs(infos: &[ServerInfo], reporter: &Reporter) {
    for i in infos {
        if let Some(why) = &i.log_not_kept {
            reporter.warn(&format!(
                "web server `{}`: its log is not kept: {why}",
                i.name
            ));
        }
    }
}

/// The URL to explore: a path (`/`, `/app`) is taken on the server's origin.
fn start_url(url: &str, origin: Option<&str>) -> Result<String, String> {
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

    fn served() -> Served {
        let mut values = Map::new();
        values.insert(
            "api".into(),
            json!({ "url": "http://127.0.0.1:7001", "port": 7001 }),
        );
        values.insert(
            "site".into(),
            json!({ "url": "http://127.0.0.1:7002", "port": 7002 }),
        );
        Served {
            first: Some("http://127.0.0.1:7001".into()),
            values,
            names: vec!["api".into(), "site".into()],
        }
    }

    #[test]
    fn a_url_is_on_the_server_of_its_origin_or_of_its_local_port() {
        let s = served();
        for (url, on) in [
            ("http://127.0.0.1:7002/index.html", Some("site")),
            ("http://127.0.0.1:7001", Some("api")),
            ("http://localhost:7002/a?b", Some("site")),
            ("http://127.0.0.1:7003/", None),
            ("http://example.test:7002/", None),
            ("https://example.test/", None),
        ] {
            assert_eq!(s.server_of(url).as_deref(), on, "{url}");
        }
        assert_eq!(
            s.origin_of("site").as_deref(),
            Some("http://127.0.0.1:7002")
        );
        assert_eq!(s.origin_of("web"), None);
        assert_eq!(Served::default().server_of("http://127.0.0.1:7002/"), None);
    }

    #[test]
    fn a_url_may_name_a_server() {
        let s = served();
        assert_eq!(
            s.url("{{ web_server.site.url }}/index.html").unwrap(),
            "http://127.0.0.1:7002/index.html"
        );
        assert_eq!(
            s.url("http://localhost:{{ web_server.site.port }}/")
                .unwrap(),
            "http://localhost:7002/"
        );
        assert_eq!(
            s.url("{{ web_server.url }}").unwrap(),
            "http://127.0.0.1:7001"
        );
        assert_eq!(s.url("/a?b").unwrap(), "http://127.0.0.1:7001/a?b");
    }

    #[test]
    fn a_url_that_names_no_server_there_is_told_before_any_starts() {
        let e = check_url("{{ web_server.app.url }}/", None).unwrap_err();
        assert!(e.to_string().contains("no web server is started"), "{e}");
        assert!(check_url("/", None).is_err());
        assert!(check_url("http://example.test/", None).is_ok());
    }
}
