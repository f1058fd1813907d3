//! `runner explore URL`: the command-line side of a crawl (its settings, the app's servers,
//! the summary it prints); the crawl is `atlas::explore`.

use std::path::{Path, PathBuf};

use super::args::{AgentArgs, ServerArgs};
use super::error::CliError;
use super::exit::Outcome;
use super::signals::interruptible;
use crate::atlas::{self, Atlas};
use crate::config::flows::absolute;
use crate::config::project::Fingerprint;
use crate::engine::InProcess;
use crate::report::{Reporter, Status};
use crate::step::{ErrorKind, Masker, StepError};

/// `runner explore` settings.
pub(crate) struct ExploreArgs {
    pub(crate) url: String,
    pub(crate) max_depth: usize,
    pub(crate) max_nodes: usize,
    pub(crate) allow_destructive: bool,
    pub(crate) dir: PathBuf,
    /// `--fingerprint`.
    pub(crate) fingerprint: Option<String>,
    pub(crate) agent: AgentArgs,
    pub(crate) servers: ServerArgs,
}

/// Credentials in the URL would be stored in the root's entry, in clear (and browsers drop
/// them anyway); and an atlas's steps open only http(s) pages (`config::stored`), so explore
/// starts from one.
fn refuse_url(url: &str) -> Result<(), CliError> {
    // A path or a server's template is taken to a server's URL first (checked again then).
    let scheme = url
        .split_once(':')
        .map(|(s, _)| s)
        .filter(|s| s.starts_with(|c: char| c.is_ascii_alphabetic()))
        .filter(|s| {
            s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
        });
    if scheme.is_some() && !crate::config::stored::is_http(url) {
        return Err(CliError::Usage(format!(
            "explore opens only http(s) pages, not `{url}`: an atlas's steps may open no other (no `file:`, `data:` or browser pages)"
        )));
    }
    let authority = url.split_once("://").map_or("", |(_, rest)| {
        rest.split(['/', '?', '#']).next().unwrap_or("")
    });
    if authority.contains('@') {
        return Err(CliError::Usage("the URL to explore has credentials (`user:password@`); they would be stored in the atlas in clear: record a login flow with `link_state` and a secret instead, then explore from its pages".to_string()));
    }
    Ok(())
}

/// How a new atlas of `explore` tells states apart: `--fingerprint`, else runner.toml's
/// `[atlas] fingerprint`, else as the atlas was made (`None`). An existing atlas made the other
/// way is refused here, before the app is started, and so is a folder that is not an atlas.
fn fingerprint(flag: Option<&str>, dir: &Path) -> Result<Option<Fingerprint>, CliError> {
    let wanted = match flag {
        Some("text") => Some(Fingerprint::Text),
        Some(_) => Some(Fingerprint::Structure),
        None => {
            let cwd = std::env::current_dir().map_err(|e| {
                CliError::Environment(format!("cannot read the current directory: {e}"))
            })?;
            super::known::find_project(&cwd, &[], None)
                .map_err(CliError::invalid)?
                .and_then(|p| p.file.atlas)
                .and_then(|a| a.fingerprint)
        }
    };
    if let Some(why) = atlas::atlas_refusal(dir) {
        return Err(atlas::AtlasError::Refused(why).into());
    }
    if dir.join("nodes").is_dir() {
        Atlas {
            root: dir.to_path_buf(),
            reach: atlas::Reach::default(),
        }
        .settle_fingerprint(wanted)?;
    }
    Ok(wanted)
}

/// `runner explore URL`.
pub(crate) fn explore(args: &ExploreArgs, reporter: &Reporter) -> Result<Outcome, CliError> {
    refuse_url(&args.url)?;
    let spec = super::servers::spec(&args.servers)?;
    super::servers::check_url(&args.url, spec.as_ref())?;
    let run_id = format!("explore-{}", std::process::id());
    let (tokio_rt, rt) = super::atlas::driver(&run_id, &args.agent.profiles, None)?;
    let skills_rt = rt.clone();
    let cancel = rt.cancel.clone();
    let agent = super::skills::skill_env(&skills_rt, &args.agent, &run_id)?;
    let scratch = rt.artifacts.clone();
    // One masker for the crawl, its agent and its web servers' logs: the crawl adds the
    // atlas's secrets to it before it opens a page.
    let masker = agent
        .as_ref()
        .map_or_else(Masker::default, |a| a.env.masker.clone());
    let mut opts = atlas::ExploreOptions {
        url: args.url.clone(),
        max_depth: args.max_depth,
        max_nodes: args.max_nodes,
        allow_destructive: args.allow_destructive,
        atlas: absolute(&args.dir),
        fingerprint: fingerprint(args.fingerprint.as_deref(), &absolute(&args.dir))?,
        // State screenshots go to the private scratch directory, removed with it.
        artifacts: scratch.join("states"),
        run_id,
        server: None,
        server_url: None,
        reach: super::atlas_project::atlas_project()?.reach,
        masker: masker.clone(),
    };
    let status = Status::new(*reporter);
    let result = tokio_rt.block_on(super::servers::around(
        &skills_rt,
        spec.as_ref(),
        (&opts.run_id.clone(), &masker),
        reporter,
        |served| {
            let (opts, agent, status) = (&mut opts, agent.as_ref(), &status);
            async move {
                opts.url = served.url(&args.url)?;
                refuse_url(&opts.url)?;
                // Kept in the atlas: its replays go to this server's origin of their run.
                opts.server = served.server_of(&opts.url);
                opts.server_url = opts.server.as_deref().and_then(|n| served.url_of(n));
                let mut d = InProcess::new(rt);
                d.launch_ahead();
                // A browser that cannot be had is the environment's failure (exit 3), said
                // within the browser's timeout, before the crawl's first step.
                if let Err(e) = super::atlas::browser_ready(&mut d).await {
                    d.close().await;
                    return Err(e);
                }
                let r = interruptible(atlas::explore(
                    &mut d,
                    opts,
                    agent,
                    &|line| status.update(line),
                    &|warning| status.warn(warning),
                ))
                .await;
                d.close().await;
                Ok::<_, CliError>(r)
            }
        },
    ));
    status.finish();
    super::atlas::finish(&scratch);
    finished(result??, &opts.atlas, &cancel, reporter)
}

/// What the crawl's end means: an interrupt (said in the atlas's status too: exit 130), its
/// summary printed, or the error that stopped it.
fn finished<T: serde::Serialize>(
    result: Option<Result<T, StepError>>,
    dir: &Path,
    cancel: &tokio_util::sync::CancellationToken,
    reporter: &Reporter,
) -> Result<Outcome, CliError> {
    // An interrupt that a step of the crawl saw first ends it as one seen between steps does.
    let result = match super::atlas::seen_through(result, cancel) {
        Some(Err(e)) if e.kind == ErrorKind::Interrupted => None,
        r => r,
    };
    // The todo in flight was not taken off its list: the next crawl does it.
    if result.is_none() {
        atlas::mark_status(
            &Atlas {
                root: dir.to_path_buf(),
                reach: atlas::Reach::default(),
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
            Ok(Outcome::Passed)
        }
        Err(e) if e.kind == ErrorKind::Environment => Err(CliError::Environment(e.message)),
        Err(e) => {
            reporter.error(&e.message);
            Ok(Outcome::FlowsFailed)
        }
    }
}
