//! Files in and out of the page: `upload` and `screenshot`. (`download` has a file of its own.)

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;

use crate::browser::driver::command::Command;
use crate::browser::driver::pictures;
use crate::browser::driver::session::Session;
use crate::browser::page::element_action::element;
use crate::browser::page::selector::resolve_one;
use crate::config::model::{OneOrMany, ScreenshotOptions, Toggle};
use crate::step::{ErrorKind, Masker, StepError};

/// Where a browser step writes files.
pub(crate) struct StepFiles {
    /// The run's artifacts directory (what a step's files must stay inside, symlinks not
    /// followed).
    pub(crate) root: PathBuf,
    /// The run's artifacts directory for this flow.
    pub(crate) dir: PathBuf,
    /// `NNN-<id>`: the prefix of this step's files.
    pub(crate) base: String,
    /// The flow's masker: a file named from a value (a path templated with a secret, a name the
    /// page suggests) is named with its secrets masked, as the reports show it.
    pub(crate) masker: Masker,
    /// The states the run saved (`state.save`), shared by its flows.
    pub(crate) states: SavedStates,
}

/// The files a run saved states to (`state.save`, named with their secrets masked), each with
/// the path it was saved from (as rendered): two paths that differ only by a secret mask alike
/// (`state-***.json`), and the second state would be written over the first.
#[derive(Debug, Clone, Default)]
pub(crate) struct SavedStates(Arc<Mutex<HashMap<PathBuf, String>>>);

impl SavedStates {
    /// Takes `file` for the state saved from `path`: false when the run saved a state from
    /// another path there. The same path again is the same state, saved anew.
    pub(crate) fn claim(&self, file: &Path, path: &str) -> bool {
        let mut saved = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        saved
            .entry(file.to_path_buf())
            .or_insert_with(|| path.to_string())
            == path
    }
}

impl StepFiles {
    /// The file at `name` (a path relative to the flow's artifacts directory) with its secrets
    /// masked; refused when it leaves the directory (`what`: the setting, for the error).
    pub(crate) fn artifact(&self, name: &str, what: &str) -> Result<PathBuf, StepError> {
        let masked = self.masker.mask(name);
        // (Said of the masked path; the path as made may be the one that leaves.)
        let problem = crate::fs::artifact_path_problem(what, &masked).or_else(|| {
            crate::fs::artifact_path_problem(what, name)
                .map(|_| format!("{what} path `{masked}` leaves the artifacts directory"))
        });
        if let Some(problem) = problem {
            return Err(StepError::new(
                ErrorKind::CommandFailed,
                format!("{problem}; {}", crate::fs::ARTIFACT_PATH_HELP),
            ));
        }
        let mut path = self.dir.join(&masked);
        // Two names that differ only by a secret mask alike (`shots/***.png`): the second is
        // numbered (`shots/*** (2).png`), never written over the first's evidence.
        if masked != name
            && let (Some(parent), Some(file)) = (path.parent(), path.file_name())
        {
            let (parent, file) = (parent.to_path_buf(), file.to_string_lossy().into_owned());
            path = (1..10_000)
                .map(|n| parent.join(crate::fs::numbered_name(&file, n)))
                .find(|p| p.symlink_metadata().is_err())
                .unwrap_or(path);
        }
        self.ready(path)
    }

    /// `path` (inside the artifacts) ready to be written: its directories made without
    /// following a symlink, and no symlink in its place; else a step error saying which link.
    pub(crate) fn ready(&self, path: PathBuf) -> Result<PathBuf, StepError> {
        crate::fs::artifact_file(&self.root, &path)
            .map_err(|why| StepError::new(ErrorKind::CommandFailed, why))
    }
}

/// `upload`: the files (relative to the flow's directory; each must exist) attached to one file
/// input once it is enabled (`element_action`), and the count the page then holds checked:
/// agent-browser counts the files it was given, and an input without `multiple` keeps one.
pub(crate) async fn upload(
    session: &mut Session,
    u: &crate::config::model::UploadAction,
    deadline: Instant,
) -> Result<Value, StepError> {
    let names = match &u.files {
        OneOrMany::One(f) => vec![f.clone()],
        OneOrMany::Many(v) => v.clone(),
    };
    let mut files = Vec::new();
    for n in &names {
        let p = session.cwd.join(n);
        if !p.is_file() {
            return Err(StepError::new(
                ErrorKind::CommandFailed,
                format!(
                    "no file to upload at {} (`{n}`, relative to the flow's directory)",
                    p.display()
                ),
            ));
        }
        files.push(p.display().to_string());
    }
    let mut done = element(session, "upload", &u.target, &files, false, deadline).await?;
    done["files"] = json!(files);
    Ok(done)
}

/// `screenshot`: the page (or its full length, or one element, strict) to a file inside the
/// run's artifacts; an error, and no file, when the page shows a secret (or cannot be read to
/// tell): the one rule of every picture runner writes ([`pictures::withheld`]).
pub(crate) async fn screenshot(
    session: &mut Session,
    t: Toggle<ScreenshotOptions>,
    files: &StepFiles,
    deadline: Instant,
    timeout: Duration,
) -> Result<Value, StepError> {
    let (path, target, full) = match t {
        Toggle::On(_) => (None, None, false),
        Toggle::Options(o) => (o.path, o.target, o.full_page.unwrap_or(false)),
    };
    let path = match path {
        // Screenshots stay inside the run's artifacts (a rendered path too).
        Some(p) => files.artifact(&p, "screenshot")?,
        None => files.ready(files.dir.join(format!("{}.png", files.base)))?,
    };
    let mut shot = Command::screenshot(&path);
    if let Command::Screenshot {
        full_page,
        selector,
        ..
    } = &mut shot
    {
        *full_page = full;
        if let Some(t) = target {
            // One element, as an action would (Playwright's locator.screenshot is strict).
            *selector = Some(resolve_one(session, &t, deadline).await?.target);
        }
    }
    // None of a page that shows a secret: no masker reads pixels (the trace and a failure's
    // screenshot leave such a picture out; a step asked for it, so it fails).
    if let Some(why) = pictures::shoot(session, &files.masker, shot, timeout).await? {
        return Err(StepError::new(
            ErrorKind::Assertion,
            format!(
                "no screenshot taken: {why}, which a picture would show as it is (no masker reads pixels); take it where the page shows no declared secret"
            ),
        ));
    }
    Ok(json!({ "path": path.display().to_string() }))
}
