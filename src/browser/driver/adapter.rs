//! The agent-browser CLI adapter: other code talks to the browser only through this API (and
//! `daemon`, its other half: the commands of a session whose browser is up go to its daemon's
//! socket directly, as the CLI would send them).
//!
//! Facts it respects (agent-browser 0.41): the native binary is called directly (the Node
//! wrapper adds ~50 ms a call and hides signal deaths); stdout is one JSON line
//! `{success, data, error}`; relative paths resolve against the daemon's cwd, so only absolute
//! ones are passed; `AGENT_BROWSER_NO_VERSION_CHECK=1` avoids a ~3 s update check offline; each
//! run has a private socket directory and each flow run its own session name.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;

use super::command::Command;

use crate::process::{GroupGuard, spawn_group};

mod find;

use crate::step::{ErrorKind, StepError};
pub(crate) use find::look;

/// Chromium flags needed headless in containers and offline machines.
/// `--disable-features`: Chromium 156 preloads the omnibox popup's WebUI (two `browser_ui`
/// targets and a renderer process of their own) in every new window, and a browser context's
/// first tab is one: half the renderer processes of a suite and ~60 ms of CPU per flow went to
/// a popup no headless flow opens. The spare renderer is one more process per context, never
/// used by a context that lives one flow. Translate's bubble is not wanted either.
pub(crate) const CHROMIUM_ARGS: &str = "--no-sandbox,--disable-gpu,--disable-background-networking,--disable-component-update,--disable-sync,--no-first-run,--disable-dev-shm-usage,--disable-features=Translate,WebUIOmniboxPopup,WebUIOmniboxAimPopup,SpareRendererForSitePerProcess";

/// What can go wrong calling agent-browser.
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum AdapterError {
    #[error("agent-browser is not installed: {message}")]
    NotInstalled { message: String },
    #[error("agent-browser {command} failed (exit code {exit_code:?}): {error_message}")]
    CommandFailed {
        command: String,
        exit_code: Option<i32>,
        stderr: String,
        error_message: String,
    },
    #[error("agent-browser {command} timed out after {}", humantime::format_duration(*timeout))]
    Timeout { command: String, timeout: Duration },
    #[error("cannot read agent-browser's output: {message}")]
    ParseError { message: String, raw_output: String },
}

/// What a failed command's message says. agent-browser's JSON carries its errors only as text,
/// so this is the one place that reads that text; everything else matches on this.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cause {
    /// No element matched (`Element not found: ...`).
    pub(crate) not_found: bool,
    /// The message is about the browser itself (launching Chrome); it means the browser cannot
    /// start when it comes from a session's first command.
    pub(crate) browser: bool,
    /// The page's document was replaced while the command read it (a navigation committed
    /// mid-read: Chromium answers `Inspected target navigated or closed` or `Execution context
    /// was destroyed`). A read that is checked again anyway (a wait, an assertion, a selector)
    /// just reads the new document; it is not a failure of the page.
    pub(crate) navigated: bool,
}

impl Cause {
    /// Reads agent-browser's error message.
    pub(crate) fn of(message: &str) -> Cause {
        let lower = message.to_lowercase();
        Cause {
            not_found: lower.contains("not found") || lower.contains("no element"),
            browser: (lower.contains("launch")
                || lower.contains("chrome")
                || lower.contains("browser"))
                && !lower.contains("not found:"),
            navigated: lower.contains("inspected target navigated or closed")
                || lower.contains("execution context was destroyed")
                || lower.contains("cannot find context with specified id")
                || lower.contains("cannot find default execution context"),
        }
    }

    /// Whether the message is about waiting for the browser or about the connection to it
    /// (agent-browser's `Operation timed out. The page may still be loading ...`, `CDP
    /// connection failed`, a closed WebSocket): the browser itself may be gone (see
    /// `cdp::health`).
    pub(crate) fn unanswered(message: &str) -> bool {
        let lower = message.to_lowercase();
        ["time", "answer", "cdp", "websocket", "connection", "closed"]
            .iter()
            .any(|w| lower.contains(w))
    }

    /// Whether the message says a wait timed out (agent-browser's `Operation timed out`).
    pub(crate) fn timed_out(message: &str) -> bool {
        message.to_lowercase().contains("timed out")
    }
}

impl AdapterError {
    /// The step error this means; `launching` says whether the session's browser was being
    /// started by this command (then a browser failure is the environment's: exit code 3).
    pub(crate) fn into_step_error(self, launching: bool) -> StepError {
        let kind = match &self {
            AdapterError::NotInstalled { .. } => ErrorKind::Environment,
            AdapterError::Timeout { .. } => ErrorKind::Timeout,
            AdapterError::ParseError { .. } => ErrorKind::CommandFailed,
            AdapterError::CommandFailed { error_message, .. } => {
                let cause = Cause::of(error_message);
                return if launching && cause.browser {
                    StepError::new(
                        ErrorKind::Environment,
                        format!("the browser cannot launch: {error_message}"),
                    )
                } else if let Some(m) = blocking_dialog(error_message) {
                    StepError::new(ErrorKind::CommandFailed, m)
                } else if cause.not_found {
                    StepError::new(ErrorKind::NotFound, error_message.clone())
                } else {
                    StepError::new(ErrorKind::CommandFailed, error_message.clone())
                };
            }
        };
        StepError::new(kind, self.to_string())
    }
}

/// agent-browser's "A JavaScript confirm dialog is blocking the page: \"…\". Resolve it with
/// `dialog accept` ..." in runner's terms.
fn blocking_dialog(message: &str) -> Option<String> {
    let rest = message.strip_prefix("A JavaScript ")?;
    let (kind, rest) = rest.split_once(" dialog is blocking the page")?;
    let text = rest
        .strip_prefix(": ")
        .and_then(|r| r.rsplit_once(". Resolve it").map(|(t, _)| t))
        .unwrap_or("");
    Some(format!(
        "a {kind} dialog {text} is blocking the page: answer it with a `dialog: accept` (or dismiss) step after the step that opens it, or give the flow a default with `browser: {{ dialogs: accept }}` (or dismiss)"
    ))
}

/// agent-browser's message for a command that failed (`{success: false, error}`).
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub(crate) struct Refusal(pub(crate) String);

/// The `data` of one command's answer (`{success, data, error}`, from the CLI or the daemon), or
/// agent-browser's message when it failed.
pub(crate) fn answer_data(answer: &Value) -> Result<Value, Refusal> {
    if answer.get("success") != Some(&Value::Bool(true)) {
        return Err(Refusal(
            answer
                .get("error")
                .and_then(Value::as_str)
                .unwrap_or("unknown error")
                .to_string(),
        ));
    }
    Ok(answer.get("data").cloned().unwrap_or(Value::Null))
}

/// The argv and stdin of commands sent as one `batch` (stopping at the first that fails): argv
/// names no value.
pub(crate) fn batch_command(commands: &[Command]) -> (Vec<String>, String) {
    let list: Vec<Vec<String>> = commands.iter().map(Command::argv).collect();
    let stdin = serde_json::to_string(&list).unwrap_or_else(|_| "[]".into());
    (vec!["batch".to_string(), "--bail".to_string()], stdin)
}

/// The number of a ref (`e12` -> 12): refs are numbered in document order.
pub(crate) fn ref_number(r: &str) -> u64 {
    r.trim_start_matches(|c: char| !c.is_ascii_digit())
        .parse()
        .unwrap_or(u64::MAX)
}

/// A ref of a snapshot: `e5 -> {role, name}`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct RefInfo {
    pub(crate) role: String,
    pub(crate) name: String,
}

/// How to run one command.
#[derive(Debug, Clone)]
pub(crate) struct ExecOptions {
    pub(crate) session: String,
    pub(crate) headed: bool,
    pub(crate) timeout: Duration,
    pub(crate) cwd: PathBuf,
    /// The DevTools URL of a browser already running, for the daemon to connect to
    /// (`AGENT_BROWSER_CDP`, agent-browser's `--cdp`) instead of launching one.
    pub(crate) cdp: Option<String>,
}

/// The adapter: where the binary and the browser are, and the run's socket directory.
#[derive(Debug, Clone)]
pub(crate) struct AgentBrowser {
    pub(crate) binary: PathBuf,
    /// The browser agent-browser launches (headed runs, `RUNNER_BROWSER_LAUNCH=agent-browser`).
    pub(crate) chromium: Option<PathBuf>,
    /// The browser runner launches itself for headless runs (`find_headless_chromium`).
    pub(crate) headless: Option<PathBuf>,
    pub(crate) socket_dir: PathBuf,
}

/// The native binary's name for this platform.
pub(crate) fn native_name() -> String {
    let arch = match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        other => other,
    };
    format!("agent-browser-{}-{arch}", std::env::consts::OS)
}

/// The browser a user named: `$AGENT_BROWSER_EXECUTABLE_PATH` when set (taken as it is: a path
/// that is not there fails the launch, it is not silently replaced by another browser).
pub(crate) fn named_chromium() -> Option<PathBuf> {
    std::env::var_os("AGENT_BROWSER_EXECUTABLE_PATH")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
}

/// Finds Chromium: the one named by `$AGENT_BROWSER_EXECUTABLE_PATH`, else Debian's and common
/// locations.
pub(crate) fn find_chromium() -> Option<PathBuf> {
    if let Some(p) = named_chromium() {
        return Some(p);
    }
    std::iter::empty()
        .chain(
            [
                "/usr/bin/chromium",
                "/usr/bin/chromium-browser",
                "/usr/bin/google-chrome",
            ]
            .map(PathBuf::from),
        )
        .find(|p| p.is_file())
}

/// Finds the browser for headless runs that runner launches itself: the one named by
/// `$AGENT_BROWSER_EXECUTABLE_PATH`, else Chromium's headless shell (Debian's
/// `chromium-headless-shell`, the build Playwright also runs headless tests on), else
/// `find_chromium`. The shell has no browser UI to set up per tab, so a flow's fresh context and
/// tab cost it a fraction of what they cost the full browser (scripts/bench-contexts).
/// Debian's `/usr/bin/chromium-headless-shell` is a shell script that forks the binary: the
/// binary itself is taken, so the browser is the process runner started.
pub(crate) fn find_headless_chromium() -> Option<PathBuf> {
    named_chromium()
        .or_else(|| {
            [
                "/usr/lib/chromium/chromium-headless-shell",
                "/usr/bin/chromium-headless-shell",
            ]
            .map(PathBuf::from)
            .into_iter()
            .find(|p| p.is_file())
        })
        .or_else(find_chromium)
}

/// The installed agent-browser, or why there is none: not found, or not executable. Not run
/// here: a run's browsers launch while its servers start, and a process started only to see
/// agent-browser start would come first on that path (one that cannot start all the same fails
/// the first command that runs it, with an environment error: `execute_all`).
pub(crate) fn installed() -> Result<PathBuf, AdapterError> {
    use std::os::unix::fs::PermissionsExt;
    let found = look();
    let binary = found.binary.ok_or_else(|| AdapterError::NotInstalled {
        message: format!(
            "no {} found (looked at $AGENT_BROWSER, node_modules and PATH){}; install it with `npm install -g agent-browser` or run scripts/setup",
            native_name(),
            found
                .passed_over
                .iter()
                .map(|(why, _)| format!("; {why}"))
                .collect::<String>()
        ),
    })?;
    match std::fs::metadata(&binary) {
        Ok(m) if m.permissions().mode() & 0o111 != 0 => Ok(binary),
        _ => Err(AdapterError::NotInstalled {
            message: format!("{} cannot run: it is not executable", binary.display()),
        }),
    }
}

/// Why agent-browser's stdout holds no answer.
#[derive(Debug, thiserror::Error)]
pub(crate) enum OutputError {
    #[error("no JSON in the output")]
    NoJson,
    #[error("{0}")]
    BadJson(#[from] serde_json::Error),
    #[error("an empty batch answer")]
    EmptyBatch,
}

/// Parses agent-browser's stdout: the last JSON line, `{success, data, error}` for a command, or
/// a `batch` answer, one such answer per command run.
pub(crate) fn parse_json_output(stdout: &str) -> Result<Vec<Value>, OutputError> {
    let line = stdout
        .lines()
        .rev()
        .find(|l| {
            let l = l.trim_start();
            l.starts_with('{') || l.starts_with('[')
        })
        .ok_or(OutputError::NoJson)?;
    let v: Value = serde_json::from_str(line)?;
    // A `batch` answers `[{command, success, result, error}]`: for each command, the same
    // answer as the command alone (`{success, data, error}`).
    Ok(match v {
        Value::Array(items) if items.is_empty() => return Err(OutputError::EmptyBatch),
        Value::Array(items) => items
            .into_iter()
            .map(|one| {
                serde_json::json!({
                    "success": one.get("success").cloned().unwrap_or(Value::Bool(false)),
                    "data": one.get("result").cloned().unwrap_or(Value::Null),
                    "error": one.get("error").cloned().unwrap_or(Value::Null),
                })
            })
            .collect(),
        other => vec![other],
    })
}

/// The refs of a snapshot's `data`: `{"e1": {"role", "name"}}`.
pub(crate) fn parse_snapshot_refs(data: &Value) -> BTreeMap<String, RefInfo> {
    data.get("refs")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| {
                    let s = |f: &str| v.get(f).and_then(Value::as_str).unwrap_or("").to_string();
                    (
                        k.clone(),
                        RefInfo {
                            role: s("role"),
                            name: s("name"),
                        },
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

impl AgentBrowser {
    /// An adapter using the installed binary and a socket directory of its own.
    pub(crate) fn new(socket_dir: PathBuf) -> Result<AgentBrowser, AdapterError> {
        let binary = installed()?;
        Ok(AgentBrowser {
            binary,
            chromium: find_chromium(),
            headless: find_headless_chromium(),
            socket_dir,
        })
    }

    /// An adapter whose sessions are fake daemons listening in `socket_dir` (unit tests).
    #[cfg(test)]
    pub(crate) fn for_tests(socket_dir: PathBuf) -> AgentBrowser {
        AgentBrowser {
            binary: PathBuf::from("agent-browser"),
            chromium: None,
            headless: None,
            socket_dir,
        }
    }

    /// Where the run's sessions keep their sockets (see `daemon`).
    pub(crate) fn socket_dir(&self) -> &Path {
        &self.socket_dir
    }

    /// Runs `agent-browser --session S --json <command> <args...>` and returns its `data`.
    pub(crate) async fn execute(
        &self,
        command: Command,
        opts: &ExecOptions,
    ) -> Result<Value, AdapterError> {
        let mut all = self.execute_all(&[command], opts).await?;
        Ok(all.swap_remove(0))
    }

    /// Runs commands one after another in one call (one process, one round trip), stopping at
    /// the first that fails; returns each one's `data`, or the first failure.
    pub(crate) async fn execute_all(
        &self,
        commands: &[Command],
        opts: &ExecOptions,
    ) -> Result<Vec<Value>, AdapterError> {
        let command = commands.first().map_or("batch", Command::name);
        // The command goes through `batch` on stdin, never argv: fill values and eval scripts
        // (secrets among them) must not be readable by every local user in /proc/*/cmdline.
        let (argv, stdin) = batch_command(commands);
        let mut cmd = self.process(&argv, opts);
        let (mut child, pgid) = spawn_group(&mut cmd).map_err(|e| AdapterError::NotInstalled {
            message: format!("cannot start {}: {e}", self.binary.display()),
        })?;
        let _guard = GroupGuard(pgid);
        if let Some(mut input) = child.stdin.take() {
            use tokio::io::AsyncWriteExt;
            let _ = input.write_all(stdin.as_bytes()).await;
            let _ = input.shutdown().await;
        }
        let out = match tokio::time::timeout(opts.timeout, child.wait_with_output()).await {
            Ok(Ok(o)) => o,
            Ok(Err(e)) => {
                return Err(AdapterError::CommandFailed {
                    command: command.into(),
                    exit_code: None,
                    stderr: String::new(),
                    error_message: e.to_string(),
                });
            }
            Err(_) => {
                return Err(AdapterError::Timeout {
                    command: command.into(),
                    timeout: opts.timeout,
                });
            }
        };
        read_answers(commands, &out)
    }

    /// The agent-browser process that runs `argv` in `opts`' session.
    fn process(&self, argv: &[String], opts: &ExecOptions) -> tokio::process::Command {
        let mut cmd = tokio::process::Command::new(&self.binary);
        cmd.arg("--session").arg(&opts.session).arg("--json");
        if opts.headed {
            cmd.arg("--headed");
        }
        // The browser to connect to goes in the environment, as agent-browser hands it to its
        // daemon, not the arguments: a token in the URL (`?token=`) stays out of the process
        // list. None set: one in runner's own environment is not taken either.
        match &opts.cdp {
            Some(url) => cmd.env("AGENT_BROWSER_CDP", url),
            None => cmd.env_remove("AGENT_BROWSER_CDP"),
        };
        cmd.args(argv)
            .current_dir(&opts.cwd)
            .env("AGENT_BROWSER_NO_VERSION_CHECK", "1")
            .env("AGENT_BROWSER_SOCKET_DIR", &self.socket_dir)
            .env("AGENT_BROWSER_ARGS", CHROMIUM_ARGS)
            // A flow's commands go to its own tab and fail once it is gone, never to another.
            .env("AGENT_BROWSER_PIN_TAB", "1")
            // The CLI's own wait (and its re-sends) stay inside ours.
            .env(
                "AGENT_BROWSER_DEFAULT_TIMEOUT",
                opts.timeout.as_millis().to_string(),
            )
            .env_remove("AGENT_BROWSER_SESSION")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(c) = &self.chromium {
            cmd.env("AGENT_BROWSER_EXECUTABLE_PATH", c);
        }
        cmd
    }
}

/// Each command's `data` from the output of the process that ran `commands`, or the first
/// failure.
fn read_answers(
    commands: &[Command],
    out: &std::process::Output,
) -> Result<Vec<Value>, AdapterError> {
    let command = commands.first().map_or("batch", Command::name);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    match parse_json_output(&stdout) {
        Ok(answers) => {
            let mut data = Vec::new();
            for (i, v) in answers.iter().enumerate() {
                let name = commands.get(i).map_or(command, Command::name);
                data.push(answer_data(v).map_err(|r| AdapterError::CommandFailed {
                    command: name.into(),
                    exit_code: out.status.code(),
                    stderr: stderr.clone(),
                    error_message: r.0,
                })?);
            }
            if data.len() < commands.len() {
                return Err(AdapterError::ParseError {
                    message: format!(
                        "agent-browser answered {} of {} commands",
                        data.len(),
                        commands.len()
                    ),
                    raw_output: stdout,
                });
            }
            Ok(data)
        }
        Err(e) if out.status.success() => Err(AdapterError::ParseError {
            message: e.to_string(),
            raw_output: stdout,
        }),
        Err(_) => Err(AdapterError::CommandFailed {
            command: command.into(),
            exit_code: out.status.code(),
            error_message: stderr.lines().last().unwrap_or("no output").to_string(),
            stderr,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_go_to_stdin_never_to_argv() {
        let fill = Command::Fill {
            selector: "#pw".into(),
            value: "hunter2-in-a-fill".into(),
        };
        let (argv, stdin) = batch_command(&[fill]);
        assert!(argv.iter().all(|a| !a.contains("hunter2")), "{argv:?}");
        assert_eq!(stdin, r##"[["fill","#pw","hunter2-in-a-fill"]]"##);
        let answer = r##"[{"command":["fill","#pw","x"],"error":null,"result":{"filled":"#pw"},"success":true}]"##;
        let v = parse_json_output(answer).unwrap();
        assert_eq!(v[0]["success"], true);
        assert_eq!(v[0]["data"]["filled"], "#pw");
    }

    #[test]
    fn failures_are_read_once_into_kinds() {
        let failed = |m: &str| AdapterError::CommandFailed {
            command: "click".into(),
            exit_code: Some(1),
            stderr: String::new(),
            error_message: m.into(),
        };
        let missing = "Element not found: #nope. Verify the selector, role, or name is correct";
        assert_eq!(
            failed(missing).into_step_error(true).kind,
            ErrorKind::NotFound
        );
        let launch = "Failed to launch Chrome: no usable sandbox";
        assert_eq!(
            failed(launch).into_step_error(true).kind,
            ErrorKind::Environment
        );
        assert_eq!(
            failed(launch).into_step_error(false).kind,
            ErrorKind::CommandFailed
        );
        assert_eq!(
            failed("Unknown ref: e9").into_step_error(false).kind,
            ErrorKind::CommandFailed
        );
    }

    #[test]
    fn parses_output_and_refs() {
        let out = "warning\n{\"success\":true,\"data\":{\"refs\":{\"e1\":{\"name\":\"Sign in\",\"role\":\"button\"}}},\"error\":null}\n";
        let v = parse_json_output(out).unwrap();
        let refs = parse_snapshot_refs(&v[0]["data"]);
        assert_eq!(
            refs["e1"],
            RefInfo {
                role: "button".into(),
                name: "Sign in".into()
            }
        );
        assert!(parse_json_output("").is_err());
    }
}
