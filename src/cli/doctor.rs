//! `runner doctor`: is everything a flow needs installed? Says how to fix what is not.

use std::path::{Path, PathBuf};

use std::time::Duration;

use super::exit::Outcome;
use crate::browser::driver::adapter::{
    AgentBrowser, find_chromium, find_headless_chromium, look, named_chromium,
};
use crate::config::flows::LoadedFlow;
use crate::config::model::Action;
use crate::config::profiles::Registry;
use crate::report::Reporter;
use crate::step::url_secrets::{hide_url_secrets, shown_url};

/// The (profile, binary) pairs the agent steps of these flows use; and the problems of the
/// profiles (a `profiles` folder runner does not use, said as `run` says it).
fn profile_binaries(
    flows: &[std::sync::Arc<LoadedFlow>],
    registry: &Registry,
) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for flow in flows {
        for step in flow.flow.all_steps() {
            let Action::Agent(a) = &step.action else {
                continue;
            };
            let Some(p) = registry.get_profile(&a.profile) else {
                continue;
            };
            let Some(cmd) = p.command_of(a.variant.as_deref()) else {
                continue;
            };
            let pair = (p.label.clone(), cmd.binary.clone());
            if !out.contains(&pair) {
                out.push(pair);
            }
        }
    }
    out
}

/// What doctor checks, read as `run` reads it: the flows (those named, else runner.toml's
/// `flows`), loaded with the project file's `[browser]` defaults, and the run's remote browser
/// (`--browser-cdp` / `RUNNER_BROWSER_CDP`, else runner.toml's `[browser] cdp`).
struct Project {
    flows: Vec<std::sync::Arc<LoadedFlow>>,
    registry: Registry,
    cdp: Option<String>,
    /// runner.toml's `[browser] timeout` (a browser's, with no flow to give one).
    timeout: Duration,
    /// Problems of the project file and of the profiles.
    problems: Vec<Check>,
}

fn project(paths: &[PathBuf], cdp: Option<&str>) -> Project {
    let (registry, diags) = super::validate::load_registry(&[]);
    let mut problems: Vec<Check> = diags
        .into_iter()
        .map(|d| Check {
            name: "agent profiles",
            ok: false,
            detail: format!("{}: {}", d.file_name, d.message),
            fix: d.help,
        })
        .collect();
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let project = match super::known::find_project(&cwd, paths, cdp) {
        Ok(p) => p,
        Err(diags) => {
            problems.extend(diags.into_iter().map(|d| Check {
                name: "project file",
                ok: false,
                detail: format!("{}: {}", d.file_name, d.message),
                fix: d.help,
            }));
            None
        }
    };
    let file = project.as_ref().map(|p| &p.file);
    let browser = file.and_then(|f| f.browser.clone());
    let paths = match project.as_ref() {
        Some(p) if paths.is_empty() => p.file.flows.iter().map(|f| p.resolve(f)).collect(),
        _ => paths.to_vec(),
    };
    let run_cdp = cdp
        .map(str::to_string)
        .or_else(|| browser.as_ref().and_then(|b| b.cdp.clone()));
    let cdp = match super::browser_cdp::remote_browser(run_cdp.as_deref()) {
        Ok(c) => c,
        Err(e) => {
            problems.push(Check {
                name: "remote browser",
                ok: false,
                detail: e.to_string(),
                fix: None,
            });
            None
        }
    };
    let mut flows = Vec::new();
    if let Ok(super::files::Collected { files, .. }) = super::files::collect(&paths, None) {
        let mut loader = crate::config::flows::Loader::new(&registry)
            .with_timeouts(
                file.and_then(|f| f.timeout.clone()),
                browser.as_ref().and_then(|b| b.timeout.clone()),
            )
            .with_browser(browser.clone());
        flows = files.iter().filter_map(|f| loader.load(f)).collect();
    }
    let timeout = browser
        .and_then(|b| b.timeout)
        .and_then(|t| crate::config::duration::parse_duration(&t).ok())
        .unwrap_or(crate::engine::BROWSER_TIMEOUT);
    Project {
        flows,
        registry,
        cdp,
        timeout,
        problems,
    }
}

/// The browsers the flows run in, as `run` picks each flow's: a running one (its own
/// `browser.cdp`, else the run's), each named once with the shortest timeout a flow gives it,
/// and whether a flow (or, with no flow, a run) launches one here, with the timeout it gives.
fn browsers(p: &Project) -> (Vec<(String, Duration)>, Option<Duration>) {
    let mut remote: Vec<(String, Duration)> = Vec::new();
    let mut local: Option<Duration> = None;
    let mut add = |cdp: Option<String>, t: Duration| match cdp {
        Some(url) => match remote.iter_mut().find(|(u, _)| *u == url) {
            Some((_, d)) => *d = (*d).min(t),
            None => remote.push((url, t)),
        },
        None => local = Some(local.map_or(t, |d| d.min(t))),
    };
    for f in &p.flows {
        let own = f.flow.browser.as_ref().and_then(|b| b.cdp.clone());
        add(
            own.or_else(|| p.cdp.clone()),
            crate::engine::browser_timeout(f),
        );
    }
    if p.flows.is_empty() {
        add(p.cdp.clone(), p.timeout);
    }
    (remote, local)
}

/// One check's result.
#[derive(Clone)]
struct Check {
    name: &'static str,
    ok: bool,
    detail: String,
    fix: Option<String>,
}

fn version(cmd: &Path, arg: &str) -> Option<String> {
    let out = std::process::Command::new(cmd).arg(arg).output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (out.status.success() && !text.is_empty()).then_some(text)
}

/// Starts a headless browser as a run does (or connects to the running one `cdp` names) in a
/// throwaway session, and closes it.
fn launch_check(binary: &Path, cdp: Option<String>, timeout: Duration) -> Result<Duration, String> {
    // The runtime a run starts, with the guardian: a doctor killed while its browser launches
    // leaves nothing running.
    let rt = super::runtime::start().map_err(|e| e.to_string())?;
    let dir = PathBuf::from(format!(
        "/tmp/rnr-{}/doctor-{}",
        nix::unistd::getuid(),
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let ab = AgentBrowser {
        binary: binary.to_path_buf(),
        chromium: find_chromium(),
        headless: find_headless_chromium(),
        socket_dir: dir.clone(),
    };
    let r = rt
        .block_on(crate::browser::launch_check(ab, cdp, timeout))
        .map_err(|e| e.message);
    let _ = std::fs::remove_dir_all(&dir);
    r
}

/// A check that a program exists, with its version.
fn found(name: &'static str, path: Option<&Path>, missing: &str, fix: &str) -> Check {
    match path {
        Some(p) => Check {
            name,
            ok: true,
            detail: format!(
                "{} ({})",
                version(p, "--version").unwrap_or_else(|| "unknown version".into()),
                p.display()
            ),
            fix: None,
        },
        None => Check {
            name,
            ok: false,
            detail: missing.into(),
            fix: Some(fix.into()),
        },
    }
}

/// Runs the checks; passes only when everything needed is there: for the browsers, each
/// that the flows (or, with none, a run) would use, as `run` picks it.
pub(crate) fn run(reporter: &Reporter, flows: &[PathBuf], cdp: Option<&str>) -> Outcome {
    let project = project(flows, cdp);
    let looked = look();
    let ab = looked.binary;
    let chromium = find_chromium();
    // A planted one passed over is no failure (another was found, or that is said below).
    let mut text = String::new();
    for (why, fix) in &looked.passed_over {
        text.push_str(&format!("warn agent-browser: {why}\n     fix: {fix}\n"));
    }
    let mut checks = vec![
        found(
            "agent-browser",
            ab.as_deref(),
            "not found (looked at $AGENT_BROWSER, node_modules and PATH)",
            "run scripts/setup, or `npm install -g agent-browser`",
        ),
        found(
            "chromium",
            chromium.as_deref(),
            "not found",
            "run scripts/setup, or `apt-get install chromium`",
        ),
    ];
    checks.extend(headless_browser(chromium.as_ref()));
    if let Some(b) = &ab {
        let (remote, local) = browsers(&project);
        for (url, timeout) in remote {
            checks.push(remote_check(b, &url, timeout));
        }
        if let Some(timeout) = local.filter(|_| chromium.is_some()) {
            checks.push(local_check(b, timeout));
        }
    }
    checks.extend(agent_profiles(&project));
    let sh = Path::new("/bin/sh");
    checks.push(Check {
        name: "sh (exec with shell: true)",
        ok: sh.exists(),
        detail: sh.display().to_string(),
        fix: (!sh.exists()).then(|| "install a POSIX shell".to_string()),
    });
    for c in &checks {
        let mark = if c.ok { "ok  " } else { "FAIL" };
        text.push_str(&format!("{mark} {}: {}\n", c.name, c.detail));
        if let Some(f) = &c.fix {
            text.push_str(&format!("     fix: {f}\n"));
        }
    }
    reporter.out(&text);
    if checks.iter().all(|c| c.ok) {
        Outcome::Passed
    } else {
        Outcome::EnvironmentBroken
    }
}

/// The browser of headless runs: the one named, else the headless shell when installed (not
/// needed, faster), else chromium.
fn headless_browser(chromium: Option<&PathBuf>) -> Option<Check> {
    match find_headless_chromium() {
        Some(h) if named_chromium().is_some() => Some(Check {
            name: "headless browser",
            ok: true,
            detail: format!("{} (named by AGENT_BROWSER_EXECUTABLE_PATH)", h.display()),
            fix: None,
        }),
        Some(h) if Some(&h) != chromium => Some(found("headless browser", Some(&h), "", "")),
        Some(_) => Some(Check {
            name: "headless browser",
            ok: true,
            detail: "the same chromium (`apt-get install chromium-headless-shell` makes each flow's fresh context about twice as fast to set up)".into(),
            fix: None,
        }),
        None => None,
    }
}

/// Connects to the running browser at `given` within `timeout`, as a run does.
fn remote_check(agent_browser: &Path, given: &str, timeout: Duration) -> Check {
    // Shown without its token or password (`?token=***`, `user:***@`).
    let url = shown_url(given);
    match launch_check(agent_browser, Some(given.to_string()), timeout) {
        Ok(d) => Check {
            name: "remote browser",
            ok: true,
            detail: format!(
                "connected to the browser at {url} as a run does (agent-browser with --cdp, a DevTools connection of runner's own) in {} ms, and disconnected",
                d.as_millis()
            ),
            fix: None,
        },
        Err(e) => Check {
            name: "remote browser",
            ok: false,
            detail: hide_url_secrets(given, &e),
            fix: Some(format!(
                "check that a Chromium serves DevTools at {url} (`curl {url}/json/version`; started with --remote-debugging-port, reachable from here)"
            )),
        },
    }
}

/// Starts a browser here as a run does, within `timeout`.
fn local_check(agent_browser: &Path, timeout: Duration) -> Check {
    match launch_check(agent_browser, None, timeout) {
        Ok(d) => Check { name: "headless launch", ok: true, detail: format!("Chromium started as a run starts it (agent-browser connected) in {} ms, and closed", d.as_millis()), fix: None },
        Err(e) => Check {
            name: "headless launch",
            ok: false,
            detail: e,
            fix: Some("check that `chromium --headless --no-sandbox --dump-dom about:blank` works; install missing libraries with apt-get".into()),
        },
    }
}

/// The binaries of the agent profiles the flows use: on PATH, or a file where one is named.
/// (With the problems of the project file and the profiles.)
fn agent_profiles(project: &Project) -> Vec<Check> {
    let mut problems: Vec<Check> = project.problems.iter().map(Check::clone).collect();
    let binaries = profile_binaries(&project.flows, &project.registry);
    let checks = binaries.into_iter().map(|(label, binary)| {
        let found = binary.contains('/') && Path::new(&binary).is_file()
            || crate::process::on_path(&binary);
        Check {
            name: "agent profile",
            ok: found,
            detail: format!(
                "{label}: `{binary}` {}",
                if found { "found" } else { "not found on PATH" }
            ),
            fix: (!found)
                .then(|| format!("install `{binary}` (see `runner profiles show {label}`)")),
        }
    });
    problems.extend(checks);
    problems
}
