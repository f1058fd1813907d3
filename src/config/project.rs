//! The project file: `runner.toml` (or `runner.yaml`), found upward from the working directory.
//! It gives every `runner run` and `runner validate` under it default flow paths, jobs,
//! retries, reports, profile directories, vars and browser settings; command-line flags
//! override it. Checked against `schemas/config.schema.json` like any document, errors
//! pointing at the line.

use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::Value;

use super::document;
use super::schema::{self, SchemaKind};
use crate::source::Diagnostic;

/// The file names looked for, in this order, in each directory.
pub(crate) const NAMES: [&str; 3] = ["runner.toml", "runner.yaml", "runner.yml"];

/// `browser:` of the project file.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ProjectBrowser {
    pub(crate) headed: Option<bool>,
    pub(crate) timeout: Option<String>,
    pub(crate) cdp: Option<String>,
    /// Defaults of the flows' own `browser:` keys (a flow's own value wins).
    pub(crate) dialogs: Option<super::model::DialogDefault>,
    pub(crate) viewport: Option<super::model::Viewport>,
    pub(crate) device: Option<String>,
    pub(crate) locale: Option<String>,
    pub(crate) timezone: Option<String>,
    pub(crate) color_scheme: Option<super::model::ColorScheme>,
    pub(crate) geolocation: Option<super::model::Geolocation>,
    pub(crate) offline: Option<bool>,
    pub(crate) headers: Option<IndexMap<String, String>>,
}

/// What the project file says.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ProjectFile {
    #[serde(default)]
    pub(crate) flows: Vec<String>,
    pub(crate) jobs: Option<u16>,
    pub(crate) timeout: Option<String>,
    pub(crate) retries: Option<u32>,
    #[serde(default)]
    pub(crate) reports: Vec<String>,
    #[serde(default)]
    pub(crate) profiles: Vec<String>,
    #[serde(default)]
    pub(crate) vars: IndexMap<String, Value>,
    pub(crate) browser: Option<ProjectBrowser>,
}

/// A project file found, with the directory its paths are relative to.
#[derive(Debug, Clone)]
pub(crate) struct Project {
    pub(crate) dir: PathBuf,
    pub(crate) file: ProjectFile,
}

impl Project {
    /// A path of the file, made relative to where runner runs from (as it was written,
    /// relative to the file's directory).
    pub(crate) fn resolve(&self, p: &str) -> PathBuf {
        self.dir.join(p)
    }

    /// A `KIND=PATH` report of the file, its path resolved.
    pub(crate) fn report(&self, spec: &str) -> String {
        match spec.split_once('=') {
            Some((kind, p)) => format!("{kind}={}", self.resolve(p).display()),
            None => spec.to_string(),
        }
    }
}

/// The nearest project file at or above `start`; `None` when there is none.
pub(crate) fn find(start: &Path) -> Result<Option<Project>, Vec<Diagnostic>> {
    for dir in start.ancestors() {
        for name in NAMES {
            let path = dir.join(name);
            if path.is_file() {
                return load(&path).map(Some);
            }
        }
    }
    Ok(None)
}

/// Reads and checks a project file.
pub(crate) fn load(path: &Path) -> Result<Project, Vec<Diagnostic>> {
    let doc = document::read(path)?;
    let errors = schema::validate(SchemaKind::Config, &doc.file, &doc.value, &doc.spans);
    if !errors.is_empty() {
        return Err(errors);
    }
    let file: ProjectFile = serde_json::from_value(doc.value.clone()).map_err(|e| {
        vec![Diagnostic::error(
            &doc.file,
            0..0,
            format!("invalid project file: {e}"),
        )]
    })?;
    let dir = path.parent().map_or_else(PathBuf::new, Path::to_path_buf);
    // Relative to where runner runs when the file is below it (paths stay short in output).
    let dir = std::env::current_dir()
        .ok()
        .and_then(|cwd| dir.strip_prefix(&cwd).ok().map(Path::to_path_buf))
        .unwrap_or(dir);
    Ok(Project { dir, file })
}
