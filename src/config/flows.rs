//! Loading flow files with everything they pull in: schema, typed model, the tests a file makes
//! (see `suite`), semantic checks of each, and the sub-flows of `run_flow` steps (loaded once
//! each, cycles reported).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use indexmap::IndexMap;
use serde_json::Value;

use super::check::{Ctx, check_flow};
use super::document::{self, Document};
use super::model::{Action, Flow, RunFlow, RunFlowOptions, check_file};
use super::partial::partial_file;
use super::schema::{self, SchemaKind, at_key, at_value};
use super::suite::{self, TestDoc};
use crate::config::profiles::Registry;
use crate::source::{Diagnostic, sorted_unique};
use crate::template::{Templates, is_template};

/// A flow that passed every check: one test (a one-flow file, or one flow of a suite and one
/// combination of its matrix, see `suite`).
#[derive(Debug)]
pub(crate) struct LoadedFlow {
    /// Its document: the file's, or the one made for it from a suite or a matrix (whose span
    /// map points into the file).
    pub(crate) doc: Document,
    pub(crate) flow: Flow,
    /// The flow file's absolute path.
    pub(crate) path: PathBuf,
    /// Its directory (relative paths in the flow resolve against it).
    pub(crate) dir: PathBuf,
    /// Sub-flows of `run_flow` steps with literal paths, by the path as written.
    pub(crate) subflows: HashMap<String, Arc<LoadedFlow>>,
    /// Its matrix values: vars that `--var` does not override (they are in its name).
    pub(crate) matrix: IndexMap<String, Value>,
    /// Its place among the tests of its file (0 in a one-flow file).
    pub(crate) ordinal: usize,
}

/// A file that passed every check: its tests.
#[derive(Debug)]
pub(crate) struct LoadedFile {
    pub(crate) tests: Vec<Arc<LoadedFlow>>,
    /// Whether it is a suite or has a matrix (then it is no `run_flow` sub-flow).
    pub(crate) many: bool,
}

/// Loads flows and their sub-flows, caching each file.
pub(crate) struct Loader<'a> {
    profiles: &'a Registry,
    templates: Templates,
    cache: HashMap<PathBuf, Option<Arc<LoadedFile>>>,
    stack: Vec<PathBuf>,
    extra_vars: Vec<String>,
    /// The run-level servers' names (runner.toml's `[[web_server]]`).
    servers: Vec<String>,
    /// The project file's timeouts: (step, browser), for flows that set none.
    timeouts: (Option<String>, Option<String>),
    /// The project file's `browser` settings.
    browser: Option<super::project::ProjectBrowser>,
    /// Every problem found so far, in all files.
    pub(crate) diagnostics: Vec<Diagnostic>,
}

impl<'a> Loader<'a> {
    /// A loader checking agent steps against `profiles`.
    pub(crate) fn new(profiles: &'a Registry) -> Loader<'a> {
        Loader {
            profiles,
            templates: Templates::new(),
            cache: HashMap::new(),
            stack: Vec::new(),
            extra_vars: Vec::new(),
            servers: Vec::new(),
            timeouts: (None, None),
            browser: None,
            diagnostics: Vec::new(),
        }
    }

    /// Vars given on the command line (`--var`), which templates may read.
    pub(crate) fn with_vars(mut self, names: impl IntoIterator<Item = String>) -> Loader<'a> {
        self.extra_vars = names.into_iter().collect();
        self
    }

    /// The run-level servers' names, which `web_server.<name>.*` may read.
    pub(crate) fn with_servers(mut self, names: impl IntoIterator<Item = String>) -> Loader<'a> {
        self.servers = names.into_iter().collect();
        self
    }

    /// The project file's `browser` settings, defaults of every flow's own `browser:` keys.
    pub(crate) fn with_browser(mut self, b: Option<super::project::ProjectBrowser>) -> Loader<'a> {
        self.browser = b;
        self
    }

    /// Fills the flow's unset `browser:` keys from the project file.
    fn apply_browser(&self, f: &mut Flow) {
        let Some(p) = &self.browser else { return };
        p.fill(f.browser.get_or_insert_with(Default::default));
    }

    /// The project file's default timeouts (a step's attempt, a browser step), for flows whose
    /// `defaults.timeout` / `browser.timeout` are not set.
    pub(crate) fn with_timeouts(
        mut self,
        step: Option<String>,
        browser: Option<String>,
    ) -> Loader<'a> {
        self.timeouts = (step, browser);
        self
    }

    fn apply_timeouts(&self, f: &mut Flow) {
        if let Some(t) = &self.timeouts.0 {
            let d = f.defaults.get_or_insert(super::model::StepDefaults {
                timeout: None,
                retry: None,
            });
            d.timeout.get_or_insert_with(|| t.clone());
        }
        if let Some(t) = &self.timeouts.1 {
            let b = f.browser.get_or_insert_with(Default::default);
            b.timeout.get_or_insert_with(|| t.clone());
        }
    }

    /// The tests of a flow file (empty when it, or a sub-flow, has problems, which are in
    /// `diagnostics`).
    pub(crate) fn load_tests(&mut self, path: &Path) -> Vec<Arc<LoadedFlow>> {
        self.load_file(path)
            .map(|f| f.tests.clone())
            .unwrap_or_default()
    }

    /// Loads a file that holds one flow (an atlas edge, a sub-flow); `None` when it has
    /// problems, which are in `diagnostics`, or holds several tests.
    pub(crate) fn load(&mut self, path: &Path) -> Option<Arc<LoadedFlow>> {
        let file = self.load_file(path)?;
        if file.many {
            self.diagnostics.push(Diagnostic::file_error(
                path.display().to_string(),
                "holds several tests (a suite, or a matrix): only a file of one flow is run on its own here",
            ));
            return None;
        }
        file.tests.first().cloned()
    }

    /// Loads a file and its sub-flows, once.
    fn load_file(&mut self, path: &Path) -> Option<Arc<LoadedFile>> {
        let abs = absolute(path);
        if let Some(hit) = self.cache.get(&abs) {
            return hit.clone();
        }
        self.stack.push(abs.clone());
        let result = self.load_uncached(path, &abs);
        self.stack.pop();
        self.cache.insert(abs, result.clone());
        result
    }

    fn load_uncached(&mut self, path: &Path, abs: &Path) -> Option<Arc<LoadedFile>> {
        let doc = self.read_valid(path)?;
        if let Err(e) = check_file(&doc.value) {
            self.diagnostics.push(disagrees(&doc, &e));
            return None;
        }
        let many = doc.value.get("flows").is_some() || doc.value.get("matrix").is_some();
        let dir = abs
            .parent()
            .map_or_else(|| PathBuf::from("/"), Path::to_path_buf);
        let (tests, mut problems) = suite::tests(&doc);
        let count = tests.len();
        let mut loaded = Vec::new();
        for (ordinal, t) in tests.into_iter().enumerate() {
            let Some(flow) = self.typed(&t.doc) else {
                continue;
            };
            let mut mine = check_flow(&self.ctx(&t.doc, &flow));
            let subflows = self.load_subflows(&t.doc, &flow, &dir, &mut mine);
            problems.extend(mine.into_iter().map(|d| t.origin.in_file(d)));
            loaded.push(Arc::new(LoadedFlow {
                doc: t.doc,
                flow,
                path: abs.to_path_buf(),
                dir: dir.clone(),
                subflows,
                matrix: t.matrix,
                ordinal,
            }));
        }
        if !problems.is_empty() || loaded.len() != count {
            self.diagnostics.extend(sorted_unique(problems));
            return None;
        }
        Some(Arc::new(LoadedFile {
            tests: loaded,
            many,
        }))
    }

    /// What the checks of `flow` (read from `doc`) need.
    fn ctx<'b>(&'b self, doc: &'b Document, flow: &'b Flow) -> Ctx<'b> {
        Ctx {
            file: &doc.file,
            spans: &doc.spans,
            value: &doc.value,
            flow,
            profiles: self.profiles,
            templates: &self.templates,
            extra_vars: &self.extra_vars,
            servers: &self.servers,
        }
    }

    /// The file at `path`, read and valid against the schema; `None` (problems in
    /// `diagnostics`) otherwise.
    fn read_valid(&mut self, path: &Path) -> Option<Document> {
        let doc = match document::read(path) {
            Ok(d) => d,
            Err(d) => {
                self.diagnostics.extend(d);
                return None;
            }
        };
        let mut errors = schema::validate(SchemaKind::Flow, &doc.file, &doc.value, &doc.spans);
        if errors.is_empty() {
            return Some(doc);
        }
        // Report the semantic problems of the parts that are well formed too: all at once.
        if let Some(partial) = partial_file(&doc.value) {
            let bad: Vec<String> = errors.iter().map(|d| d.pointer.clone()).collect();
            let more = self.check_partial(&Document {
                value: partial,
                ..doc.clone()
            });
            errors.extend(more.into_iter().filter(|d| {
                !bad.iter()
                    .any(|b| !b.is_empty() && d.pointer.starts_with(b.as_str()))
            }));
        }
        self.diagnostics.extend(sorted_unique(errors));
        None
    }

    /// The semantic problems of each test of a file cleaned of what the schema refused.
    fn check_partial(&self, doc: &Document) -> Vec<Diagnostic> {
        let (tests, mut out) = suite::tests(doc);
        for t in &tests {
            if let Ok(flow) = serde_json::from_value::<Flow>(t.doc.value.clone()) {
                let found = check_flow(&self.ctx(&t.doc, &flow));
                out.extend(found.into_iter().map(|d| t.origin.in_file(d)));
            }
        }
        out
    }

    /// The typed model of a test the schema accepted, with the project's defaults applied.
    fn typed(&mut self, doc: &Document) -> Option<Flow> {
        match serde_json::from_value::<Flow>(doc.value.clone())
            .map_err(|e| e.to_string())
            .and_then(|f| f.check().map(|()| f))
        {
            Ok(mut f) => {
                self.apply_timeouts(&mut f);
                self.apply_browser(&mut f);
                Some(f)
            }
            Err(e) => {
                self.diagnostics.push(disagrees(doc, &e));
                None
            }
        }
    }

    /// Loads the sub-flow of every `run_flow` step with a literal path (relative to `dir`), by
    /// the path as written; what is wrong with them goes to `problems`.
    fn load_subflows(
        &mut self,
        doc: &Document,
        flow: &Flow,
        dir: &Path,
        problems: &mut Vec<Diagnostic>,
    ) -> HashMap<String, Arc<LoadedFlow>> {
        let mut subflows = HashMap::new();
        // Those inside `each` and `group` steps too.
        for (ptr, step) in flow.pointed_steps() {
            let Action::RunFlow(rf) = &step.action else {
                continue;
            };
            let rel = rf.path();
            if is_template(rel) {
                continue;
            }
            let ptr = if doc.value.pointer(&format!("{ptr}/run_flow/path")).is_some() {
                format!("{ptr}/run_flow/path")
            } else {
                format!("{ptr}/run_flow")
            };
            let at = |message: String, help: &str| {
                at_value(&doc.file, &doc.spans, &ptr, message).with_help(help.to_string())
            };
            let target = dir.join(rel);
            let target_abs = absolute(&target);
            if !target.is_file() {
                // A directory, a FIFO or a device is no flow file (a FIFO would block the read).
                let what = if target.exists() {
                    "is not a regular file"
                } else {
                    "not found"
                };
                problems.push(at(
                    format!("sub-flow `{rel}` {what}"),
                    "the path is relative to the directory of the flow that runs it",
                ));
            } else if let Some(chain) = self.cycle_to(&target_abs) {
                problems.push(at(
                    format!("`run_flow` cycle: {chain}"),
                    "a flow must not run itself, directly or through other flows",
                ));
            } else if let Some(file) = self.load_file(&shown(&target_abs)) {
                match file.tests.first().filter(|_| !file.many) {
                    Some(sub) => {
                        if let RunFlow::Full(o) = rf {
                            problems.extend(undeclared_vars(doc, &ptr, rel, o, &sub.flow));
                        }
                        problems.extend(own_server(doc, &ptr, rel, sub));
                        problems.extend(own_browser(doc, &ptr, rel, sub));
                        subflows.insert(rel.to_string(), sub.clone());
                    }
                    None => problems.push(at(
                        format!("sub-flow `{rel}` holds several tests (a suite, or a matrix)"),
                        "`run_flow` runs a file of one flow: move the steps to share into a file of their own",
                    )),
                }
            } else {
                problems.push(at(
                    format!("sub-flow `{rel}` has errors"),
                    "see the errors reported for that file",
                ));
            }
        }
        subflows
    }

    /// The chain of flows (`a.yaml -> b.yaml -> a.yaml`) when loading `target` now would run a
    /// flow that is being loaded.
    fn cycle_to(&self, target: &Path) -> Option<String> {
        let pos = self.stack.iter().position(|p| *p == target)?;
        let chain: Vec<String> = self.stack[pos..]
            .iter()
            .map(PathBuf::as_path)
            .chain(std::iter::once(target))
            .map(|p| {
                p.file_name()
                    .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
            })
            .collect();
        Some(chain.join(" -> "))
    }
}

/// A path as the user would name it: relative to the working directory when it is inside it.
fn shown(abs: &Path) -> PathBuf {
    std::env::current_dir()
        .ok()
        .and_then(|cwd| abs.strip_prefix(&cwd).ok().map(Path::to_path_buf))
        .unwrap_or_else(|| abs.to_path_buf())
}

/// Vars passed to a sub-flow (`rel`, at `ptr`) must be vars it declares: anything else is a typo.
fn undeclared_vars(
    doc: &Document,
    ptr: &str,
    rel: &str,
    passed: &RunFlowOptions,
    sub: &Flow,
) -> Vec<Diagnostic> {
    let declared: Vec<&str> = sub.vars.keys().map(String::as_str).collect();
    passed
        .vars
        .keys()
        .filter(|k| !sub.vars.contains_key(*k))
        .map(|k| {
            let help = match crate::source::did_you_mean(k, declared.iter().copied()) {
                Some(s) => format!("did you mean `{s}`?"),
                None if declared.is_empty() => {
                    format!("`{rel}` declares no vars: add `{k}` under its `vars:`")
                }
                None => format!("`{rel}` declares: {}", declared.join(", ")),
            };
            let vptr = format!(
                "{}/vars/{}",
                ptr.trim_end_matches("/path"),
                crate::source::pointer_escape(k)
            );
            at_key(
                &doc.file,
                &doc.spans,
                &vptr,
                format!("sub-flow `{rel}` has no var `{k}`"),
            )
            .with_help(help)
        })
        .collect()
}

/// A sub-flow (`rel`, run at `ptr`) that declares a `web_server`: refused, as nothing starts
/// it — a sub-flow runs with its caller's servers (its `web_server.*` are the caller's), and a
/// `run_flow` that passed while the server its steps were written for never started would be
/// a green that is not true.
fn own_server(doc: &Document, ptr: &str, rel: &str, sub: &LoadedFlow) -> Option<Diagnostic> {
    sub.flow.web_server.as_ref()?;
    let declared = at_key(&sub.doc.file, &sub.doc.spans, "/web_server", "").location();
    Some(
        at_value(
            &doc.file,
            &doc.spans,
            ptr,
            format!(
                "sub-flow `{rel}` declares a `web_server` ({declared}), which is not started: a sub-flow runs with its caller's servers"
            ),
        )
        .with_help("declare it in the calling flow or runner.toml"),
    )
}

/// The `browser:` settings a sub-flow (`rel`, run at `ptr`) writes but cannot have: refused
/// each, as nothing applies them — a sub-flow runs in its caller's browser and context, so its
/// `viewport`, `locale`, `headers`, `state`, `dialogs`... would be parsed and ignored, and a
/// `run_flow` that passed on a page seen with the caller's would be a green that is not true.
/// Its `timeout` is its own (its browser steps' timeout, `attempts::browser_timeout`). Read
/// from its file: the project's `[browser]` fills every flow's settings, a sub-flow's too.
fn own_browser(doc: &Document, ptr: &str, rel: &str, sub: &LoadedFlow) -> Vec<Diagnostic> {
    let Some(Value::Object(written)) = sub.doc.value.get("browser") else {
        return Vec::new();
    };
    written
        .keys()
        .filter(|k| *k != "timeout")
        .map(|k| {
            let key = format!("/browser/{}", crate::source::pointer_escape(k));
            let declared = at_key(&sub.doc.file, &sub.doc.spans, &key, "").location();
            at_value(
                &doc.file,
                &doc.spans,
                ptr,
                format!(
                    "sub-flow `{rel}` sets `browser.{k}` ({declared}), which is not applied: a sub-flow runs in its caller's browser"
                ),
            )
            .with_help(
                "set it in the calling flow or runner.toml's [browser]; a sub-flow's own `browser:` may set only `timeout`",
            )
        })
        .collect()
}

/// The typed model refuses what the schema accepted: a bug in runner.
fn disagrees(doc: &Document, e: &str) -> Diagnostic {
    Diagnostic::error(
        &doc.file,
        0..0,
        format!("internal error: the flow model disagrees with the schema: {e}"),
    )
}

/// An absolute, lexically normalized path (symlinks are kept: flows name files as users see them).
pub(crate) fn absolute(path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Loads and checks a flow file held in memory (no sub-flows): every problem, or none. Used by
/// the fuzz target ([`crate::fuzz_check`]), which must reach the same code `validate` runs.
pub(crate) fn check_bytes(path: &Path, bytes: Vec<u8>) -> Vec<Diagnostic> {
    let format = document::Format::of(path).unwrap_or(document::Format::Yaml);
    let doc = match document::parse_bytes(path, bytes, format) {
        Ok(d) => d,
        Err(d) => return d,
    };
    let mut out = schema::validate(SchemaKind::Flow, &doc.file, &doc.value, &doc.spans);
    let value = if out.is_empty() {
        Some(doc.value.clone())
    } else {
        partial_file(&doc.value)
    };
    if let Some(value) = value {
        let registry = Registry::default();
        let doc = Document { value, ..doc };
        let (tests, problems): (Vec<TestDoc>, _) = suite::tests(&doc);
        out.extend(problems);
        for t in &tests {
            if let Ok(flow) = serde_json::from_value::<Flow>(t.doc.value.clone()) {
                let found = check_flow(&Ctx {
                    file: &t.doc.file,
                    spans: &t.doc.spans,
                    value: &t.doc.value,
                    flow: &flow,
                    profiles: &registry,
                    templates: &Templates::new(),
                    extra_vars: &[],
                    servers: &[],
                });
                out.extend(found.into_iter().map(|d| t.origin.in_file(d)));
            }
        }
    }
    out
}
