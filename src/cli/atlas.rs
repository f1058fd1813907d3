//! `runner atlas show|path|graph|export|replay|verify` and `runner explore`: the command-line
//! side only; the work is in `atlas`, and replays run in process through the engine.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::args::{AgentArgs, AtlasCommand, CheckArgs, ServerArgs};
use super::error::CliError;
use super::exit::Outcome;
use super::servers::{Served, check_url};
use super::signals::interruptible;
use super::tally::{Tally, Verified, write_reports};
use crate::atlas::{self, Atlas, Checks, Driver};
use crate::engine::{InProcess, Runtime, RuntimeSettings};
use crate::report::{OwnKind, ReportTarget, Reporter, Status, Summary};
use crate::step::{ErrorKind, StepError};

/// An option the subcommand would not use is refused, not passed over: `atlas diff` reads the
/// two atlases it is given (not `--atlas`), and only `replay`, `verify` and `test` start servers.
fn refuse_unused(
    cmd: &AtlasCommand,
    dir: Option<&Path>,
    servers: &ServerArgs,
) -> Result<(), CliError> {
    let name = match cmd {
        AtlasCommand::Show => "show",
        AtlasCommand::Status => "status",
        AtlasCommand::Path { .. } => "path",
        AtlasCommand::Graph { .. } => "graph",
        AtlasCommand::Export { .. } => "export",
        AtlasCommand::Diff { .. } => "diff",
        AtlasCommand::Replay { .. } | AtlasCommand::Verify { .. } | AtlasCommand::Test { .. } => {
            return Ok(());
        }
    };
    if name == "diff" && dir.is_some() {
        return Err(CliError::Usage(
            "`atlas diff A B` compares the two atlases it is given: drop `--atlas`".into(),
        ));
    }
    if servers.command.is_some() {
        return Err(CliError::Usage(format!(
            "`atlas {name}` starts no server: `--web-server` is for `atlas replay`, `verify` and `test`"
        )));
    }
    Ok(())
}

/// The atlas directory (`--atlas`, else .runner/atlas), once the options are checked; `atlas
/// diff` compares the two atlases it is given instead.
fn checked_dir<'a>(
    cmd: &AtlasCommand,
    dir: Option<&'a Path>,
    servers: &ServerArgs,
) -> Result<&'a Path, CliError> {
    refuse_unused(cmd, dir, servers)?;
    let dir = dir.unwrap_or(Path::new(".runner/atlas"));
    if !matches!(cmd, AtlasCommand::Diff { .. }) && !dir.join("nodes").is_dir() {
        return Err(CliError::Usage(format!(
            "no atlas at {} (record one with `link_state` steps, or pass --atlas DIR)",
            dir.display()
        )));
    }
    Ok(dir)
}

/// Runs an atlas subcommand.
pub(crate) fn run(
    cmd: &AtlasCommand,
    dir: Option<&Path>,
    servers: &ServerArgs,
    reporter: &Reporter,
) -> Result<Outcome, CliError> {
    let dir = checked_dir(cmd, dir, servers)?;
    let atlas = Atlas {
        root: dir.to_path_buf(),
        // What its stored steps may read and open: the project's `[atlas]`, never the atlas's.
        reach: super::atlas_project::atlas_project()?.reach,
    };
    let text = match cmd {
        AtlasCommand::Show => atlas::show(&atlas)?,
        AtlasCommand::Status => atlas::status(&atlas),
        AtlasCommand::Path { node } => atlas::path(&atlas, node)?,
        AtlasCommand::Graph { format } => atlas::graph(&atlas, *format)?,
        AtlasCommand::Export {
            node,
            format,
            base_url,
            out,
        } => {
            let base = export_base(&atlas, *format, base_url.as_deref(), servers, reporter)?;
            let text = atlas::export(&atlas, node, *format, base.as_deref())?;
            match out {
                None => text,
                Some(dir) => {
                    let ext = match format {
                        atlas::ExportFormat::Flow => "yaml",
                        atlas::ExportFormat::PlaywrightPython => "py",
                    };
                    let file = dir.join(format!("{}.{ext}", atlas::file_stem(&atlas, node)?));
                    // Stamped as runner's: a re-export refuses an export edited since.
                    let text = crate::report::stamp_export(&text);
                    super::files::write_own(&file, OwnKind::Export, &text)?;
                    format!("{}\n", file.display())
                }
            }
        }
        AtlasCommand::Replay { node, check } => {
            return replay(&atlas, node, check, servers, reporter);
        }
        AtlasCommand::Verify {
            check,
            jobs,
            report,
        } => {
            let args = VerifyArgs {
                check,
                jobs: usize::from(*jobs),
                reports: report,
            };
            return verify(&atlas, &args, servers, reporter);
        }
        AtlasCommand::Diff { a, b, format, html } => {
            return super::atlas_diff::run(a, b, *format, html.as_deref(), reporter);
        }
        AtlasCommand::Test {
            check,
            report,
            agent,
        } => {
            let args = TestArgs {
                check,
                agent,
                servers,
            };
            return test(&atlas, &args, report, reporter);
        }
    };
    reporter.out(&text);
    Ok(Outcome::Passed)
}

/// Where an export opens the app: `--base-url` (a flow may be given a template naming a
/// server: `runner run` fills it in); else, for a flow of an atlas recorded on a web server
/// that runner.toml still has, that server's URL as the run that runs it has it (`{{
/// web_server.<name>.url }}`); else the recorded origin. A Playwright script has no runner
/// servers: it opens a whole URL.
fn export_base(
    atlas: &Atlas,
    format: atlas::ExportFormat,
    given: Option<&str>,
    servers: &ServerArgs,
    reporter: &Reporter,
) -> Result<Option<String>, CliError> {
    let flow = matches!(format, atlas::ExportFormat::Flow);
    if let Some(given) = given {
        if crate::template::is_template(given) {
            if !flow {
                return Err(CliError::Usage(format!(
                    "`--base-url {given}`: a Playwright script has no runner web servers to fill a template in; give a whole URL"
                )));
            }
            check_url(given, super::servers::spec(servers)?.as_ref())?;
        }
        return Ok(Some(given.to_string()));
    }
    let Some(name) = atlas.server()?.filter(|_| flow) else {
        return Ok(None);
    };
    let names = super::servers::spec(servers)?
        .map(|s| s.names())
        .unwrap_or_default();
    if names.contains(&name) {
        return Ok(Some(format!("{{{{ web_server.{name}.url }}}}")));
    }
    reporter.warn(&format!(
        "the atlas was recorded on the web server `{name}`, which runner.toml does not have now: the flow opens the recorded origin"
    ));
    Ok(None)
}

/// A runtime and an in-process driver for replays, with artifacts in a scratch directory;
/// `profiles` are the agent profile directories beyond the usual ones.
pub(super) fn driver(
    run_id: &str,
    profiles: &[PathBuf],
    kept: Option<&Path>,
) -> Result<(tokio::runtime::Runtime, Arc<Runtime>), CliError> {
    let tokio_rt = super::runtime::start()?;
    let (registry, diags) = super::validate::load_registry(profiles);
    if !diags.is_empty() {
        return Err(CliError::invalid(diags));
    }
    // `kept`: artifacts a report names (made as a run's). Else a private scratch directory
    // (0700, an unpredictable name): another local user must not read what a replay leaves
    // there, nor put a flow there for the replay to run.
    let artifacts = match kept {
        Some(dir) => super::run::create_artifacts(dir).map(|()| dir.to_path_buf())?,
        None => crate::fs::private_scratch(&format!("runner-{run_id}-"))
            .map_err(|e| CliError::Environment(format!("cannot create a scratch directory: {e}")))?
            .keep(),
    };
    // The project's `[browser]`, as `runner run` takes it.
    let project = super::atlas_project::atlas_project()?;
    let mut rt = Runtime::new(RuntimeSettings {
        run_id: run_id.to_string(),
        artifacts,
        // Replays are checked by their arrival, not narrated step by step.
        listener: Arc::new(crate::report::Silent),
        overrides: serde_json::Map::new(),
        headed: project.headed(),
        // A replay is checked by where it arrives; nothing shows its steps.
        trace: crate::config::trace_mode::TraceMode::Off,
        // Replays and explore connect to a running browser when one is named.
        browser_cdp: project.cdp()?,
        defaults: serde_json::Map::new(),
        profiles: registry,
        atlas: None,
        fingerprint: None,
        agent_cache: crate::agent::CacheMode::default(),
        default_agent: None,
    });
    rt.replay_setup = crate::engine::project_setup(project.browser.as_ref(), &project.dir);
    rt.replay_timeout = project.browser_timeout();
    Ok((tokio_rt, Arc::new(rt)))
}

/// The work's result, unless the run was interrupted: a step that saw the interrupt first ends
/// its flow as interrupted, and the work may then finish (every replay after it interrupted at
/// once) before `interruptible` drops it; it is an interrupt all the same.
pub(super) fn seen_through<T>(
    done: Option<T>,
    cancel: &tokio_util::sync::CancellationToken,
) -> Option<T> {
    done.filter(|_| !cancel.is_cancelled())
}

/// The driver's browser, launched or connected to before any path is replayed: one that
/// cannot be reached (a remote endpoint that never answers, a browser that cannot launch) is
/// the environment's failure (exit 3, saying so), not every node's "no longer arrives".
pub(super) async fn browser_ready(d: &mut InProcess) -> Result<(), CliError> {
    d.session()
        .await
        .map(drop)
        .map_err(|e| CliError::Environment(e.message))
}

/// Ends a command that replayed: anything left in a process group goes, scratch files too.
pub(super) fn finish(scratch: &Path) {
    crate::process::kill_all();
    let _ = std::fs::remove_dir_all(scratch);
}

/// Where replays go: `--base-url` (a server's URL when it names one); else the origin of the
/// web server the atlas was recorded on (`atlas.json`'s `server`); else — an atlas that names
/// none, or names a server that is not there now (said) — the first server's origin, else the
/// recorded origin.
fn base_url(
    check: &CheckArgs,
    served: &Served,
    atlas: &Atlas,
    reporter: &Reporter,
) -> Result<Option<String>, CliError> {
    // Said once, before the first replay (the atlas keeps the names, never the values).
    for name in atlas::unset_secrets(atlas)? {
        reporter.warn(&format!(
            "secret `{name}` is not set in the environment (or is empty or only white space): the atlas was recorded masking it, and a replay masks it only when it is set (a page that shows it may be reported as drift)"
        ));
    }
    if let Some(given) = &check.base_url {
        return served.url(given).map(Some);
    }
    let Some(name) = atlas.server()? else {
        return Ok(served.origin());
    };
    if let Some(origin) = served.origin_of(&name) {
        return Ok(Some(origin));
    }
    let (now, instead) = match served.names() {
        [] => (
            "none".to_string(),
            "replaying on the recorded origin".to_string(),
        ),
        names => (
            names.join(", "),
            format!("replaying on the first, `{}`", names[0]),
        ),
    };
    reporter.warn(&format!(
        "the atlas was recorded on the web server `{name}`, which is not among the servers now ({now}): {instead} (--base-url \"{{{{ web_server.<name>.url }}}}\" picks one)"
    ));
    Ok(served.origin())
}

fn replay(
    atlas: &Atlas,
    node: &str,
    check: &CheckArgs,
    servers: &ServerArgs,
    reporter: &Reporter,
) -> Result<Outcome, CliError> {
    let spec = super::servers::spec(servers)?;
    if let Some(given) = &check.base_url {
        check_url(given, spec.as_ref())?;
    }
    let run_id = format!("replay-{}", std::process::id());
    let (tokio_rt, rt) = driver(&run_id, &[], None)?;
    let cancel = rt.cancel.clone();
    let scratch = rt.artifacts.clone();
    let r = tokio_rt.block_on(super::servers::around(
        &rt.clone(),
        spec.as_ref(),
        (&run_id, &atlas::servers_masker(atlas)?),
        reporter,
        |served| async move {
            let base_url = base_url(check, &served, atlas, reporter)?;
            let mut d = InProcess::new(rt);
            d.launch_ahead();
            let r = interruptible(async {
                browser_ready(&mut d).await?;
                Ok::<_, CliError>(
                    atlas::replay(
                        &mut d,
                        atlas,
                        node,
                        atlas::Start::Fresh,
                        base_url.as_deref(),
                        check.timeout,
                    )
                    .await,
                )
            })
            .await;
            d.close().await;
            r.transpose()
        },
    ));
    finish(&scratch);
    let r = seen_through(r??, &cancel)
        .ok_or_else(|| CliError::Interrupted("replay interrupted".to_string()))??;
    let ok = r.arrival.ok();
    let msg = r.describe();
    if !ok {
        reporter.error(&msg);
    }
    reporter.out(&format!(
        "{} {node}: {msg}\n",
        if ok { "ok" } else { "FAIL" }
    ));
    Ok(if ok {
        Outcome::Passed
    } else {
        Outcome::FlowsFailed
    })
}

/// `runner atlas verify`'s settings.
struct VerifyArgs<'a> {
    check: &'a CheckArgs,
    jobs: usize,
    reports: &'a [String],
}

/// `runner atlas verify`: an atlas with no nodes is nothing verified, and no pass.
fn verify(
    atlas: &Atlas,
    args: &VerifyArgs<'_>,
    servers: &ServerArgs,
    reporter: &Reporter,
) -> Result<Outcome, CliError> {
    let targets = ReportTarget::parse_all(args.reports).map_err(CliError::Usage)?;
    if atlas.node_ids()?.is_empty() {
        reporter.error(&format!(
            "nothing to verify: the atlas at {} has no nodes (record some with `link_state` steps or `runner explore`)",
            atlas.root.display()
        ));
        return Ok(Outcome::FlowsFailed);
    }
    let spec = super::servers::spec(servers)?;
    if let Some(given) = &args.check.base_url {
        check_url(given, spec.as_ref())?;
    }
    let run_id = format!("verify-{}", super::run::run_id());
    let started = std::time::Instant::now();
    // With reports, the failed nodes' screenshots and snapshots they name are kept, as a run's.
    let kept = (!targets.is_empty())
        .then(|| crate::config::flows::absolute(Path::new(&format!(".runner/runs/{run_id}"))));
    let (tokio_rt, rt) = driver(&run_id, &[], kept.as_deref())?;
    let cancel = rt.cancel.clone();
    let scratch = rt.artifacts.clone();
    let out = tokio_rt.block_on(super::servers::around_reported(
        &rt.clone(),
        spec.as_ref(),
        (&run_id, &atlas::servers_masker(atlas)?),
        reporter,
        |served| async move {
            let base_url = base_url(args.check, &served, atlas, reporter)?;
            let checks = Checks {
                base_url: base_url.as_deref(),
                timeout: args.check.timeout,
            };
            let mut pool = InProcess::pool(&rt, args.jobs);
            // The first path's browser; the others' (`--jobs`) when a path needs one.
            pool[0].launch_ahead();
            let r = interruptible(async {
                browser_ready(&mut pool[0]).await?;
                let mut drivers: Vec<&mut dyn Driver> =
                    pool.iter_mut().map(|d| d as &mut dyn Driver).collect();
                Ok::<_, CliError>(atlas::verify_until(&mut drivers, atlas, checks).await)
            })
            .await;
            InProcess::close_all(pool).await;
            r.transpose()
        },
    ));
    if kept.is_some() {
        crate::process::kill_all();
    } else {
        finish(&scratch);
    }
    let (replayed, served) = out?;
    let (replayed, broke) = seen_through(replayed?, &cancel)
        .ok_or_else(|| CliError::Interrupted("verify interrupted".to_string()))??;
    let Verified {
        text,
        results,
        failed,
    } = Verified::of(replayed, atlas, broke.as_ref());
    let summary = Summary::of(&results, 0, started.elapsed(), &run_id);
    if let Some(e) = broke {
        // The reports say what was verified and why it stopped, as a run's list an errored flow.
        if let Err(w) = write_reports(&targets, &results, &summary, served, reporter) {
            w.report(reporter);
        }
        return Err(e.into());
    }
    reporter.out(&text);
    write_reports(&targets, &results, &summary, served, reporter)?;
    Ok(if failed == 0 {
        Outcome::Passed
    } else {
        Outcome::FlowsFailed
    })
}

/// `runner atlas test`'s settings.
struct TestArgs<'a> {
    check: &'a CheckArgs,
    agent: &'a AgentArgs,
    servers: &'a ServerArgs,
}

/// `runner atlas test`: an atlas with no test ideas is no test collected, and no pass.
fn test(
    atlas: &Atlas,
    args: &TestArgs<'_>,
    reports: &[String],
    reporter: &Reporter,
) -> Result<Outcome, CliError> {
    let none = if atlas.node_ids()?.is_empty() {
        Some("has no nodes (record some with `link_state` steps or `runner explore`)")
    } else if atlas::test_ideas(atlas)? == 0 {
        Some("has no test ideas (`runner explore --agent PROFILE` proposes them)")
    } else {
        None
    };
    if let Some(why) = none {
        reporter.error(&format!(
            "no tests collected: the atlas at {} {why}",
            atlas.root.display()
        ));
        return Ok(Outcome::FlowsFailed);
    }
    let mut reports = reports.to_vec();
    if reports.is_empty() {
        // Inside the atlas: not through a link in it, as nothing runner writes there is.
        let junit = atlas.root.join("tests").join("junit.xml");
        atlas
            .tree()
            .file(&junit)
            .map_err(crate::atlas::AtlasError::from)?;
        reports.push(format!("junit={}", junit.display()));
    }
    let targets = ReportTarget::parse_all(&reports).map_err(CliError::Usage)?;
    let run_id = format!("atlas-test-{}", std::process::id());
    let started = std::time::Instant::now();
    let (tested, served) = run_tests(atlas, args, &run_id, reporter)?;
    let tested = match tested {
        Ok(t) => t,
        Err(e) if e.kind == ErrorKind::Environment => return Err(CliError::Environment(e.message)),
        Err(e) => {
            reporter.error(&e.message);
            return Ok(Outcome::FlowsFailed);
        }
    };
    let tally = Tally::of(tested, atlas);
    let summary = Summary::of(&tally.results, 0, started.elapsed(), &run_id);
    write_reports(&targets, &tally.results, &summary, served, reporter)?;
    let report_path = reports[0]
        .split_once('=')
        .map_or("", |(_, p)| p)
        .to_string();
    reporter.err(&crate::step::shown::clean(&tally.text));
    reporter.out(
        &(serde_json::to_string_pretty(&serde_json::json!({
            "total_tests": tally.total,
            "passed": tally.passed,
            "failed": tally.total - tally.passed,
            "report_path": report_path,
            "nodes_verified": tally.nodes - tally.nodes_failed,
            "nodes_failed": tally.nodes_failed,
        }))
        .unwrap_or_default()
            + "\n"),
    );
    Ok(if tally.passed == tally.total && tally.nodes_failed == 0 {
        Outcome::Passed
    } else {
        Outcome::FlowsFailed
    })
}

/// What `atlas test` ran, and the web servers it started.
type Ran = (
    Result<atlas::Tested, StepError>,
    Vec<crate::step::ServerInfo>,
);

/// Replays every node and runs its test ideas, in process, with the agent's skills when there
/// is one; an interrupt is marked in the atlas's status and is the command's error.
fn run_tests(
    atlas: &Atlas,
    args: &TestArgs<'_>,
    run_id: &str,
    reporter: &Reporter,
) -> Result<Ran, CliError> {
    let spec = super::servers::spec(args.servers)?;
    if let Some(given) = &args.check.base_url {
        check_url(given, spec.as_ref())?;
    }
    let (tokio_rt, rt) = driver(run_id, &args.agent.profiles, None)?;
    let cancel = rt.cancel.clone();
    let skills_rt = rt.clone();
    let agent = super::skills::skill_env(&skills_rt, args.agent, run_id)?;
    let scratch = rt.artifacts.clone();
    let status = Status::new(*reporter);
    let out = tokio_rt.block_on(super::servers::around_reported(
        &skills_rt,
        spec.as_ref(),
        (run_id, &atlas::servers_masker(atlas)?),
        reporter,
        |served| {
            let (agent, status) = (agent.as_ref(), &status);
            async move {
                let base_url = base_url(args.check, &served, atlas, reporter)?;
                let checks = Checks {
                    base_url: base_url.as_deref(),
                    timeout: args.check.timeout,
                };
                let mut d = InProcess::new(rt);
                d.launch_ahead();
                let r = interruptible(async {
                    browser_ready(&mut d).await?;
                    Ok::<_, CliError>(
                        atlas::test(&mut d, atlas, agent, checks, &|line| {
                            status.update(line);
                        })
                        .await,
                    )
                })
                .await;
                d.close().await;
                r.transpose()
            }
        },
    ));
    status.finish();
    finish(&scratch);
    let (tested, served) = out?;
    let tested = seen_through(tested?, &cancel).ok_or_else(|| {
        atlas::mark_status(atlas, "interrupted");
        CliError::Interrupted("atlas test interrupted".to_string())
    })?;
    Ok((tested, served))
}
