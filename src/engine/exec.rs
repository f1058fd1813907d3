//! The `exec` step: a command in its own process group, output captured (bounded in memory,
//! whole in the artifacts), ended as a group on timeout or interrupt.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use indexmap::IndexMap;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::Command;
use tokio_util::sync::CancellationToken;

use super::processes::{self, GroupGuard};
use super::secrets::Masker;
use super::{ErrorKind, StepError};

/// Most bytes of each stream kept in memory (and in the step's outputs).
pub const MAX_CAPTURE: usize = 1024 * 1024;

/// A command ready to run.
#[derive(Debug, Clone)]
pub struct ExecSpec {
    pub argv: Vec<String>,
    pub cwd: PathBuf,
    pub env: IndexMap<String, String>,
    pub stdin: Option<String>,
    /// Where the whole stdout and stderr go (`<base>.stdout`, `<base>.stderr`).
    pub artifacts: Option<PathBuf>,
}

/// What a command did.
#[derive(Debug, Clone)]
pub struct ExecOutput {
    pub stdout: String,
    pub stderr: String,
    pub exit_code: Option<i32>,
    /// Set when the command was killed by a signal.
    pub signal: Option<i32>,
    pub truncated: bool,
}

/// Runs the command until it exits, `timeout` passes or `cancel` fires.
pub async fn run(
    spec: &ExecSpec,
    timeout: Duration,
    cancel: &CancellationToken,
    masker: &Masker,
) -> Result<ExecOutput, StepError> {
    let Some((program, args)) = spec.argv.split_first() else {
        return Err(StepError::new(ErrorKind::CommandFailed, "empty command"));
    };
    if !spec.cwd.is_dir() {
        return Err(StepError::new(
            ErrorKind::CommandFailed,
            format!("working directory {} does not exist", spec.cwd.display()),
        ));
    }
    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(&spec.cwd)
        .envs(&spec.env)
        .stdin(if spec.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = cmd.spawn().map_err(|e| {
        let msg = if e.kind() == std::io::ErrorKind::NotFound {
            format!("command not found: `{program}`")
        } else {
            format!("cannot start `{program}`: {e}")
        };
        StepError::new(ErrorKind::CommandFailed, msg)
    })?;
    let pgid = child.id().map_or(0, |p| p as i32);
    processes::register(pgid);
    let _guard = GroupGuard(pgid);

    if let (Some(text), Some(mut stdin)) = (spec.stdin.clone(), child.stdin.take()) {
        tokio::spawn(async move {
            let _ = stdin.write_all(text.as_bytes()).await;
            let _ = stdin.shutdown().await;
        });
    }
    let out_path = spec.artifacts.as_ref().map(|b| with_ext(b, "stdout"));
    let err_path = spec.artifacts.as_ref().map(|b| with_ext(b, "stderr"));
    let out_task = tokio::spawn(capture(child.stdout.take(), out_path, masker.clone()));
    let err_task = tokio::spawn(capture(child.stderr.take(), err_path, masker.clone()));

    let deadline = tokio::time::Instant::now() + timeout;
    let status = tokio::select! {
        s = child.wait() => Ok(s),
        _ = tokio::time::sleep_until(deadline) => Err(ErrorKind::Timeout),
        _ = cancel.cancelled() => Err(ErrorKind::Interrupted),
    };
    let status = match status {
        Ok(s) => {
            // The command is done; anything it left running in its group goes with it.
            processes::signal_group(pgid, nix::sys::signal::Signal::SIGKILL);
            s.ok()
        }
        Err(kind) => {
            processes::terminate_child_group(pgid, &mut child).await;
            let _ = child.wait().await;
            let (stdout, stderr) = collect(out_task, err_task).await;
            let what = if kind == ErrorKind::Timeout {
                format!(
                    "command timed out after {}",
                    humantime::format_duration(timeout)
                )
            } else {
                "command interrupted".to_string()
            };
            let mut msg = what;
            let tail = last_lines(&stderr.0, 5);
            if !tail.is_empty() {
                msg.push_str(&format!("; stderr: {tail}"));
            }
            let _ = stdout;
            return Err(StepError::new(kind, msg));
        }
    };
    let ((stdout, t1), (stderr, t2)) = collect(out_task, err_task).await;
    use std::os::unix::process::ExitStatusExt;
    Ok(ExecOutput {
        stdout,
        stderr,
        exit_code: status.and_then(|s| s.code()),
        signal: status.and_then(|s| s.signal()),
        truncated: t1 || t2,
    })
}

type Captured = (String, bool);

async fn collect(
    out: tokio::task::JoinHandle<Captured>,
    err: tokio::task::JoinHandle<Captured>,
) -> (Captured, Captured) {
    // A process that left its group could keep the pipes open; don't wait for it forever.
    let wait = Duration::from_secs(2);
    let o = tokio::time::timeout(wait, out)
        .await
        .ok()
        .and_then(Result::ok)
        .unwrap_or_default();
    let e = tokio::time::timeout(wait, err)
        .await
        .ok()
        .and_then(Result::ok)
        .unwrap_or_default();
    (o, e)
}

fn with_ext(base: &Path, ext: &str) -> PathBuf {
    let mut s = base.as_os_str().to_os_string();
    s.push(".");
    s.push(ext);
    PathBuf::from(s)
}

/// Reads a stream line by line: masked, the first [`MAX_CAPTURE`] bytes kept, all of it written
/// to `path`.
async fn capture<R: tokio::io::AsyncRead + Unpin>(
    stream: Option<R>,
    path: Option<PathBuf>,
    masker: Masker,
) -> Captured {
    let Some(stream) = stream else {
        return Captured::default();
    };
    let mut file = match path {
        Some(p) => tokio::fs::File::create(&p).await.ok(),
        None => None,
    };
    let mut reader = BufReader::new(stream);
    let mut kept = String::new();
    let mut truncated = false;
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let text = masker.mask(&String::from_utf8_lossy(&line));
        if let Some(f) = file.as_mut() {
            let _ = f.write_all(text.as_bytes()).await;
        }
        if kept.len() + text.len() <= MAX_CAPTURE {
            kept.push_str(&text);
        } else {
            truncated = true;
        }
    }
    if let Some(f) = file.as_mut() {
        let _ = f.flush().await;
    }
    (kept, truncated)
}

/// The last `n` non-empty lines, joined with ` | `.
pub fn last_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(n)..].join(" | ")
}
