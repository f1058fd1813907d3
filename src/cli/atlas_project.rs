//! What the atlas commands (`explore`, `atlas replay|verify|test|export`) take of the project
//! file, as `runner run` takes it: its `[browser]` (the replays' browser and context) and its
//! `[atlas] secrets` and `origins` (what the steps an atlas holds may read and open).

use std::path::PathBuf;

use super::error::CliError;
use crate::atlas::Reach;
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
