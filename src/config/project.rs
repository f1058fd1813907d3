//! The project file: `runner.toml` (or `runner.yaml`), found upward from the working directory.
//! It gives every `runner run` and `runner validate` under it default flow paths, jobs,
//! retries, reports, profile directories, vars and browser settings; command-line flags
//! override it. Checked against `schemas/config.schema.json` like any document, errors
//! pointing at the line.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::Value;

use super::document;
use super::model::WebServer;
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
    pub(crate) testid_attribute: Option<String>,
}

impl ProjectBrowser {
    /// Fills the unset keys of a flow's `browser:` (`b`) with these: what a flow of a run,
    /// and a replay of the atlas commands, takes of the project's `[browser]`.
    pub(crate) fn fill(&self, b: &mut super::model::BrowserDefaults) {
        fn fill<T: Clone>(mine: &mut Option<T>, project: Option<&T>) {
            if mine.is_none() {
                *mine = project.cloned();
            }
        }
        fill(&mut b.dialogs, self.dialogs.as_ref());
        fill(&mut b.viewport, self.viewport.as_ref());
        fill(&mut b.device, self.device.as_ref());
        fill(&mut b.locale, self.locale.as_ref());
        fill(&mut b.timezone, self.timezone.as_ref());
        fill(&mut b.color_scheme, self.color_scheme.as_ref());
        fill(&mut b.geolocation, self.geolocation.as_ref());
        fill(&mut b.offline, self.offline.as_ref());
        fill(&mut b.headers, self.headers.as_ref());
        fill(&mut b.testid_attribute, self.testid_attribute.as_ref());
    }
}

/// How an atlas tells its states apart (`[atlas] fingerprint`, `explore --fingerprint`): by
/// their structure (route, landmarks, headings, forms, controls; data left out), or by their
/// text (every line of the page, numbers and dates normalized), as runner did before.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Fingerprint {
    #[default]
    Structure,
    Text,
}

impl Fingerprint {
    /// Its name in files and on the command line.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Fingerprint::Structure => "structure",
            Fingerprint::Text => "text",
        }
    }
}

/// `atlas:` of the project file: how the atlases recorded under it are made.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ProjectAtlas {
    /// For an atlas created under the project (an existing one keeps its own).
    pub(crate) fingerprint: Option<Fingerprint>,
    /// The secrets the steps an atlas holds may read (an atlas is anyone's to edit: a name
    /// it lists itself is not enough).
    #[serde(default)]
    pub(crate) secrets: Vec<String>,
    /// The origins those steps may open besides the atlas's own.
    #[serde(default)]
    pub(crate) origins: Vec<String>,
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
    /// Which flows keep a trace (`--trace`).
    pub(crate) trace: Option<super::trace_mode::TraceMode>,
    #[serde(default)]
    pub(crate) reports: Vec<String>,
    #[serde(default)]
    pub(crate) profiles: Vec<String>,
    #[serde(default)]
    pub(crate) vars: IndexMap<String, Value>,
    pub(crate) browser: Option<ProjectBrowser>,
    pub(crate) atlas: Option<ProjectAtlas>,
    /// Run-level servers (`[[web_server]]`), each with a unique `name`.
    #[serde(default)]
    pub(crate) web_server: Vec<super::model::WebServer>,
}

/// A project file found, with the directory its paths are relative to.
#[derive(Debug, Clone)]
pub(crate) struct Project {
    pub(crate) dir: PathBuf,
    /// The file itself (in `dir`): what the run names as the one it uses.
    pub(crate) path: PathBuf,
    pub(crate) file: ProjectFile,
    /// The file as read: run-time errors in its `[[web_server]]` templates point into it.
    pub(crate) doc: std::sync::Arc<document::Document>,
}

/// The run-level servers of a project file (or of `--web-server`), with what their paths and
/// errors need.
#[derive(Debug, Clone)]
pub(crate) struct ServersSpec {
    pub(crate) servers: Vec<super::model::WebServer>,
    /// The project file's directory: `cwd` and `static` are relative to it.
    pub(crate) dir: PathBuf,
    /// The file as read (for `--web-server`, the options as if a file said them).
    pub(crate) doc: std::sync::Arc<document::Document>,
    pub(crate) origin: Origin,
}

/// Where the run's servers were written: what their errors name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    /// `[[web_server]]` of the project file.
    File,
    /// The options `--web-server`, `--web-server-url`, `--web-server-port`.
    Flags,
}

impl ServersSpec {
    /// The servers' names (what `web_server.<name>` may read).
    pub(crate) fn names(&self) -> Vec<String> {
        self.servers
            .iter()
            .map(super::model::WebServer::name_or_default)
            .collect()
    }
}

impl Project {
    /// Its `[[web_server]]`s, when it has any.
    pub(crate) fn servers(&self) -> Option<ServersSpec> {
        (!self.file.web_server.is_empty()).then(|| ServersSpec {
            servers: self.file.web_server.clone(),
            dir: self.dir.clone(),
            doc: self.doc.clone(),
            origin: Origin::File,
        })
    }

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

/// The nearest project file at or above `start`, up to the repository's root (the directory
/// holding `.git`: a folder, or a file in a worktree or a submodule); `None` when there is none.
/// A file above the repository is another project's, or anyone's (`/tmp/runner.toml`): as Git
/// stops its own search at a repository, this one stops there. The file found must be the
/// user's own (see [`crate::fs::distrust`]): another's is refused, not skipped, so the run
/// does not go on with other settings than the user thinks.
pub(crate) fn find(start: &Path) -> Result<Option<Project>, Vec<Diagnostic>> {
    let here = std::fs::metadata(start).ok().map(|m| m.uid());
    for dir in start.ancestors() {
        for name in NAMES {
            let path = dir.join(name);
            if path.is_file() {
                return load_owned(&path, here).map(Some);
            }
            // Something else by that name (a folder, a FIFO, a device, a broken link) is not
            // passed over for the one above: the run would go on with other settings.
            if let Ok(meta) = std::fs::symlink_metadata(&path) {
                let what = match meta.file_type() {
                    t if t.is_dir() => "a directory",
                    t if t.is_symlink() => "a symbolic link to nothing runner can read",
                    _ => "not a regular file",
                };
                let shown = path.display().to_string();
                return Err(vec![
                    Diagnostic::file_error(
                        &shown,
                        format!("runner does not use this project file: it is {what}"),
                    )
                    .with_help(format!(
                        "runner takes the nearest project file at or above the working directory: remove {shown} or make it a file"
                    )),
                ]);
            }
        }
        if is_repository_root(dir) {
            break;
        }
    }
    Ok(None)
}

/// Whether `dir` is a repository's root: it holds `.git` (a folder, or a file in a worktree or
/// a submodule).
pub(crate) fn is_repository_root(dir: &Path) -> bool {
    dir.join(".git").symlink_metadata().is_ok()
}

/// Reads and checks a project file, refusing one that is not the user's own.
#[cfg(test)]
pub(crate) fn load(path: &Path) -> Result<Project, Vec<Diagnostic>> {
    load_owned(path, None)
}

/// Reads and checks a project file, refusing one that is neither the user's own nor owned by
/// `also` (the working directory's owner).
fn load_owned(path: &Path, also: Option<u32>) -> Result<Project, Vec<Diagnostic>> {
    let name = path.display().to_string();
    let mut why = None;
    let read = crate::fs::read_regular_if(path, document::MAX_FILE_SIZE, |meta| {
        why = crate::fs::distrust(meta, also);
        why.is_none()
    });
    if let Some(why) = why {
        return Err(vec![
            Diagnostic::file_error(
                &name,
                format!("runner does not use this project file: {why}"),
            )
            .with_help(why.help(
                &name,
                "runner takes the nearest project file at or above the working directory, up to the folder holding `.git`",
            )),
        ]);
    }
    let bytes = read.map_err(|e| {
        vec![Diagnostic::file_error(
            &name,
            format!("cannot read the file: {e}"),
        )]
    })?;
    let format = document::Format::of(path).unwrap_or(document::Format::Toml);
    let doc = document::parse_bytes(path, bytes, format)?;
    let dir = path.parent().map_or_else(PathBuf::new, Path::to_path_buf);
    checked(doc, dir)
}

/// A project file's document, checked against the schema and the rules the schema cannot say,
/// every problem at once: those of the parts the schema refused are left out, the rest are
/// reported with the schema's (as a flow's are).
pub(super) fn checked(doc: document::Document, dir: PathBuf) -> Result<Project, Vec<Diagnostic>> {
    let mut problems = schema::validate(SchemaKind::Config, &doc.file, &doc.value, &doc.spans);
    let bad: Vec<String> = problems
        .iter()
        .map(|d| d.pointer.clone())
        .filter(|p| !p.is_empty())
        .collect();
    let mut more = check_fields(&doc);
    more.extend(check_servers(&doc, &dir, &bad));
    problems.extend(
        more.into_iter()
            .filter(|d| !bad.iter().any(|b| within(&d.pointer, b))),
    );
    let problems = crate::source::sorted_unique(problems);
    if !problems.is_empty() {
        return Err(problems);
    }
    let file: ProjectFile = serde_json::from_value(doc.value.clone()).map_err(|e| {
        vec![Diagnostic::error(
            &doc.file,
            0..0,
            format!("invalid project file: {e}"),
        )]
    })?;
    // Relative to where runner runs when the file is below it (paths stay short in output).
    let dir = std::env::current_dir()
        .ok()
        .and_then(|cwd| dir.strip_prefix(&cwd).ok().map(Path::to_path_buf))
        .unwrap_or(dir);
    let path = dir.join(Path::new(doc.file.name()).file_name().unwrap_or_default());
    Ok(Project {
        dir,
        path,
        file,
        doc: std::sync::Arc::new(doc),
    })
}

/// Whether the node at `pointer` is the node at `of` or inside it.
fn within(pointer: &str, of: &str) -> bool {
    pointer
        .strip_prefix(of)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// The rules of the file's own keys the schema cannot say, as a flow's: durations that parse
/// (more than zero, at most 7 days), and templates only in `[[web_server]]`, where they render —
/// its vars, browser settings, paths and reports are used as written.
fn check_fields(doc: &document::Document) -> Vec<Diagnostic> {
    let mut out: Vec<Diagnostic> = ["/timeout", "/browser/timeout"]
        .iter()
        .filter_map(|p| super::duration::problem_at(&doc.file, &doc.spans, &doc.value, p))
        .collect();
    for (key, v) in doc.value.as_object().into_iter().flatten() {
        if key != "web_server" {
            let help = "runner.toml renders templates only in `[[web_server]]`: write the value itself, or put the template in a flow";
            let ptr = crate::source::pointer_push("", key);
            super::literal::refuse_all(&doc.file, &doc.spans, &ptr, v, help, &mut out);
        }
    }
    super::literal::refuse_keys(&doc.file, &doc.spans, "", &doc.value, &mut out);
    super::headers::problems(
        &doc.file,
        &doc.spans,
        &doc.value,
        "/browser/headers",
        &mut out,
    );
    super::browser_values::problems(&doc.file, &doc.spans, &doc.value, "/browser", &mut out);
    super::check::wide_literals(&doc.file, &doc.spans, &doc.value, &mut out);
    out
}

/// The rules of `[[web_server]]` the schema cannot say, as a flow's `web_server`: one form each
/// (of a server the schema refused nothing of), unique names, durations that parse, templates
/// that parse and read only what a run-level server has (`env`, `run`, `web_server.port` and
/// `web_server.url`), and a `static` folder that is there (relative to `dir`, the file's).
fn check_servers(doc: &document::Document, dir: &Path, bad: &[String]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let items = doc.value.get("web_server").and_then(Value::as_array);
    for (i, item) in items.into_iter().flatten().enumerate() {
        let ptr = format!("/web_server/{i}");
        let whole = !bad.iter().any(|b| within(b, &ptr));
        if let Some(e) = serde_json::from_value::<WebServer>(item.clone())
            .ok()
            .filter(|_| whole)
            .and_then(|ws| ws.check().err())
        {
            out.push(schema::at_value(&doc.file, &doc.spans, &ptr, e));
        }
        if let Some(name) = item.get("name").and_then(Value::as_str)
            && !seen.insert(name)
        {
            out.push(schema::at_value(
                &doc.file,
                &doc.spans,
                &format!("{ptr}/name"),
                format!("two `[[web_server]]` are named `{name}`: names must be unique"),
            ));
        }
        for key in ["ready_timeout", "stop_timeout"] {
            let p = format!("{ptr}/{key}");
            out.extend(super::duration::problem_at(
                &doc.file, &doc.spans, &doc.value, &p,
            ));
        }
        super::check::server_templates(&doc.file, &doc.spans, &ptr, item, &mut out);
        super::check::server_urls(&doc.file, &doc.spans, &doc.value, &ptr, &mut out);
        out.extend(static_dir(doc, dir, &ptr));
    }
    out
}

/// A `static` folder written as a path (not a template) that is not there.
fn static_dir(doc: &document::Document, dir: &Path, ptr: &str) -> Option<Diagnostic> {
    let at = format!("{ptr}/static");
    let folder = doc.value.pointer(&at).and_then(Value::as_str)?;
    if crate::template::is_template(folder) || dir.join(folder).is_dir() {
        return None;
    }
    let file = Path::new(doc.file.name())
        .file_name()
        .map_or_else(|| "the project file".into(), |n| n.to_string_lossy());
    Some(
        schema::at_value(
            &doc.file,
            &doc.spans,
            &at,
            format!("web_server.static: no directory `{folder}`"),
        )
        .with_help(format!("the path is relative to {file}'s directory")),
    )
}
