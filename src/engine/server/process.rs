//! A started server: a command (its process group, its exit watched, its output kept), a
//! served folder, or one that already answered (`reuse_existing`). A command counts as ready
//! only while it is alive, and a fixed port that is taken before the start fails at once.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use nix::sys::signal::Signal;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::launch::Launch;
use super::output::Output;
use super::ports;
use super::probe;
use super::static_site::StaticSite;
use crate::process;
use crate::step::{ErrorKind, StepError};

/// A running server.
pub(crate) struct Server {
    pub(crate) name: String,
    pub(crate) url: String,
    pub(crate) port: Option<u16>,
    /// Found answering before the start (`reuse_existing`): runner started nothing.
    pub(crate) reused: bool,
    /// How long the start took (until ready).
    pub(crate) started_in: Duration,
    kind: Kind,
}

enum Kind {
    Command(Box<CommandServer>),
    Static(std::sync::Mutex<Option<StaticSite>>),
    Reused,
}

/// A command runner started.
struct CommandServer {
    pgid: i32,
    /// Its exit status, once it has exited.
    exit: watch::Receiver<Option<String>>,
    /// Set before runner stops it: an exit after that is not a death.
    stopping: Arc<AtomicBool>,
    output: Output,
    stop_timeout: Duration,
    artifacts: PathBuf,
}

impl Server {
    /// Serves `dir`.
    pub(crate) async fn serve_static(name: &str, dir: &Path) -> Result<Server, StepError> {
        let started = Instant::now();
        let site = StaticSite::serve(dir).await?;
        Ok(Server {
            name: name.to_string(),
            url: site.url.clone(),
            port: Some(site.port),
            reused: false,
            started_in: started.elapsed(),
            kind: Kind::Static(std::sync::Mutex::new(Some(site))),
        })
    }

    /// Starts a command and waits until it is ready: its readiness URL (or port) answers while
    /// it is alive. A port that answers before the start is reused (`reuse_existing`, when what
    /// answers is ready) or an error at once.
    pub(crate) async fn start(l: Launch, cancel: &CancellationToken) -> Result<Server, StepError> {
        let started = Instant::now();
        if let Some((host, port)) = ports::host_port(&l.url)
            && ports::in_use(&host, port).await
        {
            return already_there(l, port, started).await;
        }
        let (server, pgid) = spawn(&l)?;
        let ready = server.wait_ready(&l, pgid, cancel).await;
        match ready {
            Ok(()) => Ok(Server {
                name: l.name,
                url: l.url,
                port: l.port,
                reused: false,
                started_in: started.elapsed(),
                kind: Kind::Command(Box::new(server)),
            }),
            Err(e) => {
                server.end().await;
                Err(e)
            }
        }
    }

    /// The server's log file, when runner started a command and could write it.
    pub(crate) fn log(&self) -> Option<&Path> {
        match &self.kind {
            Kind::Command(c) if c.output.log.is_file() => Some(&c.output.log),
            _ => None,
        }
    }

    /// Why the server is no longer there, if its command exited by itself: its name, exit
    /// status and last lines of output.
    pub(crate) async fn died(&self) -> Option<String> {
        let Kind::Command(c) = &self.kind else {
            return None;
        };
        if c.stopping.load(Ordering::SeqCst) {
            return None;
        }
        // A leader that is dead but not reaped yet is about to say its status.
        if c.exit.borrow().is_none() && !process::is_live(c.pgid) {
            let mut exit = c.exit.clone();
            let _ =
                tokio::time::timeout(Duration::from_secs(2), exit.wait_for(Option::is_some)).await;
        }
        let status = c.exit.borrow().clone()?;
        c.output.drained().await;
        Some(format!(
            "web server `{}` exited ({status}) while the flow ran; {}",
            self.name,
            c.output.tail(&c.artifacts)
        ))
    }

    /// Stops the server (a command's whole process group: SIGTERM, then SIGKILL after its
    /// `stop_timeout`).
    pub(crate) async fn stop(&self) {
        match &self.kind {
            Kind::Command(c) => c.end().await,
            Kind::Static(s) => {
                let site = s.lock().ok().and_then(|mut s| s.take());
                if let Some(site) = site {
                    site.stop().await;
                }
            }
            Kind::Reused => {}
        }
    }
}

/// The server's port already answers before the start. With `reuse_existing` what answers is
/// used when it is ready — its readiness URL answers below 404, as readiness asks (without
/// one, the port accepting is all readiness asks) — and runner starts nothing; anything else
/// is an error at once (the command could not bind the port).
async fn already_there(l: Launch, port: u16, started: Instant) -> Result<Server, StepError> {
    let taken = |why: String| StepError::new(ErrorKind::Environment, why);
    if !l.reuse {
        return Err(taken(format!(
            "web server `{}`: port {port} is already in use; use port: auto or reuse_existing",
            l.name
        )));
    }
    if let Some(url) = &l.probe {
        let got = match probe::status(url).await {
            Some(s) if probe::is_ready(s) => None,
            Some(s) => Some(format!("answers {s}")),
            None => Some("does not answer".to_string()),
        };
        if let Some(got) = got {
            return Err(taken(format!(
                "web server `{}`: port {port} is already in use, but {url} {got}: not reused (reuse_existing takes a server whose URL answers below 404, as readiness does); stop what holds the port, or use port: auto",
                l.name
            )));
        }
    }
    Ok(Server {
        name: l.name,
        url: l.url,
        port: l.port,
        reused: true,
        started_in: started.elapsed(),
        kind: Kind::Reused,
    })
}

/// Starts the command in its own process group, its output captured, its exit watched.
fn spawn(l: &Launch) -> Result<(CommandServer, i32), StepError> {
    let Some((program, args)) = l.argv.split_first() else {
        return Err(StepError::new(
            ErrorKind::Environment,
            format!("web server `{}`: its command is empty", l.name),
        ));
    };
    let mut cmd = process::supervised(program);
    cmd.args(args)
        .current_dir(&l.cwd)
        .envs(l.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let (mut child, pgid) = process::spawn_supervised(&mut cmd).map_err(|e| {
        StepError::new(
            ErrorKind::Environment,
            format!(
                "web server `{}`: cannot start `{program}` in {}: {e}",
                l.name,
                l.cwd.display()
            ),
        )
    })?;
    let output = Output::capture(&mut child, &l.log);
    let (tx, rx) = watch::channel(None);
    tokio::spawn(async move {
        let status = child
            .wait()
            .await
            .map_or_else(|e| format!("unknown status: {e}"), |s| s.to_string());
        let _ = tx.send(Some(status));
    });
    Ok((
        CommandServer {
            pgid,
            exit: rx,
            stopping: Arc::new(AtomicBool::new(false)),
            output,
            stop_timeout: l.stop,
            artifacts: l.artifacts.clone(),
        },
        pgid,
    ))
}

impl CommandServer {
    /// Waits until the URL (or port) answers while the process is alive.
    async fn wait_ready(
        &self,
        l: &Launch,
        pgid: i32,
        cancel: &CancellationToken,
    ) -> Result<(), StepError> {
        let deadline = tokio::time::Instant::now() + l.ready;
        let mut exit = self.exit.clone();
        // A probe is a local connection or GET (cheap): a server is seen ready within 25 ms
        // (runner's part of a start).
        let pause = Duration::from_millis(25);
        loop {
            let up = match &l.probe {
                Some(url) => probe::ready(url).await,
                None => ports::in_use("127.0.0.1", l.port.unwrap_or(0)).await,
            };
            // Ready means ours: an answer counts only while the process runner started lives.
            let status = exit.borrow().clone();
            if let Some(status) = status {
                self.output.drained().await;
                return Err(StepError::new(
                    ErrorKind::Environment,
                    format!(
                        "web server `{}` exited ({status}) before {} answered; {}",
                        l.name,
                        l.probe.as_deref().unwrap_or(&l.url),
                        self.output.tail(&self.artifacts)
                    ),
                ));
            }
            if up {
                return Ok(());
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(StepError::new(
                    ErrorKind::Environment,
                    format!(
                        "web server `{}` did not answer at {} within {} (pid {pgid}); {}",
                        l.name,
                        l.probe.as_deref().unwrap_or(&l.url),
                        humantime::format_duration(l.ready),
                        self.output.tail(&self.artifacts)
                    ),
                ));
            }
            // Its exit, Ctrl-C or the next poll, whichever comes first.
            tokio::select! {
                () = tokio::time::sleep(pause) => {}
                _ = exit.changed() => {}
                () = cancel.cancelled() => {
                    return Err(StepError::new(ErrorKind::Interrupted, "interrupted"));
                }
            }
        }
    }

    /// SIGTERM to the group, up to `stop_timeout` for the leader to exit, SIGKILL to whatever
    /// is left of it (also what left the group: see `process::supervisor`).
    async fn end(&self) {
        self.stopping.store(true, Ordering::SeqCst);
        let mut exit = self.exit.clone();
        process::signal_group(self.pgid, Signal::SIGTERM);
        let _ = tokio::time::timeout(self.stop_timeout, exit.wait_for(Option::is_some)).await;
        process::kill_tree(self.pgid);
        process::unregister(self.pgid);
        self.output.drained().await;
    }
}
