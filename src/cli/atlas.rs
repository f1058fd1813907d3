//! `runner atlas show|path|graph|export|replay|verify` and `runner explore`: the command-line
//! side only; the work is in `atlas`, and replays run in process through the engine.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::args::{AgentArgs, AtlasCommand, ServerArgs};
use super::error::CliError;
use super::exit::Outcome;
use super::signals::interruptible;
use crate::agent::{CacheMode, SkillEnv};
use crate::atlas::{self, Atlas, ExploreAgent};
use crate::engine::{InProcess, Runtime, RuntimeSettings};
use crate::report::{ReportTarget, Reporter, Status, Summary};
use crate::step::{ErrorKind, FlowResult, FlowStatus, StepError};

/// Runs an atlas subcommand.
pub(crate) fn run(
    cmd: &AtlasCommand,
    dir: &Path,
    servers: &ServerArgs,
    reporter: &Reporter,
) -> Result<Outcome, CliError> {
    if !dir.join("nodes").is_dir() {
        return Err(CliError::Usage(format!(
            "no atlas at {} (record one with `link_state` steps, or pass --atlas DIR)",
            dir.display()
        )));
    }
    let atlas = Atlas {
        root: dir.to_path_buf(),
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
            let text = atlas::export(&atlas, node, *format, base_url.as_deref())?;
            match out {
                None => text,
                Some(dir) => {
                    let ext = match format {
                        atlas::ExportFormat::Flow => "yaml",
                        atlas::ExportFormat::PlaywrightPython => "py",
                    };
                    let file = dir.join(format!("{}.{ext}", atlas::file_stem(&atlas, node)?));
                    std::fs::create_dir_all(dir)
                        .and_then(|()| crate::fs::write_atomic(&file, text.as_bytes()))
                        .map_err(|e| {
                            CliError::Environment(format!("cannot write {}: {e}", file.display()))
                        })?;
                    format!("{}\n", file.display())
                }
            }
        }
        AtlasCommand::Replay { node, base_url } => {
            return replay(&atlas, node, base_url.as_deref(), servers, reporter);
        }
        AtlasCommand::Verify { base_url, report } => {
            return verify(&atlas, base_url.as_deref(), report, servers, reporter);
        }
        AtlasCommand::Test {
            base_url,
            report,
            agent,
        } => {
            let args = TestArgs {
                base_url: base_url.as_deref(),
                agent,
                servers,
            };
            return test(&atlas, &args, report, reporter);
        }
    };
    reporter.out(&text);
    Ok(Outcome::Passed)
}

/// A runtime and an in-process driver for replays, with artifacts in a scratch directory;
/// `profiles` are the agent profile directories beyond the usual ones.
pub(super) fn driver(
    run_id: &str,
    profiles: &[PathBuf],
) -> Result<(tokio::runtime::Runtime, Arc<Runtime>), CliError> {
    let tokio_rt = super::runtime::start()?;
    let (registry, diags) = super::validate::load_registry(profiles);
    if !diags.is_empty() {
        return Err(CliError::invalid(diags));
    }
    // A private scratch directory (created 0700 with an unpredictable name): another local user
    // must not be able to put a flow there for the replay to run.
    let artifacts = tempfile::Builder::new()
        .prefix(&format!("runner-{run_id}-"))
        .tempdir()
        .map_err(|e| CliError::Environment(format!("cannot create a scratch directory: {e}")))?
        .keep();
    let rt = Runtime::new(RuntimeSettings {
        run_id: run_id.to_string(),
        artifacts,
        // Replays are checked by their arrival, not narrated step by step.
        listener: Arc::new(crate::report::Silent),
        overrides: serde_json::Map::new(),
        headed: false,
        // A replay is checked by where it arrives; nothing shows its steps.
        trace: crate::config::trace_mode::TraceMode::Off,
        // Replays and explore connect to a running browser when one is named.
        browser_cdp: super::browser_cdp::remote_browser(
            std::env::var("RUNNER_BROWSER_CDP").ok().as_deref(),
        )?,
        defaults: serde_json::Map::new(),
        profiles: registry,
        atlas: None,
        fingerprint: None,
        agent_cache: crate::agent::CacheMode::default(),
        default_agent: None,
    });
    Ok((tokio_rt, Arc::new(rt)))
}

/// Ends a command that replayed: anything left in a process group goes, scratch files too.
pub(super) fn finish(scratch: &Path) {
    crate::process::kill_all();
    let _ = std::fs::remove_dir_all(scratch);
}

fn replay(
    atlas: &Atlas,
    node: &str,
    base_url: Option<&str>,
    servers: &ServerArgs,
    reporter: &Reporter,
) -> Result<Outcome, CliError> {
    let spec = super::servers::spec(servers)?;
    let run_id = format!("replay-{}", std::process::id());
    let (tokio_rt, rt) = driver(&run_id, &[])?;
    let scratch = rt.artifacts.clone();
    let r = tokio_rt.block_on(super::servers::around(
        &rt.clone(),
        spec.as_ref(),
        &run_id,
        reporter,
        |origin| async move {
            let base_url = base_url.map(str::to_string).or(origin);
            let mut d = InProcess::new(rt);
            let r = interruptible(atlas::replay(&mut d, atlas, node, base_url.as_deref())).await;
            d.close().await;
            r
        },
    ));
    finish(&scratch);
    let r = r?.ok_or_else(|| CliError::Interrupted("replay interrupted".to_string()))??;
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

fn verify(
    atlas: &Atlas,
    base_url: Option<&str>,
    reports: &[String],
    servers: &ServerArgs,
    reporter: &Reporter,
) -> Result<Outcome, CliError> {
    let targets = ReportTarget::parse_all(reports).map_err(CliError::Usage)?;
    let spec = super::servers::spec(servers)?;
    let run_id = format!("verify-{}", std::process::id());
    let started = std::time::Instant::now();
    let (tokio_rt, rt) = driver(&run_id, &[])?;
    let scratch = rt.artifacts.clone();
    let replayed = tokio_rt.block_on(super::servers::around(
        &rt.clone(),
        spec.as_ref(),
        &run_id,
        reporter,
        |origin| async move {
            let base_url = base_url.map(str::to_string).or(origin);
            let mut d = InProcess::new(rt);
            let r = interruptible(atlas::verify(&mut d, atlas, base_url.as_deref())).await;
            d.close().await;
            r
        },
    ));
    finish(&scratch);
    let replayed =
        replayed?.ok_or_else(|| CliError::Interrupted("verify interrupted".to_string()))??;
    let mut s = String::new();
    let mut drifted = 0;
    let labels = atlas::Labels::of(atlas);
    for r in &replayed {
        // A node that arrived with other data: reported, not failed.
        drifted += usize::from(r.arrival.ok() && r.diff.is_some());
        s.push_str(&format!(
            "{} {} {}: {}\n",
            if r.arrival.ok() { "ok  " } else { "FAIL" },
            r.node_id,
            labels.get(&r.node_id),
            r.describe()
        ));
    }
    let results: Vec<_> = replayed
        .into_iter()
        .map(|r| r.into_result(&labels))
        .collect();
    let failed = results
        .iter()
        .filter(|r| r.status != FlowStatus::Passed)
        .count();
    s.push_str(&format!(
        "\nnodes: {} verified, {failed} no longer arrive, {drifted} with data drift\n",
        results.len() - failed
    ));
    reporter.out(&s);
    let summary = Summary::of(&results, 0, started.elapsed(), &run_id);
    for t in &targets {
        for note in t
            .write(&results, &summary)
            .map_err(|e| CliError::Environment(e.to_string()))?
        {
            reporter.warn(&note);
        }
    }
    Ok(if failed == 0 {
        Outcome::Passed
    } else {
        Outcome::FlowsFailed
    })
}

/// `runner atlas test`'s settings.
struct TestArgs<'a> {
    base_url: Option<&'a str>,
    agent: &'a AgentArgs,
    servers: &'a ServerArgs,
}

/// `runner atlas test`.
fn test(
    atlas: &Atlas,
    args: &TestArgs<'_>,
    reports: &[String],
    reporter: &Reporter,
) -> Result<Outcome, CliError> {
    let mut reports = reports.to_vec();
    if reports.is_empty() {
        reports.push(format!(
            "junit={}",
            atlas.root.join("tests").join("junit.xml").display()
        ));
    }
    let targets = ReportTarget::parse_all(&reports).map_err(CliError::Usage)?;
    let run_id = format!("atlas-test-{}", std::process::id());
    let started = std::time::Instant::now();
    let tested = match run_tests(atlas, args, &run_id, reporter)? {
        Ok(t) => t,
        Err(e) if e.kind == ErrorKind::Environment => return Err(CliError::Environment(e.message)),
        Err(e) => {
            reporter.error(&e.message);
            return Ok(Outcome::FlowsFailed);
        }
    };
    let tally = Tally::of(tested, atlas);
    let summary = Summary::of(&tally.results, 0, started.elapsed(), &run_id);
    for t in &targets {
        for note in t
            .write(&tally.results, &summary)
            .map_err(|e| CliError::Environment(e.to_string()))?
        {
            reporter.warn(&note);
        }
    }
    let report_path = reports[0]
        .split_once('=')
        .map_or("", |(_, p)| p)
        .to_string();
    reporter.err(&tally.text);
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

/// Replays every node and runs its test ideas, in process, with the agent's skills when there
/// is one; an interrupt is marked in the atlas's status and is the command's error.
fn run_tests(
    atlas: &Atlas,
    args: &TestArgs<'_>,
    run_id: &str,
    reporter: &Reporter,
) -> Result<Result<atlas::Tested, StepError>, CliError> {
    let spec = super::servers::spec(args.servers)?;
    let (tokio_rt, rt) = driver(run_id, &args.agent.profiles)?;
    let skills_rt = rt.clone();
    let agent = skill_env(&skills_rt, args.agent, run_id)?;
    let scratch = rt.artifacts.clone();
    let status = Status::new(*reporter);
    let tested = tokio_rt.block_on(super::servers::around(
        &skills_rt,
        spec.as_ref(),
        run_id,
        reporter,
        |origin| {
            let (agent, status) = (agent.as_ref(), &status);
            async move {
                let base_url = args.base_url.map(str::to_string).or(origin);
                let mut d = InProcess::new(rt);
                let r = interruptible(atlas::test(
                    &mut d,
                    atlas,
                    agent,
                    base_url.as_deref(),
                    &|line| status.update(line),
                ))
                .await;
                d.close().await;
                r
            }
        },
    ));
    status.finish();
    finish(&scratch);
    tested?.ok_or_else(|| {
        atlas::mark_status(atlas, "interrupted");
        CliError::Interrupted("atlas test interrupted".to_string())
    })
}

/// What `atlas test` found: a line per node that no longer arrives and per test, the results
/// for the reports, and the counts.
struct Tally {
    text: String,
    results: Vec<FlowResult>,
    nodes: usize,
    nodes_failed: usize,
    total: usize,
    passed: usize,
}

impl Tally {
    fn of(tested: atlas::Tested, atlas: &Atlas) -> Tally {
        let labels = atlas::Labels::of(atlas);
        let mut text = String::new();
        let mut results = Vec::new();
        let mut nodes_failed = 0;
        for r in tested.verified {
            if !r.arrival.ok() {
                nodes_failed += 1;
                text.push_str(&format!("FAIL reach {}: {}\n", r.node_id, r.describe()));
            }
            results.push(r.into_result(&labels));
        }
        let nodes = results.len();
        let mut passed = 0;
        for t in &tested.tests {
            let ok = t.status == FlowStatus::Passed;
            passed += usize::from(ok);
            text.push_str(&format!(
                "{} {}{}\n",
                if ok { "ok  " } else { "FAIL" },
                t.name,
                t.error
                    .as_ref()
                    .map(|e| format!(": {}", e.message))
                    .or_else(|| {
                        t.steps
                            .iter()
                            .find_map(|st| st.error.as_ref().map(|e| format!(": {}", e.message)))
                    })
                    .unwrap_or_default()
            ));
        }
        let total = tested.tests.len();
        results.extend(tested.tests);
        Tally {
            text,
            results,
            nodes,
            nodes_failed,
            total,
            passed,
        }
    }
}

/// Where the explorer's skills are asked: the `--agent` profile (none with a read-only cache
/// is fine: answers come from the cache), answers cached under `.runner/cache/skills`, agent
/// logs under `.runner/logs/<run-id>/`.
pub(super) fn skill_env<'a>(
    rt: &'a Runtime,
    args: &AgentArgs,
    run_id: &str,
) -> Result<Option<ExploreAgent<'a>>, CliError> {
    let cache = args.agent_cache.mode();
    if args.agent.is_none() && cache != CacheMode::ReadOnly {
        return Ok(None);
    }
    if let Some(p) = &args.agent
        && rt.profiles.get_profile(p).is_none()
    {
        return Err(CliError::Usage(format!(
            "no agent profile `{p}` (see `runner profiles list`)"
        )));
    }
    let cwd = std::env::current_dir()
        .map_err(|e| CliError::Environment(format!("cannot read the current directory: {e}")))?;
    let logs = cwd.join(".runner/logs").join(run_id);
    std::fs::create_dir_all(&logs)
        .map_err(|e| CliError::Environment(format!("cannot create {}: {e}", logs.display())))?;
    Ok(Some(ExploreAgent {
        env: SkillEnv {
            profiles: &rt.profiles,
            cache,
            cache_dir: cwd.join(".runner/cache/skills"),
            workspace: cwd,
            env: indexmap::IndexMap::new(),
            masker: crate::step::Masker::default(),
            relay: Arc::new(|_: &str| {}),
            cancel: tokio_util::sync::CancellationToken::new(),
            log_path: logs.join("skill"),
            timeout: std::time::Duration::from_secs(600),
        },
        profile: args.agent.clone(),
    }))
}
