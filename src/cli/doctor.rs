//! `runner doctor`: is everything a flow needs installed? Says how to fix what is not.

use std::path::{Path, PathBuf};

use super::exit;
use crate::report::Reporter;

/// One check's result.
struct Check {
    name: &'static str,
    ok: bool,
    detail: String,
    fix: Option<String>,
}

/// Where agent-browser's native binary is: `$AGENT_BROWSER`, then PATH, then `node_modules`.
pub fn find_agent_browser() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("AGENT_BROWSER").map(PathBuf::from)
        && p.is_file()
    {
        return Some(p);
    }
    let native = native_name();
    let mut candidates: Vec<PathBuf> = Vec::new();
    for dir in [
        "node_modules/agent-browser/bin",
        "/usr/local/lib/node_modules/agent-browser/bin",
        "/usr/lib/node_modules/agent-browser/bin",
    ] {
        candidates.push(Path::new(dir).join(&native));
    }
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            candidates.push(dir.join(&native));
            candidates.push(dir.join("agent-browser"));
        }
    }
    candidates.into_iter().find(|p| p.is_file())
}

fn native_name() -> String {
    let os = std::env::consts::OS;
    let arch = match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        other => other,
    };
    format!("agent-browser-{os}-{arch}")
}

fn version(cmd: &Path, arg: &str) -> Option<String> {
    let out = std::process::Command::new(cmd).arg(arg).output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (out.status.success() && !text.is_empty()).then_some(text)
}

/// Runs the checks; exit 0 only when everything needed is there.
pub fn run(reporter: &Reporter) -> i32 {
    let mut checks = Vec::new();
    let ab = find_agent_browser();
    checks.push(match &ab {
        Some(p) => Check {
            name: "agent-browser",
            ok: true,
            detail: format!(
                "{} ({})",
                version(p, "--version").unwrap_or_else(|| "unknown version".into()),
                p.display()
            ),
            fix: None,
        },
        None => Check {
            name: "agent-browser",
            ok: false,
            detail: "not found (looked at $AGENT_BROWSER, PATH and node_modules)".into(),
            fix: Some("run scripts/setup, or `npm install -g agent-browser`".into()),
        },
    });
    let chromium = std::env::var_os("AGENT_BROWSER_EXECUTABLE_PATH")
        .map(PathBuf::from)
        .into_iter()
        .chain(
            [
                "/usr/bin/chromium",
                "/usr/bin/chromium-browser",
                "/usr/bin/google-chrome",
            ]
            .map(PathBuf::from),
        )
        .find(|p| p.is_file());
    checks.push(match &chromium {
        Some(p) => Check {
            name: "chromium",
            ok: true,
            detail: format!(
                "{} ({})",
                version(p, "--version").unwrap_or_else(|| "unknown version".into()),
                p.display()
            ),
            fix: None,
        },
        None => Check {
            name: "chromium",
            ok: false,
            detail: "not found".into(),
            fix: Some("run scripts/setup, or `apt-get install chromium`".into()),
        },
    });
    let sh = Path::new("/bin/sh");
    checks.push(Check {
        name: "sh (exec with shell: true)",
        ok: sh.exists(),
        detail: sh.display().to_string(),
        fix: (!sh.exists()).then(|| "install a POSIX shell".to_string()),
    });
    let mut text = String::new();
    for c in &checks {
        let mark = if c.ok { "ok  " } else { "FAIL" };
        text.push_str(&format!("{mark} {}: {}\n", c.name, c.detail));
        if let Some(f) = &c.fix {
            text.push_str(&format!("     fix: {f}\n"));
        }
    }
    reporter.out(&text);
    if checks.iter().all(|c| c.ok) {
        exit::SUCCESS
    } else {
        exit::ENVIRONMENT
    }
}
