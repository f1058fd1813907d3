//! The `exec` step: a command in its own process group, output captured (bounded in memory,
//! whole in the artifacts), ended as a group on timeout or interrupt.

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use indexmap::IndexMap;
use tokio::io::AsyncWriteExt;
use tokio::process::Child;
use tokio_util::sync::CancellationToken;

use serde_json::{Value, json};

use super::runtime::StepCtx;
use crate::config::model::{Command as CommandSpec, ExecAction};
use crate::process::{self, TreeGuard};
use crate::step::masked_stream::MaskedStream;
use crate::step::{ErrorKind, Masker, StepError};

/// Most bytes of each stream kept in memory (and in the step's outputs).
pub(crate) const MAX_CAPTURE: usize = 1024 * 1024;

/// A command ready to run.
#[derive(Debug, Clone)]
pub(crate) struct ExecSpec {
    pub(crate) argv: Vec<String>,
    pub(crate) cwd: PathBuf,
    pub(crate) env: IndexMap<String, String>,
    pub(crate) stdin: Option<String>,
    /// Where the whole stdout and stderr go (`<base>.stdout`, `<base>.stderr`), and the run's
    /// artifacts directory they are inside (no symlink followed there).
    pub(crate) artifacts: Option<(PathBuf, PathBuf)>,
}

/// What a command did.
#[derive(Debug, Clone)]
pub(crate) struct ExecOutput {
    pub(crate) stdout: String,
    pub(crate) stderr: String,
    pub(crate) exit_code: Option<i32>,
    /// Set when the command was killed by a signal.
    pub(crate) signal: Option<i32>,
    /// Whether stdout, and stderr, were cut at 1 MiB.
    pub(crate) stdout_truncated: bool,
    pub(crate) stderr_truncated: bool,
}

/// The `exec` step: the command with the flow's and the step's env, in the flow's directory
/// (or `cwd` relative to it).
pub(crate) async fn step(cx: &StepCtx<'_>, e: ExecAction) -> Result<Value, StepError> {
    let frame = cx.frame;
    let o = e.options();
    let argv = match (&o.command, o.shell) {
        (CommandSpec::Argv(a), _) => a.clone(),
        (CommandSpec::String(s), true) => vec!["sh".into(), "-c".into(), s.clone()],
        (CommandSpec::String(s), false) => shell_words::split(s).map_err(|err| {
            StepError::new(
                ErrorKind::CommandFailed,
                format!("cannot split the command `{s}`: {err}"),
            )
        })?,
    };
    let mut env = frame.env.clone();
    env.extend(o.env.iter().map(|(k, v)| (k.clone(), v.to_string())));
    let cwd = match &o.cwd {
        Some(c) => frame.loaded.dir.join(c),
        None => frame.loaded.dir.clone(),
    };
    let spec = ExecSpec {
        argv,
        cwd,
        env,
        stdin: o.stdin.clone(),
        artifacts: Some((cx.rt.artifacts.clone(), cx.artifact("exec"))),
    };
    let out = run(&spec, cx.timeout, &frame.cancel, &frame.masker).await?;
    let trim = |s: &str| s.trim_end_matches(['\n', '\r']).to_string();
    let outputs = json!({
        "stdout": trim(&out.stdout),
        "stderr": trim(&out.stderr),
        "exit_code": out.exit_code,
        // More than 1 MiB of output: the outputs hold the start, the artifacts all of it. Which
        // stream was cut is said (a check of the other is a check of all of it), and either.
        "truncated": out.stdout_truncated || out.stderr_truncated,
        "stdout_truncated": out.stdout_truncated,
        "stderr_truncated": out.stderr_truncated,
    });
    let ok = out.exit_code == Some(0) || (o.allow_failure && out.exit_code.is_some());
    if ok {
        return Ok(outputs);
    }
    let mut msg = match (out.exit_code, out.signal) {
        (Some(c), _) => format!("command exited with code {c}"),
        (None, Some(s)) => format!("command was killed by signal {s}"),
        _ => "command failed".into(),
    };
    let tail = last_lines(&out.stderr, 5);
    if !tail.is_empty() {
        msg.push_str(&format!("; stderr: {tail}"));
    }
    Err(StepError::new(ErrorKind::CommandFailed, frame.masker.mask(&msg)).with_outputs(outputs))
}

/// Runs the command until it exits, `timeout` passes or `cancel` fires.
pub(crate) async fn run(
    spec: &ExecSpec,
    timeout: Duration,
    cancel: &CancellationToken,
    masker: &Masker,
) -> Result<ExecOutput, StepError> {
    // Made before the command starts: a step whose output cannot be kept (a symlink in its
    // place in a reused artifacts directory) fails without running it.
    let files = |ext: &str| {
        spec.artifacts
            .as_ref()
            .map(|(root, base)| crate::fs::create_artifact(root, &with_ext(base, ext)))
            .transpose()
            .map_err(|why| StepError::new(ErrorKind::CommandFailed, why))
    };
    let (out_file, err_file) = (files("stdout")?, files("stderr")?);
    let (mut child, pgid) = spawn(spec)?;
    let _guard = TreeGuard(pgid);

    if let (Some(text), Some(mut stdin)) = (spec.stdin.clone(), child.stdin.take()) {
        tokio::spawn(async move {
            let _ = stdin.write_all(text.as_bytes()).await;
            let _ = stdin.shutdown().await;
        });
    }
    let out_task = tokio::spawn(capture(child.stdout.take(), out_file, masker.clone()));
    let err_task = tokio::spawn(capture(child.stderr.take(), err_file, masker.clone()));

    let deadline = tokio::time::Instant::now() + timeout;
    let status = tokio::select! {
        s = child.wait() => Ok(s),
        () = tokio::time::sleep_until(deadline) => Err(ErrorKind::Timeout),
        () = cancel.cancelled() => Err(ErrorKind::Interrupted),
    };
    let status = match status {
        Ok(s) => {
            // The command is done; anything it left running goes with it (its supervisor ended
            // what left the group). Unless it was its supervisor that ended, killed alone.
            let orphaned = process::end_orphaned(pgid);
            process::signal_group(pgid, nix::sys::signal::Signal::SIGKILL);
            if let Some(command) = orphaned {
                let _ = collect(out_task, err_task).await;
                return Err(supervisor_gone(pgid, s.ok(), command));
            }
            s.ok()
        }
        Err(kind) => {
            process::terminate_child_group(pgid, &mut child, crate::step::interrupt::again()).await;
            let _ = child.wait().await;
            let (_, (stderr, _)) = collect(out_task, err_task).await;
            return Err(cut_off(kind, timeout, &stderr));
        }
    };
    let ((stdout, t1), (stderr, t2)) = collect(out_task, err_task).await;
    Ok(ExecOutput {
        stdout,
        stderr,
        exit_code: status.and_then(|s| s.code()),
        signal: status.and_then(|s| s.signal()),
        stdout_truncated: t1,
        stderr_truncated: t2,
    })
}

/// Starts the command under runner's supervisor (see `process::supervisor`) in a process group
/// of its own, its output piped; returns it and its group.
fn spawn(spec: &ExecSpec) -> Result<(Child, i32), StepError> {
    let Some((program, args)) = spec.argv.split_first() else {
        return Err(StepError::new(ErrorKind::CommandFailed, "empty command"));
    };
    if !spec.cwd.is_dir() {
        return Err(StepError::new(
            ErrorKind::CommandFailed,
            format!("working directory {} does not exist", spec.cwd.display()),
        ));
    }
    let mut cmd = process::supervised(program);
    cmd.args(args)
        .current_dir(&spec.cwd)
        .envs(&spec.env)
        .stdin(if spec.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    process::spawn_supervised(&mut cmd).map_err(|e| {
        let msg = if e.kind() == std::io::ErrorKind::NotFound {
            format!("command not found: `{program}`")
        } else {
            format!("cannot start `{program}`: {e}")
        };
        StepError::new(ErrorKind::CommandFailed, msg)
    })
}

/// The error of a command whose supervisor `pid` ended (with `status`) before it, and runner
/// ended its group (led by `command`).
fn supervisor_gone(pid: i32, status: Option<std::process::ExitStatus>, command: i32) -> StepError {
    let how = match (
        status.and_then(|s| s.signal()),
        status.and_then(|s| s.code()),
    ) {
        (Some(sig), _) => format!("was killed by signal {sig}"),
        (None, Some(code)) => format!("exited with code {code}"),
        (None, None) => "ended".to_string(),
    };
    StepError::new(
        ErrorKind::CommandFailed,
        format!(
            "the command's supervisor (pid {pid}) {how} while the command ran; runner ended the command's process group ({command})"
        ),
    )
}

/// The error of a command ended on its timeout or an interrupt, with the end of its stderr.
fn cut_off(kind: ErrorKind, timeout: Duration, stderr: &str) -> StepError {
    let mut msg = if kind == ErrorKind::Timeout {
        format!(
            "command timed out after {}",
            humantime::format_duration(timeout)
        )
    } else {
        "command interrupted".to_string()
    };
    let tail = last_lines(stderr, 5);
    if !tail.is_empty() {
        msg.push_str(&format!("; stderr: {tail}"));
    }
    StepError::new(kind, msg)
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

/// How much is read from a command's output at a time.
const CHUNK: usize = 64 * 1024;

/// Streams a command's output: the first [`MAX_CAPTURE`] bytes kept as the command printed
/// them (the step's outputs are data: masked where they are shown, not here), all of it
/// written masked to `file` through a buffer. Memory stays bounded whatever the command prints
/// (one 300 MB line included): it is read in chunks, and what could be the start of a secret
/// the next chunk completes waits for it ([`MaskedStream`]), so a secret split by a chunk
/// boundary is still masked whole.
async fn capture<R: tokio::io::AsyncRead + Unpin>(
    stream: Option<R>,
    file: Option<std::fs::File>,
    masker: Masker,
) -> Captured {
    use tokio::io::AsyncReadExt;
    let Some(mut stream) = stream else {
        return Captured::default();
    };
    let mut file =
        file.map(|f| tokio::io::BufWriter::with_capacity(CHUNK, tokio::fs::File::from_std(f)));
    let mut kept = String::new();
    let mut truncated = false;
    let mut pending = MaskedStream::new(masker.clone());
    let mut buf = vec![0u8; CHUNK];
    loop {
        let n = stream.read(&mut buf).await.unwrap_or(0);
        pending.push(&buf[..n]);
        if n == 0 || pending.waiting() >= CHUNK {
            let (text, masked) = pending.take_both(n == 0);
            if let Some(f) = file.as_mut() {
                let _ = f.write_all(masked.as_bytes()).await;
            }
            if !truncated {
                truncated = keep(&mut kept, &text, &masker);
            }
        }
        if n == 0 {
            break;
        }
    }
    if let Some(f) = file.as_mut() {
        let _ = f.flush().await;
    }
    (kept, truncated)
}

/// Adds `text` (a piece of a stream that ends inside no secret) to `kept` up to
/// [`MAX_CAPTURE`] bytes; true when it did not all fit. A cut leaves out any secret it would
/// split ([`Masker::kept_start`]): the kept start, masked where it is shown, shows none's head.
fn keep(kept: &mut String, text: &str, masker: &Masker) -> bool {
    let room = MAX_CAPTURE.saturating_sub(kept.len());
    kept.push_str(masker.kept_start(text, room, false));
    text.len() > room
}

/// The last `n` non-empty lines, joined with ` | `.
pub(crate) fn last_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(n)..].join(" | ")
}
