//! A started server: a command (its process group, its exit watched, its output kept), a
//! served folder, or one that already answered (`reuse_existing`). A command counts as ready
//! only while it is alive and when what answers is not another program (`process::holder`);
//! a fixed port that is taken before the start fails at once, and a port runner picked
//! (`port: auto`) that another program took is picked again.

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

/// How many ports a start with `port: auto` picks before it gives up: another program taking
/// the one picked is rare (it picks ports at random too, or binds a port it was told, in the
/// moment between runner's pick and the command's bind), twice in a row rarer still.
const PICKS: usize = 3;

/// Why one start failed.
enum Failed {
    /// Another program holds the port runner picked (`port: auto`): pick again.
    Taken(StepError),
    Other(StepError),
}

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
    /// When its supervisor started (`process::start_time`): a program listening on its port
    /// that started before is not it.
    started: Option<u64>,
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
    /// it is alive. `launch` renders the command's settings; with `port: auto` it picks a port
    /// each time, and a start whose port another program took before the command could bind
    /// it (one that picks ports at random too: a parallel run's server) is tried again on a
    /// new port, `PICKS` ports in all.
    /// `log` is set to the log of the last try whose command started and whose log was made:
    /// the log of a start that failed, which reports link as they link a running server's.
    pub(crate) async fn start(
        launch: &mut (dyn FnMut() -> Result<Launch, StepError> + Send),
        cancel: &CancellationToken,
        log: &mut Option<PathBuf>,
    ) -> Result<Server, StepError> {
        let mut picked = Vec::new();
        loop {
            let l = launch()?;
            let port = l.port;
            match Self::start_once(l, cancel, log).await {
                Ok(s) => return Ok(s),
                Err(Failed::Taken(_)) if picked.len() + 1 < PICKS => picked.extend(port),
                Err(Failed::Taken(e)) if !picked.is_empty() => {
                    let before = picked.iter().map(u16::to_string).collect::<Vec<_>>();
                    return Err(StepError {
                        message: format!(
                            "{} (so were the ports picked before it: {})",
                            e.message,
                            before.join(", ")
                        ),
                        ..e
                    });
                }
                Err(Failed::Taken(e) | Failed::Other(e)) => return Err(e),
            }
        }
    }

    /// One start (see `start`). A port that answers before the start is, when the settings
    /// name it, reused (`reuse_existing`, when what answers is ready) or an error at once; when
    /// runner picked it, another program took it since: `Failed::Taken`, as is a command that
    /// exits before it is ready while another program answers on the port runner picked.
    async fn start_once(
        l: Launch,
        cancel: &CancellationToken,
        log: &mut Option<PathBuf>,
    ) -> Result<Server, Failed> {
        let started = Instant::now();
        let at = ports::host_port(&l.url);
        if let Some((host, port)) = &at
            && ports::in_use(host, *port).await
        {
            if l.picked {
                return Err(Failed::Taken(StepError::new(
                    ErrorKind::Environment,
                    format!(
                        "web server `{}`: port {port}, picked free for port: auto, was taken by another program before the command started",
                        l.name
                    ),
                )));
            }
            return already_there(l, *port, started)
                .await
                .map_err(Failed::Other);
        }
        let server = spawn(&l).map_err(Failed::Other)?;
        *log = server
            .output
            .not_kept
            .is_none()
            .then(|| server.output.log.clone());
        let ready = server.wait_ready(&l, cancel).await;
        match ready {
            Ok(()) => Ok(Server {
                name: l.name,
                url: l.url,
                port: l.port,
                reused: false,
                started_in: started.elapsed(),
                kind: Kind::Command(Box::new(server)),
            }),
            Err(mut e) => {
                let exited = server.exit.borrow().is_some();
                server.end().await;
                // Its output read to the end once its tree is gone: the last lines are whole,
                // none held back while it still printed.
                if e.kind != ErrorKind::Interrupted {
                    e.message = format!("{}; {}", e.message, server.output.tail(&server.artifacts));
                }
                // Its tree is gone: what answers on the port now is another program's.
                let taken = match &at {
                    Some((host, port)) if l.picked && exited => ports::in_use(host, *port).await,
                    _ => false,
                };
                Err(if taken {
                    Failed::Taken(e)
                } else {
                    Failed::Other(e)
                })
            }
        }
    }

    /// The server's log file, when runner started a command and could write it (never a
    /// path it did not write: a symlink found in the log's place is not the log).
    pub(crate) fn log(&self) -> Option<&Path> {
        match &self.kind {
            Kind::Command(c) if c.output.not_kept.is_none() => Some(&c.output.log),
            _ => None,
        }
    }

    /// Why runner started a command but keeps no log of it (its place held a symlink).
    pub(crate) fn log_not_kept(&self) -> Option<String> {
        match &self.kind {
            Kind::Command(c) => c.output.not_kept.clone(),
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
        // A leader that is dead but not reaped yet, or a supervisor whose command has ended, is
        // about to say its status.
        if c.exit.borrow().is_none()
            && (!process::is_live(c.pgid) || process::supervisor::command_gone(c.pgid))
        {
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
fn spawn(l: &Launch) -> Result<CommandServer, StepError> {
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
    let output = Output::capture(&mut child, &l.log, &l.artifacts, &l.masker);
    let (tx, rx) = watch::channel(None);
    tokio::spawn(async move {
        let mut status = child
            .wait()
            .await
            .map_or_else(|e| format!("unknown status: {e}"), |s| s.to_string());
        if let Some(command) = process::end_orphaned(pgid) {
            status = format!(
                "its supervisor (pid {pgid}) ended, {status}, while it ran; runner ended its process group ({command})"
            );
        }
        let _ = tx.send(Some(status));
    });
    Ok(CommandServer {
        pgid,
        started: process::start_time(pgid),
        exit: rx,
        stopping: Arc::new(AtomicBool::new(false)),
        output,
        stop_timeout: l.stop,
        artifacts: l.artifacts.clone(),
    })
}

/// Another program found listening on a server's port while it started.
struct Other {
    port: u16,
    pid: i32,
    command: String,
}

impl CommandServer {
    /// Waits until the URL (or port) answers while the process is alive, and what answers is
    /// not another program (see `answered`).
    async fn wait_ready(&self, l: &Launch, cancel: &CancellationToken) -> Result<(), StepError> {
        let deadline = tokio::time::Instant::now() + l.ready;
        let mut exit = self.exit.clone();
        let mut other = None;
        // The last status the readiness URL answered (a 404, a 5xx): what the timeout says.
        let mut status = None;
        loop {
            // A probe is a local connection or GET (cheap): a server is seen ready within 25 ms
            // (runner's part of a start). While another program answers, each probe also looks
            // through every process's sockets: less often (its exit still ends the wait at once).
            let pause = Duration::from_millis(if other.is_some() { 250 } else { 25 });
            let up = self.answered(l, &mut other, &mut status).await;
            // Ready means ours: an answer counts only while the process runner started lives.
            let exited = exit.borrow().clone();
            if let Some(exited) = exited {
                self.output.drained().await;
                return Err(self.exited_before(l, &exited, other.as_ref()));
            }
            if up {
                return Ok(());
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(self.not_ready(l, other.as_ref(), status));
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

    /// Whether the readiness URL (or the port) answers, and the answer is not another
    /// program's: once it answers, who listens on its port is looked up (`process::holder`),
    /// and a program outside the command's tree that was running before the command started
    /// (a parallel run's server on the same port) is not the command's server: it is kept in
    /// `other` for the errors, and readiness waits on. Anything else — a process of the tree,
    /// a listener runner cannot see or find (a remote host, a container's forwarded port), one
    /// started since (`docker-proxy`) — is taken, as the answer is. A status that is not ready
    /// (404, 5xx) is kept in `status`.
    async fn answered(
        &self,
        l: &Launch,
        other: &mut Option<Other>,
        status: &mut Option<u16>,
    ) -> bool {
        let (host, port) = if let Some(url) = &l.probe {
            let got = probe::status(url).await;
            if got.is_some() {
                *status = got;
            }
            if !got.is_some_and(probe::is_ready) {
                return false;
            }
            let Some(hp) = ports::host_port(url) else {
                return true;
            };
            hp
        } else {
            let port = l.port.unwrap_or(0);
            if !ports::in_use("127.0.0.1", port).await {
                return false;
            }
            ("127.0.0.1".to_string(), port)
        };
        let (pgid, started) = (self.pgid, self.started);
        let held = tokio::task::spawn_blocking(move || process::holder(&host, port, pgid, started))
            .await
            .unwrap_or(process::Holder::Unknown);
        match held {
            process::Holder::Other { pid, command } => {
                *other = Some(Other { port, pid, command });
                false
            }
            process::Holder::Ours | process::Holder::Unknown => true,
        }
    }

    /// The command exited before it was ready: its status, and the other program that
    /// answered meanwhile, if one did (`start_once` adds its last lines).
    fn exited_before(&self, l: &Launch, status: &str, other: Option<&Other>) -> StepError {
        let answered = other.map_or(String::new(), |o| {
            format!(
                " (what answered on port {} is another program (pid {}: {}))",
                o.port, o.pid, o.command
            )
        });
        StepError::new(
            ErrorKind::Environment,
            format!(
                "web server `{}` exited ({status}) before {} answered{answered}",
                l.name,
                l.probe.as_deref().unwrap_or(&l.url),
            ),
        )
    }

    /// The command was not ready in time: what its readiness URL last answered (a status that
    /// is not ready) or that it did not answer, its pid, or the other program that answers in
    /// its place (`start_once` adds its last lines, once it is stopped).
    fn not_ready(&self, l: &Launch, other: Option<&Other>, status: Option<u16>) -> StepError {
        let pgid = self.pgid;
        let why = other.map_or_else(
            || format!(" (pid {pgid})"),
            |o| {
                format!(
                    ": what answers on port {} is another program (pid {}: {}), not the command runner started (pid {pgid}); use port: auto for a port of its own, or reuse_existing to use that program's server",
                    o.port, o.pid, o.command
                )
            },
        );
        let at = l.probe.as_deref().unwrap_or(&l.url);
        let within = humantime::format_duration(l.ready);
        let what = match status {
            // Another program's answer is not the command's: that is what the message says.
            Some(s) if other.is_none() => format!(
                "answered {s} at {at} until its ready_timeout ({within}) ran out (ready means a status below 404: 2xx, a redirect, 401 or 403)"
            ),
            _ => format!("did not answer at {at} within {within}"),
        };
        StepError::new(
            ErrorKind::Environment,
            format!("web server `{}` {what}{why}", l.name),
        )
    }

    /// SIGTERM to the group, up to `stop_timeout` for the leader to exit, SIGKILL to whatever
    /// is left of it (also what left the group: see `process::supervisor`).
    async fn end(&self) {
        self.stopping.store(true, Ordering::SeqCst);
        let mut exit = self.exit.clone();
        process::signal_group(self.pgid, Signal::SIGTERM);
        // A second interrupt does not wait out a server that ignores SIGTERM.
        tokio::select! {
            _ = tokio::time::timeout(self.stop_timeout, exit.wait_for(Option::is_some)) => {}
            () = crate::step::interrupt::again().cancelled() => {}
        }
        process::kill_tree(self.pgid);
        process::unregister(self.pgid);
        self.output.drained().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::step::Masker;

    /// `app.py` on `port`, as `port: auto` launches it.
    fn app(port: u16, dir: &Path) -> Launch {
        let app = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/servers/app.py");
        Launch {
            name: "app".into(),
            argv: vec!["python3".into(), app.display().to_string()],
            cwd: dir.to_path_buf(),
            env: vec![
                ("START_DELAY_MS".into(), "0".into()),
                ("PORT".into(), port.to_string()),
            ],
            url: format!("http://127.0.0.1:{port}"),
            port: Some(port),
            picked: true,
            probe: None,
            reuse: false,
            ready: Duration::from_secs(20),
            stop: Duration::from_secs(5),
            log: dir.join("web_server/app.log"),
            artifacts: dir.to_path_buf(),
            masker: Masker::default(),
        }
    }

    #[tokio::test]
    async fn a_picked_port_another_program_holds_at_the_start_is_picked_again() {
        let dir = tempfile::tempdir().unwrap();
        let cancel = CancellationToken::new();
        let held: Vec<std::net::TcpListener> = (0..3)
            .map(|_| std::net::TcpListener::bind("127.0.0.1:0").unwrap())
            .collect();
        let taken: Vec<u16> = held
            .iter()
            .map(|l| l.local_addr().unwrap().port())
            .collect();
        // The first port picked is held by another program: the second is started.
        let free = ports::pick_free().unwrap();
        let mut picks = [taken[0], free].into_iter();
        let server = Server::start(
            &mut || Ok(app(picks.next().unwrap(), dir.path())),
            &cancel,
            &mut None,
        )
        .await
        .unwrap();
        assert_eq!((server.port, server.reused), (Some(free), false));
        server.stop().await;
        // Three held in a row: the start fails naming them, and never calls a port runner
        // picked the user's to change ("use port: auto").
        let mut picks = taken.clone().into_iter();
        let Err(e) = Server::start(
            &mut || Ok(app(picks.next().unwrap(), dir.path())),
            &cancel,
            &mut None,
        )
        .await
        else {
            panic!("started on a port another program holds");
        };
        assert_eq!(
            e.message,
            format!(
                "web server `app`: port {}, picked free for port: auto, was taken by another program before the command started (so were the ports picked before it: {}, {})",
                taken[2], taken[0], taken[1]
            )
        );
        assert_eq!(picks.next(), None);
    }
}
