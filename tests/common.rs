//! Helpers shared by the end-to-end tests.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `tests/fixtures/<rel>`.
pub fn fixture(rel: &str) -> PathBuf {
    root().join("tests/fixtures").join(rel)
}

/// The runner binary with colour off and CI-style output.
pub fn runner(cwd: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_runner"));
    c.current_dir(cwd)
        .env("NO_COLOR", "1")
        .env("CI", "true")
        .env_remove("RUST_BACKTRACE");
    c
}

/// Runs and returns (exit code, stdout, stderr).
pub fn output(mut c: Command) -> (i32, String, String) {
    let Output {
        status,
        stdout,
        stderr,
    } = c.output().expect("the runner binary starts");
    (
        status.code().unwrap_or(-1),
        String::from_utf8_lossy(&stdout).into_owned(),
        String::from_utf8_lossy(&stderr).into_owned(),
    )
}

/// Writes a flow into `dir` and returns its path.
pub fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write fixture");
    p
}

/// Waits (up to 10 s) until `path` exists and is not empty.
pub fn wait_for_file(path: &Path) {
    for _ in 0..400 {
        if std::fs::read_to_string(path).is_ok_and(|s| !s.trim().is_empty()) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
    panic!("{} did not appear", path.display());
}

/// Sends SIGINT to a running runner, waits for it, and checks it exited with 130.
pub fn interrupt(child: std::process::Child) -> Output {
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .expect("the runner is alive");
    let out = child.wait_with_output().expect("the runner exits");
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The pid written in a pid file.
pub fn read_pid(path: &Path) -> i32 {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .trim()
        .parse()
        .expect("a pid")
}

/// Whether a process exists and is not a zombie (a zombie is dead, waiting for its parent).
pub fn pid_alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|s| !s.split(") ").nth(1).is_some_and(|r| r.starts_with('Z')))
}
