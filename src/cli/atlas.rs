//! `runner atlas show|path|graph|export|replay|verify` and `runner explore`: the command-line
//! side only; the work is in `atlas`, and replays run in process through the engine.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::args::AtlasCommand;
use super::error::CliError;
use super::exit;
use super::signals::interruptible;
use crate::atlas::{self, Atlas};
use crate::config::flows::absolute;
use crate::engine::{InProcess, Runtime, RuntimeSettings};
use crate::report::{ReportTarget, Reporter, Status, Summary};
use crate::step::{ErrorKind, FlowStatus};

/// Runs an atlas subcommand; returns the exit code.
pub(crate) fn run(cmd: &AtlasCommand, dir: &Path, reporter: &Reporter) -> Result<i32, CliError> {
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
        } => atlas::export(&atlas, node, *format, base_url.as_deref())?,
        AtlasCommand::Replay { node, base_url } => {
            return replay(&atlas, node, base_url.as_deref(), reporter);
        }
        AtlasCommand::Verify { base_url, report } => {
            return verify(&atlas, base_url.as_deref(), report, reporter);
        }
    };
    reporter.out(&text);
    Ok(exit::SUCCESS)
}

/// A runtime and an in-process driver for replays, with artifacts in a scratch directory.
fn driver(run_id: &str) -> Result<(tokio::runtime::Runtime, Arc<Runtime>), CliError> {
    let tokio_rt = super::runtime()?;
    let (registry, diags) = super::validate::load_registry(&[]);
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
        profiles: registry,
        atlas: None,
        agent_cache: crate::agent::CacheMode::default(),
        default_agent: None,
    });
    Ok((tokio_rt, Arc::new(rt)))
}

/// Ends a command that replayed: anything left in a process group goes, scratch files too.
fn finish(scratch: &Path) {
    crate::process::kill_all();
    let _ = std::fs::remove_dir_all(scratch);
}

fn replay(
    atlas: &Atlas,
    node: &str,
    base_url: Option<&str>,
    reporter: &Reporter,
) -> Result<i32, CliError> {
    let (tokio_rt, rt) = driver(&format!("replay-{}", std::process::id()))?;
    let scratch = rt.artifacts.clone();
    let r = tokio_rt.block_on(async {
        let mut d = InProcess::new(rt);
        let r = interruptible(atlas::replay(&mut d, atlas, node, base_url)).await;
        d.close().await;
        r
    });
    finish(&scratch);
    let r = r.ok_or_else(|| CliError::Interrupted("replay interrupted".to_string()))??;
    let ok = r.arrival.ok();
    let msg = r.arrival.describe(node);
    if !ok {
        reporter.error(&msg);
    }
    reporter.out(&format!(
        "{} {node}: {msg}\n",
        if ok { "ok" } else { "FAIL" }
    ));
    Ok(if ok { exit::SUCCESS } else { exit::FLOW_FAILED })
}

fn verify(
    atlas: &Atlas,
    base_url: Option<&str>,
    reports: &[String],
    reporter: &Reporter,
) -> Result<i32, CliError> {
    let targets = ReportTarget::parse_all(reports).map_err(CliError::Usage)?;
    let run_id = format!("verify-{}", std::process::id());
    let started = std::time::Instant::now();
    let (tokio_rt, rt) = driver(&run_id)?;
    let scratch = rt.artifacts.clone();
    let replayed = tokio_rt.block_on(async {
        let mut d = InProcess::new(rt);
        let r = interruptible(atlas::verify(&mut d, atlas, base_url)).await;
        d.close().await;
        r
    });
    finish(&scratch);
    let replayed =
        replayed.ok_or_else(|| CliError::Interrupted("verify interrupted".to_string()))??;
    let mut s = String::new();
    for r in &replayed {
        s.push_str(&format!(
            "{} {} {}: {}\n",
            if r.arrival.ok() { "ok  " } else { "FAIL" },
            r.node_id,
            atlas::label(atlas, &r.node_id),
            r.arrival.describe(&r.node_id)
        ));
    }
    let results: Vec<_> = replayed.into_iter().map(|r| r.into_result(atlas)).collect();
    let failed = results
        .iter()
        .filter(|r| r.status != FlowStatus::Passed)
        .count();
    s.push_str(&format!(
        "\nnodes: {} verified, {failed} no longer arrive\n",
        results.len() - failed
    ));
    reporter.out(&s);
    let summary = Summary::of(&results, 0, started.elapsed(), &run_id);
    for t in &targets {
        t.write(&results, &summary)
            .map_err(|e| CliError::Environment(e.to_string()))?;
    }
    Ok(if failed == 0 {
        exit::SUCCESS
    } else {
        exit::FLOW_FAILED
    })
}

/// `runner explore` settings.
pub(crate) struct ExploreArgs {
    pub(crate) url: String,
    pub(crate) max_depth: usize,
    pub(crate) max_nodes: usize,
    pub(crate) allow_destructive: bool,
    pub(crate) dir: PathBuf,
}

/// `runner explore URL`.
pub(crate) fn explore(args: &ExploreArgs, reporter: &Reporter) -> Result<i32, CliError> {
    // Credentials in the URL would be stored in the root's entry, in clear, and browsers drop
    // them anyway.
    let authority = args.url.split_once("://").map_or("", |(_, rest)| {
        rest.split(['/', '?', '#']).next().unwrap_or("")
    });
    if authority.contains('@') {
        return Err(CliError::Usage("the URL to explore has credentials (`user:password@`); they would be stored in the atlas in clear: record a login flow with `link_state` and a secret instead, then explore from its pages".to_string()));
    }
    let run_id = format!("explore-{}", std::process::id());
    let (tokio_rt, rt) = driver(&run_id)?;
    let scratch = rt.artifacts.clone();
    let opts = atlas::ExploreOptions {
        url: args.url.clone(),
        max_depth: args.max_depth,
        max_nodes: args.max_nodes,
        allow_destructive: args.allow_destructive,
        atlas: absolute(&args.dir),
        // State screenshots go to the private scratch directory, removed with it.
        artifacts: scratch.join("states"),
        run_id,
    };
    let status = Status::new(*reporter);
    let result = tokio_rt.block_on(async {
        let mut d = InProcess::new(rt);
        let r = interruptible(atlas::explore(&mut d, &opts, &|line| status.update(line))).await;
        d.close().await;
        r
    });
    status.finish();
    finish(&scratch);
    // The todo in flight was not taken off its list: the next crawl does it.
    if result.is_none() {
        atlas::mark_status(
            &Atlas {
                root: opts.atlas.clone(),
            },
            "interrupted",
        );
    }
    let result = result.ok_or_else(|| {
        CliError::Interrupted(
            "explore interrupted: what was recorded is kept, the todos left (the one in flight too) are done by the next `runner explore`".to_string(),
        )
    })?;
    match result {
        Ok(summary) => {
            reporter.out(&(serde_json::to_string_pretty(&summary).unwrap_or_default() + "\n"));
            Ok(exit::SUCCESS)
        }
        Err(e) if e.kind == ErrorKind::Environment => Err(CliError::Environment(e.message)),
        Err(e) => {
            reporter.error(&e.message);
            Ok(exit::FLOW_FAILED)
        }
    }
}
