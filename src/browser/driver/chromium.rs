//! A headless Chromium that runner starts itself, for agent-browser to connect to (`--cdp`).
//!
//! agent-browser's own launch takes ~0.5–0.7 s here and its `close` ~0.12 s; Chromium alone is
//! ready in ~0.15 s and agent-browser connects to it in ~0.25 s, and a browser whose profile is
//! thrown away anyway needs no graceful exit. So for headless runs with a known Chromium, runner
//! starts it with the flags agent-browser would use, in its own process group, with a profile
//! inside the run's private socket directory (removed with it, by the run or by the guardian
//! after a `kill -9`), and ends it with SIGKILL when done; it dies with runner by itself too
//! (`process::bound`). Headed runs (which may need Xvfb) and machines where agent-browser
//! brings its own Chrome keep agent-browser's launch.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use nix::sys::signal::Signal;
use tokio::process::Child;

use crate::process::bound::bound;
use crate::process::{signal_group, spawn_group, unregister};

/// The flags agent-browser 0.41 launches Chromium with (headless), besides runner's own
/// `CHROMIUM_ARGS`; the window size is its default viewport.
const FLAGS: &[&str] = &[
    "--remote-debugging-port=0",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-backgrounding-occluded-windows",
    "--disable-component-update",
    "--disable-default-apps",
    "--disable-hang-monitor",
    "--disable-popup-blocking",
    "--disable-prompt-on-repost",
    "--disable-sync",
    "--metrics-recording-only",
    "--password-store=basic",
    "--use-mock-keychain",
    "--headless=new",
    "--hide-scrollbars",
    "--enable-unsafe-swiftshader",
    "--window-size=1280,720",
];

/// Launch arguments written as agent-browser's `AGENT_BROWSER_ARGS` (comma-separated, a comma
/// not followed by `--` being part of the value: `--a,--disable-features=X,Y` is two).
fn split_args(list: &str) -> Vec<String> {
    let mut args: Vec<String> = Vec::new();
    for part in list.split(',') {
        match args.last_mut() {
            Some(last) if !part.starts_with("--") => {
                last.push(',');
                last.push_str(part);
            }
            _ if part.is_empty() => {}
            _ => args.push(part.to_string()),
        }
    }
    args
}

/// Why Chromium did not start.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ChromiumError {
    #[error("cannot create {}: {source}", path.display())]
    Create {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot start {}: {source}", exe.display())]
    Start {
        exe: PathBuf,
        source: std::io::Error,
    },
    /// It exited before it listened: its status and the end of what it printed.
    #[error("Chromium exited ({status}) before it was ready{}", tail_of(tail))]
    Exited {
        status: std::process::ExitStatus,
        tail: Vec<String>,
    },
    #[error("{} gave no DevTools endpoint within {}", exe.display(), humantime::format_duration(*timeout))]
    NoEndpoint { exe: PathBuf, timeout: Duration },
}

/// `: line | line` of the end of Chromium's output, or nothing.
fn tail_of(tail: &[String]) -> String {
    if tail.is_empty() {
        String::new()
    } else {
        format!(": {}", tail.join(" | "))
    }
}

/// A running Chromium.
pub(crate) struct Chromium {
    child: Child,
    pgid: i32,
    profile: PathBuf,
    /// Its DevTools WebSocket URL.
    pub(crate) url: String,
}

impl Chromium {
    /// Starts `exe` with a fresh profile `profile` (created; on the run's RAM disk or in its
    /// socket directory) and waits up to `timeout` for its DevTools endpoint. The processes carry
    /// `AGENT_BROWSER_SOCKET_DIR=socket_dir` in their environment, as agent-browser's would, so
    /// the run's cleanup finds them.
    pub(crate) async fn launch(
        exe: &Path,
        extra_args: &str,
        socket_dir: &Path,
        profile: PathBuf,
        timeout: Duration,
    ) -> Result<Chromium, ChromiumError> {
        std::fs::create_dir_all(&profile).map_err(|source| ChromiumError::Create {
            path: profile.clone(),
            source,
        })?;
        let log = profile.join("chromium.log");
        let stderr = std::fs::File::create(&log).map_err(|source| ChromiumError::Create {
            path: log.clone(),
            source,
        })?;
        // Bound to die with runner by itself (`process::bound`), not only by the guardian.
        let mut cmd = bound(exe);
        cmd.args(FLAGS)
            .args(split_args(extra_args))
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg("about:blank")
            .env("AGENT_BROWSER_SOCKET_DIR", socket_dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr);
        let (child, pgid) = spawn_group(&mut cmd).map_err(|source| ChromiumError::Start {
            exe: exe.to_path_buf(),
            source,
        })?;
        let mut chromium = Chromium {
            child,
            pgid,
            profile,
            url: String::new(),
        };
        match tokio::time::timeout(timeout, chromium.endpoint()).await {
            Ok(Ok(url)) => {
                chromium.url = url;
                Ok(chromium)
            }
            Ok(Err(e)) => {
                chromium.kill().await;
                Err(e)
            }
            Err(_) => {
                chromium.kill().await;
                Err(ChromiumError::NoEndpoint {
                    exe: exe.to_path_buf(),
                    timeout,
                })
            }
        }
    }

    /// Waits for the `DevToolsActivePort` file Chromium writes in its profile once it listens
    /// (port, then path); fails when Chromium exits first, with the end of what it printed.
    async fn endpoint(&mut self) -> Result<String, ChromiumError> {
        let file = self.profile.join("DevToolsActivePort");
        loop {
            if let Ok(text) = std::fs::read_to_string(&file) {
                let mut lines = text.lines();
                if let (Some(port), Some(path)) = (lines.next(), lines.next())
                    && port.trim().parse::<u16>().is_ok()
                    && path.starts_with("/devtools/browser/")
                {
                    return Ok(format!("ws://127.0.0.1:{}{}", port.trim(), path.trim()));
                }
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                let log =
                    std::fs::read_to_string(self.profile.join("chromium.log")).unwrap_or_default();
                let tail: Vec<&str> = log.lines().rev().take(5).collect();
                let tail = tail.into_iter().rev().map(str::to_string).collect();
                return Err(ChromiumError::Exited { status, tail });
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    /// Ends it at once (its profile is thrown away: nothing to save) and removes its profile.
    pub(crate) async fn kill(mut self) {
        signal_group(self.pgid, Signal::SIGKILL);
        let _ = tokio::time::timeout(Duration::from_secs(2), self.child.wait()).await;
        unregister(self.pgid);
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

#[cfg(test)]
mod tests {
    use super::split_args;

    /// runner reads the launch arguments the way agent-browser reads the same list.
    #[test]
    fn launch_arguments_keep_commas_inside_a_value() {
        assert_eq!(
            split_args("--no-sandbox,--disable-features=Translate,WebUIOmniboxPopup,--x=1"),
            [
                "--no-sandbox",
                "--disable-features=Translate,WebUIOmniboxPopup",
                "--x=1"
            ]
        );
        assert_eq!(split_args(""), Vec::<String>::new());
        let ours = split_args(crate::browser::driver::adapter::CHROMIUM_ARGS);
        assert_eq!(
            ours.iter()
                .filter(|a| a.starts_with("--disable-features="))
                .count(),
            1,
            "Chromium takes the last --disable-features only: {ours:?}"
        );
    }
}
