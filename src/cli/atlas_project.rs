//! What the atlas commands (`explore`, `atlas replay|verify|test|export`) take of the project
//! file, as `runner run` takes it: its `[browser]` (the replays' browser and context) and its
//! `[atlas] secrets` and `origins` (what the steps an atlas holds may read and open); and what
//! `run` warns of when a flow records an atlas those commands will refuse.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;

use super::error::CliError;
use crate::atlas::{Reach, referenced_secrets};
use crate::config::flows::LoadedFlow;
use crate::config::project::ProjectBrowser;

/// The project file's settings for the atlas commands (none without a project file).
#[derive(Debug, Default)]
pub(super) struct AtlasProject {
    pub(super) reach: Reach,
    pub(super) browser: Option<ProjectBrowser>,
    /// The project file's directory (where runner runs, without one).
    pub(super) dir: PathBuf,
}

/// The project file found from the working directory (`runner run`'s), read for the atlas
/// commands.
pub(super) fn atlas_project() -> Result<AtlasProject, CliError> {
    let cwd = std::env::current_dir()
        .map_err(|e| CliError::Environment(format!("cannot read the current directory: {e}")))?;
    let cdp = std::env::var("RUNNER_BROWSER_CDP").ok();
    let Some(project) =
        super::known::find_project(&cwd, &[], cdp.as_deref()).map_err(CliError::invalid)?
    else {
        return Ok(AtlasProject {
            dir: cwd,
            ..AtlasProject::default()
        });
    };
    let atlas = project.file.atlas.unwrap_or_default();
    Ok(AtlasProject {
        reach: Reach {
            secrets: atlas.secrets,
            origins: atlas.origins,
        },
        browser: project.file.browser,
        dir: project.dir,
    })
}

impl AtlasProject {
    /// The remote browser to connect to: `RUNNER_BROWSER_CDP`, else `[browser] cdp`.
    pub(super) fn cdp(&self) -> Result<Option<String>, CliError> {
        let env = std::env::var("RUNNER_BROWSER_CDP")
            .ok()
            .filter(|u| !u.trim().is_empty());
        let cdp = env.or_else(|| self.browser.as_ref().and_then(|b| b.cdp.clone()));
        super::browser_cdp::remote_browser(cdp.as_deref())
    }

    /// `[browser] timeout`: how long the browser has to answer (a run's default without it).
    pub(super) fn browser_timeout(&self) -> std::time::Duration {
        self.browser
            .as_ref()
            .and_then(|b| b.timeout.as_deref())
            .and_then(|t| crate::config::duration::parse_duration(t).ok())
            .unwrap_or(crate::engine::BROWSER_TIMEOUT)
    }

    /// `[browser] headed`.
    pub(super) fn headed(&self) -> bool {
        self.browser
            .as_ref()
            .and_then(|b| b.headed)
            .unwrap_or(false)
    }
}

/// The warning, once for a run, of the secrets that `flows` recording an atlas (`atlas:`) read
/// in steps the atlas keeps and that runner.toml's `[atlas] secrets` (`named`) does not name:
/// the atlas commands refuse the edges holding them (a configuration error, exit 2) until it
/// does (review of session 23, F6). Steps inside `group` and `each` are kept one by one, so
/// they are looked at too, each by its pointer into the file (as the recording reads them).
pub(super) fn unnamed_atlas_secrets(flows: &[Arc<LoadedFlow>], named: &[String]) -> Option<String> {
    let mut names = BTreeSet::new();
    let mut files = BTreeSet::new();
    for f in flows.iter().filter(|f| f.flow.atlas.is_some()) {
        for (ptr, step) in f.flow.pointed_steps() {
            if !step.action.recorded_in_atlas() {
                continue;
            }
            let key = step.action.key();
            let Some(raw) = f.doc.value.pointer(&format!("{ptr}/{key}")) else {
                continue;
            };
            for name in referenced_secrets(raw) {
                if !named.contains(&name) {
                    files.insert(f.doc.file.name().to_string());
                    names.insert(name);
                }
            }
        }
    }
    if names.is_empty() {
        return None;
    }
    let names: Vec<String> = names.into_iter().collect();
    let reach = Reach {
        secrets: named.to_vec(),
        origins: Vec::new(),
    };
    Some(format!(
        "{} record(s) an atlas with steps that read the secret(s) {}, which runner.toml's `[atlas] secrets` does not name: `atlas verify`, `replay` and `export` refuse those steps until it does; {}",
        files.into_iter().collect::<Vec<_>>().join(", "),
        names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", "),
        reach.fix(&names)
    ))
}
